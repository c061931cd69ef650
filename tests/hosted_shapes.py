"""Synthetic self-hosted run logs in every shape tinker_nomics reads (verl, TRL) and Tinker usage exports, with
totals computed by hand.

The formats follow /work/notes/formats/FORMATS.md and the code it cites: verl's `concat_dict_to_str` (".3f" in 2025,
`pprint.pformat` in 2026), its file logger (`{"step": N, "data": {...}}`), W&B history exports; transformers'
`TrainerState.save_to_json` with TRL's GRPO metrics; `tinker billing usage` CSV and JSON.

One small verl GRPO run underlies every verl shape: 8 prompts × 4 samples = 32 sequences per step on 8 GPUs,
steps 1-4, validation at step 2, a checkpoint at step 4, a validation before training (step 0, no time).

    step                 1       2       3       4     | sum / mean
    timing_s/gen         15.0    15.5    16.0    16.5  | mean 15.75
    timing_s/update_actor 8.0    8.25    8.5     8.75  | mean 8.375
    timing_s/testing     -       20.0    -       -     | 20.0
    timing_s/save_checkpoint -   -       -       2.5   | 2.5
    timing_s/step (2025) 30.5    52.25   31.0    33.75 | 147.5, mean 36.875   (testing inside step 2)
    timing_s/step (2026) 30.5    32.25   31.0    33.75 | 127.5, mean 31.875   (testing after the step timer)
    response_length/mean 400.5   410.25  420.0   430.75| × 32 = 12816 + 13128 + 13440 + 13784 = 53168
    prompt_length/mean   110.0   110.5   111.0   111.5 | × 32 = 3520 + 3536 + 3552 + 3568 = 14176
    perf/total_num_tokens 16336  16664   16992   17352 | 67344 (= response + prompt)

GPU-hours = 8 × Σ step / 3600: 2025 shape 8 × 147.5 / 3600, 2026 shape 8 × 127.5 / 3600 (+ 20 s of validation
outside in the wall-clock).

The TRL run: 4 prompts × 8 completions = 32 per step, 6 steps logged every 2 (logging_steps = 2):

    entry step           2       4       6       | sum
    step_time            40.0    42.0    44.0    | Σ over steps = 2 × 126 = 252, mean 42
    num_tokens (cumul.)  20000   41000   63000   | window tokens 20000 + 21000 + 22000 = 63000
    completions/mean_length 250.0 262.5  275.0   | × 32 × 2 = 16000 + 16800 + 17600 = 50400; prompts 12600
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import run_shapes

VERL_MODEL = "Qwen/Qwen3-8B"
GPUS, PROMPTS, N = 8, 8, 4
SAMPLES = PROMPTS * N
GEN = [15.0, 15.5, 16.0, 16.5]
UPDATE = [8.0, 8.25, 8.5, 8.75]
TESTING = {2: 20.0}
CHECKPOINT = {4: 2.5}
STEP_2025 = [30.5, 52.25, 31.0, 33.75]
STEP_2026 = [30.5, 32.25, 31.0, 33.75]
RESPONSE = [400.5, 410.25, 420.0, 430.75]
PROMPT = [110.0, 110.5, 111.0, 111.5]
TOTAL = [16336, 16664, 16992, 17352]
MFU = [0.1, 0.11, 0.12, 0.13]
SCORE = [0.5, 0.6, 0.55, 0.7]

VERL_EXPECTED = {"steps": 4, "generated_tokens": 53168.0, "prompt_tokens": 14176.0, "trained_tokens": 67344.0,
                 "generation_seconds_mean": 15.75, "training_seconds_mean": 8.375, "validation_seconds_total": 20.0,
                 "checkpoint_seconds_total": 2.5}
VERL_2025 = {"step_seconds_total": 147.5, "step_seconds_mean": 36.875, "gpu_hours": 8 * 147.5 / 3600,
             "wallclock_seconds": 147.5, "validation_inside_step": True}
VERL_2026 = {"step_seconds_total": 127.5, "step_seconds_mean": 31.875, "gpu_hours": 8 * 127.5 / 3600,
             "wallclock_seconds": 147.5, "validation_inside_step": False}

TRL_PROMPTS, TRL_GROUP, TRL_GPUS = 4, 8, 2
TRL_STEPS = [2, 4, 6]
TRL_STEP_TIME = [40.0, 42.0, 44.0]
TRL_TOKENS = [20000, 41000, 63000]
TRL_LENGTH = [250.0, 262.5, 275.0]
TRL_EXPECTED = {"steps": 6, "step_seconds_total": 252.0, "step_seconds_mean": 42.0, "trained_tokens": 63000.0,
                "generated_tokens": 50400.0, "prompt_tokens": 12600.0, "gpu_hours": 2 * 252 / 3600}


# ------------------------------------------------------------------------------------------ verl


def verl_metrics(i: int, style: str) -> dict:
    """The metrics dict of step i+1 in fit()'s insertion order (FORMATS.md §1a)."""
    step = i + 1
    seconds = STEP_2025 if style == "2025" else STEP_2026
    d = {"global_seqlen/min": TOTAL[i] // 8 - 10, "global_seqlen/mean": TOTAL[i] / 8,
         "actor/pg_loss": -0.0071, "actor/grad_norm": 0.25, "perf/mfu/actor": MFU[i],
         "perf/max_memory_allocated_gb": 38.3, "actor/lr": 1e-6}
    if step in TESTING:
        d["val-core/openai/gsm8k/reward/mean@1"] = 0.56
    d.update({"training/global_step": step, "training/epoch": 0, "critic/score/mean": SCORE[i],
              "critic/advantages/mean": -0.0001, "critic/advantages/min": -0.707,
              "response_length/mean": RESPONSE[i], "response_length/max": 1024.0, "response_length/clip_ratio": 0.03,
              "prompt_length/mean": PROMPT[i], "prompt_length/max": 226.0,
              "timing_s/gen": GEN[i], "timing_s/generate_sequences": GEN[i] - 1.0, "timing_s/reward": 0.4,
              "timing_s/old_log_prob": 2.8, "timing_s/ref": 2.5, "timing_s/adv": 0.04,
              "timing_s/update_actor": UPDATE[i]})
    if step in CHECKPOINT:
        d["timing_s/save_checkpoint"] = CHECKPOINT[step]
    if step in TESTING and style == "2025":
        d["timing_s/testing"] = TESTING[step]
    d["timing_s/step"] = seconds[i]
    if step in TESTING and style == "2026":
        d["timing_s/testing"] = TESTING[step]   # logged with the step, timed after it (2026 fit())
    d.update({"timing_per_token_ms/gen": GEN[i] * 1000 / (RESPONSE[i] * SAMPLES), "perf/total_num_tokens": TOTAL[i],
              "perf/time_per_step": seconds[i], "perf/throughput": TOTAL[i] / (seconds[i] * GPUS)})
    return d


