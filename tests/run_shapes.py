"""Synthetic run logs in every shape tinker_nomics.runs reads, with totals computed by hand.

The shapes follow shared/reference/tinker-cookbook-facts.md §1 (what tinker-cookbook writes) and the W&B
export layouts (run.history()/scan_history() tables, the run-history Parquet artifact, chart-panel CSVs).

One small run underlies all of them: 4 training steps (0-3) of 8 episodes, evals before steps 0 and 2, and,
in the shapes that have it (async and tinker-cookbook 0.6.1), a final eval at step 4 = end_batch.

    step                    0     1     2     3    | sum
    env/all/total_ac_tokens 1000  1100  1200  1300 | 4600
    env/all/total_ob_tokens 100   110   120   130  | 460
    total_cached_ob_tokens  70    80    90    100  | 340   (0.6.1 shape only)
    eval ac (test/...)      500   -     600   -    | 1100  (+700 at step 4 when there is a final eval)
    eval ob                 50    -     60    -    | 110   (+70 at step 4)

Hand-computed meters (contract: sample = train ac + eval ac; train = ob + ac; prefill = ob + eval ob):
    without the final eval: sample 5700, train 5060, prefill 570
    with the final eval:    sample 6400, train 5060, prefill 640
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd

AC = [1000, 1100, 1200, 1300]
OB = [100, 110, 120, 130]
CACHED = [70, 80, 90, 100]
EVALS = {0: (500, 50), 2: (600, 60)}
FINAL_EVAL = (4, 700, 70)
MODEL = "Qwen/Qwen3-8B"

EXPECTED = {"sample": 5700.0, "train": 5060.0, "prefill": 570.0, "eval_sample": 1100.0, "eval_prefill": 110.0}
EXPECTED_FINAL = {"sample": 6400.0, "train": 5060.0, "prefill": 640.0, "eval_sample": 1800.0, "eval_prefill": 180.0}


def _train(step: int) -> dict:
    return {"env/all/total_ac_tokens": AC[step], "env/all/total_ob_tokens": OB[step], "env/all/total_episodes": 8,
            "env/all/total_turns": 8, "env/all/turns_per_episode": 1.0, "env/all/reward/total": 0.1 * (step + 1),
            "env/all/correct": 0.5, "optim/lr": 4e-5, "optim/entropy": 0.3, "optim/kl_sample_train_v1": 0.001}


def _eval(prefix: str, ac: int, ob: int) -> dict:
    return {f"{prefix}env/all/total_ac_tokens": ac, f"{prefix}env/all/total_ob_tokens": ob,
            f"{prefix}env/all/total_episodes": 4, f"{prefix}env/all/reward/total": 0.5,
            f"{prefix}env/all/correct": 0.5}


def sync_records() -> list[dict]:
    """do_sync_training: eval metrics merged into the training line, `test/` prefix, time/total."""
    out = []
    for step in range(4):
        rec = {"step": step, "progress/batch": step, "progress/done_frac": (step + 1) / 4, **_train(step),
               "time/total": 10.0 + step, "time/sampling": 5.0}
        if step in EVALS:
            rec.update(_eval("test/", *EVALS[step]), **{"time/run_evaluations_parallel": 2.0})
        out.append(rec)
    return out


def stream_records() -> list[dict]:
    """Stream-minibatch: the same keys plus sampling_client/* and time/sampling_time_*."""
    out = []
    for rec in sync_records():
        rec = dict(rec)
        rec.update({"sampling_client/step_max": rec["step"], "sampling_client/step_min": rec["step"],
                    "sampling_client/step_mean": rec["step"], "time/sampling_time_mean": 4.0})
        out.append(rec)
    return out


def async_records() -> list[dict]:
    """do_async_training: training_client/step, eval rows on their own lines (same step, `test/test/`),
    time/training_loop/total, a final eval row at step = end_batch, and `eval/…` benchmark keys."""
    out = []
    for step in range(4):
        if step in EVALS:
            out.append({"step": step, **_eval("test/test/", *EVALS[step]), "time/evaluation_loop/total": 3.0,
                        "eval/aime/score": 0.2})
        out.append({"step": step, "training_client/step": step, **_train(step), "time/training_loop/total": 20.0,
                    "sampling_client/step_mean": step - 0.5})
    step, ac, ob = FINAL_EVAL
    out.append({"step": step, **_eval("test/test/", ac, ob), "eval/aime/score": 0.3})
    return out


def v061_records() -> list[dict]:
    """tinker-cookbook 0.6.1: cache hits, tokens/* and cost/* on every step, eval/by_step/… twins of the eval
    keys (not to be counted twice), a final eval and a final cumulative row at step = end_batch."""
    out = []
    for step in range(4):
        rec = {"step": step, "progress/batch": step, **_train(step), "env/all/total_cached_ob_tokens": CACHED[step],
               "tokens/sampled": AC[step], "tokens/prefill_cached": CACHED[step],
               "tokens/prefill_uncached": OB[step] - CACHED[step], "tokens/trained": AC[step] + OB[step],
               "cost/step_usd": 0.001, "tokens/cumulative/sampled": sum(AC[:step + 1]), "time/total": 12.0}
        if step in EVALS:
            ac, ob = EVALS[step]
            rec.update(_eval("test/", ac, ob))
            rec["eval/by_step/test/env/all/total_ac_tokens"] = ac
        out.append(rec)
    step, ac, ob = FINAL_EVAL
    out.append({"step": step, **_eval("test/", ac, ob), "eval/by_step/test/env/all/total_ac_tokens": ac})
    out.append({"step": step, "tokens/cumulative/sampled": sum(AC), "tokens/cumulative/trained": sum(AC) + sum(OB),
                "cost/cumulative_usd": 0.004})
    return out


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def write_cookbook_dir(folder: Path, records: list[dict], config: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "metrics.jsonl", records)
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config, indent=2))
    (folder / "logs.log").write_text("a log line\n")
    return folder


NESTED_CONFIG = {"model_name": MODEL, "learning_rate": 4e-5, "max_tokens": 512, "eval_every": 2,
                 "dataset_builder": {"batch_size": 2, "group_size": 4, "model_name_for_tokenizer": MODEL,
                                     "renderer_name": "qwen3"}, "lora_rank": 32, "log_path": "/tmp/x"}


def wandb_rows(records: list[dict]) -> list[dict]:
    """What W&B stores: wandb.log(metrics, step=step) without the "step" key, rows merged per step."""
    merged: dict[int, dict] = {}
    for rec in records:
        step = rec["step"]
        row = merged.setdefault(step, {"_step": step, "_runtime": 1.5 * step, "_timestamp": 1.7e9 + step})
        row.update({k: v for k, v in rec.items() if k != "step"})
    return [merged[s] for s in sorted(merged)]


def write_wandb_csv(path: Path, rows: list[dict]) -> Path:
    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_wandb_json(path: Path, rows: list[dict], layout: str = "records") -> Path:
    frame = pd.DataFrame(rows)
    if layout == "records":
        path.write_text(json.dumps(rows))
    elif layout == "lines":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:  # pandas' own layouts: "columns" ({column: {index: value}}) and "split"
        path.write_text(frame.to_json(orient=layout))
    return path


def write_parquet(path: Path, rows: list[dict]) -> Path:
    pd.DataFrame(rows).to_parquet(path)
    return path


CHART_METRICS = ("env/all/total_ac_tokens", "env/all/total_ob_tokens", "test/env/all/total_ac_tokens",
                 "test/env/all/total_ob_tokens")


def write_chart_csv(path: Path, runs: dict[str, list[dict]], spread: bool = False,
                    metrics: tuple[str, ...] = CHART_METRICS) -> Path:
    """A chart-panel download: Step, then `<run> - <metric>` with __MIN/__MAX companions per run."""
    header = ["Step"]
    for name in runs:
        for metric in metrics:
            header += [f"{name} - {metric}", f"{name} - {metric}__MIN", f"{name} - {metric}__MAX"]
    steps = sorted({r["_step"] for rows in runs.values() for r in rows})
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for step in steps:
            line = [step]
            for rows in runs.values():
                row = next((r for r in rows if r["_step"] == step), {})
                for metric in metrics:
                    value = row.get(metric, "")
                    low = value - 1 if spread and value != "" else value
                    line += [value, low, value]
            writer.writerow(line)
    return path
