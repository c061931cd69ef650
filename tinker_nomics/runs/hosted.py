"""A self-hosted run (verl, TRL, ...) as one tidy per-step table (`HostedRun`), whatever format its logs came in.

The framework readers (runs.verl, runs.trl) turn each logged step into a `StepRecord` of the quantities named
below, with the key each came from; `StepTable` checks every value (one-line errors naming the file, line and
key), derives the token totals, and returns the compact table. One row per logged record, sorted by step:

==========================  ==========================================================================
column                      meaning
==========================  ==========================================================================
step                        the step number the log gives the record (the last step of a window)
steps_covered               optimizer steps the row stands for (1; TRL logs a mean over logging_steps)
step_seconds                logged time of one step (a mean over the window when steps_covered > 1)
generation_seconds          rollout generation time of one step; NaN = not logged
training_seconds            the actor's (policy's) update time of one step; NaN = not logged
validation_seconds          validation time logged at this step; NaN = none ran
checkpoint_seconds          checkpoint-saving time logged at this step; NaN = none
samples                     sequences generated per step (prompts × samples per prompt)
response_tokens             generated tokens over the row's steps (mean response length × samples × steps)
prompt_tokens               prompt tokens over the row's steps
trained_tokens              prompt + response tokens over the row's steps (the log's own count when it has one)
logged_mfu                  the framework's own training-MFU figure, when it logs one; NaN = not logged
logged_throughput           the framework's own tokens/s per GPU, when it logs one; NaN = not logged
reward                      mean training reward (score); NaN = not logged
response_max                the longest response of the step (tokens); NaN = not logged
generation_rounds           generation rounds the step ran (DAPO's dynamic sampling generates again until enough
                            groups are kept: verl's train/num_gen_batches); 1 where not logged
generated_samples           sequences generated over the step's rounds (rounds × sequences a round generates; the
                            step trains `samples` of them); `samples` where every generated sequence is trained
phase/<name>                every other named phase the log times (seconds per step), for the phase table
line                        line (console, JSON lines) or row/record (tables) of the record
==========================  ==========================================================================

Files are only ever opened for reading.
"""
from __future__ import annotations

import math
import re
from array import array
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import TinkerNomicsError
from ..sources.numbers import finite_number, shown
from .files import no_step_time

COLUMNS = ["step", "steps_covered", "step_seconds", "generation_seconds", "training_seconds", "validation_seconds",
           "checkpoint_seconds", "samples", "response_tokens", "prompt_tokens", "trained_tokens", "logged_mfu",
           "logged_throughput", "reward", "response_max", "generation_rounds", "generated_samples", "line"]
# What a StepTable holds per record, one compact array per column (8 bytes a value; NaN = not logged): the
# table's memory is that of its columns, not of one dict per record.
RECORD_COLUMNS = ["steps_covered", "step_seconds", "generation_seconds", "training_seconds", "validation_seconds",
                  "checkpoint_seconds", "samples", "response_mean", "prompt_mean", "trained_tokens", "logged_mfu",
                  "logged_throughput", "reward", "response_max", "generation_rounds"]
MAX_STEP = 10 ** 12
MAX_SECONDS = 10 ** 9          # a sanity bound, not a measurement: no logged step lasts 30 years
MAX_TOKENS = 1e15              # as runs.cookbook.MAX_TOKENS_PER_STEP: above it a count is corrupt
MAX_LENGTH = 1e9               # tokens per sequence
# Per-step token counts from different logged quantities (the mean lengths × samples against the log's own total)
# may disagree by rounding; beyond this share the batch the log implies is not the one assumed.
TOKEN_MISMATCH = 0.02
_NUMERIC = re.compile(r"^\s*(?:np\.)?(?:float|int|uint|bool_?)(?:16|32|64)?\((.*)\)\s*$")


def parse_number_text(text: str) -> float:
    """A logged value as text: `403.826`, `-0.000`, `nan`, `inf`, `np.float64(0.12)`, `np.int64(7)`, `True`.
    ValueError when it is none of these."""
    m = _NUMERIC.match(text)
    if m:
        text = m.group(1)
    text = text.strip()
    if text in ("True", "False"):
        return 1.0 if text == "True" else 0.0
    return float(text)


@dataclass
class StepRecord:
    """One logged step as a reader found it: raw values with the key each came from."""
    where: tuple[str, int]
    step: object
    values: dict = field(default_factory=dict)      # column -> (key, raw value)
    phases: dict = field(default_factory=dict)      # phase name -> (key, raw value)


