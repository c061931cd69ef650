"""Self-hosted runs: the verl and TRL readers in every shape, what the hardware did, the per-phase reconciliation,
the Tinker price of the same tokens, and the three real verl logs read in place.

Expected sums are the hand-computed ones in tests/hosted_shapes.py (the synthetic logs) and the figures in each
real log's SOURCE.md (../shared/realdata/verl_runs/*/SOURCE.md, computed there from the logs by the research
notes' own script).
"""
import math
from pathlib import Path

import numpy as np
import pytest

import hosted_shapes as hs
from conftest import load_tool
from tinker_nomics import TinkerNomicsError
from tinker_nomics.model.rl_step import rl_steps
from tinker_nomics.runs import verl
from tinker_nomics.runs.detect import SELF_HOSTED, TINKER, detect, read_hosted
from tinker_nomics.runs.ledger import check_run
from tinker_nomics.runs.reconcile import run_facts
from tinker_nomics.runs.meters import MeterTokens, bill_meters
from tinker_nomics.sources import get_arch, get_gpu, number

# The real logs live beside the repository (tools/realdata.py says where), never inside it: they carry no licence.
REALDATA = load_tool("realdata").realdata("verl_runs")


def _verl_shapes(tmp: Path) -> dict:
    rows26, rows25 = hs.verl_wandb_rows("2026"), hs.verl_wandb_rows("2025")
    return {
        "console-2025": (hs.write_verl_console(tmp / "c25.log", "2025"), "2025"),
        "console-2025-no-ray": (hs.write_verl_console(tmp / "c25plain.txt", "2025", ray=False), "2025"),
        "console-2026": (hs.write_verl_console(tmp / "c26.log", "2026"), "2026"),
        "file-logger": (hs.write_verl_jsonl(tmp / "verl.jsonl", "2026"), "2026"),
        "file-logger-older": (hs.write_verl_jsonl(tmp / "older.jsonl", "2025", older=True), "2025"),
        "wandb-csv": (hs.write_table(tmp / "h.csv", rows26, "csv"), "2026"),
        "wandb-json": (hs.write_table(tmp / "h.json", rows25, "records"), "2025"),
        "wandb-json-columns": (hs.write_table(tmp / "hc.json", rows26, "columns"), "2026"),
        "wandb-json-split": (hs.write_table(tmp / "hs.json", rows26, "split"), "2026"),
        "wandb-jsonl": (hs.write_table(tmp / "h.jsonl", rows26, "lines"), "2026"),
        "wandb-parquet": (hs.write_table(tmp / "h.parquet", rows26, "parquet"), "2026"),
        "chart-csv": (hs.write_chart_csv(tmp / "chart.csv", {"tiny": rows25}), "2025"),
    }


SHAPES = [
    "console-2025", "console-2025-no-ray", "console-2026", "file-logger", "file-logger-older", "wandb-csv",
    "wandb-json", "wandb-json-columns", "wandb-json-split", "wandb-jsonl", "wandb-parquet", "chart-csv"]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_verl_shape_sums_exactly(tmp_path, shape):
    path, style = _verl_shapes(tmp_path)[shape]
    found = detect(path)
    assert (found.framework, found.side) == ("verl", SELF_HOSTED)
    v = check_run(path, num_gpus=hs.GPUS)
    m = v.measured.totals
    for key, value in {**hs.VERL_EXPECTED, **(hs.VERL_2025 if style == "2025" else hs.VERL_2026)}.items():
        assert m[key] == value, (shape, key, m[key], value)
    assert (m["first_step"], m["last_step"], m["validation_runs"], m["checkpoint_runs"]) == (1, 4, 1, 1)
    assert list(v.run.steps["samples"]) == [hs.SAMPLES] * 4
    # the old-log-prob, reference, reward and advantage phases are kept (a chart panel holds only its charts'
    # metrics); the nested generate_sequences is not
    if shape != "chart-csv":
        assert {"old_log_prob", "ref", "reward", "adv"} <= set(v.run.phase_names)
    assert "generate_sequences" not in v.run.phase_names


def test_console_reads_the_config_dump(tmp_path):
    run = read_hosted(hs.write_verl_console(tmp_path / "c.log", "2025"))
    assert run.model == hs.VERL_MODEL
    assert run.config["num_gpus"] == hs.GPUS and run.config_sources["num_gpus"].startswith("trainer.n_gpus_per_node")
    assert run.config["samples_per_step"] == hs.SAMPLES and run.config["fine_tune"] == "full"
    assert run.kind.endswith("(values to 3 decimals, 2025 verl)")
    newer = read_hosted(hs.write_verl_console(tmp_path / "n.log", "2026"))
    assert newer.kind.endswith("(full-precision values, 2026 verl)")


