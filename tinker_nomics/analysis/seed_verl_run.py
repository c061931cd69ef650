"""The seed's own veRL run as a self-hosted run: exp 1b (GRPO on Hendrycks MATH, Qwen3-4B-Instruct-2507, LoRA
rank 32, 8 × B200), reconciled with the self-hosted model and priced on Tinker from the figures the seed reports
(data/experiments/seed_experiments.csv, data/workloads/workloads.csv exp1b_math).

The seed gives no per-step log, only the run's figures: 35 steps completed before the cluster shut down, an average
step of ~119 s, an average response of 684 tokens, batch_size 128 × n 8, and veRL's own MFU (1.85%). So the run is
one row standing for its 35 steps (runs.hosted, as a TRL logging window is). Two things are assumed, and said: the
veRL run's prompts are the MATH prompts the Tinker run logged (191 tokens on average; same dataset and tokenizer),
and the GPUs are the exp1b_math preset's 8 × B200. Checks the seed's own figures allow: Σ step time against its
"~70 min (35 steps)", and the generated tokens against its "~24M (partial)" completion tokens.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..runs.hosted import HostedRun, StepRecord, StepTable
from ..runs.validate_hosted import HostedValidation, validate_hosted
from ..sources.literature import experiment
from ..sources.workloads import get_workload
from .experiments import cluster_hourly_usd
from .seed_experiments import SEED_WORKLOADS

NAME = "exp1b"
SOURCE = "data/experiments/seed_experiments.csv (exp1b, veRL)"


def seed_verl_run(name: str = NAME) -> HostedRun:
    """The seed's veRL run as a HostedRun of one row covering the completed steps."""
    preset = get_workload(SEED_WORKLOADS[name]).fields
    steps = experiment(name, "verl_steps_completed")
    samples = experiment(name, "verl_prompts_per_step") * experiment(name, "verl_group_size")
    rec = StepRecord(("seed figure", 1), steps)
    rec.values.update({
        "steps_covered": ("verl_steps_completed", steps),
        "step_seconds": ("verl_step_seconds", experiment(name, "verl_step_seconds")),
        "samples": ("verl_prompts_per_step × verl_group_size", samples),
        "response_mean": ("verl_response_tokens", experiment(name, "verl_response_tokens")),
        "prompt_mean": ("prompt_tokens_per_rollout", experiment(name, "prompt_tokens_per_rollout")),
        "logged_mfu": ("verl_mfu", experiment(name, "verl_mfu")),
    })
    table = StepTable(SOURCE)
    table.add(rec)
    frame, notes = table.finish()
    facts = {"model_path": preset["model"], "num_gpus": float(preset["num_gpus"]), "fine_tune": "lora",
             "lora_rank": experiment(name, "lora_rank"), "prompts_per_step": experiment(name, "verl_prompts_per_step"),
             "group_size": experiment(name, "verl_group_size"), "samples_per_step": samples}
    where = {"model": "workloads.csv exp1b_math model (the seed: 'Both platforms used Qwen/Qwen3-4B-Instruct-2507')",
             "num_gpus": "workloads.csv exp1b_math num_gpus (the seed: veRL on 8x B200)",
             "fine_tune": "seed_experiments.csv lora_rank 32", "samples_per_step": "batch_size 128 × n 8"}
    notes = notes + ["the seed reports run figures, not a log: one row stands for the 35 completed steps (their "
                     "mean step time and mean response length)",
                     "prompt length assumed: the 191-token MATH prompts of the seed's Tinker run (same dataset)"]
    return HostedRun(frame, SOURCE, "verl", "the seed's reported figures", preset["model"], facts, where, None,
                     tuple(notes))


@dataclass(frozen=True)
class SeedVerlCheck:
    """The seed's veRL run checked and priced, with the two cross-checks its figures allow."""
    validation: HostedValidation
    reported_wallclock_minutes: float     # the seed's "~70 min (35 steps)"
    reported_completion_tokens: float     # the seed's "~24M (partial)"
    gpu_hourly_usd: float
    rate_basis: str

    @property
    def wallclock_minutes(self) -> float:
        return self.validation.measured.totals["step_seconds_total"] / 60.0

    @property
    def completion_tokens(self) -> float:
        return self.validation.measured.totals["generated_tokens"]

    @property
    def response_tokens_mean(self) -> float:
        """Tokens per response (the seed's average)."""
        steps = self.validation.run.steps
        return float(steps["response_tokens"].sum() / (steps["samples"] * steps["steps_covered"]).sum())

    @property
    def prompt_tokens_mean(self) -> float:
        steps = self.validation.run.steps
        return float(steps["prompt_tokens"].sum() / (steps["samples"] * steps["steps_covered"]).sum())

    @property
    def measured_over_predicted(self) -> float:
        """How many times the model's step the measured step took."""
        return 1.0 / (1.0 + self.validation.summary()["error_step"])

    def bills(self, snapshots_=("2026-01-05", "2026-10-07")):
        """The same tokens on Tinker under each snapshot (the run's model, else its successor), with each bill
        over the GPU bill."""
        from .run_bills import hosted_snapshot_bills

        table = hosted_snapshot_bills(self.validation, snapshots_, ("none",))
        table["over_gpu"] = table["total_usd"] / self.validation.summary()["measured_usd"]
        return table


def seed_verl_check(prices: str | None = None, method: str | None = None, name: str = NAME) -> SeedVerlCheck:
    """The seed's veRL run reconciled with the self-hosted model on 8 × B200 (LoRA) and its tokens billed on Tinker
    at `prices` (the run's model while Tinker prices it, else its named successor). Self-hosted dollars use the
    $/GPU-hour exp 1a's recorded veRL cost implies (the same cluster), as the empirical chapter does."""
    preset = get_workload(SEED_WORKLOADS[name]).fields
    rate = cluster_hourly_usd()
    validation = validate_hosted(seed_verl_run(name), gpu=str(preset["gpu"]), gpu_hourly_usd=rate, prices=prices,
                                 method=method)
    return SeedVerlCheck(validation, experiment(name, "verl_wallclock_min_partial"),
                         experiment(name, "verl_ac_tokens_partial"), rate,
                         "implied by exp 1a's recorded veRL cost (experiments.cluster_hourly_usd)")
