"""Managed RL services beside Tinker (data/services/managed_services.csv), each row dated and sourced.

Billing units:
  per_token      prefill / sample / train per million tokens, Tinker's three meters (Prime Intellect's shared
                 Hosted Training; Fireworks' Serverless Training API lists one meter per model);
  gpu_hour       dedicated GPUs billed per GPU-hour, trainer and generator together (Fireworks dedicated trainers);
  training_hour  wall-clock hours of the training loop (OpenAI RFT, o4-mini only).

`status` says whether a run can go there today: available, preview (private preview; the rates a run needs are
incomplete), closed_to_new_runs (keeps its row, with the date), not_applicable (with the reason), no_public_rate
(listed so a row can be filled in when a rate appears; no figure without a source).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import TinkerNomicsError, _squash
from .architectures import find_model
from .hardware import gpus
from .prices import Price
from .tables import Column, load_table

TABLE = "services/managed_services.csv"
BILLINGS = ("per_token", "gpu_hour", "training_hour", "")
STATUSES = ("available", "preview", "closed_to_new_runs", "not_applicable", "no_public_rate")
METERS = ("prefill", "sample", "train")


@dataclass(frozen=True)
class ManagedService:
    service: str
    vendor: str
    billing: str
    model: str | None              # per_token and training_hour rows: the model the rates are for
    gpu: str | None                # gpu_hour rows: the registry's GPU
    prefill_usd_per_m: float | None
    sample_usd_per_m: float | None
    train_usd_per_m: float | None
    usd_per_gpu_hour: float | None
    usd_per_training_hour: float | None
    status: str
    status_date: str | None
    why_not: str                   # why a run cannot go there today ('' when it can)
    status_note: str
    published: str | None          # when the copy we read was taken from the vendor's page
    recorded: str                  # when we read it
    source_url: str
    source: str
    row: int

    @property
    def available(self) -> bool:
        return self.status == "available"

    @property
    def complete(self) -> bool:
        """A per-token row prices all three meters (a run can be billed on it)."""
        return self.billing == "per_token" and all(getattr(self, f"{m}_usd_per_m") is not None for m in METERS)

    def price(self) -> Price:
        """The per-token rates as a Price, so the bill is computed by the same billing code as Tinker's."""
        if not self.complete:
            raise TinkerNomicsError(f"{TABLE} row {self.row}: {self.service} does not price all three meters for "
                                    f"{self.model}")
        return Price(self.model, self.service, self.prefill_usd_per_m, self.sample_usd_per_m, self.train_usd_per_m,
                     None, {m: f"{self.service} ({self.source_url}, read {self.recorded})" for m in METERS})

    def serves(self, model: str) -> bool:
        """Whether this row's rates are for `model` (same canonical id, or the same name ignoring case and
        punctuation for models outside the registry)."""
        if self.model is None:
            return False
        return _canonical(self.model) == _canonical(model)


def _canonical(name: str) -> str:
    return find_model(name) or _squash(name.split("/")[-1])


@functools.lru_cache(maxsize=None)
def managed_services() -> tuple[ManagedService, ...]:
    rows = load_table(TABLE, [
        Column("service"), Column("vendor"), Column("billing", required=False), Column("model", required=False),
        Column("gpu", required=False), Column("prefill_usd_per_m", "float", False),
        Column("sample_usd_per_m", "float", False), Column("train_usd_per_m", "float", False),
        Column("usd_per_gpu_hour", "float", False), Column("usd_per_training_hour", "float", False),
        Column("status"), Column("status_date", required=False), Column("why_not", required=False),
        Column("status_note", required=False),
        Column("published", required=False), Column("recorded"), Column("source_url"), Column("source")])
    out = []
    for r in rows:
        where = f"{TABLE} row {r['_row']}"
        billing = r["billing"] or ""
        if billing not in BILLINGS:
            raise TinkerNomicsError(f"{where} column billing: {billing!r} is not one of {', '.join(BILLINGS[:-1])}")
        if r["status"] not in STATUSES:
            raise TinkerNomicsError(f"{where} column status: {r['status']!r} is not one of {', '.join(STATUSES)}")
        rates = [r[c] for c in ("prefill_usd_per_m", "sample_usd_per_m", "train_usd_per_m", "usd_per_gpu_hour",
                                "usd_per_training_hour")]
        if any(x is not None and x < 0 for x in rates):
            raise TinkerNomicsError(f"{where}: a rate is negative")
        if r["status"] == "no_public_rate" and any(x is not None for x in rates):
            raise TinkerNomicsError(f"{where}: status no_public_rate but a rate is given")
        if (r["status"] == "available") == bool(r["why_not"]):
            raise TinkerNomicsError(f"{where} column why_not: needed exactly when the status is not available")
        if r["status"] == "closed_to_new_runs" and not r["status_date"]:
            raise TinkerNomicsError(f"{where} column status_date: a closed service needs the date it closed")
        if billing == "gpu_hour" and r["usd_per_gpu_hour"] is not None:
            if r["gpu"] not in gpus():
                raise TinkerNomicsError(f"{where} column gpu: {r['gpu']!r} is not in the GPU registry")
        service = ManagedService(r["service"], r["vendor"], billing, r["model"], r["gpu"], r["prefill_usd_per_m"],
                                 r["sample_usd_per_m"], r["train_usd_per_m"], r["usd_per_gpu_hour"],
                                 r["usd_per_training_hour"], r["status"], r["status_date"], r["why_not"] or "",
                                 r["status_note"] or "",
                                 r["published"], r["recorded"], r["source_url"], r["source"], r["_row"])
        if service.available and billing == "per_token" and not service.complete:
            raise TinkerNomicsError(f"{where}: an available per-token service must price prefill, sample and train")
        out.append(service)
    return tuple(out)


def per_token_services(model: str) -> list[ManagedService]:
    """The per-token rows priced for `model` (any status)."""
    return [s for s in managed_services() if s.billing == "per_token" and s.serves(model)]


def gpu_hour_services(status: str | None = "available") -> list[ManagedService]:
    """The managed GPU-hour rows with a rate (by default, the ones taking runs)."""
    return [s for s in managed_services() if s.billing == "gpu_hour" and s.usd_per_gpu_hour is not None
            and (status is None or s.status == status)]


def not_applicable() -> list[ManagedService]:
    """Services listed with a reason no workload here can run there (OpenAI RFT: o4-mini only; ...)."""
    return [s for s in managed_services() if s.status == "not_applicable"]
