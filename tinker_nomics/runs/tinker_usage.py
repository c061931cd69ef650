"""Tinker's own record of what it billed: the `tinker billing usage` export, read, priced, and reconciled with a
tinker-cookbook log of the same run.

The format (thinking-machines-lab/tinker, src/tinker/types/billing_usage_response.py and
src/tinker/cli/commands/billing.py): one row per UTC hour × usage type × base model × session × user.

- envelope: `bucket_start`, `bucket_end` (RFC 3339), `base_model`, `user_id`, `user_name`, `session_id`,
  `project_id`, and in newer CLIs `estimated_cost_usd`, `effective_rate_usd_per_million_tokens`,
  `effective_rate_usd_per_gigabyte_month` (gross estimates before credits, not invoice amounts);
- `event_info`, a union on `type`: `training` (`token_count`), `sampling_prefill` (`cached`, `token_count`),
  `sampling_sample` (`token_count`), `checkpoint` (`count`), `storage` (`gigabyte_hours`).

`--csv` flattens `event_info` into the row and orders the columns by first appearance, so columns are selected by
name; `-f json` keeps the nested shape (`{"data": [...], "sessions": {...}, "cost_data_through": ...}`). Both are
read here. Each row is priced under the price snapshot in force on its bucket's date (the newest snapshot whose
effective date is on or before it, data/prices/tinker_prices.csv): training at the train rate, sampled tokens at the
sample rate, prefill at the prefill rate or, for cached rows, at the snapshot's cached rate (the full rate where the
snapshot has none, said in a note); storage at the snapshot's $/GB-month over 720 GB-hours a month (the CLI's own
divisor). Checkpoint operations have no price in data/prices and stay unpriced.
"""
from __future__ import annotations

import csv
import datetime
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import fmt, sources
from ..errors import TinkerNomicsError, UnknownNameError
from ..model.billing import meter_cost
from ..sources.defaults import number
from ..sources.numbers import shown
from ..sources.price_list import snapshots
from ..sources.provenance import data_recorded
from ..sources.prices import storage_usd_per_gb_month
from . import stream
from .files import BOM, JsonLines, named_twice

TOKEN_TYPES = {"training": "train", "sampling_sample": "sample", "sampling_prefill": "prefill"}
EVENT_TYPES = (*TOKEN_TYPES, "checkpoint", "storage")
QUANTITY = {"training": "token_count", "sampling_sample": "token_count", "sampling_prefill": "token_count",
            "checkpoint": "count", "storage": "gigabyte_hours"}
WHOLE_QUANTITIES = ("token_count", "count")   # tokens and checkpoint operations come whole; GB-hours need not
MAX_QUANTITY = 1e18
COLUMNS = ["where", "bucket_start", "date", "base_model", "session_id", "type", "cached", "quantity",
           "estimated_cost_usd"]
UNSPECIFIED = (   # what the format leaves open (README "Tinker's usage export")
    "where checkpoint and storage rows sort within a bucket",
    "how a request that spans an hour boundary is bucketed",
    "whether a training row covers every forward_backward token and how it splits into prompt and completion",
    "how LoRA rank or context-length variants appear (only base_model is given)",
    "when cached=True rows first appeared",
    "a run id: none exists; sessions map to runs only through user_metadata set at session creation",
)


@dataclass(frozen=True)
class UsageExport:
    rows: pd.DataFrame                 # COLUMNS, one per export row
    source: str
    kind: str                          # CSV or JSON
    sessions: dict = field(default_factory=dict)     # session_id -> user_metadata (JSON export only)
    cost_data_through: str | None = None


