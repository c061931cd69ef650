"""A Tinker run's token streams priced on rented GPUs: what the same steps would have taken, and cost, on N GPUs
of a kind, by the self-hosted model with the package's default method (model.rl_step).

Every logged training step is re-run on the GPUs from its own counts: its rollouts (env/all/total_episodes), their
mean prompt and completion length (total_ob_tokens / episodes, total_ac_tokens / episodes), trained once each. Eval
rollouts logged at a step add their own generation time (no training). Tinker runs are LoRA fine-tunes, so the
training FLOPs are LoRA's unless told otherwise. The schedule is the package's default off-policy bound (k, from
data/assumptions/defaults.csv: generation overlaps training when k ≥ 1) unless given. Multi-turn episodes are
priced as one turn with all their prompt and completion tokens, which under-counts the KV traffic of long histories.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import fmt, sources
from ..errors import TinkerNomicsError
from ..model import training
from ..model.rl_step import rl_steps
from ..model.scenario import DEFAULT_METHOD
from ..sources.hf_config import stored_dtype_note
from .runlog import RunLog


@dataclass(frozen=True)
class OnGpus:
    model: str
    gpu: str
    num_gpus: float
    gpu_hourly_usd: float
    method: str
    fine_tune: str
    off_policy: float
    per_step: pd.DataFrame      # step, rollout/eval/train/step seconds
    sources: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def wallclock_hours(self) -> float:
        return float(self.per_step["step_seconds"].sum()) / 3600.0

    @property
    def gpu_hours(self) -> float:
        return self.wallclock_hours * self.num_gpus

    @property
    def compute_usd(self) -> float:
        return self.gpu_hours * self.gpu_hourly_usd

    def to_dict(self) -> dict:
        t = self.per_step
        return {"model": self.model, "gpu": self.gpu, "num_gpus": self.num_gpus, "gpu_hourly_usd": self.gpu_hourly_usd,
                "method": self.method, "fine_tune": self.fine_tune, "off_policy": self.off_policy,
                "rollout_hours": float(t["rollout_seconds"].sum() + t["eval_seconds"].sum()) / 3600.0,
                "train_hours": float(t["train_seconds"].sum()) / 3600.0, "wallclock_hours": self.wallclock_hours,
                "gpu_hours": self.gpu_hours, "compute_usd": self.compute_usd,
                "step_seconds_mean": float(t["step_seconds"].mean()), "sources": dict(self.sources),
                "notes": list(self.notes)}

    def render(self) -> str:
        d = self.to_dict()
        cost = (f"{fmt.usd(d['compute_usd'])} = {d['gpu_hours']:,.1f} GPU-h × {fmt.usd(self.gpu_hourly_usd)}"
                if math.isfinite(self.gpu_hourly_usd) else f"dollars unknown: {d['gpu_hours']:,.1f} GPU-h")
        return (f"On GPUs       {cost} "
                f"on {self.num_gpus:g} × {self.gpu} (method {self.method}, {self.fine_tune}, k={self.off_policy:g})\n"
                f"              rollout {fmt.hours(d['rollout_hours'])}, train {fmt.hours(d['train_hours'])}, "
                f"wall-clock {fmt.hours(d['wallclock_hours'])}, {d['step_seconds_mean']:,.1f} s per step")


def price_on_gpus(run: RunLog, model: str, gpu: str | None = None, num_gpus: float | None = None,
                  gpu_hourly_usd: float | None = None, method: str | None = None, fine_tune: str | None = None,
                  off_policy: float | None = None, arch=None) -> OnGpus:
    """The run's logged steps re-run on `num_gpus` × `gpu` (module docstring); `arch` (a ModelArch from a
    Hugging Face config) replaces the registry's architecture."""
    canonical = sources.resolve_model(model)
    notes = [] if arch is None else list(filter(None, [stored_dtype_note(arch)]))
    if arch is None:
        if not sources.has_arch(canonical):
            raise TinkerNomicsError(f"{canonical} has no published architecture in data/models/model_archs.csv: its "
                                    f"GPU time cannot be computed")
        arch = sources.get_arch(canonical)
    where = {}
    gpu_name = gpu if gpu is not None else str(sources.assumption("gpu"))
    where["gpu"] = "--gpu" if gpu is not None else "the package default (data/assumptions/defaults.csv)"
    record = sources.get_gpu(gpu_name)
    count = float(num_gpus) if num_gpus is not None else sources.number("num_gpus")
    where["num_gpus"] = "--num-gpus" if num_gpus is not None else "the package default (data/assumptions/defaults.csv)"
    if gpu_hourly_usd is not None:
        rate = float(gpu_hourly_usd)
        where["gpu_hourly_usd"] = "--gpu-hourly-usd"
    else:
        listing = sources.gpu_price_listing(record.gpu)
        rate = listing.usd_per_gpu_hour if listing is not None else math.nan   # NaN dollars: null, with a note
        where["gpu_hourly_usd"] = f"the registry's default listing for {record.gpu}" if listing is not None else \
            f"unknown: no sourced $/GPU-hour for {record.gpu}"
    k = float(off_policy) if off_policy is not None else sources.number("off_policy")
    where["off_policy"] = "--off-policy" if off_policy is not None else "the package default (data/assumptions)"
    mode = (fine_tune or "lora").lower()
    where["fine_tune"] = "--fine-tune" if fine_tune else "Tinker trains LoRA adapters"
    chosen = method or DEFAULT_METHOD
    if math.isnan(rate):
        notes.append(f"no sourced $/GPU-hour for {record.gpu} in data/hardware/gpu_prices*.csv: the GPU dollars are "
                     f"unknown (null); give the rate with --gpu-hourly-usd")
    train = run.train
    episodes = train["episodes"]
    if episodes.isna().any() or not (episodes > 0).all():
        shape = run.config.get("groups_per_batch", 0) * run.config.get("group_size", 0)
        if not shape:
            raise TinkerNomicsError(f"{run.source}: env/all/total_episodes is not logged on every step and the config "
                                    f"gives no batch shape: the rollouts per step are unknown")
        episodes = pd.Series(float(shape), index=train.index)
        notes.append("rollouts per step from config.json groups_per_batch × group_size")
    response = (train["train_completion_tokens"] / episodes).to_numpy()
    prompt = (train["train_prompt_tokens"] / episodes).to_numpy()
    steps = dict(arch=arch, gpu=record, num_gpus=count, method=chosen, fine_tune=mode)
    rollout_h, train_h, used_gpus, min_gpus = _hours(steps, episodes.to_numpy(), prompt, response)
    rollout_s, train_s = rollout_h * 3600.0, train_h * 3600.0
    eval_s = np.zeros(len(train))
    ev = train["eval_episodes"].fillna(0.0).to_numpy() > 0
    if ev.any():
        e = train[ev]
        eval_s[ev] = _hours(steps, e["eval_episodes"].to_numpy(), (e["eval_prompt_tokens"] / e["eval_episodes"])
                            .to_numpy(), (e["eval_completion_tokens"] / e["eval_episodes"]).to_numpy())[0] * 3600.0
    eval_only = run.steps[~run.steps["has_train"] & (run.steps["eval_episodes"] > 0)]
    extra = 0.0
    if len(eval_only):
        e = eval_only
        extra = float(np.sum(_hours(steps, e["eval_episodes"].to_numpy(), (e["eval_prompt_tokens"]
                                                                          / e["eval_episodes"]).to_numpy(),
                                    (e["eval_completion_tokens"] / e["eval_episodes"]).to_numpy())[0])) * 3600.0
    generation = rollout_s + eval_s
    step_s = np.asarray(training.wallclock_hours(generation, train_s, k), dtype=float)
    per_step = pd.DataFrame({"step": train["step"].to_numpy(), "rollout_seconds": rollout_s, "eval_seconds": eval_s,
                             "train_seconds": train_s, "step_seconds": step_s}, copy=False)   # no 2-D copy
    if extra:
        per_step = pd.concat([per_step, pd.DataFrame({
            "step": eval_only["step"].to_numpy(), "rollout_seconds": 0.0, "eval_seconds": extra / len(eval_only),
            "train_seconds": 0.0, "step_seconds": extra / len(eval_only)})], ignore_index=True)
    if np.any(used_gpus > count):
        notes.append(f"{arch.model} needs at least {int(np.max(min_gpus))} × {record.gpu} by the model's "
                     f"memory rule; the hours use that many")
    if run.multi_turn:
        notes.append("multi-turn episodes are priced as one turn holding all their tokens")
    if k >= 2:
        notes.append("rollouts discarded as too stale at k ≥ 2 are not re-sampled here")
    if not math.isfinite(float(per_step["step_seconds"].sum())):
        raise TinkerNomicsError(f"{run.source}: the GPU hours do not add up to a finite number")
    return OnGpus(canonical, record.gpu, float(np.max(used_gpus)) if np.size(used_gpus) else count,
                  rate, chosen, mode, k, per_step, where, tuple(notes))


CHUNK_STEPS = 65_536   # steps re-run at a time: the model's intermediate arrays stay small for a 10^6-step log


def _hours(steps: dict, samples, prompt, response) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rollout hours, training hours, GPUs used and the minimum GPUs of each step (model.rl_step.rl_steps), the
    steps taken CHUNK_STEPS at a time so that memory does not grow with the log."""
    out = tuple(np.empty(len(samples)) for _ in range(4))
    for start in range(0, len(samples), CHUNK_STEPS):
        cut = slice(start, start + CHUNK_STEPS)
        hosted = rl_steps(**steps, samples=samples[cut], prompt_tokens=prompt[cut], response_tokens=response[cut],
                          off_policy=0.0)
        for target, value in zip(out, (hosted.rollout_hours, hosted.train_hours, hosted.num_gpus, hosted.min_gpus)):
            target[cut] = value
    return out