def test_without_config_samples_come_from_the_token_count(tmp_path):
    """W&B exports carry no config: samples per step = perf/total_num_tokens / (prompt + response mean)."""
    run = read_hosted(hs.write_table(tmp_path / "h.csv", hs.verl_wandb_rows(), "csv"))
    assert list(run.steps["samples"]) == [hs.SAMPLES] * 4
    assert any("derived from the logged token count" in n for n in run.notes)


def test_validation_inside_is_read_off_the_log(tmp_path):
    assert read_hosted(hs.write_verl_console(tmp_path / "a.log", "2025")).validation_inside is True
    assert read_hosted(hs.write_verl_console(tmp_path / "b.log", "2026")).validation_inside is False


def test_downsampled_chart_panel_says_so(tmp_path):
    path = hs.write_chart_csv(tmp_path / "chart.csv", {"tiny": hs.verl_wandb_rows()}, spread=True)
    run = read_hosted(path)
    assert any("downsampled" in n for n in run.notes)


def test_chart_panel_with_two_runs_needs_run(tmp_path):
    path = hs.write_chart_csv(tmp_path / "chart.csv", {"a": hs.verl_wandb_rows(), "b": hs.verl_wandb_rows()})
    with pytest.raises(TinkerNomicsError, match="mixed runs"):
        check_run(path)
    assert check_run(path, run="b", num_gpus=8).measured.totals["steps"] == 4


@pytest.mark.parametrize("bad, needle", [
    ("timing_s/step:abc", "column"),
    ("timing_s/step:-3.000", "negative"),
    ("timing_s/step:nan", "NaN"),
    ("noseparator", "is not key:value"),
])
def test_a_broken_step_line_names_line_and_column(tmp_path, bad, needle):
    path = hs.write_verl_console(tmp_path / "c.log", "2025")
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if "step:3 - " in line)
    lines[index] = lines[index].replace("timing_s/step:31.000", bad)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TinkerNomicsError) as info:
        check_run(path)
    message = str(info.value)
    assert f"line {index + 1}" in message and needle in message and "\n" not in message


# ------------------------------------------------------------------------------------------ TRL


@pytest.mark.parametrize("shape", ["folder", "file", "wandb-csv", "wandb-parquet"])
def test_trl_shapes_sum_exactly(tmp_path, shape):
    folder = hs.write_trainer_state(tmp_path / "out")
    path = {"folder": folder, "file": folder / "checkpoint-6" / "trainer_state.json",
            "wandb-csv": hs.write_table(tmp_path / "trl.csv", hs.trl_wandb_rows(), "csv"),
            "wandb-parquet": hs.write_table(tmp_path / "trl.parquet", hs.trl_wandb_rows(), "parquet")}[shape]
    assert detect(path).framework == "TRL"
    v = check_run(path, prompts_per_step=hs.TRL_PROMPTS, group_size=hs.TRL_GROUP, num_gpus=hs.TRL_GPUS)
    m = v.measured.totals
    for key, value in hs.TRL_EXPECTED.items():
        assert m[key] == pytest.approx(value, rel=1e-12, abs=1e-9), (shape, key)
    assert m["generation_seconds_mean"] != m["generation_seconds_mean"]   # TRL logs no generation time: NaN
    if shape in ("folder", "file"):
        assert v.setup.canonical == "Qwen/Qwen3-8B" and v.setup.sources["model"].endswith("_name_or_path")


def test_trl_without_batch_keeps_time_but_not_the_split(tmp_path):
    v = check_run(hs.write_trainer_state(tmp_path / "out"), num_gpus=2)
    assert v.measured.totals["step_seconds_total"] == hs.TRL_EXPECTED["step_seconds_total"]
    assert v.bill is None and any("--prompts-per-step" in n for n in v.notes)


def test_trl_before_step_time_is_one_row_timed_by_train_runtime(tmp_path):
    v = check_run(hs.write_trainer_state(tmp_path / "old", with_step_time=False), prompts_per_step=4, group_size=8)
    # train_runtime 300 s over global_step 6 (tests/hosted_shapes.py trl_entries)
    assert v.measured.totals["steps"] == 6 and v.measured.totals["step_seconds_total"] == pytest.approx(300.0)
    assert len(v.run.steps) == 1 and any("train_runtime" in n for n in v.run.notes)


