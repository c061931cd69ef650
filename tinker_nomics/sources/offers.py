"""Rented-GPU offers: the SkyPilot catalog's per-provider `vms.csv` files, read into one row per offer.

The catalog (skypilot-org/skypilot-catalog, `catalogs/v7/<provider>/vms.csv`) lists each provider's instance
types with the accelerator's name and count, the on-demand `Price` and the `SpotPrice` in USD per
instance-hour, and the region; one instance type repeats once per region. `read_catalog(path)` reads a folder
laid out like the catalog (any `vms.csv` below it; the provider is the folder the file sits in) or one
`vms.csv`, with the same code the importer (tools/import_gpu_offers.py) used to write the dated table
data/hardware/gpu_offers.csv, which `offers()` loads. What the parser does with the catalog's format:

- columns are found by their header name (the column order differs between providers); CRLF and LF both read;
- `GpuInfo` is a Python literal (single quotes), read with `ast.literal_eval` (never `eval`); runpod's is only
  the accelerator's name. Its `MemoryInfo.SizeInMiB` means something different per provider
  (data/hardware/gpu_offer_sources.csv, column gpuinfo_memory): per GPU, all the instance's GPUs together,
  the host's RAM (not used), or nothing;
- an empty `SpotPrice`, 0.00 (vast) or 99999999 (primeintellect) means no spot offer;
- a row without `AcceleratorName` is a CPU instance (counted, not kept);
- rows are kept once per (provider, instance type, on-demand price, spot price), with the regions counted;
- a row whose on-demand price is below its spot price is flagged `on_demand_below_spot` (four runpod L40S rows;
  columns probably swapped) and one whose two prices are equal `spot_equals_on_demand` (mithril's auction-style
  prices); neither is changed.

The catalog's accelerator names map to the GPU registry by the ordered rules of
data/hardware/gpu_offer_names.csv (`map_accelerator`): plain `H100` to SXM, PCIe or NVL from the instance type
or the memory, `A100` to 40 or 80 GB from the per-GPU memory, `RTXA6000` and `A6000` to one part, ...; a name no
rule maps keeps an empty `gpu` and is listed by `CatalogReading.unmapped`, never dropped silently.

A malformed file stops reading with one line that names the file, the line and the column.
"""
from __future__ import annotations

import ast
import csv
import dataclasses
import datetime
import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CONTROL, TinkerNomicsError
from .numbers import is_finite
from .hardware import gpus
from .tables import Column, load_table

# A GPU-hour's price an offer may have: from a cent (the catalog's cheapest is several cents) to the bound
# --gpu-hourly-usd has (model/scenario.py BOUNDS); outside it a price prints as $0.00 or $inf, not as a rental.
GPU_HOUR_USD = (0.01, 1e4)
REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region", "SpotPrice")
NO_SPOT_VALUES = (0.0, 99999999.0)       # vast writes 0.00, primeintellect 99999999 where there is no spot offer
MEMORY_MEANINGS = ("per_gpu", "all_gpus", "host_ram", "none", "name_only")
MIB_PER_GIB = 1024.0
LONGEST_GPU_INFO = 20_000                 # characters: a GpuInfo longer than this is not the catalog's format
TABLE = "hardware/gpu_offers.csv"
CATALOG_REPOSITORY = "https://github.com/skypilot-org/skypilot-catalog"
FLAGS = ("on_demand_below_spot", "spot_equals_on_demand")


@dataclass(frozen=True)
class Offer:
    """One instance type at one price pair, in one provider's catalog file."""
    provider: str
    instance_type: str
    accelerator: str                 # the catalog's name (H100, A100-80GB, RTXA6000, ...)
    accelerator_count: int           # GPUs per instance
    gpu: str | None                  # the registry's GPU, or None when no rule maps the name
    gpu_rule: str                    # the rule of gpu_offer_names.csv that mapped it ('' when unmapped)
    gpu_memory_gib: float | None     # per GPU, where the file gives it
    usd_per_hour: float              # on-demand, per instance
    spot_usd_per_hour: float | None  # None: no spot offer
    regions: int                     # regions listing this instance type at these prices
    region_example: str
    flags: tuple[str, ...]
    catalog_path: str
    catalog_commit: str
    recorded: str                    # the day the file was read (YYYY-MM-DD)

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.usd_per_hour / self.accelerator_count

    @property
    def spot_usd_per_gpu_hour(self) -> float | None:
        return None if self.spot_usd_per_hour is None else self.spot_usd_per_hour / self.accelerator_count

    @property
    def source(self) -> str:
        if self.catalog_commit.startswith("not known"):
            return f"skypilot-catalog {self.catalog_path}, commit {self.catalog_commit}, file dated {self.recorded}"
        return f"skypilot-catalog {self.catalog_path} @ {self.catalog_commit}, read {self.recorded}"

    @property
    def source_url(self) -> str:
        """The file at its commit on GitHub; for a copy whose commit is not known, where it was read."""
        if self.catalog_commit.startswith("not known"):
            return self.catalog_commit
        return f"{CATALOG_REPOSITORY}/blob/{self.catalog_commit}/{self.catalog_path}"


