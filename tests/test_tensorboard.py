"""TensorBoard event files: read without TensorFlow, each framework's run gives the same table as its W&B export.

The event files in tests/tensorboard_events/ were written by a real SummaryWriter (tensorboardX; the TF2 one by its
event writer with TensorProto values) from the runs of tests/hosted_shapes.py (verl, TRL) and tests/test_nemo_rl.py
(NeMo RL), by tests/tensorboard_events/make_events.py; tensorboard's own EventAccumulator read the same scalars from
them as runs.tensorboard does. Every expected number is the run's own, as those files define it.
"""
from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pandas as pd
import pytest

import hosted_shapes as hs
import run_shapes
import test_nemo_rl as nemo
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.faces.cli import main
from tinker_nomics.runs import detect, tensorboard

EVENTS = Path(__file__).resolve().parent / "tensorboard_events"


def event_file(name: str) -> Path:
    """The run's event file of metrics (not the one add_hparams writes in a folder below it)."""
    (path,) = [p for p in tensorboard.event_files(EVENTS / name) if "_hparams_" not in p.read_bytes().decode(
        "latin-1")]
    return path


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def same_steps(a: pd.DataFrame, b: pd.DataFrame) -> None:
    columns = [c for c in a.columns if c != "line"]
    pd.testing.assert_frame_equal(a[columns].reset_index(drop=True), b[columns].reset_index(drop=True),
                                  check_dtype=False, rtol=1e-6)


def test_crc32c_is_the_castagnoli_checksum():
    assert tensorboard.crc32c(b"123456789") == 0xE3069283      # the CRC-32C check value (RFC 3720, B.4)


def test_a_verl_tensorboard_log_reads_as_its_wandb_export(tmp_path):
    found = detect.detect(EVENTS / "verl")                     # the folder TensorBoard writes into, file below it
    assert (found.framework, found.shape) == ("verl", "tensorboard")
    from_events = detect.read_hosted(EVENTS / "verl", found)
    wandb = hs.write_table(tmp_path / "verl.csv", hs.verl_wandb_rows("2026"))
    same_steps(from_events.steps, detect.read_hosted(wandb).steps)
    assert from_events.steps["generation_seconds"].mean() == pytest.approx(15.75)   # hosted_shapes' table


def test_a_nemo_rl_tensorboard_log_reads_as_its_wandb_export_and_skips_the_gpu_monitor(tmp_path):
    """The GPU monitor logs `ray/...` at a step that counts seconds: not a training step, not read."""
    from_events = detect.read_hosted(EVENTS / "nemo_rl")
    assert from_events.framework == "NeMo RL" and list(from_events.steps["step"]) == [1, 2, 3, 4]
    wandb = nemo.write(tmp_path / "nemo.csv", nemo.nemo_rows())
    same_steps(from_events.steps, detect.read_hosted(wandb).steps)
    assert not any(k.startswith("ray/") for k in from_events.keys)


def test_a_trl_tensorboard_log_reads_as_its_wandb_export(tmp_path):
    facts = {"prompts_per_step": 4.0, "group_size": 8.0}
    from_events = detect.read_hosted(EVENTS / "trl", facts=facts)
    wandb = hs.write_table(tmp_path / "trl.csv", hs.trl_wandb_rows())
    same_steps(from_events.steps, detect.read_hosted(wandb, facts=facts).steps)
    assert from_events.steps["response_tokens"].sum() == 50_400               # hosted_shapes' TRL table


def test_a_skyrl_tensorboard_log_reads_as_its_wandb_export(tmp_path):
    """skyrl_train/utils/tracking.py's _TensorboardAdapter: add_scalar(key, value, step) for every key SkyRL's
    tracker logs (the run of tests/test_skyrl.py), into tensorboard_log/."""
    import test_skyrl as sky
    found = detect.detect(EVENTS / "skyrl")
    assert (found.framework, found.shape) == ("SkyRL", "tensorboard")
    batch = {"prompts_per_step": float(sky.PROMPTS), "group_size": float(sky.GROUP)}
    from_events = detect.read_hosted(EVENTS / "skyrl", found, facts=batch)
    export = hs.write_table(tmp_path / "skyrl.csv", sky.rows(), "csv")
    same_steps(from_events.steps, detect.read_hosted(export, facts=batch).steps)
    assert from_events.steps["training_seconds"].mean() == pytest.approx(12.75)   # test_skyrl's table
    assert from_events.steps["response_tokens"].notna().all()                   # generate/avg_num_tokens read


def test_tf2_tensor_scalars_read_like_simple_values():
    rows = {r["_step"]: r for _, r in tensorboard.records(event_file("tf2"), "tf2", ("timing/", "train/"), [])}
    for expected in nemo.nemo_rows()[1:3]:
        got = rows[expected["_step"]]
        assert got["timing/train/total_step_time"] == pytest.approx(expected["timing/train/total_step_time"])
        assert got["train/mean_gen_tokens_per_sample"] == pytest.approx(expected["train/mean_gen_tokens_per_sample"])