def _value_2025(v) -> str:
    return f"{v:.3f}"


def _value_2026(key: str, v) -> str:
    if isinstance(v, int):
        return repr(v)
    if key.startswith(("actor/", "perf/mfu", "perf/max_memory")):
        return f"np.float64({v!r})"   # reduce_metrics() returns NumPy scalars (FORMATS.md §1a)
    return repr(v)


def step_line(step: int, metrics: dict, style: str) -> str:
    items = [f"step:{step}"]
    for k, v in metrics.items():
        items.append(f"{k}:{_value_2025(v) if style == '2025' else _value_2026(k, v)}")
    return " - ".join(items)


CONFIG = {"actor_rollout_ref": {"actor": {"ppo_mini_batch_size": 16, "strategy": "fsdp", "use_kl_loss": True},
                                "model": {"path": VERL_MODEL, "use_remove_padding": True},
                                "rollout": {"n": N, "name": "vllm", "tensor_model_parallel_size": 1,
                                            "prompt_length": 512, "response_length": 1024}},
          "algorithm": {"adv_estimator": "grpo", "kl_ctrl": {"kl_coef": 0.001, "type": "fixed"}},
          "critic": {"model": {"path": "~/models/deepseek-llm-7b-chat"}, "rollout_n": N},
          "data": {"max_prompt_length": 512, "max_response_length": 1024, "train_batch_size": PROMPTS,
                   "train_files": "/data/gsm8k/train.parquet"},
          "trainer": {"experiment_name": "tiny-grpo", "logger": ["console", "wandb"], "n_gpus_per_node": 4,
                      "nnodes": 2, "project_name": "demo", "save_freq": 4, "test_freq": 2, "total_epochs": 1,
                      "val_before_train": True}}