def test_trl_needs_both_batch_options(tmp_path):
    with pytest.raises(TinkerNomicsError, match="go together"):
        check_run(hs.write_trainer_state(tmp_path / "out"), prompts_per_step=4)


# ------------------------------------------------------------------------------------------ the model's side


def test_reconciliation_repredicts_each_step_with_the_model(tmp_path):
    """The per-phase prediction is model.rl_step on each step's own counts; the signed error follows the
    accuracy chapter's convention; the fitted efficiencies reproduce the measured phases."""
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025"), gpu="H100 SXM")
    r = v.reconciliation
    facts, includes_refit = run_facts(v.run, v.run.steps)
    common = dict(arch=get_arch(hs.VERL_MODEL), gpu=get_gpu("H100 SXM"), num_gpus=hs.GPUS,
                  samples=np.full(4, float(hs.SAMPLES)), prompt_tokens=np.array(hs.PROMPT),
                  response_tokens=np.array(hs.RESPONSE), method=r.method, fine_tune="full", run_facts=facts)
    hosted = rl_steps(**common)
    step_pred = float(np.mean(hosted.wallclock_hours)) * 3600
    assert r.predicted_mean("step") == pytest.approx(step_pred, rel=1e-12)
    measured = hs.VERL_2025["step_seconds_mean"]
    assert r.row("step")["signed_error"] == pytest.approx((step_pred - measured) / measured, rel=1e-12)
    # the fitted values rescale the model to the measurement: rollout efficiency on generation (which holds the
    # weight hand-off in this verl version), MFU on the update
    f = r.fitted
    again = rl_steps(**common, rollout_efficiency=f["rollout_efficiency"], mfu=f["phase_mfu"])
    generation = (again.rollout_hours + (again.refit_hours if includes_refit else 0.0)) * 3600
    assert float(np.sum(generation)) == pytest.approx(sum(hs.GEN), rel=1e-9)
    assert float(np.sum(again.train_hours)) * 3600 == pytest.approx(sum(hs.UPDATE), rel=1e-9)
    d = v.to_dict()
    for key in ("step_seconds_mean", "generation_seconds_mean", "training_seconds_mean"):
        assert isinstance(d["predicted"][key], float)
    assert d["error"]["step_seconds"] == pytest.approx(
        (d["predicted"]["step_seconds_mean"] - d["measured"]["step_seconds_mean"]) / d["measured"]["step_seconds_mean"])


def test_achieved_throughput_and_mfu_follow_their_definitions(tmp_path):
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025"), gpu="H100 SXM")
    m = v.measured.totals
    assert m["decode_tokens_per_second_per_gpu"] == pytest.approx(53168 / (sum(hs.GEN) * hs.GPUS))
    arch, gpu = get_arch(hs.VERL_MODEL), get_gpu("H100 SXM")
    flops = number("train_flops_per_param_full") * arch.params("exact")[1] * 67344
    assert m["training_mfu"] == pytest.approx(flops / (sum(hs.UPDATE) * hs.GPUS * gpu.peak_flops("exact")))
    assert m["logged_mfu_mean"] == pytest.approx(np.mean(hs.MFU))


def test_tinker_price_of_the_same_tokens(tmp_path):
    """sample = generated, train = prompt + generated, prefill = prompt (the contract's accounting)."""
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025"), prices="2026-01-05")
    expected = bill_meters(MeterTokens.from_counts(53168.0, 14176.0), hs.VERL_MODEL, "2026-01-05")
    assert v.bill.total_usd == expected.total_usd and v.to_dict()["tinker"]["total_usd"] == expected.total_usd
    assert v.to_dict()["tinker"]["tokens"]["train"] == 67344.0


def test_a_retired_model_is_billed_on_its_successor_marked(tmp_path):
    path = hs.write_verl_console(tmp_path / "c.log", "2025")
    v = check_run(path, model="Qwen/Qwen3-4B-Instruct-2507", prices="2026-10-07")
    assert v.successor == "Qwen/Qwen3.5-4B" and v.to_dict()["tinker"]["successor"] is True
    assert "its successor" in v.render()


def test_unknown_gpu_count_and_type_are_said_not_guessed(tmp_path):
    path = hs.write_table(tmp_path / "h.csv", hs.verl_wandb_rows(), "csv")
    v = check_run(path)
    d = v.to_dict()
    assert d["measured"]["gpu_hours"] is None and d["predicted"] is None
    assert any("--num-gpus" in n for n in d["notes"]) and any("--gpu" in n for n in d["notes"])


