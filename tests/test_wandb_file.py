"""W&B's run file (`run-<id>.wandb`) read offline: detected, read by each framework's reader, its config and GPUs used.

Two files in tests/wandb_runs/ were written by the real W&B SDK (wandb 0.31, offline, its Go core writing the file;
tests/wandb_runs/make_wandb_runs.py): the verl run of tests/hosted_shapes.py and the OpenRLHF run of
tests/test_openrlhf.py, so every expected number is those modules' (their docstrings give the arithmetic). The
damaged, long and typed cases are written here the way wandb/sdk/internal/datastore.py writes (the header, LevelDB's
log chunks in 32 KiB blocks, zlib CRC-32 seeded with the chunk type) with the Record fields of
wandb/proto/wandb_internal.proto.
"""
from __future__ import annotations

import json
import os
import shutil
import struct
import zlib
from pathlib import Path

import pytest

import hosted_shapes as hs
import test_openrlhf as orl
from test_nemo_rl import run as cli
from tinker_nomics.runs import detect, verl, wandb_file

HERE = Path(__file__).resolve().parent / "wandb_runs"


# ------------------------------------------------------------------------------------------ a writer, by the spec

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes | int, wire: int = 2) -> bytes:
    key = _varint(number << 3 | wire)
    if wire == 0:
        return key + _varint(payload)
    if wire == 1:
        return key + payload
    return key + _varint(len(payload)) + payload


def item(name: str, value=None, *, number: float | None = None, integer: int | None = None) -> bytes:
    """A HistoryItem / ConfigItem: nested_key (as wandb-core writes it), then value_json or a typed value."""
    out = _field(2, name.encode())
    if number is not None:
        return out + _field(6, struct.pack("<d", number), wire=1)
    if integer is not None:
        return out + _field(5, (integer << 1) ^ (integer >> 63), wire=0)
    return out + _field(16, json.dumps(value).encode())


def history(step: int, values: dict, *extra: bytes) -> bytes:
    items = b"".join(_field(1, item(k, v)) for k, v in values.items()) + b"".join(_field(1, e) for e in extra)
    return _field(2, items + _field(2, _field(1, step, wire=0)))


def config(values: dict) -> bytes:
    return _field(5, b"".join(_field(1, item(k, v)) for k, v in values.items()))


def environment(gpu_type: str, count: int, names: list[str], amd_series: list[str] = ()) -> bytes:
    body = _field(18, gpu_type.encode()) + _field(19, count, wire=0)
    body += b"".join(_field(24, _field(1, n.encode())) for n in names)
    # GpuAmdInfo: id 1, series 8
    body += b"".join(_field(26, _field(1, b"0") + _field(8, n.encode())) for n in amd_series)
    return _field(26, body)


def write_file(path: Path, records: list[bytes]) -> Path:
    """datastore.py's _write_data: a record that does not fit the block's rest is split FIRST/MIDDLE/LAST."""
    out = bytearray(wandb_file.HEADER)

    def chunk(data: bytes, kind: int) -> None:
        out.extend(struct.pack("<IHB", zlib.crc32(data, zlib.crc32(bytes([kind]))), len(data), kind) + data)

    for rec in records:
        left = wandb_file.BLOCK - len(out) % wandb_file.BLOCK
        if left < 7:
            out.extend(b"\0" * left)
            left = wandb_file.BLOCK
        if len(rec) + 7 <= left:
            chunk(rec, wandb_file.FULL)
            continue
        room = left - 7
        chunk(rec[:room], wandb_file.FIRST)
        rest = rec[room:]
        while len(rest) > wandb_file.BLOCK - 7:
            chunk(rest[:wandb_file.BLOCK - 7], wandb_file.MIDDLE)
            rest = rest[wandb_file.BLOCK - 7:]
        chunk(rest, wandb_file.LAST)
    path.write_bytes(bytes(out))
    return path


def verl_records() -> list[bytes]:
    """The verl run of hosted_shapes as history records, after its config."""
    recs = [config(hs.CONFIG)]
    for row in hs.verl_wandb_rows("2026"):
        recs.append(history(row["_step"], {k: v for k, v in row.items() if not k.startswith("_")}))
    return recs


def check_verl(t) -> None:
    """hosted_shapes' docstring: steps 1-4, Σ step 127.5 s (2026 shape), 53,168 generated tokens, 14,176 prompt."""
    assert list(t["step"]) == [1, 2, 3, 4]
    assert float(t["step_seconds"].sum()) == pytest.approx(127.5)
    assert float(t["response_tokens"].sum()) == pytest.approx(hs.VERL_EXPECTED["generated_tokens"])
    assert float(t["prompt_tokens"].sum()) == pytest.approx(hs.VERL_EXPECTED["prompt_tokens"])


# ------------------------------------------------------------------------------------------ real files

def test_a_verl_run_file_written_by_wandb_reads_as_its_export_with_its_config():
    path = HERE / "verl" / "run.wandb"
    found = detect.detect(path)
    assert (found.framework, found.side, found.shape) == (verl.FRAMEWORK, detect.SELF_HOSTED, "wandb-file")
    run = detect.read_hosted(path, found)
    check_verl(run.steps)
    assert run.model == hs.VERL_MODEL and run.config["num_gpus"] == 8   # 4 per node × 2 nodes, the config's
    assert run.config["samples_per_step"] == hs.SAMPLES