class StepTable:
    """Collects checked rows; `finish` derives the token totals and returns the table."""

    def __init__(self, label: str, text_numbers: bool = False):
        # text_numbers: the log writes its values as text (a console, a CSV), which are read as numbers; in a JSON
        # log a value written as text is refused
        self.label, self.text_numbers = label, text_numbers
        self.n_rows = 0
        self.steps, self.lines = array("q"), array("q")
        self.columns = {name: array("d") for name in RECORD_COLUMNS}   # NaN: not logged
        self.phases: dict[str, array] = {}                             # phase name -> seconds, NaN: not logged

    def fail(self, where, reason: str):
        unit, number = where
        raise TinkerNomicsError(f"{self.label}: {unit} {number}: {reason}")

    def number(self, where, key: str, value, minimum: float | None = 0.0, maximum: float | None = None,
               nan_ok: bool = False) -> float:
        """A finite float from a logged value, or an error naming the key. NaN only where `nan_ok` (a mean that
        may be undefined, such as a reward), never for a time or a count."""
        if isinstance(value, bool) or (isinstance(value, str) and value.strip() in ("True", "False")):
            # a flag is no time, length or count (true read as 1 s, 1 token or 100% MFU)
            self.fail(where, f"{key} is {str(value).strip().lower()}, not a number")
        elif isinstance(value, str):
            if not self.text_numbers:   # a JSON log writes its numbers as numbers
                self.fail(where, f"{key} is the text {value[:40]!r}, not a number")
            try:
                if "_" in value:        # Python's digit separators ('1_000') are no logger's output
                    raise ValueError(value)
                value = parse_number_text(value)
            except ValueError:
                self.fail(where, f"{key} is {value[:40]!r}, not a number")
        elif isinstance(value, (int, float)):
            try:
                value = float(value)
            except OverflowError:
                self.fail(where, f"{key} is too large to be a number")
        elif value is None:
            if nan_ok:
                return math.nan
            self.fail(where, f"{key} is null, not a number")
        else:
            self.fail(where, f"{key} is a {type(value).__name__}, not a number")
        if math.isnan(value):
            if nan_ok:
                return math.nan
            self.fail(where, f"{key} is NaN")
        if math.isinf(value):
            self.fail(where, f"{key} is infinite")
        if minimum is not None and value < minimum:
            self.fail(where, f"{key} is negative ({value:g})" if value < 0 else
                      f"{key} is {value:g}, less than {minimum:g}")
        if maximum is not None and value > maximum:
            self.fail(where, f"{key} is {value:g}, implausibly large (over {maximum:g})")
        return value

    def add(self, rec: StepRecord) -> None:
        where = rec.where
        step = self.number(where, "step", rec.step, 0.0, MAX_STEP)
        if step != int(step):
            self.fail(where, f"step is {step:g}, not a whole number")
        row = {}
        bounds = {"steps_covered": (1.0, MAX_STEP), "samples": (1.0, MAX_TOKENS), "response_mean": (0.0, MAX_LENGTH),
                  "prompt_mean": (0.0, MAX_LENGTH), "trained_tokens": (0.0, MAX_TOKENS), "response_max": (0.0, MAX_LENGTH),
                  "logged_mfu": (0.0, None), "logged_throughput": (0.0, MAX_TOKENS),
                  "generation_rounds": (1.0, MAX_STEP)}
        for column, (key, raw) in rec.values.items():
            if column == "reward":
                row[column] = self.number(where, key, raw, None, None, nan_ok=True)
            elif column in bounds:
                low, high = bounds[column]
                row[column] = self.number(where, key, raw, low, high)
            else:   # a time in seconds
                row[column] = self.number(where, key, raw, 0.0, MAX_SECONDS)
                if column == "step_seconds" and row[column] == 0.0:
                    self.fail(where, no_step_time(key, row[column]))
        phases = {name: self.number(where, key, raw, 0.0, MAX_SECONDS) for name, (key, raw) in rec.phases.items()}
        self.steps.append(int(step))
        self.lines.append(where[1])
        for name, values in self.columns.items():
            values.append(row.get(name, math.nan))
        for name in phases:
            if name not in self.phases:   # a phase first logged now: not logged on the records before
                self.phases[name] = array("d", [math.nan]) * self.n_rows
        for name, values in self.phases.items():
            values.append(phases.get(name, math.nan))
        self.n_rows += 1

    @property
    def phase_names(self) -> list[str]:
        return list(self.phases)

    def finish(self, samples: float | None = None, samples_source: str = "",
               prompt_mean: float | None = None,
               rollout_samples: float | None = None) -> tuple[pd.DataFrame, list[str]]:
        """The tidy table (COLUMNS plus phase/<name>) and notes on how it was derived; `prompt_mean` (tokens per
        sample, --prompt-len) stands in where a step logs neither its prompt length nor its token count;
        `rollout_samples` the sequences each generation round generates where that is not the samples a step
        trains (dynamic sampling)."""
        if not self.n_rows:
            raise TinkerNomicsError(f"{self.label}: no training steps (no record carries a step time and token "
                                    f"counts)")
        notes: list[str] = []
        phases = [f"phase/{n}" for n in self.phase_names]
        columns = {"step": self.steps, "line": self.lines, **self.columns,
                   **{f"phase/{n}": v for n, v in self.phases.items()}}
        self.steps, self.lines, self.columns, self.phases = array("q"), array("q"), {}, {}   # the table's now
        self.n_rows = 0
        table = pd.DataFrame({name: np.frombuffer(values, dtype=np.int64 if name in ("step", "line") else np.float64)
                              for name, values in columns.items()}, copy=False)   # the arrays are the columns
        del columns
        step, line = table["step"].to_numpy(), table["line"].to_numpy()
        if not ((step[1:] > step[:-1]) | ((step[1:] == step[:-1]) & (line[1:] >= line[:-1]))).all():
            table = table.sort_values(["step", "line"], kind="stable").reset_index(drop=True)
        table["steps_covered"] = table["steps_covered"].fillna(1.0)
        if table["step_seconds"].isna().any():
            first = table.loc[table["step_seconds"].isna()].iloc[0]
            self.fail(("line", int(first["line"])), "a training step without its step time")
        if samples is not None:
            table["samples"] = table["samples"].fillna(float(samples))
        if prompt_mean is not None:
            unknown = table["prompt_mean"].isna() & table["trained_tokens"].isna()
            table.loc[unknown, "prompt_mean"] = float(prompt_mean)
            notes.append(f"the prompt length is --prompt-len's {float(prompt_mean):g} tokens per sample"
                         if unknown.all() else
                         f"the prompt length is --prompt-len's {float(prompt_mean):g} tokens per sample at the "
                         f"{int(unknown.sum())} step(s) whose log gives none" if unknown.any() else
                         "--prompt-len is not used: every step logs its own prompt length or token count")
        derivable = table["samples"].isna() & table["trained_tokens"].notna() & table["response_mean"].notna() \
            & table["prompt_mean"].notna()
        if derivable.any():
            per = table["response_mean"] + table["prompt_mean"]
            with np.errstate(divide="ignore", invalid="ignore"):
                derived = np.round(table["trained_tokens"] / (per * table["steps_covered"]))
            table.loc[derivable, "samples"] = derived[derivable].where(derived[derivable] >= 1)
            notes.append("samples per step derived from the logged token count: trained tokens / (mean prompt + "
                         "mean response length), rounded")
        covered = table["steps_covered"]
        table["response_tokens"] = table["response_mean"] * table["samples"] * covered
        logged_trained = table["trained_tokens"].notna()
        prompt_from_mean = table["prompt_mean"] * table["samples"] * covered
        table["prompt_tokens"] = np.where(logged_trained, table["trained_tokens"] - table["response_tokens"],
                                          prompt_from_mean)
        table["trained_tokens"] = table["trained_tokens"].where(logged_trained,
                                                                table["response_tokens"] + table["prompt_tokens"])
        if (table["prompt_tokens"] < -0.5).any():
            bad = table.loc[table["prompt_tokens"] < -0.5].iloc[0]
            self.fail(("line", int(bad["line"])), f"the logged token count ({bad['trained_tokens']:g}) is smaller "
                                                  f"than the generated tokens it must include "
                                                  f"({bad['response_tokens']:g}): the batch size is wrong")
        table["prompt_tokens"] = table["prompt_tokens"].clip(lower=0.0)
        check = logged_trained & table["prompt_mean"].notna() & table["samples"].notna()
        if check.any():
            implied = (table["prompt_mean"] + table["response_mean"]) * table["samples"] * covered
            off = (implied - table["trained_tokens"]).abs() > TOKEN_MISMATCH * table["trained_tokens"]
            if (off & check).any():
                step = int(table.loc[off & check, "step"].iloc[0])
                notes.append(f"at {int((off & check).sum())} step(s) (first: {step}) the mean lengths × samples per "
                             f"step differ from the logged token count by more than {TOKEN_MISMATCH:.0%} "
                             f"({samples_source or 'samples'}): the sums use the logged count")
        for column in ("response_tokens", "prompt_tokens", "trained_tokens"):
            if not math.isfinite(float(table[column].fillna(0.0).sum())):
                raise TinkerNomicsError(f"{self.label}: the {column.replace('_', ' ')} do not add up to a finite "
                                        f"number")
        steps = table["step"].to_numpy()
        repeated = pd.Series(steps).duplicated(keep=False)
        if repeated.any():
            first = int(steps[repeated.to_numpy()][0])
            notes.append(f"{int(pd.Series(steps[repeated.to_numpy()]).nunique())} step number(s) are logged more "
                         f"than once (first: step {first}), as when a run restarts and repeats steps; every logged "
                         f"step ran, so each counts")
        unique = np.unique(steps)
        if len(unique) > 1 and (table["steps_covered"] == 1).all():
            expected = int(unique[-1] - unique[0] + 1)
            if len(unique) < expected:
                gap = next(s for s in range(int(unique[0]), int(unique[-1]) + 1) if s not in set(unique.tolist()))
                notes.append(f"{expected - len(unique)} step(s) between {int(unique[0])} and {int(unique[-1])} are "
                             f"missing (first: {gap}); their time and tokens are not in the sums")
        rounds = table["generation_rounds"]
        if ((rounds != np.floor(rounds)) & rounds.notna()).any():
            bad = table.loc[(rounds != np.floor(rounds)) & rounds.notna()].iloc[0]
            self.fail(("line", int(bad["line"])), f"the generation rounds ({bad['generation_rounds']:g}) are not a "
                                                  f"whole number")
        table["generation_rounds"] = rounds.fillna(1.0)
        per_round = table["samples"] if rollout_samples is None else float(rollout_samples)
        table["generated_samples"] = table["generation_rounds"] * per_round
        table = table.drop(columns=["response_mean", "prompt_mean"])
        ordered = COLUMNS + phases
        return table[ordered].reset_index(drop=True), notes