def test_validate_reads_an_event_file_end_to_end():
    code, out, err = run("validate", event_file("nemo_rl"), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", 8)
    assert code == 0, err
    assert "NeMo RL TensorBoard events" in out and "refit" in out


def test_a_cut_last_record_reads_the_steps_before_it_with_a_note(tmp_path):
    whole = event_file("verl").read_bytes()
    cut = tmp_path / "events.out.tfevents.1.cut"
    cut.write_bytes(whole[:-7])
    hosted = detect.read_hosted(cut)
    assert list(hosted.steps["step"]) == [1, 2, 3, 4]             # only a last tag of step 4 is lost
    assert any("cut record" in n for n in hosted.notes)


def test_a_corrupt_event_file_is_one_line_naming_where(tmp_path):
    data = bytearray(event_file("verl").read_bytes())
    data[200:208] = b"\xff" * 8                                   # garbles a record's header or body
    bad = tmp_path / "events.out.tfevents.2.bad"
    bad.write_bytes(bytes(data))
    code, out, err = run("validate", bad, "--gpu", "H100 SXM", "--num-gpus", 8, "--model", "Qwen3-8B")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "byte" in err and str(bad) in err


def test_a_folder_of_several_event_files_names_them(tmp_path):
    for name in ("verl", "nemo_rl"):
        shutil.copytree(EVENTS / name, tmp_path / name)
    with pytest.raises(TinkerNomicsError, match="holds 2 TensorBoard event files"):
        detect.detect(tmp_path)


def test_reading_an_event_file_leaves_it_untouched(tmp_path):
    copy = tmp_path / "events.out.tfevents.3.host"
    shutil.copy(event_file("nemo_rl"), copy)
    before = (copy.read_bytes(), copy.stat().st_mtime_ns)
    link = tmp_path / "events.out.tfevents.4.link"            # read through a symlink too
    link.symlink_to(copy)
    for path in (copy, link):
        assert detect.read_hosted(path).framework == "NeMo RL"
    assert (copy.read_bytes(), copy.stat().st_mtime_ns) == before


def test_a_trl_run_says_it_times_no_phases():
    """TRL logs one step timer: the summary says so (it printed 'on the 0 that time both phases step n/a = …')."""
    code, out, err = run("validate", EVENTS / "trl", "--prompts-per-step", 4, "--group-size", 8, "--num-gpus", 2,
                         "--gpu", "H100 SXM", "--model", "Qwen3-8B")
    assert code == 0, err
    assert "step 42.00 s (mean of 6 steps); the log does not time generation and the actor update apart" in out
    assert "on the 0" not in out


def test_a_nemo_rl_tensorboard_folder_gives_its_model_gpus_and_batch_from_its_hyperparameters():
    """NeMo RL's Logger.log_hyperparams hands the flattened config to add_hparams, which writes it to an event file
    of its own below the run's: the folder is still one run, and the model (policy.model_name), the GPUs
    (cluster.gpus_per_node × num_nodes: 8 × 1) and the batch (32 prompts × 16) come from it, each said where."""
    hparams_file = next(p for p in tensorboard.event_files(EVENTS / "nemo_rl") if p != event_file("nemo_rl"))
    assert tensorboard.hparams(hparams_file, str(hparams_file))["grpo.num_prompts_per_step"] == 32
    hosted = detect.read_hosted(EVENTS / "nemo_rl")
    assert hosted.model == "Qwen/Qwen3-8B" and hosted.config["num_gpus"] == nemo.GPUS
    assert hosted.config["samples_per_step"] == nemo.SAMPLES and list(hosted.steps["samples"]) == [nemo.SAMPLES] * 4
    assert "cluster.gpus_per_node" in hosted.config_sources["num_gpus"]
    code, out, err = run("validate", EVENTS / "nemo_rl", "--gpu", "H100 SXM")    # no --model, no --num-gpus
    assert code == 0, err
    assert "Qwen/Qwen3-8B · 8 × H100 SXM" in out


def test_a_run_resumed_into_a_second_event_file_reads_both_in_step_order(tmp_path):
    """A resumed run writes a new event file into the same log folder: both are read, in the order of their first
    step, as one run (here the verl run cut in two at step 3: the first file keeps steps 1-2, the second holds
    steps 3-4; records were split at an event boundary of the real file)."""
    whole = event_file("verl").read_bytes()
    offsets, i = [], 0
    while i < len(whole):                                        # the TFRecord frames of the file
        offsets.append(i)
        i += 16 + int.from_bytes(whole[i:i + 8], "little")
    steps = [r["_step"] for _, r in tensorboard.records(event_file("verl"), "verl", ("timing_s/",), [])]
    assert steps == [1, 2, 3, 4]
    split = next(o for o in offsets if _step_at(whole, o) == 3)   # the first event of step 3
    folder = tmp_path / "run_a"
    folder.mkdir()
    (folder / "events.out.tfevents.2.host").write_bytes(whole[:16 + int.from_bytes(whole[:8], "little")]
                                                         + whole[split:])  # file_version header, steps 3-4
    (folder / "events.out.tfevents.1.host").write_bytes(whole[:split])  # steps 1-2
    hosted = detect.read_hosted(tmp_path)
    assert list(hosted.steps["step"]) == [1, 2, 3, 4]
    same_steps(hosted.steps, detect.read_hosted(event_file("verl")).steps)
    assert any("read one after the other" in n for n in hosted.notes)


def _step_at(data: bytes, offset: int) -> int:
    """The step of the Event record at `offset` (0 when the record has none)."""
    length = int.from_bytes(data[offset:offset + 8], "little")
    step, _ = tensorboard._scalars(data[offset + 12:offset + 12 + length], lambda tag: True)
    return step