def test_a_run_folder_is_read_through_its_run_file(tmp_path):
    folder = tmp_path / "run-20261204_101010-abc123"
    (folder / "files").mkdir(parents=True)
    shutil.copyfile(HERE / "verl" / "run.wandb", folder / "run-abc123.wandb")
    (folder / "files" / "wandb-metadata.json").write_text(json.dumps({"gpu": "NVIDIA H100 80GB HBM3"}))
    found = detect.detect(folder)
    assert found.framework == verl.FRAMEWORK and found.file == folder / "run-abc123.wandb"
    run = detect.read_hosted(folder)
    check_verl(run.steps)
    assert run.config["gpu"] == "H100 SXM"            # files/wandb-metadata.json of the run folder
    code, out, err = cli("validate", str(folder), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["gpu"], data["num_gpus"], data["framework"]) == ("H100 SXM", 8, "verl")


def test_an_openrlhf_run_file_takes_its_launch_arguments_from_the_wandb_config():
    run = detect.read_hosted(HERE / "openrlhf" / "run.wandb")
    orl.check_steps(run.steps)
    c = run.config
    assert run.model == "Qwen/Qwen3-8B" and c["num_gpus"] == orl.GPUS and c["samples_per_step"] == orl.SAMPLES
    assert "W&B config" in run.config_sources["num_gpus"]


# ------------------------------------------------------------------------------------------ written here

def test_a_record_across_blocks_and_typed_values_and_the_environment_s_gpus(tmp_path):
    long_text = "x" * (3 * wandb_file.BLOCK)     # a history record over three blocks: FIRST, MIDDLE, LAST
    recs = verl_records()
    recs.insert(1, environment("NVIDIA H100 80GB HBM3", 8, ["NVIDIA H100 80GB HBM3"] * 8))
    recs.insert(3, history(0, {"samples/table": long_text}))
    recs.append(history(5, {}, item("timing_s/step", number=31.5), item("timing_s/gen", integer=16),
                        item("timing_s/update_actor", number=9.0), item("response_length/mean", number=400.0),
                        item("prompt_length/mean", number=110.0)))
    path = write_file(tmp_path / "run-x.wandb", recs)
    rows = [r for _, r in wandb_file.history(path, str(path), [])]
    assert rows[1]["samples/table"] == long_text
    assert (rows[-1]["timing_s/step"], rows[-1]["timing_s/gen"], rows[-1]["_step"]) == (31.5, 16, 5)
    run = detect.read_hosted(path)
    assert list(run.steps["step"]) == [1, 2, 3, 4, 5] and run.config["gpu"] == "H100 SXM"
    assert "environment record" in run.config_sources["gpu"]


def test_an_amd_host_s_environment_record_names_its_gpu_by_series(tmp_path):
    recs = verl_records()
    recs.insert(1, environment("", 8, [], ["AMD Instinct MI300X"] * 8))
    run = detect.read_hosted(write_file(tmp_path / "run-x.wandb", recs))
    assert run.config["gpu"] == "MI300X" and "environment record" in run.config_sources["gpu"]


def test_a_file_cut_inside_a_record_reads_what_came_before_with_a_note(tmp_path):
    whole = write_file(tmp_path / "whole.wandb", verl_records()).read_bytes()
    cut = tmp_path / "cut.wandb"
    cut.write_bytes(whole[:-20])
    run = detect.read_hosted(cut)
    assert list(run.steps["step"]) == [1, 2, 3]
    assert any("ends inside a record" in n for n in run.notes)


def test_a_damaged_chunk_is_one_line_naming_its_byte(tmp_path):
    data = bytearray(write_file(tmp_path / "ok.wandb", verl_records()).read_bytes())
    data[200] ^= 0xFF
    bad = tmp_path / "bad.wandb"
    bad.write_bytes(bytes(data))
    code, out, err = cli("validate", str(bad), "--gpu", "H100 SXM")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "fails its checksum" in err and "byte" in err


def test_a_tinker_run_s_wandb_file_is_read_on_the_tinker_side(tmp_path):
    """tinker-cookbook logs to W&B too: its run file is billed as its metrics.jsonl would be (tests/test_runs.py
    checks the sums); here, that `validate` sends it to the Tinker side."""
    found = detect.detect(write_file(tmp_path / "run.wandb", [history(1, {"env/all/total_ac_tokens": 1000,
                                                                           "progress/batch": 1})]))
    assert found.side == detect.TINKER and found.shape == "wandb-file"


def test_reading_never_changes_the_file(tmp_path):
    path = tmp_path / "run.wandb"
    shutil.copyfile(HERE / "verl" / "run.wandb", path)
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    detect.read_hosted(path)
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


