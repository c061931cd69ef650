"""How the book names things: one display name per input, one symbol per quantity, defined once.

Tables, figures, explorers and panels name an input through `label` (never its Python name: a reader sees
"length growth, end ÷ start (g)", not `length_growth`). The symbols here are the book's notation
(book/notation.md, where every symbol is defined once and means one thing: B is prompts per step, never
bandwidth; L is the completion length, never a layer count; N is active parameters, never turns);
tests/test_labels.py checks that every symbol here is defined there.

    from tinker_nomics.faces import labels
    labels.label("length_growth")            # 'length growth, end ÷ start (g)'
    labels.label("gpu_hourly_usd", unit=True)   # '$ per GPU-hour'
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Name:
    words: str                 # what a reader calls it
    symbol: str = ""           # its symbol in plain text (tables, figures), "" when it has none
    unit: str = ""             # the unit an axis needs, "" when it has none

    def text(self, symbol: bool = True, unit: bool = False) -> str:
        out = self.words
        if unit and self.unit:
            out += f" ({self.unit})"
        if symbol and self.symbol:
            out += f" ({self.symbol})"
        return out


# Scenario fields and the other names a table or figure may carry (uncertainty draws, map axes, estimate columns).
NAMES: dict[str, Name] = {
    "prompts_per_step": Name("prompts per step", "B"),
    "group_size": Name("rollouts per prompt", "G"),
    "steps": Name("steps", "S"),
    "completion_tokens": Name("completion length", "L", "tokens"),
    "prompt_tokens": Name("prompt length", "P", "tokens"),
    "length_growth": Name("length growth, end ÷ start", "g"),
    "substeps": Name("passes per batch", "K"),
    "episodes_per_step": Name("rollouts per step, prompts × rollouts each"),
    "completion_tokens_late": Name("completion length at the end", "", "tokens"),
    "eval_every": Name("steps between evaluations"),
    "eval_prompts": Name("rollouts per evaluation"),
    "turns": Name("turns per rollout", "T"),
    "output_per_turn": Name("output tokens per turn", "O", "tokens"),
    "observation_per_turn": Name("observation tokens per turn", "", "tokens"),
    "failure_overhead": Name("extra turns of failed rollouts"),
    "cache_hit_rate": Name("prefix-cache hit rate"),
    "off_policy": Name("steps off-policy", "k"),
    "num_gpus": Name("GPUs"),
    "gpu_hourly_usd": Name("GPU price", "", "$ per GPU-hour"),
    "rollout_efficiency": Name("rollout efficiency, share of the decode roofline", "η"),
    "mfu": Name("training MFU"),
    "prefill_mfu": Name("prefill MFU"),
    "sandbox_seconds_per_rollout": Name("sandbox seconds per rollout"),
    "lora_rank": Name("LoRA rank", "r"),
    "model_error_factor": Name("model error, measured ÷ predicted self-hosted hours"),
    "tinker_time_factor": Name("Tinker time error, measured ÷ fitted step time"),
    "decode_bandwidth_efficiency": Name("decode bandwidth efficiency", "η_bw"),
    "decode_compute_efficiency": Name("decode and prefill compute efficiency", "η_c"),
    "weight_only_efficiency": Name("weight-only int8/int4 reads, share of η_bw"),
    "decode_step_overhead_seconds": Name("fixed cost per decode step", "", "s"),
    "decode_sequence_overhead_seconds": Name("cost per sequence per decode step", "", "s"),
    "allreduce_latency_seconds": Name("latency per tensor-parallel all-reduce", "τ", "s"),
    "eager_layer_seconds": Name("host launch time per layer per decode step without CUDA graphs", "", "s"),
    "generation_overhead_seconds": Name("fixed cost of an RL step's generation", "", "s"),
    "rollout_sequence_overhead_seconds": Name("rollout cost per sequence per decode step, beyond serving", "", "s"),
    "train_gemm_efficiency": Name("training GEMM efficiency, share of BF16 peak"),
    "moe_gemm_share": Name("mixture-of-experts share of the GEMM efficiency"),
    "train_flops_per_byte": Name("training FLOPs per byte of memory traffic"),
    "pass_overhead_seconds": Name("fixed cost per trainer call (a log-prob pass, an update)", "", "s"),
    "micro_batch_overhead_seconds": Name("fixed cost per micro-batch pass", "", "s"),
    "step_overhead_seconds": Name("fixed cost per RL step outside its phases", "", "s"),
    "response_max_over_mean": Name("longest response over the mean"),
    "model": Name("model"),
}


def label(name: str, symbol: bool = True, unit: bool = False) -> str:
    """The display name of an input: its words, then its symbol in brackets; `unit=True` adds the axis unit.
    A name the table does not hold reads as words (underscores become spaces), never as a Python name."""
    if name in NAMES:
        return NAMES[name].text(symbol=symbol, unit=unit)
    return str(name).replace("_", " ")


def axis(name: str) -> str:
    """An axis label: words, unit and symbol ('completion length (tokens) (L)' reads 'completion length L, tokens')."""
    n = NAMES.get(name)
    if n is None:
        return label(name)
    parts = n.words + (f" {n.symbol}" if n.symbol else "")
    return parts + (f" ({n.unit})" if n.unit else "")


# A Python name: lower-case words joined by underscores (length_growth, off_policy). Workload names (math_rl) are
# names of presets, which a reader meets as such, and may appear; `raw_names` leaves them out.
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def raw_names(text: str) -> list[str]:
    """The Python names in `text` that are not workload presets: what no header or axis label may show."""
    from ..sources.workloads import workloads

    presets = set(workloads())
    return [m for m in SNAKE.findall(str(text)) if m not in presets]