def keyed_record(where, step, values: dict, columns: dict, phases: dict) -> StepRecord | None:
    """A StepRecord from one row of named metrics (a W&B row): each tidy column and phase from the first of its
    keys (newest first) the row has; None for a row without a step time."""
    rec = StepRecord(where, step)
    for column, keys in columns.items():
        key = next((k for k in keys if values.get(k) is not None), None)
        if key is not None:
            rec.values[column] = (key, values[key])
    for phase, keys in phases.items():
        key = next((k for k in keys if values.get(k) is not None), None)
        if key is not None:
            rec.phases[phase] = (key, values[key])
    return rec if "step_seconds" in rec.values else None


def add_keyed_rows(records, table: StepTable, label: str, step_keys: tuple[str, ...], columns: dict,
                   phases: dict) -> tuple[set[str], int]:
    """Every row of `records` with a step time into `table` (keyed_record), its step the first of `step_keys` it
    has: (the keys seen, the rows without a step time)."""
    keys: set[str] = set()
    skipped = 0
    for where, raw in records:
        keys.update(raw)
        step = next((raw[k] for k in step_keys if raw.get(k) is not None), None)
        rec = keyed_record(where, step, raw, columns, phases)
        if rec is None:
            skipped += 1
            continue
        if step is None:
            raise TinkerNomicsError(f"{label}: {where[0]} {where[1]}: no step number (W&B '{step_keys[0]}')")
        table.add(rec)
    return keys, skipped