def test_ran_on_refuses_the_other_side(tmp_path):
    with pytest.raises(TinkerNomicsError, match="ran on self-hosted GPUs"):
        check_run(hs.write_verl_console(tmp_path / "c.log"), ran_on=TINKER)


def test_options_of_the_other_side_are_errors(tmp_path):
    path = hs.write_verl_console(tmp_path / "c.log")
    with pytest.raises(TinkerNomicsError, match="--usage cannot apply"):
        check_run(path, usage=str(path))


# ------------------------------------------------------------------------------------------ real verl logs

REAL = {  # folder: figures from its SOURCE.md ("Figures computed from the log")
    "playverl_qwen2-7b_ppo_8gpu": dict(steps=70, first=1, last=70, step_mean=205.25, step_sum=14367.3,
                                       plain=56, plain_mean=200.03, gen=25.83, update=33.53, tokens=101_054_769,
                                       gpu_hours=31.93, response=188.34, prompt=93.62, validations=14),
    "playverl_qwen2.5-0.5b_grpo_8gpu": dict(steps=435, first=1, last=435, step_mean=8.362, step_sum=3637.6,
                                            plain=406, plain_mean=6.573, gen=5.010, update=1.020, tokens=54_534_427,
                                            gpu_hours=8.08, response=141.22, prompt=103.64, validations=29),
    "dstack_qwen2.5-7b_ppo_16gpu": dict(steps=335, first=101, last=435, step_mean=13.31, step_sum=4459.3,
                                        plain=301, plain_mean=10.69, gen=4.47, update=2.54, tokens=20_052_296,
                                        gpu_hours=19.82, response=130.18, prompt=103.64, validations=34),
}


def _close(value, printed):
    """`printed` is SOURCE.md's figure, rounded to the digits it shows."""
    text = repr(printed)
    digits = len(text.split(".")[1]) if "." in text else 0
    return abs(value - printed) <= 0.5 * 10 ** -digits + 1e-9


@pytest.mark.parametrize("folder", sorted(REAL))
def test_real_verl_logs_match_their_source_figures(folder):
    if not REALDATA.is_dir():
        pytest.skip(f"{REALDATA} is absent: the real verl logs are read in place, never copied into the repository")
    log = next((REALDATA / folder).glob("*.log"))
    before = (log.stat().st_mtime_ns, log.stat().st_size)
    v = check_run(log)
    m, want = v.measured.totals, REAL[folder]
    assert (m["steps"], m["first_step"], m["last_step"]) == (want["steps"], want["first"], want["last"])
    assert m["trained_tokens"] == want["tokens"]
    assert m["plain_steps"] == want["plain"] and m["validation_runs"] == want["validations"]
    for key, figure in (("step_seconds_mean", "step_mean"), ("step_seconds_total", "step_sum"),
                        ("step_seconds_mean_plain", "plain_mean"), ("generation_seconds_mean", "gen"),
                        ("training_seconds_mean", "update"), ("gpu_hours", "gpu_hours")):
        assert _close(m[key], want[figure]), (folder, key, m[key], want[figure])
    steps = v.run.steps
    per_sample = steps["samples"] * steps["steps_covered"]
    assert _close(float((steps["response_tokens"] / per_sample).mean()), want["response"])
    assert _close(float((steps["prompt_tokens"] / per_sample).mean()), want["prompt"])
    assert m["validation_inside_step"] is True   # SOURCE.md: these 2025 logs time validation inside the step
    assert (log.stat().st_mtime_ns, log.stat().st_size) == before


def test_verl_signature_keys_are_its_own():
    assert verl.is_verl_keys({"timing_s/step"}) and not verl.is_verl_keys({"env/all/total_ac_tokens"})


def test_math_is_finite_for_a_one_step_log(tmp_path):
    rows = hs.verl_wandb_rows()[:2]
    v = check_run(hs.write_table(tmp_path / "one.csv", rows, "csv"), num_gpus=8, gpu="H100 SXM")
    assert v.measured.totals["steps"] == 1
    assert all(x is None or math.isfinite(x) for x in v.to_dict()["measured"].values() if isinstance(x, float))