def _text(value) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _row(where, rec: dict, label: str) -> dict:
    def fail(reason):
        raise TinkerNomicsError(f"{label}: {where[0]} {where[1]}: {reason}")

    info = rec.get("event_info")
    if info is not None:
        if not isinstance(info, dict):
            fail("event_info is not an object")
        rec = {**{k: v for k, v in rec.items() if k != "event_info"}, **info}
    kind = _text(rec.get("type"))
    if kind not in EVENT_TYPES:
        fail(f"type is {kind!r}, not one of {', '.join(EVENT_TYPES)}")
    start = _text(rec.get("bucket_start"))
    day = _bucket_day(start)
    if day is None:
        fail(f"bucket_start is {start!r}, not an RFC 3339 time")
    if day > latest_possible_day():
        fail(f"bucket_start {start} is in the future (today is {latest_possible_day()}): no usage was billed then")
    column = QUANTITY[kind]
    quantity = _number(rec.get(column), f"{column}", fail, required=True)
    if column in WHOLE_QUANTITIES and not quantity.is_integer():
        fail(f"{column} is {shown(quantity)}, not a whole number (a count)")
    model = _text(rec.get("base_model"))
    if model is None and kind in TOKEN_TYPES:
        fail(f"base_model is empty: a {kind} row names the model it billed")
    cached = None
    if kind == "sampling_prefill":
        raw = rec.get("cached")
        if isinstance(raw, bool):
            cached = raw
        elif _text(raw) in ("True", "true", "False", "false"):
            cached = _text(raw).lower() == "true"
        elif raw is None or _text(raw) is None:
            cached = False
        else:
            fail(f"cached is {raw!r}, not True or False")
    return {"where": f"{where[0]} {where[1]}", "bucket_start": start, "date": day.isoformat(),
            "base_model": model, "session_id": _text(rec.get("session_id")), "type": kind,
            "cached": cached, "quantity": quantity,
            "estimated_cost_usd": _number(rec.get("estimated_cost_usd"), "estimated_cost_usd", fail, False)}


def _bucket_day(start: str | None) -> datetime.date | None:
    """The UTC day of an RFC 3339 bucket time (`2026-07-16T22:00:00Z`), or None when it is not one (2026-99-99)."""
    if not start or len(start) < 10:
        return None
    try:
        moment = datetime.datetime.fromisoformat(start[:-1] + "+00:00" if start[-1:] in "zZ" else start)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc)
    return moment.date()


def latest_possible_day() -> datetime.date:
    """No usage can be billed after today: the later of the clock's UTC day and the newest date recorded in data/
    (a machine whose clock runs behind the data cannot make the data's own dates the future)."""
    today = datetime.datetime.now(datetime.timezone.utc).date()
    return max(today, datetime.date.fromisoformat(data_recorded()))


def _number(value, key, fail, required: bool) -> float:
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            fail(f"no {key}")
        return math.nan
    if isinstance(value, bool):
        fail(f"{key} is {value}, not a number")
    try:
        number_ = float(value)
    except (TypeError, ValueError):
        fail(f"{key} is {str(value)[:40]!r}, not a number")
    except OverflowError:
        fail(f"{key} is too large")
    if not math.isfinite(number_) or number_ < 0 or number_ > MAX_QUANTITY:
        fail(f"{key} is {number_:g}, not a non-negative finite number")
    return number_


def is_usage_header(names) -> bool:
    return "bucket_start" in names and ("type" in names or "event_info" in names)


def read_usage(path) -> UsageExport:
    """A `tinker billing usage` export (`--csv` or `-f json`), read-only."""
    p = Path(path)
    label = str(path)
    stream.check_regular(p, label)
    head = stream.head(p, label).removeprefix(BOM).lstrip()
    if not head:
        raise TinkerNomicsError(f"{label}: empty file")
    if head[:1] == b"{":
        try:
            obj = stream.json_document(p, label)
        except JsonLines:
            raise TinkerNomicsError(f"{label}: JSON lines, not a tinker billing usage export") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("data"), list):
            raise TinkerNomicsError(f"{label}: not a tinker billing usage export (no 'data' list)")
        rows = []
        for i, rec in enumerate(obj["data"], start=1):
            if not isinstance(rec, dict):
                raise TinkerNomicsError(f"{label}: data record {i}: not an object")
            rows.append(_row(("data record", i), rec, label))
        sessions = {}
        if not isinstance(obj.get("sessions") or {}, dict):
            raise TinkerNomicsError(f"{label}: sessions is {str(obj['sessions'])[:40]!r}, not an object keyed by "
                                    f"session id")
        for sid, info in (obj.get("sessions") or {}).items():
            meta = info.get("user_metadata") if isinstance(info, dict) else None
            sessions[str(sid)] = meta if isinstance(meta, dict) else None
        through = obj.get("cost_data_through")
        return UsageExport(pd.DataFrame(rows, columns=COLUMNS), label, "tinker billing usage (JSON)", sessions,
                           str(through) if through else None)
    rows = []
    with stream.open_read(p, label) as fh:
        reader = csv.DictReader(io.TextIOWrapper(fh, encoding="utf-8-sig", newline=""))
        try:
            if not is_usage_header(reader.fieldnames or []):
                raise TinkerNomicsError(f"{label}: row 1: not a tinker billing usage CSV (no bucket_start and type "
                                        f"columns)")
            named_twice(reader.fieldnames, "column", f"{label}: row 1")   # DictReader keeps the last
            for rec in reader:
                if not any((v or "").strip() for v in rec.values() if isinstance(v, str)):
                    continue
                if None in rec:
                    raise TinkerNomicsError(f"{label}: row {reader.line_num}: more cells than header columns")
                rows.append(_row(("row", reader.line_num), rec, label))
        except csv.Error as exc:
            raise TinkerNomicsError(f"{label}: row {reader.line_num}: malformed CSV ({exc})") from None
        except UnicodeDecodeError:
            raise TinkerNomicsError(f"{label}: row {reader.line_num}: not UTF-8 text") from None
    if not rows:
        raise TinkerNomicsError(f"{label}: no usage rows under the header")
    return UsageExport(pd.DataFrame(rows, columns=COLUMNS), label, "tinker billing usage (CSV)")


