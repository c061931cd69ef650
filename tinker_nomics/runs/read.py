"""Read what a finished RL run left behind into one tidy per-step table (`runlog.RunLog`).

Read what a finished RL run left behind into one tidy per-step table.

Sources (shared/reference/tinker-cookbook-facts.md §1 lists what tinker-cookbook logs):

- a tinker-cookbook log folder: `metrics.jsonl` (one JSON object per line, `{"step": N, **metrics}`) and
  `config.json` when present (model_name, batch shape, max_tokens; nested anywhere);
- a bare `metrics.jsonl` file (its sibling `config.json` is read when the file is named `metrics.jsonl`);
- W&B exports of the same metrics: `run.history()` / `scan_history()` saved as CSV, JSON (records, the
  pandas column/split layouts) or JSON lines (`_step` replaces `step`; `_runtime`, `_timestamp` ignored),
  the run-history Parquet artifact (a `.parquet` file or a folder of them), and the chart-panel CSV
  (`Step` and `<run name> - <metric>` columns, `__MIN`/`__MAX` companions ignored).

Every shape the cookbook writes is understood: sync (`progress/batch`), stream-minibatch
(`sampling_client/*`) and async (`training_client/step`) runs; eval metrics on the training line or on
separate lines sharing its step number; eval keys under `test/` or `test/test/` (any evaluator under
`test/`); `env/all/total_cached_ob_tokens`, `tokens/*` and `cost/*` (0.6.1) and its final cumulative row;
`time/total` or `time/training_loop/total`. Other keys (`eval/<benchmark>/…`, `optim/…`) are ignored.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from ..errors import TinkerNomicsError
from .cookbook import from_records, read_config
from .files import JsonLines, drop_nulls, json_table, jsonl_records, load_json, pick_run, plain
from .runlog import RunLog


def read_run(path, run: str | None = None) -> RunLog:
    """Read a run's logs (see the module docstring for the accepted shapes) into a `RunLog`.

    `run` picks one run from an export that holds several (a chart-panel CSV, or a W&B table with a
    run-name column); without it, mixed runs are an error.
    """
    p = Path(path)
    label = str(path)
    try:
        if p.is_dir():
            return _read_folder(p, label, run)
        if not p.exists():
            raise TinkerNomicsError(f"{label}: no such file or folder")
        return _read_file(p, label, run)
    except PermissionError:
        raise TinkerNomicsError(f"{label}: cannot read it (permission denied)") from None
    except IsADirectoryError:
        raise TinkerNomicsError(f"{label}: is a folder where a file was expected") from None
    except OSError as exc:
        raise TinkerNomicsError(f"{label}: cannot read it ({exc.strerror or exc})") from None


def _read_folder(folder: Path, label: str, run: str | None) -> RunLog:
    metrics = folder / "metrics.jsonl"
    if metrics.is_file():
        config = read_config(folder / "config.json")
        return from_records(jsonl_records(metrics, str(metrics)), str(metrics), label, "tinker-cookbook log folder",
                             config=config, null_is_absent=False)
    parquet = sorted(folder.glob("*.parquet"))
    if parquet:
        return _read_parquet(parquet, label, run)
    raise TinkerNomicsError(f"{label}: the folder has no metrics.jsonl (a tinker-cookbook log folder) and no "
                            f".parquet files (a W&B run-history artifact)")


def _read_file(p: Path, label: str, run: str | None) -> RunLog:
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        return _read_parquet([p], label, run)
    if suffix == ".csv":
        return _read_csv(p, label, run)
    if suffix in (".jsonl", ".ndjson"):
        config = read_config(p.parent / "config.json") if p.name == "metrics.jsonl" else {}
        return _from_lines(p, label, run, config)
    if suffix == ".json":
        return _read_json(p, label, run)
    head = _head(p, label)
    if head.startswith(b"{"):
        return _from_lines(p, label, run, {})
    if head.startswith(b"["):
        return _read_json(p, label, run)
    raise TinkerNomicsError(f"{label}: unknown format (expected a log folder, metrics.jsonl, or a W&B export "
                            f"as .csv, .json, .jsonl or .parquet)")


def _head(p: Path, label: str) -> bytes:
    with open(p, "rb") as fh:
        head = fh.read(4096).lstrip()
    if not head:
        raise TinkerNomicsError(f"{label}: empty file")
    return head


def _from_lines(p: Path, label: str, run: str | None, config: dict) -> RunLog:
    records = jsonl_records(p, label)
    wandb = bool(records) and "step" not in records[0][1] and "_step" in records[0][1]
    if wandb:
        records = pick_run(drop_nulls(records), label, run)
        return from_records(records, label, label, "W&B history (JSON lines)", null_is_absent=True)
    return from_records(records, label, label, "metrics.jsonl", config=config, null_is_absent=False)


def _read_json(p: Path, label: str, run: str | None) -> RunLog:
    try:
        obj = load_json(p, label, lines_ok=True)
    except JsonLines:
        return _from_lines(p, label, run, {})  # JSON lines saved with a .json name
    records = json_table(obj, label)
    if records and "step" in records[0][1] and "_step" not in records[0][1]:
        return from_records(records, label, label, "metrics (JSON array)", null_is_absent=False)
    records = pick_run(drop_nulls(records), label, run)
    return from_records(records, label, label, "W&B history (JSON)", null_is_absent=True)


def _read_csv(p: Path, label: str, run: str | None) -> RunLog:
    with open(p, "rb") as fh:
        data = fh.read()
    if not data.strip():
        raise TinkerNomicsError(f"{label}: empty file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = data[:exc.start].count(b"\n") + 1
        raise TinkerNomicsError(f"{label}: row {row}: not UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
        rows = []
        for cells in reader:
            rows.append((reader.line_num, cells))
    except csv.Error as exc:
        raise TinkerNomicsError(f"{label}: row {reader.line_num}: malformed CSV ({exc})") from None
    header = [h.strip() for h in header]
    if not any(header):
        raise TinkerNomicsError(f"{label}: row 1: no header")
    for line, cells in rows:
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
            raise TinkerNomicsError(f"{label}: row {line}: more cells ({len(cells)}) than header columns "
                                    f"({len(header)})")
    if "Step" in header and any(" - " in h for h in header):
        return _read_chart_csv(header, rows, label, run)
    records = []
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue
        rec = {}
        for name, cell in zip(header, cells):
            if name and cell.strip() != "":
                rec[name] = cell.strip()
        records.append((("row", line), rec))
    if not records:
        raise TinkerNomicsError(f"{label}: no data rows under the header")
    kind = "W&B history (CSV)"
    if "step" in header and "_step" not in header:
        kind = "metrics (CSV)"
    records = pick_run(records, label, run)
    return from_records(records, label, label, kind, null_is_absent=True, text_numbers=True)


def _read_chart_csv(header: list[str], rows, label: str, run: str | None) -> RunLog:
    """W&B chart-panel download: `Step`, `<run> - <metric>`, `<run> - <metric>__MIN`, `__MAX`."""
    columns: dict[str, dict[str, int]] = {}   # run -> metric -> column index
    companions: dict[tuple[str, str], list[int]] = {}
    for i, name in enumerate(header):
        if name == "Step" or " - " not in name:
            continue
        base, suffix = name, ""
        for tail in ("__MIN", "__MAX"):
            if name.endswith(tail):
                base, suffix = name[: -len(tail)], tail
        run_name, _, metric = base.rpartition(" - ")
        if suffix:
            companions.setdefault((run_name, metric), []).append(i)
        else:
            columns.setdefault(run_name, {})[metric] = i
    if not columns:
        raise TinkerNomicsError(f"{label}: row 1: a chart-panel CSV without '<run> - <metric>' value columns")
    names = sorted(columns)
    if run is None:
        if len(names) > 1:
            raise TinkerNomicsError(f"{label}: mixed runs in one export ({', '.join(names)}); pick one with "
                                    f"--run NAME")
        run = names[0]
    elif run not in columns:
        raise TinkerNomicsError(f"{label}: no run named {run!r} in this export; it holds {', '.join(names)}")
    step_col = header.index("Step")
    records, downsampled = [], False
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue
        rec = {}
        if step_col < len(cells) and cells[step_col].strip():
            rec["_step"] = cells[step_col].strip()
        for metric, i in columns[run].items():
            if i < len(cells) and cells[i].strip():
                rec[metric] = cells[i].strip()
                spread = [cells[j].strip() for j in companions.get((run, metric), []) if j < len(cells)]
                if len(set(s for s in spread if s)) > 1:
                    downsampled = True
        records.append((("row", line), rec))
    if not records:
        raise TinkerNomicsError(f"{label}: no data rows under the header")
    notes = []
    if downsampled:
        notes.append("the chart-panel export is downsampled (its __MIN and __MAX differ), so per-step values are "
                     "bucket averages and the sums are approximate; export the run history instead")
    return from_records(records, label, label, "W&B chart-panel CSV", null_is_absent=True, text_numbers=True,
                         run_name=run, extra_notes=notes)


def _read_parquet(paths: list[Path], label: str, run: str | None) -> RunLog:
    frames = []
    for path in paths:
        with open(path, "rb") as fh:
            data = fh.read()
        if not data:
            raise TinkerNomicsError(f"{path}: empty file")
        try:
            frames.append(pd.read_parquet(io.BytesIO(data)))
        except Exception as exc:  # pyarrow raises several types for a corrupt file; all mean the same here
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise TinkerNomicsError(f"{path}: not a readable Parquet file ({reason[:200]})") from None
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    records = []
    for i, row in enumerate(table.to_dict(orient="records"), start=1):
        records.append((("row", i), {str(k): plain(v) for k, v in row.items()}))
    if not records:
        raise TinkerNomicsError(f"{label}: the Parquet history has no rows")
    records = pick_run(drop_nulls(records), label, run)
    return from_records(records, label, label, "W&B history (Parquet)", null_is_absent=True)
