"""A finished run as one tidy per-step table (`RunLog`), whatever format its logs came in.

The tidy table (`RunLog.steps`), one row per training step (plus a row for an eval that has no training
line at its step, e.g. the final eval at step = end_batch), sorted by step:

==========================  ======================================================================
column                      meaning
==========================  ======================================================================
step                        the logged step number (`step`, or W&B's `_step`)
has_train                   True when the row is a training step
train_completion_tokens     env/all/total_ac_tokens: sampled tokens of the trained rollouts
train_prompt_tokens         env/all/total_ob_tokens: prompt tokens sent to the sampler (every turn)
cached_prompt_tokens        env/all/total_cached_ob_tokens (else tokens/prefill_cached); NaN = not logged
episodes                    env/all/total_episodes (rollouts = B×G); NaN = not logged
turns                       env/all/turns_per_episode (mean); NaN = not logged
reward                      env/all/reward/total (mean); NaN = not logged
eval_completion_tokens      test/…/env/all/total_ac_tokens at this step, 0 when no eval ran
eval_prompt_tokens          test/…/env/all/total_ob_tokens, 0 when no eval ran
eval_cached_prompt_tokens   test/…/env/all/total_cached_ob_tokens; NaN = not logged
eval_episodes               test/…/env/all/total_episodes, 0 when no eval ran
eval_reward                 test/…/env/all/reward/total; NaN when no eval ran
step_seconds                time/total or time/training_loop/total; NaN = not logged
logged_cost_usd             cost/step_usd (the cookbook's own estimate, eval excluded); NaN = not logged
logged_trained_tokens       tokens/trained (the datums' real length); NaN = not logged
line                        line (JSON lines) or row (tables, header = row 1) of the training record
eval_line                   line or row of the (first) eval record at this step; <NA> when none
==========================  ======================================================================

Readers of every format fill the same columns. Bad input raises `TinkerNomicsError` with one line naming the
file, the line or row and the reason; nothing partial is returned. Files are only ever opened for reading.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from .. import fmt

COLUMNS = ["step", "has_train", "train_completion_tokens", "train_prompt_tokens", "cached_prompt_tokens",
           "episodes", "turns", "reward", "eval_completion_tokens", "eval_prompt_tokens",
           "eval_cached_prompt_tokens", "eval_episodes", "eval_reward", "step_seconds", "logged_cost_usd",
           "logged_trained_tokens", "line", "eval_line"]
INT_COLUMNS = ("step",)
BOOL_COLUMNS = ("has_train",)
NULLABLE_INT_COLUMNS = ("line", "eval_line")


def frame_from_records(records: list[dict], columns, ints=INT_COLUMNS, bools=BOOL_COLUMNS,
                       nullable_ints=NULLABLE_INT_COLUMNS, texts=()) -> pd.DataFrame:
    """A table written as JSON records (fmt.json_records) read back with its dtypes: None is NaN in a float
    column and <NA> in a nullable integer one."""
    out = {}
    for name in columns:
        values = [r.get(name) for r in records]
        if name in texts:
            out[name] = values
        elif name in ints:
            out[name] = pd.array(values, dtype="int64")
        elif name in bools:
            out[name] = pd.array(values, dtype=bool)
        elif name in nullable_ints:
            out[name] = pd.array(values, dtype="Int64")
        else:
            out[name] = pd.array([math.nan if v is None else v for v in values], dtype="float64")
    return pd.DataFrame(out, columns=list(columns))


@dataclass(frozen=True)
class RunLog:
    """A run read from its logs: the tidy per-step table and what was learned about the run."""
    steps: pd.DataFrame
    source: str                     # the path as given
    kind: str                       # cookbook log folder, metrics.jsonl, W&B history CSV, ...
    model: str | None               # model_name from config.json, as written there
    config: dict = field(default_factory=dict)
    mode: str = "unknown"           # sync, async, stream-minibatch (from the keys the log carries)
    run_name: str | None = None
    notes: tuple[str, ...] = ()     # how the log was read: gaps, repeated steps, downsampling
    logged_totals: dict = field(default_factory=dict)  # the cookbook's cumulative tokens/cost, when logged
    keys: frozenset = frozenset()   # every metric key the log carries

    def to_dict(self) -> dict:
        """Everything the run was read into, as strict-JSON values (the report's validation.json carries it)."""
        return fmt.json_safe({"source": self.source, "kind": self.kind, "model": self.model, "config": self.config,
                              "mode": self.mode, "run_name": self.run_name, "notes": list(self.notes),
                              "logged_totals": self.logged_totals, "keys": sorted(self.keys),
                              "steps": fmt.json_records(self.steps)})

    @classmethod
    def from_dict(cls, d: dict) -> "RunLog":
        """The RunLog that `to_dict` wrote."""
        return cls(frame_from_records(d["steps"], COLUMNS), d["source"], d["kind"], d["model"], dict(d["config"]),
                   d["mode"], d["run_name"], tuple(d["notes"]),
                   {k: math.nan if v is None else v for k, v in d["logged_totals"].items()}, frozenset(d["keys"]))

    @property
    def train(self) -> pd.DataFrame:
        """Only the training rows (the table itself when every row trains: no copy of a 10^6-row table)."""
        mask = self.steps["has_train"]
        return self.steps if bool(mask.all()) else self.steps[mask]

    @property
    def n_steps(self) -> int:
        return int(self.steps["has_train"].sum())

    @property
    def eval_steps(self) -> pd.DataFrame:
        return self.steps[self.steps["eval_line"].notna()]

    @property
    def cached_logged(self) -> bool:
        return bool(self.train["cached_prompt_tokens"].notna().any())

    @property
    def multi_turn(self) -> bool:
        return bool((self.train["turns"] > 1).any())