# Config facts the model reads as sizes: a share of GPU memory in (0, 1], and counts of at least 1. A log whose
# config sets one outside that (gpu_memory_utilization -0.5, a 400-digit micro-batch) comes from no run that started.
SHARE_FACTS = ("rollout_memory_fraction",)
COUNT_FACTS = ("prompts_per_step", "gen_batch_prompts", "group_size", "mini_batch_prompts", "ppo_epochs", "rollout_tp",
               "rollout_max_num_seqs", "micro_batch_tokens", "micro_batch_samples", "logprob_micro_batch_tokens",
               "logprob_micro_batch_samples", "reference_micro_batch_tokens", "reference_micro_batch_samples",
               "values_micro_batch_tokens", "values_micro_batch_samples", "critic_micro_batch_tokens",
               "critic_micro_batch_samples")


def check_config_sizes(facts: dict, where: dict) -> None:
    """Refuse, in one line naming the config's key, a size no run could have started with (see SHARE_FACTS);
    text, flags and absent values are left to the readers (null and "auto" mean the framework's default)."""
    for name in (*SHARE_FACTS, *COUNT_FACTS):
        value = facts.get(name)
        if value is None or isinstance(value, (bool, str)) or not isinstance(value, (int, float)):
            continue
        number = finite_number(value)
        share = name in SHARE_FACTS
        if number is None or (not 0 < number <= 1 if share else number < 1):
            rule = "a share of GPU memory in (0, 1]" if share else "a count of at least 1"
            what = "a number too long for any run's setting" if number is None else f"not {rule}"
            raise TinkerNomicsError(f"the log's config sets {where.get(name, name)} to {shown(value)}, {what}: no "
                                    f"run starts with it (a damaged config?)")