def test_an_architecture_can_be_given_instead_of_the_registry(tmp_path):
    """The hook `--model-config` will use: an architecture record replaces the registry lookup, so a model the
    registry lacks (the real logs' Qwen2.5) can be re-predicted. Here the record is the registry's own Qwen3-8B,
    given for a run whose log names an unknown model; the prediction must equal the one by name."""
    path = hs.write_verl_console(tmp_path / "c.log", "2025")
    text = path.read_text().replace(hs.VERL_MODEL, "my-org/private-8b")
    path.write_text(text)
    by_arch = check_run(path, gpu="H100 SXM", arch=get_arch(hs.VERL_MODEL))
    by_name = check_run(path, gpu="H100 SXM", model=hs.VERL_MODEL)
    assert by_arch.setup.canonical is None and by_arch.setup.sources["architecture"] == "--model-config"
    assert by_arch.reconciliation.predicted_mean("step") == by_name.reconciliation.predicted_mean("step")
    assert by_arch.bill is None   # no Tinker price without a known model or --price-as


def test_keys_of_both_sides_need_ran_on(tmp_path):
    """A W&B table holding a Tinker run's and a verl run's metrics cannot be read without saying which it is."""
    import run_shapes as shapes
    rows = [{**a, **b} for a, b in zip(shapes.wandb_rows(shapes.sync_records()), hs.verl_wandb_rows()[1:])]
    path = hs.write_table(tmp_path / "both.csv", rows, "csv")
    with pytest.raises(TinkerNomicsError, match="--ran-on"):
        detect(path)
    assert detect(path, SELF_HOSTED).framework == "verl"
    assert detect(path, TINKER).framework == "tinker-cookbook"


def test_the_rollout_engines_batch_cap_is_read_from_the_config(tmp_path):
    """actor_rollout_ref.rollout.max_num_seqs (verl's ppo_trainer.yaml; vLLM's max_num_seqs) caps the sequences an
    engine decodes at once: a run that set it to 8 is re-predicted at that cap, not the default 1024."""
    import copy
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["rollout"]["max_num_seqs"] = 8
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025", config=config), gpu="H100 SXM")
    facts, _ = run_facts(v.run, v.run.steps)
    assert facts["max_num_seqs"] == 8
    common = dict(arch=get_arch(hs.VERL_MODEL), gpu=get_gpu("H100 SXM"), num_gpus=hs.GPUS,
                  samples=np.full(4, float(hs.SAMPLES)), prompt_tokens=np.array(hs.PROMPT),
                  response_tokens=np.array(hs.RESPONSE), method="calibrated", fine_tune="full")
    capped = rl_steps(**common, run_facts=facts)
    default = rl_steps(**common, run_facts={k: x for k, x in facts.items() if k != "max_num_seqs"})
    assert v.reconciliation.predicted_mean("step") == pytest.approx(float(np.mean(capped.wallclock_hours)) * 3600)
    # 32 sequences a step on 8 one-GPU engines: 4 each, under either cap; at a cap of 2 they take two waves
    assert np.asarray(capped.rollout_hours) == pytest.approx(np.asarray(default.rollout_hours))
    two = rl_steps(**common, run_facts={**facts, "max_num_seqs": 2.0})
    assert np.all(np.asarray(two.rollout_hours) > np.asarray(default.rollout_hours))
    assert np.all(np.asarray(two.rollout_waves) == 2)


def test_a_run_without_gradient_checkpointing_does_not_recompute(tmp_path):
    """actor_rollout_ref.model.enable_gradient_checkpointing False: the backward pass keeps the forward's
    activations, so the update is 6 N per token (forward 2 N, backward 4 N), not 8 N with the recomputed forward."""
    import copy
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["model"]["enable_gradient_checkpointing"] = False
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025", config=config), gpu="H100 SXM")
    facts, _ = run_facts(v.run, v.run.steps)
    assert facts["recompute"] is False
    plain = check_run(hs.write_verl_console(tmp_path / "p.log", "2025"), gpu="H100 SXM")
    assert "recompute" not in run_facts(plain.run, plain.run.steps)[0]
    common = dict(arch=get_arch(hs.VERL_MODEL), gpu=get_gpu("H100 SXM"), num_gpus=hs.GPUS,
                  samples=np.full(4, float(hs.SAMPLES)), prompt_tokens=np.array(hs.PROMPT),
                  response_tokens=np.array(hs.RESPONSE), method="calibrated", fine_tune="full")
    kept = rl_steps(**common, run_facts=facts)
    recomputed = rl_steps(**common, run_facts={k: x for k, x in facts.items() if k != "recompute"})
    assert np.all(np.asarray(kept.train_hours) < np.asarray(recomputed.train_hours))
    assert v.reconciliation.predicted_mean("step") == pytest.approx(float(np.mean(kept.wallclock_hours)) * 3600)
