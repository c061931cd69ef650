"""A self-hosted run checked from its logs and priced on the other side: `validate_hosted` reads the logs
(runs.detect), measures what the hardware did (runs.measured), re-predicts every step with the self-hosted model
(runs.reconcile), and bills the same token streams on Tinker (runs.meters), into one `HostedValidation` that the
CLI prints, the report renders and `--save-calibration` writes from.

Tinker accounting of a self-hosted run's tokens (the contract's, as for a Tinker run): sample = generated tokens;
train = prompt + generated tokens of every trained sequence; prefill = every prompt token. Validation rollouts are
not in the logged token counts (verl counts the training batch only), so they are not billed. The model is billed
at its own rates while the snapshot prices it, else at its named successor's (data/models/successors.csv; marked),
else at the rates of `price_as`; with none of these the Tinker side is left out, saying why.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import fmt, sources
from ..errors import TinkerNomicsError, UnknownNameError
from ..sources.architectures import ModelArch
from ..sources.hardware import GPU
from ..sources.hf_config import stored_dtype_note
from ..sources.price_list import resolve_snapshot
from ..sources.successors import model_for
from .hosted import HostedRun
from .measured import Measured, measure
from .meters import MeterTokens, RunBill, bill_meters
from .reconcile import SIGN_CONVENTION, Reconciliation, reconcile, switched_on

FINE_TUNES = ("full", "lora")
PER_STEP_COLUMNS = ["step", "steps_covered", "step_seconds", "generation_seconds", "training_seconds", "other_seconds",
                    "validation_seconds", "checkpoint_seconds", "samples", "response_tokens", "prompt_tokens",
                    "trained_tokens", "decode_tps_per_gpu", "training_mfu", "logged_mfu", "plain"]
CACHED_MODES = ("auto", "none", "group")


@dataclass(frozen=True)
class Setup:
    """What the validation ran on, and where each part came from (the log's config, an option, or unknown)."""
    model: str | None              # the model as the log or --model names it
    canonical: str | None          # the registry's id for it (None: not in the registries)
    arch: ModelArch | None
    gpu: GPU | None
    num_gpus: float | None
    fine_tune: str
    gpu_hourly_usd: float | None
    sources: dict = field(default_factory=dict)


@dataclass(frozen=True)
class HostedValidation:
    run: HostedRun
    setup: Setup
    measured: Measured
    reconciliation: Reconciliation | None
    bill: RunBill | None
    successor: str | None            # the model the bill used when it is the run model's successor
    caveats: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def tinker_total_usd(self) -> float:
        return self.bill.total_usd if self.bill is not None else math.nan

    def summary(self) -> dict:
        """Headline numbers (the chapter glues these)."""
        m, r, s = self.measured.totals, self.reconciliation, self.setup
        measured_usd = m["gpu_hours"] * s.gpu_hourly_usd if s.gpu_hourly_usd is not None else math.nan
        out = {"run": Path(self.run.source).name, "framework": self.run.framework, "format": self.run.kind,
               "model": s.canonical or s.model, "gpu": s.gpu.gpu if s.gpu else None, "num_gpus": s.num_gpus,
               "fine_tune": s.fine_tune, **m, "wallclock_hours": m["wallclock_seconds"] / 3600.0,
               "gpu_hourly_usd": s.gpu_hourly_usd, "gpu_hourly_source": s.sources.get("gpu_hourly_usd"),
               "samples_source": self.run.config_sources.get("samples_per_step", "derived from the logged tokens"),
               "measured_usd": measured_usd, "tinker_usd": self.tinker_total_usd,
               "tinker_over_gpu": self.tinker_total_usd / measured_usd if measured_usd else math.nan,
               "tinker_model": self.bill.price_model if self.bill else None, "tinker_successor": self.successor,
               "prices": self.bill.prices if self.bill else None}
        if r is not None and not r.table.empty:
            for phase in ("generation", "training", "step"):
                row = r.row(phase)
                out[f"predicted_{phase}_seconds_mean"] = row.get("predicted_seconds_mean", math.nan)
                out[f"error_{phase}"] = row.get("signed_error", math.nan)
            out.update({f"fitted_{k}": v for k, v in r.fitted.items() if not isinstance(v, (dict, list))})
            out.update({"method": r.method, "default_rollout_efficiency": r.inputs["rollout_efficiency"],
                        "default_mfu": r.inputs["mfu"]})
        return out

    def to_dict(self, per_step: bool = True) -> dict:
        m, r, s = self.measured.totals, self.reconciliation, self.setup
        j = fmt.json_value
        measured = {k: j(v) for k, v in m.items()}
        measured["basis"] = dict(self.measured.basis)
        measured["gpu_hourly_usd"] = s.gpu_hourly_usd   # null without a rate: given or sourced (a note says which)
        measured["compute_usd"] = j(m["gpu_hours"] * s.gpu_hourly_usd) if s.gpu_hourly_usd is not None else None
        predicted = error = fitted = None
        if r is not None and not r.table.empty:
            predicted = {"method": r.method, **{k: j(v) for k, v in r.inputs.items() if k != "methods"},
                         "methods": r.inputs.get("methods")}
            error = {"sign_convention": SIGN_CONVENTION}
            for phase in ("generation", "training", "step"):
                row = r.row(phase)
                predicted[f"{phase}_seconds_mean"] = j(row.get("predicted_seconds_mean"))
                error[f"{phase}_seconds"] = j(row.get("signed_error"))
            plain = r.row("step without validation or checkpoint")
            if plain:
                predicted["step_seconds_mean_plain"] = j(plain["predicted_seconds_mean"])
                error["step_seconds_plain"] = j(plain["signed_error"])
            steps = m["steps"]
            predicted["gpu_hours"] = j(r.predicted_mean("step") * steps * (s.num_gpus or math.nan) / 3600.0)
            predicted["compute_usd"] = j(predicted["gpu_hours"] * s.gpu_hourly_usd
                                         if predicted["gpu_hours"] is not None and s.gpu_hourly_usd is not None
                                         else math.nan)
            predicted["by_method"] = fmt.json_records(r.table)
            fitted = {k: j(v) if not isinstance(v, dict) else v for k, v in r.fitted.items()}
            fitted["method"] = r.method
        elif r is not None:
            predicted = {"method": r.method, "notes": list(r.notes)}
        out = {
            "ran_on": "self-hosted", "framework": self.run.framework, "format": self.run.kind,
            "source": self.run.source, "run_name": self.run.run_name,
            "model": s.canonical or s.model, "gpu": s.gpu.gpu if s.gpu else None, "num_gpus": j(s.num_gpus),
            "fine_tune": s.fine_tune, "setup_sources": dict(s.sources),
            "steps": m["steps"],
            "measured": measured, "predicted": predicted, "error": error, "fitted": fitted,
            "tinker": self._tinker_dict(),
            "config": {k: v for k, v in self.run.config.items() if isinstance(v, (str, int, float, bool))},
            "caveats": list(self.caveats), "notes": list(self.notes),
        }
        if per_step:
            out["per_step"] = fmt.json_records(self.per_step_table())
        return out

    def per_step_table(self):
        """One row per logged step: what `--per-step FILE` writes."""
        return self.measured.per_step[PER_STEP_COLUMNS]

    def _tinker_dict(self) -> dict | None:
        b = self.bill
        if b is None:
            return None
        return {"model": b.model, "price_model": b.price_model, "successor": self.successor is not None,
                "prices": b.prices, "tokens": b.meters.to_dict(), "sample_usd": b.sample_usd, "train_usd": b.train_usd,
                "prefill_usd": b.prefill_usd, "total_usd": b.total_usd,
                "cached_prefill": {"mode": b.cached_mode, "tokens": b.meters.cached_prefill,
                                   "rate_usd_per_million": b.cached_rate},
                "rates_usd_per_million": {"prefill": b.price.prefill, "sample": b.price.sample, "train": b.price.train,
                                          "cached_prefill": b.price.cached_prefill},
                "rates_source": dict(b.price.provenance)}

    def render(self) -> str:
        return render_hosted(self.to_dict(per_step=False))

    def calibration(self) -> dict:
        """What `--save-calibration` writes: the fitted efficiencies and the run they came from."""
        r = self.reconciliation
        if r is None or r.table.empty:
            why = "; ".join(r.notes) if r is not None else "; ".join(n for n in self.notes if "prediction" in n)
            raise TinkerNomicsError(f"{self.run.source}: nothing to calibrate: the run could not be re-predicted "
                                    f"({why or 'the model architecture or the GPU is unknown'})")
        return {"rollout_efficiency": r.fitted["rollout_efficiency"], "mfu": r.fitted["step_mfu"],
                "phase_mfu": r.fitted["phase_mfu"], "method": r.method, "basis": dict(r.fitted["basis"]),
                "run": {"source": str(Path(self.run.source).resolve()), "framework": self.run.framework,
                        "format": self.run.kind,
                        "model": self.setup.canonical or (self.setup.arch.model if self.setup.arch else None)
                        or self.setup.model, "gpu": self.setup.gpu.gpu,
                        "num_gpus": self.setup.num_gpus, "fine_tune": self.setup.fine_tune,
                        "steps": self.measured.totals["steps"],
                        "step_seconds_mean": self.measured.totals["step_seconds_mean"],
                        "default_rollout_efficiency": r.inputs["rollout_efficiency"],
                        "default_mfu": r.inputs["mfu"]}}


def _resolve_model(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return sources.resolve_model(name)
    except UnknownNameError:
        return None


def resolve_setup(run: HostedRun, model: str | None, gpu: str | None, num_gpus: float | None,
                  fine_tune: str | None, gpu_hourly_usd: float | None,
                  arch: ModelArch | None = None) -> tuple[Setup, list[str]]:
    """The model, GPUs and fine-tuning mode of the run: options first, then the log's config; what is missing is
    said, never guessed. `arch` (a Hugging Face config read into a ModelArch, `--model-config`) replaces the
    registry's architecture for the prediction and the MFU."""
    notes, where = [], {}
    given, given_arch = model is not None, arch is not None
    name = model if given else run.model
    if given:
        canonical = _resolve_model(model)
        if canonical is None and not sources.has_arch(model):
            sources.resolve_model(model)   # an option naming an unknown model (not a known model's fine-tune) fails
        where["model"] = "--model"
        if run.model and _resolve_model(run.model) not in (None, canonical):
            notes.append(f"model {canonical} given; the log's config names {run.model}")
    else:
        canonical = _resolve_model(run.model)
        where["model"] = run.config_sources.get("model", "the log") if run.model else "unknown"
        if run.model and canonical is None and sources.has_arch(run.model):
            notes.append(f"the log's model {run.model} is not in the registries (data/models/, data/prices/): "
                         "no Tinker price; pass --price-as to bill it")
        elif run.model and canonical is None:
            notes.append(f"the log's model {run.model} is not in the registries (data/models/, data/prices/): "
                         + ("no Tinker price; pass --price-as to bill it" if given_arch else
                            "no architecture for the prediction and no Tinker price; pass --model with a registry "
                            "model of the same architecture, and --price-as to bill it"))
        elif not run.model and not given_arch:
            notes.append("the log does not name its model: pass --model")
    if arch is None:
        arch = sources.get_arch(canonical) if canonical and sources.has_arch(canonical) else None
        if arch is None and canonical is None and name and sources.has_arch(name):   # a fine-tune of a known model
            arch = sources.get_arch(name)
            where["architecture"] = arch.model
            notes.append(f"{name} is read with the architecture of {sources.architectures.release_base(name)}: "
                         f"fine-tuning (instruct, chat, base, thinking releases) and quantizing keep config.json's "
                         f"shapes")
    else:
        where["architecture"] = "--model-config"
        notes.extend(filter(None, [stored_dtype_note(arch)]))
    if canonical and arch is None:
        notes.append(f"{canonical} has no published architecture in data/models/model_archs.csv: the model cannot "
                     f"re-predict its steps")
    gpu_record = None
    logged_gpu = run.config.get("gpu")
    if gpu is not None:
        gpu_record = sources.get_gpu(gpu)
        where["gpu"] = "--gpu"
        if logged_gpu and logged_gpu != gpu_record.gpu:
            notes.append(f"--gpu {gpu_record.gpu} given; {run.config_sources.get('gpu', 'the log')} says {logged_gpu}")
    elif logged_gpu:
        gpu_record = sources.get_gpu(logged_gpu)
        where["gpu"] = run.config_sources.get("gpu", "the log")
        notes.append(f"GPU {gpu_record.gpu} from {where['gpu']}; --gpu overrides it")
    else:
        where["gpu"] = "unknown"
        notes.append(f"{run.framework} does not record the GPU type: pass --gpu (e.g. H100 SXM; `tinker-nomics gpus` "
                     f"lists them) for the prediction and the MFU")
    count = None
    if num_gpus is not None:
        count, where["num_gpus"] = float(num_gpus), "--num-gpus"
        logged = run.config.get("num_gpus")
        if logged and float(logged) != count:
            notes.append(f"--num-gpus {count:g} given; the log's config says {float(logged):g} "
                         f"({run.config_sources.get('num_gpus')})")
    elif run.config.get("num_gpus"):
        count, where["num_gpus"] = float(run.config["num_gpus"]), run.config_sources.get("num_gpus", "the log")
        if not (math.isfinite(count) and count == math.floor(count) and 1 <= count <= sources.number("max_gpus")):
            raise TinkerNomicsError(f"the log's GPU count ({where['num_gpus']}) is {count:g}, not a whole number "
                                    f"from 1 to {sources.number('max_gpus'):g}; pass --num-gpus")
    else:
        where["num_gpus"] = "unknown"
    split = run.config.get("rollout_gpus")
    if count is not None and split is not None and run.config_sources.get("rollout_gpus") == "given" \
            and float(split) >= count:
        raise TinkerNomicsError(f"--rollout-gpus ({float(split):g}) must leave GPUs to train on: fewer than the "
                                f"run's {count:g} ({where['num_gpus']})")
    if fine_tune is not None:
        mode = fine_tune.strip().lower()
        if mode not in FINE_TUNES:
            raise TinkerNomicsError(f"fine-tune must be one of {', '.join(FINE_TUNES)}, got {fine_tune!r}")
        where["fine_tune"] = "--fine-tune"
    elif "fine_tune" in run.config:
        mode, where["fine_tune"] = run.config["fine_tune"], run.config_sources.get("fine_tune", "the log")
    else:
        mode, where["fine_tune"] = "full", "assumed (the log does not say; pass --fine-tune lora for LoRA)"
    rate = None
    if gpu_hourly_usd is not None:
        rate, where["gpu_hourly_usd"] = float(gpu_hourly_usd), "--gpu-hourly-usd"
    elif gpu_record is not None:
        listing = sources.gpu_price_listing(gpu_record.gpu)
        if listing is None:   # every time and GPU-hour is still computed; the dollars are unknown
            where["gpu_hourly_usd"] = f"unknown: no sourced $/GPU-hour for {gpu_record.gpu}"
            notes.append(f"no sourced $/GPU-hour for {gpu_record.gpu} in data/hardware/gpu_prices*.csv: the GPU "
                         f"dollars are unknown (null); give the rate with --gpu-hourly-usd")
        else:
            rate = listing.usd_per_gpu_hour
            where["gpu_hourly_usd"] = (f"the registry's default listing for {gpu_record.gpu} "
                                       f"(data/hardware/gpu_prices.csv)")
    return Setup(name, canonical, arch, gpu_record, count, mode, rate, where), notes


def tinker_bill(run: HostedRun, setup: Setup, prices: str | None, price_as: str | None,
                cached_prefill: str) -> tuple[RunBill | None, str | None, list[str]]:
    """The run's token streams on Tinker (module docstring), or None with the reason in the notes."""
    notes: list[str] = []
    mode = (cached_prefill or "auto").strip().lower()
    if mode not in CACHED_MODES:
        raise TinkerNomicsError(f"cached prefill for a self-hosted run must be one of {', '.join(CACHED_MODES)} "
                                f"(self-hosted logs carry no cache hits), got {cached_prefill!r}")
    steps = run.steps
    if steps["response_tokens"].isna().any() or steps["prompt_tokens"].isna().any():
        notes.append("no Tinker price: the generated and prompt tokens are not known for every step"
                     + (" (pass --prompts-per-step and --group-size)" if run.framework == "TRL" else ""))
        return None, None, notes
    completion, prompt = float(steps["response_tokens"].sum()), float(steps["prompt_tokens"].sum())
    # a step that generates more than it trains (DAPO's dynamic sampling) samples and prefills every generated
    # sequence on Tinker too, at the kept sequences' mean lengths, and trains the kept ones
    extra = steps["generated_samples"] / steps["samples"] - 1.0 if "generated_samples" in steps else None
    dropped_completion = float((steps["response_tokens"] * extra).sum()) if extra is not None else 0.0
    dropped_prompt = float((steps["prompt_tokens"] * extra).sum()) if extra is not None else 0.0
    cached = 0.0
    if mode == "group":
        g = run.config.get("group_size")
        if not g:
            raise TinkerNomicsError(f"{run.source}: cached prefill 'group' needs the samples per prompt (G), which "
                                    f"the log does not give; pass --group-size")
        cached = (prompt + dropped_prompt) * (float(g) - 1.0) / float(g)
    meters = MeterTokens.from_counts(completion, prompt, cached_prefill=cached)
    if dropped_completion or dropped_prompt:
        meters = replace(meters, sample=meters.sample + dropped_completion,
                                     prefill=meters.prefill + dropped_prompt)
        notes.append(f"the Tinker price samples and prefills the {dropped_completion:,.0f} generated tokens of the "
                     f"groups dynamic sampling dropped (and their prompts) besides the trained ones")
    snapshot = resolve_snapshot(prices)
    successor = None
    if price_as:
        bill = bill_meters(meters, setup.canonical or price_as, snapshot, price_as, "group" if cached else "none")
        return bill, None, notes
    if setup.canonical is None:
        notes.append("no Tinker price: the run's model is not in the registries; pass --price-as MODEL to bill its "
                     "tokens at a Tinker model's rates")
        return None, None, notes
    try:
        billed_as, succ = model_for(setup.canonical, snapshot)
    except TinkerNomicsError as exc:
        notes.append(f"no Tinker price: {exc}; pass --price-as MODEL to bill at another model's rates")
        return None, None, notes
    if succ is not None:
        successor = billed_as
        notes.append(f"Tinker no longer prices {setup.canonical} at {snapshot}: billed at its successor {billed_as} "
                     f"(data/models/successors.csv: {succ.reason.split(';')[0]})")
    bill = bill_meters(meters, setup.canonical, snapshot, billed_as if succ else None, "group" if cached else "none")
    return bill, successor, notes


def validate_hosted(run: HostedRun, model: str | None = None, gpu: str | None = None, num_gpus: float | None = None,
                    fine_tune: str | None = None, gpu_hourly_usd: float | None = None, prices: str | None = None,
                    price_as: str | None = None, cached_prefill: str = "auto",
                    method: str | None = None, arch: ModelArch | None = None) -> HostedValidation:
    """Everything `tinker-nomics validate` says about a self-hosted run (module docstring). `arch` overrides the
    registry's architecture (see resolve_setup)."""
    setup, notes = resolve_setup(run, model, gpu, num_gpus, fine_tune, gpu_hourly_usd, arch)
    measured = measure(run, setup.num_gpus, setup.gpu, setup.arch, setup.fine_tune)
    notes += list(measured.notes)
    rec = None
    if setup.arch is not None and setup.gpu is not None and setup.num_gpus:
        rec = reconcile(run, measured, setup.arch, setup.gpu, setup.num_gpus, setup.fine_tune, method=method)
        notes += list(rec.notes)
    else:
        missing = [what for what, have in (("the model's architecture", setup.arch), ("the GPU type", setup.gpu),
                                           ("the GPU count", setup.num_gpus)) if not have]
        notes.append(f"no prediction: it needs {', '.join(missing)}")
    bill, successor, bill_notes = tinker_bill(run, setup, prices, price_as, cached_prefill)
    notes += bill_notes
    if bill is not None:
        notes += list(bill.notes)
    caveats = list(run.notes) + _caveats(run)
    return HostedValidation(run, setup, measured, rec, bill, successor, tuple(caveats), tuple(notes))


def _caveats(run: HostedRun) -> list[str]:
    out = []
    t = run.steps
    if "generated_samples" in t and (t["generated_samples"] > t["samples"]).any():
        rounds = t["generation_rounds"]
        out.append(f"dynamic sampling (DAPO's filter_groups): the steps ran {rounds.mean():.2f} generation rounds on "
                   f"average (train/num_gen_batches, up to {rounds.max():g}) and generated "
                   f"{(t['generated_samples'] / t['samples']).mean():.2f}× the sequences they trained; the logged "
                   f"generation and step times hold every round, and so does the model (each round a generation "
                   f"call of its own); the dropped groups' lengths are taken as the kept ones' (the log gives no "
                   f"other)" + ("" if run.config.get("rollout_samples") else
                                "; the log gives no data.gen_batch_size, so each round is taken to generate as many "
                                "sequences as a step trains"))
    if run.first_step > 1 and run.framework == "verl":
        out.append(f"the first logged step is {run.first_step}: earlier steps (a run resumed from a checkpoint, or "
                   f"a log that starts late) are not in the sums")
    c = run.config
    if run.framework == "verl" and c.get("actor_strategy") == "fsdp2" and switched_on(c.get("offload_policy")):
        out.append("the actor trains with FSDP2's CPUOffloadPolicy (actor_rollout_ref.actor.fsdp_config."
                   "offload_policy): its weights, gradients and Adam's moments live in host memory, every micro-batch's "
                   "passes stream the weights to the GPUs over the host link, and Adam steps on the CPU at the "
                   "published rate of one process's thread (data/measurements/cpu_adam.csv); a host shared by more "
                   "GPU processes than it has cores steps slower than predicted")
    if run.framework == "verl" and run.config.get("actor_strategy") == "megatron" and (
            run.config.get("megatron_param_offload") is True or run.config.get("megatron_optimizer_offload") is True):
        out.append("the actor trains with Megatron and offloads to host memory (actor_rollout_ref.actor.megatron's "
                   "param_offload or optimizer_offload): the model prices verl's FSDP offload only, so those copies "
                   "are not in the prediction")
    if run.framework == "OpenRLHF" and c.get("adam_offload") is True:
        out.append("the actor's optimizer runs on the host (OpenRLHF's --adam_offload: DeepSpeed's CPU Adam, the "
                   "gradients and Adam's moments in host memory): the model does not price the CPU's optimizer step "
                   "or the copies, so the update takes longer than predicted")
    if run.framework == "verl" and run.config.get("critic"):
        out.append("PPO with a critic (adv_estimator gae): verl times the critic's values pass and update apart "
                   "(timing_s/values, update_critic), so the log-prob and update rows compare the actor's passes "
                   "alone; the step holds the critic's too, predicted and measured")
    if run.framework == "SkyRL" and run.config.get("critic"):
        out.append("PPO with a critic: SkyRL's fwd_logprobs_values_reward holds the critic's values pass and "
                   "train_critic_and_policy (or critic_train beside policy_train) its update, so those rows compare "
                   "the model's actor and critic together")
    if run.framework == "OpenRLHF" and run.config.get("critic"):
        out.append("PPO with a critic (critic_loss in the log): make_experience holds the critic's values pass and "
                   "ppo_train its update, so those rows compare the model's actor and critic together")
    out.append("the Tinker price counts the training rollouts only: validation generations are not in the logged "
               "token counts")
    return out


def render_hosted(d: dict) -> str:
    """The human-readable form of `HostedValidation.to_dict()` (what `tinker-nomics validate` prints)."""
    m = d["measured"]
    gpus = f"{d['num_gpus']:g} × {d['gpu'] or 'unknown GPU'}" if d["num_gpus"] else f"{d['gpu'] or 'unknown GPU'}, " \
                                                                                   f"GPU count unknown"
    lines = [f"{fmt.printable(Path(d['source']).name, limit=160)} · {d['framework']} · {d['model'] or 'model unknown'} · {gpus} · "
             f"{d['fine_tune']} fine-tuning",
             f"Format        {d['format']}",
             f"Steps         {m['steps']:,} ({m['first_step']}–{m['last_step']}), {m['validation_runs']:,} with "
             f"validation, {m['checkpoint_runs']:,} with a checkpoint"]
    if m["phased_steps"] == m["steps"]:
        lines.append(f"Measured      step {_s(m['step_seconds_mean'])} = generation {_s(m['generation_seconds_mean'])} + "
                     f"actor update {_s(m['training_seconds_mean'])} {_other(m['other_seconds_mean'])} (means)")
    elif m["phased_steps"] == 0 and m["generation_seconds_mean"] is not None:   # TRL with profiling rows
        lines.append(f"Measured      step {_s(m['step_seconds_mean'])} = generation "
                     f"{_s(m['generation_seconds_mean'])} + the rest (means of {m['steps']:,} steps); the log does not "
                     f"time the actor update apart")
    elif m["phased_steps"] == 0:   # TRL: one step timer, no phases
        lines.append(f"Measured      step {_s(m['step_seconds_mean'])} (mean of {m['steps']:,} steps); the log does "
                     f"not time generation and the actor update apart")
    else:   # some rows do not time both phases: the sum is shown over the rows that do, so that it adds up
        lines.append(f"Measured      step {_s(m['step_seconds_mean'])} (mean of {m['steps']:,} steps); on the "
                     f"{m['phased_steps']:,} that time both phases step {_s(m['phased_step_seconds_mean'])} = "
                     f"generation {_s(m['phased_generation_seconds_mean'])} + actor update "
                     f"{_s(m['phased_training_seconds_mean'])} {_other(m['other_seconds_mean'])}")
    lines.append(f"              wall-clock {fmt.hours(m['wallclock_seconds'] / 3600)}; GPU-hours "
                 f"{_num(m['gpu_hours'], ',.2f')} ({m['basis']['gpu_hours']})")
    lines.append(f"              tokens generated {_tok(m['generated_tokens'])}, prompt {_tok(m['prompt_tokens'])}, "
                 f"trained {_tok(m['trained_tokens'])}")
    lines.append(f"              decode {_num(m['decode_tokens_per_second_per_gpu'], ',.0f')} tok/s per GPU; "
                 f"training MFU {_pct(m['training_mfu'])} (the log's own: {_pct(m['logged_mfu_mean'])})")
    if m.get("compute_usd") is not None:
        lines.append(f"              at {fmt.usd(m['gpu_hourly_usd'])}/GPU-h: {fmt.usd(m['compute_usd'])}")
    elif d["gpu"]:
        lines.append("              GPU dollars unknown: no $/GPU-hour (see the note)")
    p, e, f = d["predicted"], d["error"], d["fitted"]
    if p and e:
        def compared(phase):   # the headline method's row for a phase both the log and the model time
            return next((r for r in p.get("by_method", []) if r["method"] == p["method"] and r["phase"] == phase
                         and r["predicted_seconds_mean"] is not None
                         and math.isfinite(r["predicted_seconds_mean"])), None)

        logprob, refit = compared("logprob"), compared("refit")
        lines += ["",
                  f"Model         method {p['method']}, rollout efficiency {_num(p['rollout_efficiency'], '.3g')}, MFU "
                  f"{_num(p['mfu'], '.3g')} on {p['num_gpus']:g} × {p['gpu']}: step {_s(p['step_seconds_mean'])} "
                  f"({_spct(e['step_seconds'])}), generation {_s(p['generation_seconds_mean'])} "
                  f"({_spct(e['generation_seconds'])}), "
                  + (f"log-probs {_s(logprob['predicted_seconds_mean'])} ({_spct(logprob['signed_error'])}), "
                     if logprob else "")
                  + f"training {_s(p['training_seconds_mean'])} ({_spct(e['training_seconds'])})"
                  + (f", refit {_s(refit['predicted_seconds_mean'])} ({_spct(refit['signed_error'])})"
                     if refit else ""),
                  f"              {e['sign_convention']}"]
        if e.get("step_seconds_plain") is not None:
            lines.append(f"              steps without validation or checkpoint: {_s(p['step_seconds_mean_plain'])} "
                         f"({_spct(e['step_seconds_plain'])})")
        lines.append(f"Would match   rollout efficiency {_num(f['rollout_efficiency'], '.3g')}, actor-update MFU "
                     f"{_num(f['phase_mfu'], '.3g')}, step MFU {_num(f['step_mfu'], '.3g')} (method {f['method']})")
    elif p:
        lines += ["", "Model         " + "; ".join(p.get("notes", []))]
    tk = d["tinker"]
    lines.append("")
    if tk:
        billed = f" (billed as {tk['price_model']}{', its successor' if tk['successor'] else ''})" \
            if tk["price_model"] != tk["model"] else ""
        t = tk["tokens"]
        lines += [f"On Tinker     {fmt.usd(tk['total_usd'])} = sample {fmt.usd(tk['sample_usd'])} + train "
                  f"{fmt.usd(tk['train_usd'])} + prefill {fmt.usd(tk['prefill_usd'])} at the {tk['prices']} prices"
                  f"{billed}",
                  f"              tokens: sample {_tok(t['sample'])}, train {_tok(t['train'])}, prefill "
                  f"{_tok(t['prefill'])}"]
    else:
        lines.append("On Tinker     not priced (see the notes)")
    lines.append("")
    lines += [f"Caveat: {c}" for c in d["caveats"]]
    lines += [f"Note: {n}" for n in d["notes"]]
    return "\n".join(lines)



def _other(seconds: float) -> str:
    """The rest of the step after generation and the update; an asynchronous run's phases overlap, so they may add
    up to more than the step: said so, never shown as a negative time."""
    if isinstance(seconds, float) and seconds < 0:
        return f"− {_s(-seconds)} (the phases overlap: generation runs beside training)"
    return f"+ other {_s(seconds)}"

def _s(x) -> str:
    return "n/a" if x is None else f"{x:,.2f} s"


def _num(x, spec) -> str:
    return "n/a" if x is None else format(x, spec)


def _pct(x) -> str:
    return "n/a" if x is None else fmt.pct(x, 2)


def _spct(x) -> str:
    return "n/a" if x is None else fmt.signed_pct(x)


def _tok(x) -> str:
    return "n/a" if x is None else fmt.tokens(x)