@dataclass(frozen=True)
class CatalogReading:
    """What reading a catalog found: the offers, and what was left out or looks wrong."""
    offers: tuple[Offer, ...]
    files: tuple[str, ...]
    cpu_rows: int                                    # rows without an accelerator (CPU instances)
    unmapped: dict = field(default_factory=dict)     # catalog accelerator name -> offers left without a GPU

    @property
    def suspect(self) -> tuple[Offer, ...]:
        return tuple(o for o in self.offers if "on_demand_below_spot" in o.flags)


# ----------------------------------------------------------------------------------------------- the registry side


@dataclass(frozen=True)
class CatalogFile:
    """A catalog file the committed table was read from (data/hardware/gpu_offer_sources.csv)."""
    catalog_path: str
    provider: str
    commit: str
    recorded: str
    gpuinfo_memory: str
    resells_other_clouds: bool
    source: str
    note: str


@functools.lru_cache(maxsize=None)
def catalog_files() -> dict[str, CatalogFile]:
    rows = load_table("hardware/gpu_offer_sources.csv", [
        Column("catalog_path"), Column("provider"), Column("commit"), Column("recorded"), Column("gpuinfo_memory"),
        Column("resells_other_clouds", "bool"), Column("source"), Column("note", required=False)])
    out = {}
    for r in rows:
        if r["gpuinfo_memory"] not in MEMORY_MEANINGS:
            raise TinkerNomicsError(f"hardware/gpu_offer_sources.csv row {r['_row']} column gpuinfo_memory: "
                                    f"{r['gpuinfo_memory']!r} is not one of {', '.join(MEMORY_MEANINGS)}")
        out[r["provider"]] = CatalogFile(r["catalog_path"], r["provider"], r["commit"], r["recorded"],
                                         r["gpuinfo_memory"], r["resells_other_clouds"], r["source"], r["note"] or "")
    return out


def memory_meaning(provider: str) -> str:
    """What GpuInfo's SizeInMiB means in this provider's file; 'none' (not used) for a provider not listed."""
    known = catalog_files().get(provider)
    return known.gpuinfo_memory if known else "none"


@dataclass(frozen=True)
class NameRule:
    rule: str
    accelerator: str
    provider: str
    pattern: re.Pattern | None
    min_memory_gib: float | None
    max_memory_gib: float | None
    gpu: str | None
    basis: str

    def matches(self, provider: str, accelerator: str, text: str, memory_gib: float | None) -> bool:
        if accelerator.lower() != self.accelerator.lower():
            return False
        if self.provider and provider != self.provider:
            return False
        if self.pattern is not None and not self.pattern.search(text.lower()):
            return False
        if self.min_memory_gib is not None or self.max_memory_gib is not None:
            if memory_gib is None:
                return False
            if self.min_memory_gib is not None and memory_gib < self.min_memory_gib:
                return False
            if self.max_memory_gib is not None and memory_gib > self.max_memory_gib:
                return False
        return True


@functools.lru_cache(maxsize=None)
def name_rules() -> tuple[NameRule, ...]:
    """The ordered rules that map catalog accelerator names to the GPU registry (first match wins)."""
    where = "hardware/gpu_offer_names.csv"
    rows = load_table(where, [
        Column("rule"), Column("accelerator"), Column("provider", required=False),
        Column("instance_pattern", required=False), Column("min_memory_gib", "float", False),
        Column("max_memory_gib", "float", False), Column("gpu", required=False), Column("basis"), Column("source")])
    known = gpus()
    out, seen = [], set()
    for r in rows:
        if r["rule"] in seen:
            raise TinkerNomicsError(f"{where} row {r['_row']} column rule: {r['rule']!r} is already used")
        seen.add(r["rule"])
        if r["gpu"] is not None and r["gpu"] not in known:
            raise TinkerNomicsError(f"{where} row {r['_row']} column gpu: {r['gpu']!r} is not in the GPU registry")
        try:
            pattern = re.compile(r["instance_pattern"]) if r["instance_pattern"] else None
        except re.error as exc:
            raise TinkerNomicsError(f"{where} row {r['_row']} column instance_pattern: {exc}") from None
        out.append(NameRule(r["rule"], r["accelerator"], r["provider"] or "", pattern, r["min_memory_gib"],
                            r["max_memory_gib"], r["gpu"], r["basis"]))
    return tuple(out)