def _ray(text: str, actor: str = "TaskRunner", pid: int = 4242) -> str:
    return f"\x1b[36m({actor} pid={pid})\x1b[0m {text}"


def write_verl_console(path: Path, style: str = "2025", ray: bool = True, config: dict | None = None,
                       extra=None) -> Path:
    """The trainer's stdout: Ray prefixes and ANSI codes, the pprint'ed config, noise, a sampled response with
    'step by step:' in it, tqdm lines, the step-0 validation line and the final validation pprint. `config` replaces
    CONFIG; `extra(i)` adds metrics to step i+1's line."""
    import pprint

    def wrap(text, **kw):
        return _ray(text, **kw) if ray else text

    lines = ["2026-01-05 09:12:03,418\tINFO worker.py:1879 -- Started a local Ray instance."]
    if style == "2026":
        lines.append(wrap("TaskRunner hostname: gpu-node-07, PID: 4242"))
    lines += [wrap(line) for line in pprint.pformat(CONFIG if config is None else config, width=80).splitlines()]
    lines += [wrap("dataset len: 7473"), wrap("Qwen3ForCausalLM contains 8.19B parameters", actor="WorkerDict",
                                                  pid=5000),
              wrap("{'n': 4, 'logprobs': 0}", actor="WorkerDict", pid=5001),
              wrap(step_line(0, {"val-core/openai/gsm8k/reward/mean@1": 0.41}, style))]
    for i in range(4):
        step = i + 1
        if step in TESTING:
            lines += [wrap("validation generation end"), wrap("[response] Let's go step by step: 12 * 7 = 84."),
                      wrap("#### 84"), wrap("[score] 1.0")]
        lines.append(wrap(step_line(step, {**verl_metrics(i, style), **(extra(i) if extra else {})}, style)))
        lines.append(f"Training Progress:  {25 * step}%|##| {step}/4 [00:32<00:00, 32.17s/it]")
    lines += [wrap('("Final validation metrics: {\'val-core/openai/gsm8k/reward/mean@1\': "'), wrap(' "0.56}")')]
    path.write_text("\n".join(lines) + "\n")
    return path


# DAPO's dynamic sampling (recipe/dapo/dapo_ray_trainer.py): each round generates data.gen_batch_size prompts' groups;
# the step trains train_batch_size prompts' groups and logs how many rounds it took (train/num_gen_batches)
DAPO_ROUNDS = [1, 2, 3, 1]
DAPO_GEN_PROMPTS = 2 * PROMPTS


def dapo_config(filter_groups: bool = True) -> dict:
    import copy
    config = copy.deepcopy(CONFIG)
    config["data"]["gen_batch_size"] = DAPO_GEN_PROMPTS
    config["algorithm"]["filter_groups"] = {"enable": filter_groups, "metric": "acc", "max_num_gen_batches": 10}
    return config


def write_verl_dapo_console(path: Path, filter_groups: bool = True) -> Path:
    """The 2025 console with DAPO's settings: with the filter, DAPO_ROUNDS rounds a step; without it, one round
    whose whole batch (twice TOTAL's tokens) is trained."""
    if filter_groups:
        return write_verl_console(path, "2025", config=dapo_config(True),
                                  extra=lambda i: {"train/num_gen_batches": DAPO_ROUNDS[i]})
    return write_verl_console(path, "2025", config=dapo_config(False),
                              extra=lambda i: {"train/num_gen_batches": 1, "perf/total_num_tokens": 2 * TOTAL[i]})


def file_logger_records(style: str = "2026") -> list[dict]:
    out = [{"step": 0, "data": {"val-core/openai/gsm8k/reward/mean@1": 0.41}}]
    for i in range(4):
        out.append({"step": i + 1, "data": verl_metrics(i, style)})
    return out


