"""TRL's profiling rows in a W&B export: the rollout and the weight hand-off timed apart from the step.

TRL (trl/extras/profiling.py) sends `profiling/Time taken: <trainer class>.<block>` to W&B with `wandb.log` on its
own, so each timed block is a row of W&B's own between the trainer's log rows (transformers' WandbCallback, with
`train/global_step`). The run of tests/hosted_shapes.py (steps 2, 4, 6 logged every 2 optimizer steps) gains, in
each window, one `GRPOTrainer._move_model_to_vllm` and one `GRPOTrainer.vLLM.generate` per optimizer step, and
one block not read (`_get_per_token_logps_and_entropies`, which the loss's own forward pass runs through too):

    window (steps)     1-2          3-4          5-6
    vLLM.generate      12 + 14      15 + 15      16 + 18     -> generation per step 13, 15, 17 (mean 15)
    _move_model_to_vllm 0.5 + 0.7   0.6 + 0.6    0.6 + 0.6   -> refit per step 0.6 each
"""
from __future__ import annotations

import json

import pytest

import hosted_shapes as hs
from test_nemo_rl import run
from tinker_nomics.runs import detect, trl

GENERATE = ((12.0, 14.0), (15.0, 15.0), (16.0, 18.0))
REFIT = ((0.5, 0.7), (0.6, 0.6), (0.6, 0.6))
PREFIX = "profiling/Time taken: GRPOTrainer."


def profiled_rows(trainer_class: str = "GRPOTrainer") -> list[dict]:
    """The W&B history of the run with its profiling rows before each log row, `_step` counting every call."""
    prefix = f"profiling/Time taken: {trainer_class}."
    logs = iter(r for r in hs.trl_wandb_rows() if "train/num_tokens" in r)
    evals = [r for r in hs.trl_wandb_rows() if "train/num_tokens" not in r]
    rows = []
    for window, log in enumerate(logs):
        for refit, generate in zip(REFIT[window], GENERATE[window]):
            rows.append({prefix + "_move_model_to_vllm": refit})
            rows.append({prefix + "vLLM.generate": generate})
            rows.append({prefix + "_get_per_token_logps_and_entropies": 3.0})
        rows.append(log)
        if window == 1:
            rows.extend(evals)
    rows.append({prefix + "vLLM.generate": 99.0})   # after the last log row: no window closes it
    return [{**row, "_step": i} for i, row in enumerate(rows)]


GIVEN = ("--prompts-per-step", str(hs.TRL_PROMPTS), "--group-size", str(hs.TRL_GROUP), "--num-gpus",
         str(hs.TRL_GPUS), "--gpu", "H100 SXM", "--model", "Qwen3-8B")


def test_profiled_generation_and_refit_are_read_per_window_and_spread_over_its_steps(tmp_path):
    path = hs.write_table(tmp_path / "trl.csv", profiled_rows(), "csv")
    hosted = detect.read_hosted(path, facts={"prompts_per_step": 4.0, "group_size": 8.0})
    assert hosted.framework == "TRL"
    t = hosted.steps
    assert list(t["step"]) == hs.TRL_STEPS and list(t["steps_covered"]) == [2.0] * 3
    assert list(t["generation_seconds"]) == pytest.approx([13.0, 15.0, 17.0])
    assert list(t["phase/refit"]) == pytest.approx([0.6] * 3)
    assert list(t["step_seconds"]) == hs.TRL_STEP_TIME              # step_time itself unchanged
    assert any("profiling rows" in n for n in hosted.notes)
    plain = detect.read_hosted(hs.write_table(tmp_path / "plain.csv", hs.trl_wandb_rows(), "csv"))
    assert plain.steps["generation_seconds"].isna().all() and "phase/refit" not in plain.steps


def test_a_subclassed_trainer_s_profiling_is_read_by_its_block_name(tmp_path):
    path = hs.write_table(tmp_path / "trl.json", profiled_rows("MyGRPOTrainer"), "records")
    hosted = detect.read_hosted(path)
    assert list(hosted.steps["generation_seconds"]) == pytest.approx([13.0, 15.0, 17.0])


def test_validate_compares_the_profiled_generation_and_refit_of_a_trl_run(tmp_path):
    path = hs.write_table(tmp_path / "trl.csv", profiled_rows(), "csv")
    code, out, err = run("validate", str(path), *GIVEN, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["measured"]["generation_seconds_mean"] == pytest.approx(15.0)
    phases = {r["phase"]: r for r in data["predicted"]["by_method"] if r["method"] == "calibrated"}
    assert phases["generation"]["measured_seconds_mean"] == pytest.approx(15.0)
    assert phases["refit"]["measured_seconds_mean"] == pytest.approx(0.6)
    assert phases["generation"]["predicted_seconds_mean"] > 0
    code, text, err = run("validate", str(path), *GIVEN)
    assert code == 0, err
    measured = next(line for line in text.splitlines() if line.startswith("Measured"))
    assert "generation 15.00 s" in measured and "n/a" not in measured


@pytest.mark.parametrize("bad, words", [(-1.0, "negative"), ("slow", "'slow'")])
def test_a_bad_profiled_time_is_one_line_naming_its_column(tmp_path, bad, words):
    rows = profiled_rows()
    rows[1][PREFIX + "vLLM.generate"] = bad
    code, out, err = run("validate", str(hs.write_table(tmp_path / "bad.csv", rows, "csv")), *GIVEN)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "vLLM.generate" in err and words in err


def test_profiled_phase_names():
    assert trl.profiled_phase("profiling/Time taken: GRPOTrainer.vLLM.generate") == "generation"
    assert trl.profiled_phase("profiling/Time taken: GRPOTrainer.transformers.generate_batch") == "generation"
    assert trl.profiled_phase("profiling/Time taken: GRPOTrainer._move_model_to_vllm") == "refit"
    assert trl.profiled_phase("profiling/Time taken: GRPOTrainer._prepare_inputs") is None
    assert trl.profiled_phase("train/step_time") is None