def map_accelerator(provider: str, accelerator: str, instance_text: str,
                    memory_gib: float | None) -> tuple[str | None, str]:
    """(registry GPU or None, the rule that decided) for one catalog row; ('', None) when no rule matches."""
    for rule in name_rules():
        if rule.matches(provider, accelerator, instance_text, memory_gib):
            return rule.gpu, rule.rule
    return None, ""


# ----------------------------------------------------------------------------------------------- the committed table

OFFER_COLUMNS = [
    Column("provider"), Column("instance_type"), Column("accelerator"), Column("accelerator_count", "int"),
    Column("gpu", required=False), Column("gpu_rule", required=False), Column("gpu_memory_gib", "float", False),
    Column("usd_per_hour", "float"), Column("spot_usd_per_hour", "float", False), Column("regions", "int"),
    Column("region_example", required=False), Column("flags", required=False), Column("catalog_path"),
    Column("catalog_commit"), Column("recorded")]
HEADER = ["provider", "instance_type", "accelerator", "accelerator_count", "gpu", "gpu_rule", "gpu_memory_gib",
          "usd_per_hour", "spot_usd_per_hour", "usd_per_gpu_hour", "spot_usd_per_gpu_hour", "regions",
          "region_example", "flags", "catalog_path", "catalog_commit", "recorded", "source_url"]


@functools.lru_cache(maxsize=None)
def offers() -> tuple[Offer, ...]:
    """The committed offers (data/hardware/gpu_offers.csv, written by `make offers`)."""
    rows = load_table(TABLE, OFFER_COLUMNS)
    out = []
    for r in rows:
        where = f"{TABLE} row {r['_row']}"
        if r["accelerator_count"] < 1 or r["usd_per_hour"] < 0 or (r["spot_usd_per_hour"] or 0) < 0:
            raise TinkerNomicsError(f"{where}: GPU count must be at least 1 and prices not negative")
        if r["gpu"] is not None and r["gpu"] not in gpus():
            raise TinkerNomicsError(f"{where} column gpu: {r['gpu']!r} is not in the GPU registry")
        out.append(Offer(r["provider"], r["instance_type"], r["accelerator"], r["accelerator_count"], r["gpu"],
                         r["gpu_rule"] or "", r["gpu_memory_gib"], r["usd_per_hour"], r["spot_usd_per_hour"],
                         r["regions"], r["region_example"] or "", tuple((r["flags"] or "").split()),
                         r["catalog_path"], r["catalog_commit"], r["recorded"]))
    return tuple(out)


def load_offers(path=None) -> tuple[Offer, ...]:
    """The committed offers, or those of a catalog copy at `path` (a folder laid out like the catalog, or one
    vms.csv), read with the same code."""
    if path is None:
        return offers()
    return read_catalog(path).offers


def offer_row(o: Offer) -> dict:
    """One offer as a row of data/hardware/gpu_offers.csv."""
    def num(x):
        return "" if x is None else repr(float(x))      # the shortest text that reads back as the same float
    return {"provider": o.provider, "instance_type": o.instance_type, "accelerator": o.accelerator,
            "accelerator_count": o.accelerator_count, "gpu": o.gpu or "", "gpu_rule": o.gpu_rule,
            "gpu_memory_gib": "" if o.gpu_memory_gib is None else f"{o.gpu_memory_gib:.6g}", "usd_per_hour": num(o.usd_per_hour),
            "spot_usd_per_hour": num(o.spot_usd_per_hour), "usd_per_gpu_hour": num(o.usd_per_gpu_hour),
            "spot_usd_per_gpu_hour": num(o.spot_usd_per_gpu_hour), "regions": o.regions,
            "region_example": o.region_example, "flags": " ".join(o.flags), "catalog_path": o.catalog_path,
            "catalog_commit": o.catalog_commit, "recorded": o.recorded, "source_url": o.source_url}


# ----------------------------------------------------------------------------------------------- reading the catalog


