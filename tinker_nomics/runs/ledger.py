"""Both sides of the ledger for any run: `check_run(path)` finds which framework wrote the logs (runs.detect) and
returns what `tinker-nomics validate` prints:

- a run on Tinker (a tinker-cookbook log): its bill from the logs (runs.validate), the same steps priced on rented
  GPUs (runs.on_gpus) and, given Tinker's usage export, the log's meters against what Tinker billed
  (runs.tinker_usage) — a `TinkerCheck`;
- a self-hosted run (verl, TRL): what the GPUs did, the self-hosted model's per-phase error, and the same tokens
  billed on Tinker (runs.validate_hosted) — a `HostedValidation`;
- a `tinker billing usage` export on its own: every row priced under the snapshot in force on its date — a
  `UsageBill`.

`ran_on` settles the side when the logs carry keys of both, and refuses a log of the other side; options that
cannot apply to the run's side are errors, named, not silently dropped.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import fmt
from ..errors import TinkerNomicsError
from .detect import SELF_HOSTED, SIDES, TINKER, USAGE, detect, read_hosted
from .on_gpus import OnGpus, price_on_gpus
from .tinker_usage import PricedUsage, UsageCheck, price_usage, read_usage, reconcile_usage
from .validate import Validation, validate_run
from .validate_hosted import validate_hosted

@dataclass(frozen=True)
class TinkerCheck:
    """A Tinker run: its bill (Validation), the same steps on GPUs, and the usage export's check."""
    validation: Validation
    on_gpus: OnGpus | None
    on_gpus_reason: str | None
    usage: UsageCheck | None

    @property
    def run(self):
        return self.validation.run

    def to_dict(self, per_step: bool = True) -> dict:
        out = {"ran_on": TINKER, "framework": "tinker-cookbook", **self.validation.to_dict(per_step)}
        train = self.validation.run.train
        seconds = train["step_seconds"]
        out["measured"] = {"steps": self.validation.run.n_steps,
                           "step_seconds_mean": fmt.json_value(seconds.mean()) if seconds.notna().any() else None,
                           "wallclock_seconds": fmt.json_value(seconds.sum()) if seconds.notna().any() else None,
                           "basis": "tinker-cookbook's time/total (or time/training_loop/total) per step"}
        out["self_hosted"] = self.on_gpus.to_dict() if self.on_gpus else {"notes": [self.on_gpus_reason]}
        if self.usage is not None:
            out["usage"] = self.usage.to_dict()
        return out

    def per_step_table(self):
        """One row per step of the run's bill: what `--per-step FILE` writes."""
        return self.validation.per_step_table()

    def sides(self) -> dict:
        """The run's Tinker bill against the same steps on GPUs (the chapter glues these)."""
        tinker = self.validation.total_usd
        if self.on_gpus is None:
            return {"tinker_usd": tinker, "gpu_usd": float("nan"), "gpu_over_tinker": float("nan")}
        d = self.on_gpus.to_dict()
        return {**d, "tinker_usd": tinker, "gpu_usd": d["compute_usd"],
                "gpu_over_tinker": d["compute_usd"] / tinker if tinker else float("nan")}

    def render(self) -> str:
        text = self.validation.render()
        extra = [self.on_gpus.render() if self.on_gpus else f"On GPUs       not computed: {self.on_gpus_reason}"]
        if self.on_gpus:
            extra += [f"Note: {n}" for n in self.on_gpus.notes]
        if self.usage is not None:
            extra += ["", self.usage.render()] + [f"Note: {n}" for n in self.usage.notes]
        return text + "\n\n" + "\n".join(extra)


@dataclass(frozen=True)
class UsageBill:
    """A usage export on its own, every row priced."""
    export_source: str
    kind: str
    priced: PricedUsage
    cost_data_through: str | None

    def to_dict(self, per_step: bool = True) -> dict:
        rows = self.priced.rows
        out = {"ran_on": "tinker", "framework": "tinker billing usage", "source": self.export_source,
               "format": self.kind, "total_usd": fmt.json_value(self.priced.total_usd),
               "export_estimated_usd": fmt.json_value(rows["estimated_cost_usd"].sum(min_count=1)),
               "by_meter": fmt.json_records(self.priced.totals), "snapshots": sorted(set(rows["snapshot"])),
               "models": sorted(str(m) for m in set(rows["base_model"].dropna())),
               "cost_data_through": self.cost_data_through, "notes": list(self.priced.notes)}
        if per_step:
            out["rows"] = fmt.json_records(self.per_step_table())
        return out

    def per_step_table(self):
        """The export's rows, each priced: what `--per-step FILE` writes."""
        return self.priced.rows.drop(columns=["where"])

    def render(self) -> str:
        d = self.to_dict(per_step=False)
        lines = [f"{fmt.printable(Path(self.export_source).name, limit=160)} · {self.kind} · {fmt.count(len(self.priced.rows), 'row')} · "
                 f"models {', '.join(d['models']) or 'none named'}",
                 f"Priced        {fmt.usd(self.priced.total_usd)} at the snapshots in force on each row's date "
                 f"({', '.join(d['snapshots'])}); the export's own estimate: "
                 f"{'n/a' if d['export_estimated_usd'] is None else fmt.usd(d['export_estimated_usd'])}"]
        for r in self.priced.totals.itertuples(index=False):
            unit = {"storage": "GB-h", "checkpoint": "checkpoints"}.get(r.meter, "tokens")
            qty = fmt.tokens(r.quantity) if unit == "tokens" else f"{r.quantity:,.2f} {unit}"
            lines.append(f"  {r.meter:<15} {qty:>14}   {fmt.usd(r.usd) if r.usd == r.usd else 'not priced':>12}")
        lines += [f"Note: {n}" for n in self.priced.notes]
        return "\n".join(lines)


