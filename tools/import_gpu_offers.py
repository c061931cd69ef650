"""Import the SkyPilot catalog's GPU offers into data/hardware/gpu_offers.csv.

    python tools/import_gpu_offers.py [CATALOG] [--commit SHA --recorded YYYY-MM-DD]   (make offers [CATALOG=...])

CATALOG is a folder laid out like the catalog repository's `catalogs/` (any `vms.csv` below it; the provider is
the folder a file sits in) or one vms.csv; default: the snapshot read on 2026-12-02, in place at
../shared/realdata/gpu_offers/catalog (tools/realdata.py). The parsing and
the accelerator-name mapping are the package's own (tinker_nomics/sources/offers.py), so `plan --gpu-offers PATH`
reads a newer copy exactly as this script does. Each file's commit and read date come from
data/hardware/gpu_offer_sources.csv when the file is the one listed there; `--commit`/`--recorded` set them for
a newer checkout.

The script prints what it left out or could not map (CPU rows, accelerator names no rule of
data/hardware/gpu_offer_names.csv maps, with their offer counts) and the suspect rows (on-demand below spot),
then writes the table: one row per (provider, instance type, on-demand price, spot price), the regions counted.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from realdata import realdata  # noqa: E402
from tinker_nomics.errors import TinkerNomicsError  # noqa: E402
from tinker_nomics.sources import offers as source  # noqa: E402

DEFAULT_CATALOG = realdata("gpu_offers") / "catalog"   # read in place: the snapshot carries no licence
OUT = ROOT / "data" / "hardware" / "gpu_offers.csv"


def sorted_offers(offers) -> list:
    """A stable order: provider, accelerator, GPUs per instance, on-demand price, instance type."""
    return sorted(offers, key=lambda o: (o.provider, o.accelerator, o.accelerator_count, o.usd_per_hour,
                                         o.spot_usd_per_hour if o.spot_usd_per_hour is not None else -1.0,
                                         o.instance_type))


def write(offers, path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=source.HEADER, lineterminator="\n")
        writer.writeheader()
        for o in sorted_offers(offers):
            writer.writerow(source.offer_row(o))


def report(reading) -> str:
    mapped = [o for o in reading.offers if o.gpu]
    lines = [f"read {len(reading.files)} files: {len(reading.offers)} GPU offers ({len(mapped)} mapped to the GPU "
             f"registry), {reading.cpu_rows} CPU rows left out"]
    if reading.unmapped:
        lines.append("accelerator names no rule maps (kept in the table with an empty gpu; add a rule to "
                     "data/hardware/gpu_offer_names.csv and, if needed, the GPU to data/hardware/gpus_added.csv):")
        lines += [f"  {name}: {count} offer{'s' if count != 1 else ''}" for name, count in reading.unmapped.items()]
    if reading.suspect:
        lines.append("suspect rows (on-demand below spot; flagged on_demand_below_spot, prices kept as the file "
                     "gives them):")
        lines += [f"  {o.provider} {o.instance_type}: on-demand ${o.usd_per_hour:g}/h, spot ${o.spot_usd_per_hour:g}/h"
                  for o in reading.suspect]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog", nargs="?", default=str(DEFAULT_CATALOG))
    parser.add_argument("--commit", help="the catalog repository's commit, for every file read (a newer checkout)")
    parser.add_argument("--recorded", help="the day the files were read, YYYY-MM-DD (with --commit)")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    if bool(args.commit) != bool(args.recorded):
        print("import_gpu_offers: give --commit and --recorded together", file=sys.stderr)
        return 2
    try:
        reading = source.read_catalog(args.catalog, known=source.catalog_files())
        if args.commit:
            reading = dataclasses.replace(reading, offers=tuple(
                dataclasses.replace(o, catalog_commit=args.commit, recorded=args.recorded) for o in reading.offers))
    except TinkerNomicsError as exc:
        print(f"import_gpu_offers: {exc}", file=sys.stderr)
        return 2
    print(report(reading))
    write(reading.offers, Path(args.out))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
