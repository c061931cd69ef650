"""Training throughput on your own GPUs: compute-bound, FLOPs per token over a utilization (MFU).

LoRA needs ~4N FLOPs per token (forward 2N, backward through the frozen weights for activation gradients
2N; no weight gradients for the frozen base); full fine-tuning needs 6N.
"""
from __future__ import annotations

import numpy as np

from ..sources.defaults import number


def flops_per_param_per_token(fine_tune: str = "lora") -> float:
    return number("train_flops_per_param_full" if fine_tune == "full" else "train_flops_per_param_lora")


def train_tokens_per_second(num_gpus, peak_flops, mfu, flops_per_token):
    """(GPUs × peak × MFU) / FLOPs per token: 8 H100 at 35% MFU, LoRA 4·8e9 → 86,625 tok/s."""
    return np.asarray(num_gpus, dtype=float) * peak_flops * mfu / flops_per_token


def compute_hours(flops, num_gpus, peak_flops, utilization):
    """Wall-clock hours to do `flops` at `utilization` of the cluster's peak."""
    return np.asarray(flops, dtype=float) / (np.asarray(num_gpus, dtype=float) * peak_flops * utilization) / 3600.0


def wallclock_hours(rollout_hours, train_hours, off_policy):
    """k = 0: generate then train (sum). k >= 1: the next batch is generated while this one trains (max)."""
    k = np.asarray(off_policy, dtype=float)
    return np.where(k > 0, np.maximum(rollout_hours, train_hours), np.asarray(rollout_hours) + train_hours)