def check_run(path, ran_on: str | None = None, *, model=None, prices=None, price_as=None, cached_prefill="auto",
              group_size=None, run=None, gpu=None, num_gpus=None, gpu_hourly_usd=None, fine_tune=None,
              prompts_per_step=None, method=None, off_policy=None, usage=None, sessions=None, arch=None,
              prompt_len=None, rollout_gpus=None):
    """Both sides of the ledger for the run at `path` (module docstring). `arch` is a model architecture read
    from a Hugging Face config (`--model-config`), used instead of the registry's for the GPU side."""
    if ran_on is not None and ran_on not in SIDES:
        raise TinkerNomicsError(f"ran-on must be one of {', '.join(SIDES)}, got {ran_on!r}")
    found = detect(path, ran_on)
    if ran_on is not None:
        if found.side != ran_on:
            where = {TINKER: "ran on Tinker", SELF_HOSTED: "ran on self-hosted GPUs"}.get(
                found.side, "is Tinker's usage export, not a run's log")
            raise TinkerNomicsError(f"{path}: --ran-on {ran_on}, but this is a {found.framework} log "
                                    f"({found.reason}), which {where}")
    if found.side == USAGE:
        _refuse(found.framework, usage=usage, model=model, gpu=gpu, num_gpus=num_gpus, group_size=group_size,
                prompts_per_step=prompts_per_step, fine_tune=fine_tune, price_as=price_as, run=run,
                prompt_len=prompt_len, rollout_gpus=rollout_gpus)
        export = read_usage(path)
        priced = price_usage(export, None, sessions)
        return UsageBill(export.source, export.kind, priced, export.cost_data_through)
    if found.side == SELF_HOSTED:
        _refuse(found.framework, usage=usage, sessions=sessions, cached_logged=cached_prefill == "logged")
        facts = {}
        if off_policy is not None:   # an asynchronous run whose log does not say so (a W&B export holds no config)
            facts["off_policy"] = float(off_policy)
        if rollout_gpus is not None:
            facts["rollout_gpus"] = float(rollout_gpus)
        if group_size is not None:
            facts["group_size"] = float(group_size)
        if prompts_per_step is not None:
            facts["prompts_per_step"] = float(prompts_per_step)
        if prompt_len is not None:
            facts["prompt_tokens_per_sample"] = float(prompt_len)
        if (prompts_per_step is None) != (group_size is None) and found.framework == "TRL":
            raise TinkerNomicsError("--prompts-per-step and --group-size go together: completions per step = "
                                    "prompts per step × group size")
        hosted = read_hosted(path, found, run, facts)
        return validate_hosted(hosted, model=model, gpu=gpu, num_gpus=num_gpus, fine_tune=fine_tune,
                               gpu_hourly_usd=gpu_hourly_usd, prices=prices, price_as=price_as,
                               cached_prefill=cached_prefill, method=method, arch=arch)
    _refuse(found.framework, prompts_per_step=prompts_per_step, prompt_len=prompt_len, rollout_gpus=rollout_gpus)
    validation = validate_run(path, model=model, prices=prices, price_as=price_as, cached_prefill=cached_prefill,
                              group_size=group_size, run=run)
    on_gpus, reason = None, None
    try:
        on_gpus = price_on_gpus(validation.run, validation.bill.model, gpu, num_gpus, gpu_hourly_usd, method,
                                fine_tune, off_policy, arch)
    except TinkerNomicsError as exc:
        if gpu is not None or num_gpus is not None:
            raise
        reason = str(exc)
    check = None
    if usage is not None:
        check = reconcile_usage(validation.bill.meters, validation.bill.model, read_usage(usage), sessions)
    elif sessions:
        raise TinkerNomicsError("--session picks sessions of a usage export; pass the export with --usage")
    return TinkerCheck(validation, on_gpus, reason, check)


def _refuse(framework: str, **given) -> None:
    names = {"usage": "--usage", "sessions": "--session", "off_policy": "--off-policy", "model": "--model",
             "gpu": "--gpu", "num_gpus": "--num-gpus", "group_size": "--group-size",
             "prompts_per_step": "--prompts-per-step", "fine_tune": "--fine-tune", "price_as": "--price-as",
             "run": "--run", "cached_logged": "--cached-prefill logged", "prompt_len": "--prompt-len",
             "rollout_gpus": "--rollout-gpus"}
    bad = [names[k] for k, v in given.items() if v not in (None, False, (), [])]
    if bad:
        raise TinkerNomicsError(f"{', '.join(bad)} cannot apply to a {framework} log")