def read_catalog(path, known: dict | None = None) -> CatalogReading:
    """Every `vms.csv` under a folder laid out like the catalog (or one vms.csv file), parsed and mapped.

    `known` (provider -> CatalogFile, as `catalog_files()` gives) supplies each file's commit and read date; the
    importer passes the snapshot's. Without it (a user's newer copy, `--gpu-offers`), the commit is 'not known'
    and the date is the file's modification date."""
    root = Path(path)
    if not root.exists():
        raise TinkerNomicsError(f"GPU offers {path}: no such file or folder")
    if root.is_dir():
        files = sorted(p for p in root.rglob("vms.csv") if p.is_file())
        if not files:
            raise TinkerNomicsError(f"GPU offers {path}: no vms.csv below this folder (expected the catalog's layout, "
                                    f"e.g. v7/runpod/vms.csv)")
    elif root.is_file():
        files = [root]
    else:
        raise TinkerNomicsError(f"GPU offers {path}: not a regular file or folder")
    kept: dict[tuple, dict] = {}
    cpu_rows = 0
    for file in files:
        cpu_rows += _read_vms(file, known or {}, kept)
    offers_out, unmapped = [], {}
    for entry in kept.values():
        offer = entry["offer"]
        offers_out.append(dataclasses.replace(offer, regions=len(entry["regions"])))
        if offer.gpu is None:
            unmapped[offer.accelerator] = unmapped.get(offer.accelerator, 0) + 1
    return CatalogReading(tuple(offers_out), tuple(str(f) for f in files), cpu_rows, dict(sorted(unmapped.items())))


def catalog_path_of(file: Path) -> str:
    """'catalogs/v7/runpod/vms.csv' for a file at .../v7/runpod/vms.csv (the catalog repository's own path)."""
    return "catalogs/" + "/".join(file.resolve().parts[-3:])


def _provenance(file: Path, catalog_path: str, provider: str, known: dict) -> tuple[str, str]:
    entry = known.get(provider)
    if entry is not None and entry.catalog_path == catalog_path:
        return entry.commit, entry.recorded
    day = datetime.date.fromtimestamp(file.stat().st_mtime).isoformat()
    return f"not known (a copy read from {file})", day