def write_verl_jsonl(path: Path, style: str = "2026", older: bool = False) -> Path:
    """verl's FileLogger: compact orjson lines, or the older json.dumps variant with a bare NaN."""
    records = file_logger_records(style)
    if older:
        records[1]["data"]["critic/score/mean"] = float("nan")
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return path


def verl_wandb_rows(style: str = "2026") -> list[dict]:
    rows = []
    for rec in file_logger_records(style):
        rows.append({"_step": rec["step"], "_runtime": 30.0 * rec["step"], "_timestamp": 1.7e9 + rec["step"],
                     **rec["data"]})
    return rows


def write_table(path: Path, rows: list[dict], layout: str = "csv") -> Path:
    """A W&B history export of `rows` as CSV, JSON records/columns/split, JSON lines or Parquet (the writers of
    tests/run_shapes.py)."""
    if layout == "csv":
        return run_shapes.write_wandb_csv(path, rows)
    if layout == "parquet":
        return run_shapes.write_parquet(path, rows)
    return run_shapes.write_wandb_json(path, rows, layout)


CHART_METRICS = ("timing_s/step", "timing_s/gen", "timing_s/update_actor", "timing_s/testing",
                 "timing_s/save_checkpoint", "response_length/mean", "prompt_length/mean", "perf/total_num_tokens")


def write_chart_csv(path: Path, runs: dict[str, list[dict]], spread: bool = False) -> Path:
    """A chart-panel download of verl's metrics (tests/run_shapes.py writes the panel)."""
    return run_shapes.write_chart_csv(path, runs, spread, CHART_METRICS)


# ------------------------------------------------------------------------------------------ TRL


def trl_entries(with_step_time: bool = True) -> list[dict]:
    out = []
    for step, seconds, tokens, length in zip(TRL_STEPS, TRL_STEP_TIME, TRL_TOKENS, TRL_LENGTH):
        entry = {"completions/clipped_ratio": 0.0, "completions/mean_length": length, "completions/max_length": 512.0,
                 "entropy": 0.4, "epoch": step / 100, "grad_norm": 0.3, "learning_rate": 1e-6, "loss": 0.003,
                 "num_tokens": float(tokens), "reward": 0.4 + step / 100, "reward_std": 0.4,
                 "rewards/accuracy_reward/mean": 0.4, "step": step}
        if with_step_time:
            entry["step_time"] = seconds
        out.append(dict(sorted(entry.items())))
        if step == 4:
            out.append({"epoch": 0.04, "eval_loss": 0.1, "eval_reward": 0.5, "step": 4})
    out.append({"epoch": 0.06, "step": 6, "total_flos": 0.0, "train_loss": 0.004, "train_runtime": 300.0,
                "train_samples_per_second": 0.64, "train_steps_per_second": 0.02})
    return out


def write_trainer_state(folder: Path, with_step_time: bool = True, model: str | None = "Qwen/Qwen3-8B") -> Path:
    """A TRL output folder: checkpoint-6/trainer_state.json (sorted keys, indent 2) and the model's config.json."""
    ckpt = folder / "checkpoint-6"
    ckpt.mkdir(parents=True, exist_ok=True)
    state = {"best_global_step": None, "best_metric": None, "epoch": 0.06, "global_step": 6, "log_history":
             trl_entries(with_step_time), "logging_steps": 2, "max_steps": 6, "num_input_tokens_seen": TRL_TOKENS[-1],
             "num_train_epochs": 1, "save_steps": 6, "total_flos": 0.0, "train_batch_size": 8}
    (ckpt / "trainer_state.json").write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    if model:
        (ckpt / "config.json").write_text(json.dumps({"_name_or_path": model, "architectures": ["Qwen3ForCausalLM"]}))
    return folder