def _engines_split_the_gpus(facts: dict, where: dict) -> None:
    """A rollout engine's tensor parallel that does not split the GPUs it runs on (the rollout pool's, else the
    run's) is refused in one line, as predict refuses it: the prediction would otherwise run on a count the log
    never had."""
    tp = finite_number(facts.get("rollout_tp"))
    pool = "rollout_gpus" if facts.get("rollout_gpus") else "num_gpus"
    gpus = finite_number(facts.get(pool))
    if tp and gpus and (tp != int(tp) or gpus % tp):
        raise TinkerNomicsError(f"the log's config sets {where.get('rollout_tp', 'rollout_tp')} to {tp:g}, which "
                                f"does not split the {gpus:g} GPUs the rollout runs on "
                                f"({where.get(pool, pool)}): no run starts with it (a damaged config?)")


def settle(table: StepTable, facts: dict, where: dict, overrides: dict | None):
    """The options over the log's config (prompts per step, group size, samples, GPUs: marked "given"), then the
    table finished with the samples per step they imply: (steps, notes, facts, where, model path)."""
    check_config_sizes(facts, where)
    facts, where = dict(facts), dict(where)
    contradicted = []   # a flag the log's own config disagrees with: said beside the answer it moves
    for name, value in (overrides or {}).items():
        if value is not None:
            logged = finite_number(facts.get(name))
            if name in ("prompts_per_step", "group_size") and logged is not None and logged != float(value):
                contradicted.append(f"--{name.replace('_', '-')} {float(value):g} given; the log's config says "
                                    f"{logged:g} ({where.get(name, 'the config')}): the split of the logged tokens "
                                    f"between prompts and responses follows the flag")
            facts[name], where[name] = value, "given"
    if {"prompts_per_step", "group_size"} & {k for k, v in (overrides or {}).items() if v is not None} \
            and facts.get("prompts_per_step") and facts.get("group_size"):
        facts["samples_per_step"] = float(facts["prompts_per_step"]) * float(facts["group_size"])
        where["samples_per_step"] = "prompts per step × group size (given or from the config)"
    rollout = None   # dynamic sampling (verl's algorithm.filter_groups): each round generates data.gen_batch_size
    # prompts' groups, and the step trains the batch it keeps
    if facts.get("filter_groups") is True and finite_number(facts.get("gen_batch_prompts")) \
            and finite_number(facts.get("group_size")):
        rollout = float(facts["gen_batch_prompts"]) * float(facts["group_size"])
        facts["rollout_samples"] = rollout
        where["rollout_samples"] = "data.gen_batch_size × actor_rollout_ref.rollout.n (one generation round)"
    _engines_split_the_gpus(facts, where)
    steps, notes = table.finish(facts.get("samples_per_step"), where.get("samples_per_step", ""),
                                facts.get("prompt_tokens_per_sample"), rollout)
    model = facts.get("model_path") if isinstance(facts.get("model_path"), str) else None
    return steps, contradicted + list(notes), facts, where, model


@dataclass(frozen=True)
class HostedRun:
    """A self-hosted run read from its logs: the tidy per-step table and what the log says about the run."""
    steps: pd.DataFrame
    source: str                      # the path as given
    framework: str                   # verl, TRL, ...
    kind: str                        # console log, file-logger JSON lines, W&B history CSV, trainer_state.json ...
    model: str | None = None         # the model path as the log's config writes it
    config: dict = field(default_factory=dict)          # facts from the log's config (see `facts`)
    config_sources: dict = field(default_factory=dict)  # fact -> where in the log it was read
    validation_inside: bool | None = None  # is validation time inside the logged step time? None: no validation
    notes: tuple[str, ...] = ()
    run_name: str | None = None
    keys: frozenset = frozenset()

    @property
    def n_steps(self) -> int:
        """Optimizer steps the log covers (a TRL window of 10 logged steps counts 10)."""
        return int(self.steps["steps_covered"].sum())

    @property
    def phase_names(self) -> list[str]:
        return [c.split("/", 1)[1] for c in self.steps.columns if c.startswith("phase/")]

    @property
    def first_step(self) -> int:
        return int(self.steps["step"].min() - self.steps["steps_covered"].iloc[0] + 1)

    @property
    def last_step(self) -> int:
        return int(self.steps["step"].max())