def test_a_trl_run_file_names_its_model_and_group_from_the_callback_s_config():
    """transformers' WandbCallback logs the model's config with the training arguments: `_name_or_path` and
    `num_generations` (8: hosted_shapes' TRL run, 4 prompts × 8 completions)."""
    run = detect.read_hosted(HERE / "trl" / "run.wandb")
    assert run.framework == "TRL" and run.model == "Qwen/Qwen3-8B" and run.config["group_size"] == 8
    assert run.n_steps == hs.TRL_EXPECTED["steps"]
    t = run.steps   # a row per logged window of 2 steps
    assert float((t["step_seconds"] * t["steps_covered"]).sum()) == pytest.approx(hs.TRL_EXPECTED["step_seconds_total"])


def test_a_nemo_rl_run_file_takes_the_master_config_nested_or_flat(tmp_path):
    """NeMo RL's WandbLogger hands its master config to run.config.update: the model, the 8 GPUs and the 512 samples
    (32 prompts × 16) of test_nemo_rl's console test come out of it, whether W&B kept the dict nested or flat."""
    import test_nemo_rl as nemo
    master = {"grpo": {"num_prompts_per_step": 32, "num_generations_per_prompt": 16},
              "policy": {"model_name": "Qwen/Qwen3-8B",
                         "generation": {"vllm_cfg": {"tensor_parallel_size": 2, "enforce_eager": False}}},
              "cluster": {"gpus_per_node": 8, "num_nodes": 1}}
    flat = {"grpo.num_prompts_per_step": 32, "grpo.num_generations_per_prompt": 16,
            "policy.model_name": "Qwen/Qwen3-8B", "cluster.gpus_per_node": 8, "cluster.num_nodes": 1,
            "policy.generation.vllm_cfg.tensor_parallel_size": 2}
    for i, given in enumerate((master, flat)):
        recs = [config(given)] + [history(row["_step"], {k: v for k, v in row.items() if k != "_step"})
                                  for row in nemo.nemo_rows()]
        run = detect.read_hosted(write_file(tmp_path / f"run-{i}.wandb", recs))
        assert run.framework == "NeMo RL" and run.model == "Qwen/Qwen3-8B"
        assert (run.config["num_gpus"], run.config["samples_per_step"], run.config["rollout_tp"]) == (8, 512, 2)


def test_w_and_b_s_folder_of_runs_asks_for_one_run(tmp_path):
    wandb_dir = tmp_path / "wandb"
    for name in ("run-20261201_000000-aaa", "offline-run-20261202_000000-bbb"):
        (wandb_dir / name).mkdir(parents=True)
        shutil.copyfile(HERE / "verl" / "run.wandb", wandb_dir / name / f"run-{name[-3:]}.wandb")
    os.symlink(wandb_dir / "run-20261201_000000-aaa", wandb_dir / "latest-run")
    code, _, err = cli("validate", str(wandb_dir), "--gpu", "H100 SXM")
    assert code == 2 and err.count("\n") == 1
    assert "2 runs" in err and "run-20261201_000000-aaa" in err and "latest-run" in err
    code, out, err = cli("validate", str(wandb_dir / "latest-run"), "--gpu", "H100 SXM")
    assert code == 0, err


def test_a_resumed_run_s_sessions_are_read_one_after_the_other(tmp_path):
    """wandb.init(id=…, resume="allow") after a crash: W&B starts a new folder with the same run id. The run resumed
    from its step-2 checkpoint, so its second session logs steps 3 and 4 again (they ran again: each counts) and then
    5 and 6 (the synthetic steps 3 and 4 renumbered): 8 steps, Σ step = 127.5 + 31.0 + 33.75 + 31.0 + 33.75 s
    (hosted_shapes' 2026 steps 1-4, then 3, 4, 3, 4)."""
    wandb_dir = tmp_path / "wandb"
    rows = hs.verl_wandb_rows("2026")
    later = [r for r in rows if r["_step"] in (3, 4)]
    later += [{**r, "_step": r["_step"] + 2} for r in later]
    for name, session in (("run-20261201_000000-abc", rows), ("run-20261202_080000-abc", later)):
        (wandb_dir / name).mkdir(parents=True)
        recs = [config(hs.CONFIG)] + [history(r["_step"], {k: v for k, v in r.items() if not k.startswith("_")})
                                      for r in session]
        write_file(wandb_dir / name / "run-abc.wandb", recs)
    found = detect.detect(wandb_dir)
    assert found.framework == verl.FRAMEWORK and "2 W&B run folders of one run id" in found.reason
    run = detect.read_hosted(wandb_dir)
    assert list(run.steps["step"]) == [1, 2, 3, 3, 4, 4, 5, 6]
    assert float(run.steps["step_seconds"].sum()) == pytest.approx(127.5 + 2 * (31.0 + 33.75))
    assert any("2 sessions of one W&B run" in n for n in run.notes)
    code, out, err = cli("validate", str(wandb_dir), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["steps"] == 8
    # two different runs in one wandb/ folder are still two runs: one must be chosen
    os.rename(wandb_dir / "run-20261202_080000-abc", wandb_dir / "run-20261202_080000-xyz")
    code, _, err = cli("validate", str(wandb_dir), "--gpu", "H100 SXM")
    assert code == 2 and "2 runs" in err