def trl_wandb_rows() -> list[dict]:
    rows = []
    for i, entry in enumerate(e for e in trl_entries() if "num_tokens" in e or "eval_loss" in e):
        row = {"_step": i, "_runtime": 10.0 * i, "_timestamp": 1.7e9 + i}
        for k, v in entry.items():
            if k == "step":
                row["train/global_step"] = v
            elif k.startswith("eval_"):
                row[f"eval/{k[5:]}"] = v
            else:
                row[f"train/{k}"] = v
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------------------ Tinker usage export

# Matches run_shapes.v061_records() (Qwen/Qwen3-8B): log meters sample 6400, train 5060, prefill 640 of which the
# sampler reported 340 cached. The export bills 10 more sampled tokens than the log counts. Two days: 2026-07-16
# (snapshot 2026-H1 in force, no cached rate) and 2026-07-17 (snapshot 2026-07-17, cached rate listed).
USAGE_MODEL = "Qwen/Qwen3-8B"
USAGE_ROWS = [  # (bucket_start, type, cached, quantity)
    ("2026-07-16T22:00:00Z", "sampling_prefill", False, 200),
    ("2026-07-16T22:00:00Z", "sampling_prefill", True, 100),
    ("2026-07-16T22:00:00Z", "training", None, 2500),
    ("2026-07-16T22:00:00Z", "sampling_sample", None, 3000),
    ("2026-07-16T22:00:00Z", "checkpoint", None, 1),
    ("2026-07-17T01:00:00Z", "sampling_sample", None, 3410),
    ("2026-07-17T01:00:00Z", "training", None, 2560),
    ("2026-07-17T01:00:00Z", "sampling_prefill", False, 100),
    ("2026-07-17T01:00:00Z", "sampling_prefill", True, 240),
    ("2026-07-17T01:00:00Z", "storage", None, 2.0),
]
USAGE_BILLED = {"sample": 6410.0, "train": 5060.0, "prefill": 640.0, "cached_prefill": 340.0}
SESSION = "5f0c2a4e-9b1d-4c61-8a7e-2d3f4b5c6d7e"


def usage_records(other_model_row: bool = True) -> list[dict]:
    out = []
    for start, kind, cached, qty in USAGE_ROWS:
        end = start[:11] + f"{int(start[11:13]) + 1:02d}" + start[13:]
        info = {"type": kind}
        if kind == "sampling_prefill":
            info["cached"] = cached
        info[{"checkpoint": "count", "storage": "gigabyte_hours"}.get(kind, "token_count")] = qty
        out.append({"bucket_start": start, "bucket_end": end, "base_model": USAGE_MODEL,
                    "user_id": "urn:tinker:org-user:0f1e2d3c", "user_name": "Ada Example",
                    "session_id": None if kind == "storage" else SESSION, "project_id": "proj_demo",
                    "estimated_cost_usd": None, "effective_rate_usd_per_million_tokens": None,
                    "effective_rate_usd_per_gigabyte_month": None, "event_info": info})
    if other_model_row:
        out.append({"bucket_start": "2026-07-17T01:00:00Z", "bucket_end": "2026-07-17T02:00:00Z",
                    "base_model": "openai/gpt-oss-20b", "user_id": None, "user_name": None, "session_id": "other",
                    "project_id": None, "estimated_cost_usd": 0.5, "effective_rate_usd_per_million_tokens": 0.1,
                    "effective_rate_usd_per_gigabyte_month": None,
                    "event_info": {"type": "sampling_sample", "token_count": 5_000_000}})
    return out


def write_usage_json(path: Path, records: list[dict] | None = None) -> Path:
    records = usage_records() if records is None else records
    path.write_text(json.dumps({"data": records, "sessions": {SESSION: {"user_metadata": {"run": "tiny"}},
                                                              "other": {"user_metadata": None}},
                                "cost_data_through": None}, indent=2))
    return path


def write_usage_csv(path: Path, records: list[dict] | None = None) -> Path:
    """The CLI's --csv: event_info flattened, columns in order of first appearance, empty cells for None."""
    records = usage_records() if records is None else records
    flat = [{**{k: v for k, v in r.items() if k != "event_info"}, **r["event_info"]} for r in records]
    columns = []
    for row in flat:
        columns += [k for k in row if k not in columns]
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows({k: ("" if v is None else v) for k, v in row.items()} for row in flat)
    return path
