"""A LoRA adapter in the rollout engine: how fast an engine decodes with an unmerged adapter against its base model.

An RL framework that trains a LoRA adapter hands the rollout engine the adapter, not merged weights (verl's
vLLM server serves it as an adapter unless `actor_rollout_ref.model.lora.merge` is set: verl PR #5412,
`lora_as_adapter = ... and not self.model_config.lora.get("merge", False)`). The engine then runs the adapter's
own kernels beside every adapted layer at every decode step. Published side-by-side runs of one engine with and
without an adapter (data/measurements/lora_decode.csv) put its speed at a stable share of the base model's,
across batch sizes from 8 to 512 and across engines; a merged adapter decodes at the base model's speed.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import fmt
from ..errors import TinkerNomicsError
from .tables import Column, load_table

WHERE = "measurements/lora_decode.csv"


@functools.lru_cache(maxsize=None)
def lora_decode_rows() -> tuple[dict, ...]:
    rows = load_table(WHERE, [Column("case_id"), Column("source"), Column("source_url"), Column("engine"),
                              Column("model"), Column("gpu"), Column("setup"),
                              Column("base_tokens_per_s", "float"), Column("lora_tokens_per_s", "float"),
                              Column("usable", "bool"), Column("reason", required=False), Column("quote")])
    for r in rows:
        if not 0 < r["lora_tokens_per_s"] <= r["base_tokens_per_s"] * 1.05:
            raise TinkerNomicsError(f"{WHERE} row {r['_row']}: an adapter at {r['lora_tokens_per_s']:g} against the "
                                    f"base model's {r['base_tokens_per_s']:g} is not a slowdown the table records")
        if not r["usable"] and not r["reason"]:
            raise TinkerNomicsError(f"{WHERE} row {r['_row']}: a row left out needs its reason")
    return tuple(rows)


@functools.lru_cache(maxsize=None)
def lora_decode_speed_share() -> float:
    """The share of the base model's decode speed an engine keeps with an unmerged LoRA adapter: the median over
    the usable sources of each source's median ratio (one source's batch sizes count once)."""
    by_source: dict[str, list[float]] = {}
    for r in lora_decode_rows():
        if r["usable"]:
            by_source.setdefault(r["source_url"], []).append(r["lora_tokens_per_s"] / r["base_tokens_per_s"])
    if not by_source:
        raise TinkerNomicsError(f"{WHERE}: no usable row")
    return float(np.median([np.median(v) for v in by_source.values()]))


def rollout_note(merged: bool) -> str:
    """How a prediction's rollout engine runs a LoRA adapter, in words: merged, at the base model's speed, or
    unmerged, as verl serves it by default, at the measured share of that speed."""
    if merged:
        return "the rollout engine decodes with the LoRA adapter merged into the weights, at the base model's speed"
    return (f"the rollout engine serves the LoRA adapter unmerged, as verl does by default, and decodes at "
            f"{fmt.pct(lora_decode_speed_share(), 0)} of the base model's speed (the median of published runs with "
            f"and without an adapter: data/measurements/lora_decode.csv)")

