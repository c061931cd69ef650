"""The same run on the other managed RL services (data/services/managed_services.csv), for `estimate`.

Per-token services bill the estimate's token streams with the billing code Tinker's bill uses, at the service's
rates; managed GPU-hour services bill the self-hosted hours `estimate` computes for the scenario's GPUs, at the
service's $/GPU-hour (one more `estimate` call with that rate). Only rows for the scenario's model (per token)
or GPU (per GPU-hour) are quoted; a service that cannot take the run today keeps its quote with why.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import billing
from ..model.estimate import Estimate, estimate, sandbox_bill
from ..model.scenario import Scenario
from ..sources.services import ManagedService, gpu_hour_services, per_token_services


@dataclass(frozen=True)
class ServiceQuote:
    service: str
    billing: str
    status: str
    available: bool
    total_usd: float | None           # None: the rates the run needs are not all published
    why_not: str                      # '' when the service takes runs
    detail: str                       # how the figure was made, for the text output
    source_url: str

    def to_dict(self) -> dict:
        return {"service": self.service, "billing": self.billing, "status": self.status,
                "available": self.available, "total_usd": self.total_usd, "why_not": self.why_not or None,
                "detail": self.detail, "source_url": self.source_url}


def other_services(scenario: Scenario, est: Estimate) -> list[ServiceQuote]:
    """Quotes for `est` (a scalar estimate of `scenario`) on every managed service that prices its model or GPU."""
    out = []
    for s in per_token_services(est.scenario.model):
        out.append(_per_token(s, est))
    if est.self_hosted is not None:
        for s in gpu_hour_services(status=None):
            if s.gpu == est.scenario.gpu:
                out.append(_gpu_hour(s, scenario))
    return out


def _per_token(s: ManagedService, est: Estimate) -> ServiceQuote:
    total, detail = None, "the service does not price all three meters for this model"
    if s.complete:
        bill = billing.tinker_bill(est.tokens.sample, est.tokens.train, est.tokens.prefill, s.price(),
                                   sandbox_usd=sandbox_bill(est.scenario, est.tokens.rollouts))
        total = float(np.asarray(bill.total_usd))
        detail = (f"sample ${float(bill.sample_usd):,.2f} + train ${float(bill.train_usd):,.2f} + prefill "
                  f"${float(bill.prefill_usd):,.2f} + sandbox ${float(bill.sandbox_usd):,.2f} at "
                  f"${s.prefill_usd_per_m:g} / ${s.sample_usd_per_m:g} / ${s.train_usd_per_m:g} per M "
                  f"(prefill / sample / train), read {s.recorded}")
    return ServiceQuote(s.service, s.billing, s.status, s.available, total, s.why_not, detail, s.source_url)


def _gpu_hour(s: ManagedService, scenario: Scenario) -> ServiceQuote:
    there = estimate(scenario.replace(gpu_hourly_usd=s.usd_per_gpu_hour,
                                      gpu_hourly_usd_source=f"{s.service}, read {s.recorded} ({s.source_url})"))
    h = there.self_hosted
    detail = (f"{float(h.gpu_hours):,.1f} GPU-h × ${s.usd_per_gpu_hour:,.2f} on {float(h.num_gpus):g} × "
              f"{there.scenario.gpu}, read {s.recorded}")
    return ServiceQuote(s.service, s.billing, s.status, s.available, float(h.total_usd), s.why_not, detail,
                        s.source_url)