def snapshot_on(date: str) -> str:
    """The price snapshot in force on `date` (YYYY-MM-DD): the newest whose effective date is on or before it."""
    eligible = [s for s, d in snapshots().items() if d <= date]
    if not eligible:
        first = next(iter(snapshots()))
        raise TinkerNomicsError(f"no Tinker price snapshot in force on {date} (the first is {first}, effective "
                                f"{snapshots()[first]})")
    return eligible[-1]


@dataclass(frozen=True)
class PricedUsage:
    rows: pd.DataFrame        # the export's rows with snapshot, meter, rate and usd
    totals: pd.DataFrame      # per meter: quantity, usd (ours), the export's own estimate
    notes: tuple[str, ...] = ()

    @property
    def total_usd(self) -> float:
        return float(self.rows["usd"].sum())


def price_usage(export: UsageExport, model: str | None = None, sessions=None) -> PricedUsage:
    """Price every row (optionally only `model`'s rows and some sessions) under the snapshot in force on its date."""
    rows = export.rows.copy()
    notes: list[str] = []
    if model is not None:
        canonical = sources.resolve_model(model)
        keep = rows["base_model"].map(lambda m: _canonical(m) == canonical)
        keep |= rows["type"].eq("storage") & rows["base_model"].isna()
        dropped = int((~keep).sum())
        rows = rows[keep]
        if dropped:
            notes.append(f"{dropped} export row(s) for other models left out")
    if sessions:
        wanted = set(sessions)
        unknown = wanted - set(rows["session_id"].dropna())
        if unknown:
            raise TinkerNomicsError(f"{export.source}: no rows for session(s) {', '.join(sorted(unknown))}")
        rows = rows[rows["session_id"].isin(wanted)]
    rows = rows.reset_index(drop=True)
    snap, meter, rate, usd = [], [], [], []
    no_cached_rate: set[str] = set()
    unpriced_models: set[str] = set()
    for r in rows.itertuples(index=False):
        s = snapshot_on(r.date)
        snap.append(s)
        name, value, cost = _price_row(r, s, no_cached_rate, unpriced_models)
        meter.append(name)
        rate.append(value)
        usd.append(cost)
    rows["snapshot"], rows["meter"], rows["rate"], rows["usd"] = snap, meter, rate, usd
    newest = list(snapshots())[-1]
    later = rows["date"] > snapshots()[newest] if len(rows) else rows["date"]
    if later.any():
        notes.append(f"{int(later.sum())} row(s) dated after the newest price list in data/prices ({newest}, "
                     f"effective {snapshots()[newest]}; last: {rows.loc[later, 'date'].max()}) are priced at it: a "
                     f"later repricing is not known here")
    if no_cached_rate:
        notes.append(f"snapshot(s) {', '.join(sorted(no_cached_rate))} have no cached-prefill rate: cached rows "
                     f"billed at the prefill rate")
    if unpriced_models:
        notes.append(f"no price in data/prices for {', '.join(sorted(unpriced_models))}: those rows are unpriced "
                     f"(the export's own estimate is shown)")
    if (rows["type"] == "checkpoint").any():
        notes.append("checkpoint operations are counted but not priced (data/prices has no per-checkpoint price; "
                     "the export leaves their cost empty too)")
    totals = (rows.groupby("meter", sort=False)
              .agg(quantity=("quantity", "sum"), usd=("usd", lambda x: float(x.sum(min_count=1))),
                   export_usd=("estimated_cost_usd", lambda x: float(x.sum(min_count=1))), rows=("quantity", "size"))
              .reset_index())
    return PricedUsage(rows, totals, tuple(notes))