def _read_vms(file: Path, known: dict, kept: dict) -> int:
    """Parse one vms.csv into `kept` (keyed by provider, instance type and prices); returns its CPU rows."""
    provider = file.resolve().parent.name   # a bare vms.csv given in the working folder still names its folder
    catalog_path = catalog_path_of(file)
    commit, recorded = _provenance(file, catalog_path, provider, known)
    meaning = memory_meaning(provider)
    label = str(file)
    try:
        with open(file, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames
            if not header:
                raise TinkerNomicsError(f"{label} line 1: empty file (expected the catalog's header: "
                                        f"{', '.join(REQUIRED)})")
            missing = [c for c in REQUIRED if c not in header]
            if missing:
                raise TinkerNomicsError(f"{label} line 1: missing column(s) {', '.join(missing)} (the catalog's "
                                        f"vms.csv has {', '.join(REQUIRED)})")
            twice = sorted({c for c in header if header.count(c) > 1})
            if twice:   # csv.DictReader keeps the last of two same-named columns, silently
                raise TinkerNomicsError(f"{label} line 1: column(s) {', '.join(map(repr, twice))} appear twice")
            cpu_rows, rows = 0, 0
            for raw in reader:
                line = reader.line_num
                rows += 1
                if None in raw:
                    raise TinkerNomicsError(f"{label} line {line}: more cells than header columns")
                row = {k: (v or "").strip() for k, v in raw.items()}
                bad = next((k for k, v in row.items() if CONTROL.search(v)), None)
                if bad is not None:   # an escape code or a line break would reach the terminal's table
                    raise TinkerNomicsError(f"{label} line {line} column {bad}: holds a control character "
                                            f"({row[bad]!r:.60})")
                name = row["AcceleratorName"]
                if not name:
                    cpu_rows += 1
                    continue
                _add(kept, _offer(row, label, line, provider, meaning, catalog_path, commit, recorded), row)
            if not rows:
                raise TinkerNomicsError(f"{label}: a header and no rows, so no offer to plan with")
            return cpu_rows
    except UnicodeDecodeError as exc:
        raise TinkerNomicsError(f"{label}: not UTF-8 text (byte {exc.start})") from None
    except csv.Error as exc:
        raise TinkerNomicsError(f"{label} line {getattr(exc, 'line_num', '?')}: malformed CSV ({exc})") from None
    except OSError as exc:
        raise TinkerNomicsError(f"{label}: cannot be read ({exc.strerror or exc})") from None


def _add(kept: dict, offer: Offer, row: dict) -> None:
    key = (offer.provider, offer.instance_type, offer.usd_per_hour, offer.spot_usd_per_hour)
    entry = kept.setdefault(key, {"offer": offer, "regions": set()})
    entry["regions"].add(row["Region"])


def _number(row: dict, column: str, label: str, line: int, required: bool = True) -> float | None:
    text = row.get(column, "")
    if text == "":
        if required:
            raise TinkerNomicsError(f"{label} line {line} column {column}: empty, but a GPU row needs it")
        return None
    try:
        value = float(text)
    except ValueError:
        raise TinkerNomicsError(f"{label} line {line} column {column}: {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise TinkerNomicsError(f"{label} line {line} column {column}: {text!r} is not a finite number >= 0")
    return value


def _offer(row: dict, label: str, line: int, provider: str, meaning: str, catalog_path: str, commit: str,
           recorded: str) -> Offer:
    count = _number(row, "AcceleratorCount", label, line)
    if count < 1 or count != int(count):
        raise TinkerNomicsError(f"{label} line {line} column AcceleratorCount: {row['AcceleratorCount']!r} is not a "
                                f"whole number of GPUs >= 1")
    price = _number(row, "Price", label, line)
    if price == 0:   # no rented GPU is free: a $0 on-demand price would win every comparison as the 'best' offer
        raise TinkerNomicsError(f"{label} line {line} column Price: 0 is not an on-demand price (a free GPU instance "
                                f"is not an offer)")
    spot = _number(row, "SpotPrice", label, line, required=False)
    if spot is not None and spot in NO_SPOT_VALUES:
        spot = None
    for column, value in (("Price", price), ("SpotPrice", spot)):
        if value is not None and not GPU_HOUR_USD[0] <= value / count <= GPU_HOUR_USD[1]:
            raise TinkerNomicsError(f"{label} line {line} column {column}: {row[column]!r} for {count:g} GPU{'' if count == 1 else 's'} is "
                                    f"${value / count:.3g} a GPU-hour, outside ${GPU_HOUR_USD[0]:g}–"
                                    f"${GPU_HOUR_USD[1]:,.0f}: not a rental price (a misread column?)")
    memory = _gpu_memory_gib(row.get("GpuInfo", ""), meaning, int(count), label, line)
    text = " ".join(x for x in (row["InstanceType"], row.get("UpstreamCloudId", "")) if x)
    gpu, rule = map_accelerator(provider, row["AcceleratorName"], text, memory)
    flags = []
    if spot is not None and price < spot:
        flags.append("on_demand_below_spot")
    if spot is not None and price == spot:
        flags.append("spot_equals_on_demand")
    return Offer(provider, row["InstanceType"], row["AcceleratorName"], int(count), gpu, rule, memory, price, spot,
                 1, row["Region"], tuple(flags), catalog_path, commit, recorded)


def parse_gpu_info(text: str, label: str, line: int):
    """GpuInfo as the catalog writes it: a Python-literal dict (or runpod's bare name). Read with
    ast.literal_eval, never eval; a value that starts like a dict but does not parse is an error."""
    text = text.strip()
    if not text.startswith("{"):
        return None
    if len(text) > LONGEST_GPU_INFO:
        raise TinkerNomicsError(f"{label} line {line} column GpuInfo: longer than {LONGEST_GPU_INFO:,} characters")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        reason = type(exc).__name__ if not str(exc) else str(exc).splitlines()[0]
        raise TinkerNomicsError(f"{label} line {line} column GpuInfo: not a Python literal ({reason})") from None
    if not isinstance(value, dict):
        raise TinkerNomicsError(f"{label} line {line} column GpuInfo: a literal, but not a dict")
    return value


def _gpu_memory_gib(text: str, meaning: str, count: int, label: str, line: int) -> float | None:
    info = parse_gpu_info(text, label, line)
    if info is None or meaning in ("host_ram", "none", "name_only"):
        return None
    listed = _key(info, "Gpus")           # DigitalOcean's file writes the keys in lower case
    if not isinstance(listed, list) or not listed or not isinstance(listed[0], dict):
        return None
    memory = _key(listed[0], "MemoryInfo")
    size = _key(memory, "SizeInMiB") if isinstance(memory, dict) else None
    if not is_finite(size) or size <= 0:
        return None       # seeweb writes 0 where it does not know
    gib = float(size) / MIB_PER_GIB
    return gib / count if meaning == "all_gpus" else gib


def _key(mapping: dict, name: str):
    """mapping[name], matching the key's case loosely."""
    for key, value in mapping.items():
        if isinstance(key, str) and key.lower() == name.lower():
            return value
    return None


def clear_caches() -> None:
    for fn in (catalog_files, name_rules, offers):
        fn.cache_clear()