def _price_row(r, snapshot: str, no_cached_rate: set, unpriced: set) -> tuple[str, float, float]:
    """(meter, rate, USD) of one export row under `snapshot`; NaN where data/prices has no price."""
    if r.type == "checkpoint":
        return "checkpoint", math.nan, 0.0
    if r.type == "storage":
        per_month = storage_usd_per_gb_month(snapshot)
        return "storage", per_month, per_month * r.quantity / number("gigabyte_hours_per_month")
    name = "cached_prefill" if r.type == "sampling_prefill" and r.cached else TOKEN_TYPES[r.type]
    try:
        price = sources.get_price(r.base_model, snapshot) if r.base_model else None
    except (TinkerNomicsError, UnknownNameError):
        price = None
    if price is None:
        unpriced.add(f"{r.base_model or 'no model'} at {snapshot}")
        return name, math.nan, math.nan
    value = price.cached_prefill if name == "cached_prefill" else price.rate(name)
    if value is None:
        no_cached_rate.add(snapshot)
        value = price.rate("prefill")
    return name, value, float(meter_cost(r.quantity, value))


def _canonical(name) -> str | None:
    if not name:
        return None
    try:
        return sources.resolve_model(name)
    except UnknownNameError:
        return str(name)


@dataclass(frozen=True)
class UsageCheck:
    """A cookbook log's meters against what Tinker's export billed for the same model (and sessions)."""
    table: pd.DataFrame        # meter, log_tokens, billed_tokens, difference, relative_difference, usd
    priced: PricedUsage
    export: UsageExport
    notes: tuple[str, ...] = ()
    sign_convention: str = ("difference = log − billed; relative = (log − billed) / billed: positive means the log "
                            "counts more than Tinker billed")

    def to_dict(self) -> dict:
        return {"source": self.export.source, "format": self.export.kind, "sign_convention": self.sign_convention,
                "meters": fmt.json_records(self.table),
                "billed_usd": fmt.json_value(self.priced.total_usd),
                "export_estimated_usd": fmt.json_value(self.priced.rows["estimated_cost_usd"].sum(min_count=1)),
                "priced_by_meter": fmt.json_records(self.priced.totals),
                "snapshots": sorted(set(self.priced.rows["snapshot"])),
                "sessions": sorted(str(s) for s in set(self.priced.rows["session_id"].dropna())),
                "cost_data_through": self.export.cost_data_through, "notes": list(self.notes)}

    def render(self) -> str:
        lines = [f"Usage export  {Path(self.export.source).name} ({self.export.kind}): "
                 f"{fmt.usd(self.priced.total_usd)} at the snapshots in force "
                 f"({', '.join(sorted(set(self.priced.rows['snapshot'])))})",
                 f"              {self.sign_convention}"]
        for r in self.table.itertuples(index=False):
            rel = "n/a" if not math.isfinite(r.relative_difference) else fmt.signed_pct(r.relative_difference, 2)
            lines.append(f"  {r.meter:<15} log {fmt.tokens(r.log_tokens):>10}   billed "
                         f"{fmt.tokens(r.billed_tokens):>10}   difference {r.difference:+,.0f} ({rel})")
        return "\n".join(lines)


def reconcile_usage(meters, model: str, export: UsageExport, sessions=None) -> UsageCheck:
    """Per meter, the log's count (runs.meters.MeterTokens) against the export's billed count for `model`."""
    priced = price_usage(export, model, sessions)
    rows = priced.rows
    billed = {m: float(rows.loc[rows["meter"] == m, "quantity"].sum()) for m in ("sample", "train", "prefill",
                                                                                 "cached_prefill")}
    billed["prefill"] += billed["cached_prefill"]
    logged = {"sample": meters.sample, "train": meters.train, "prefill": meters.prefill,
              "cached_prefill": meters.cached_prefill}
    out = []
    for meter in ("sample", "train", "prefill", "cached_prefill"):
        b, lg = billed[meter], float(logged[meter])
        out.append({"meter": meter, "log_tokens": lg, "billed_tokens": b, "difference": lg - b,
                    "relative_difference": (lg - b) / b if b else math.nan})
    notes = list(priced.notes)
    if not len(rows):
        raise TinkerNomicsError(f"{export.source}: no rows for {sources.resolve_model(model)} in the export")
    notes.append("the export has no run id: it is matched to the log by base model"
                 + (" and the given session(s)" if sessions else "; pass --session ID to keep one run's sessions"))
    notes.append("prefill counts cached and uncached rows together; cached_prefill compares the cached rows with "
                 "the log's cache hits (0 when the log has none)")
    return UsageCheck(pd.DataFrame(out), priced, export, tuple(notes))
