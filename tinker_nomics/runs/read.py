"""Read what a finished RL run left behind into one tidy per-step table (`runlog.RunLog`): which shape a
file is (runs.files reads each shape as a stream of records) and which vocabulary reads its keys
(runs.cookbook for tinker-cookbook's).

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

import os
from dataclasses import replace
from pathlib import Path

from ..errors import TinkerNomicsError
from . import wandb_file
from .cookbook import alias_name, check_count, config_from, from_jsonl, from_records, is_count, read_config
from .compressed import log_suffix
from .files import (BOM, DOWNSAMPLED_NOTE, JsonLines, chart_columns, csv_records, csv_rows, drop_nulls, exists,
                    jsonl_records, open_regular, parquet_records, peek, select_run)
from .runlog import RunLog

ONE_RUN = ("a tinker-cookbook log holds one run; --run NAME picks a run from a W&B export that holds several")


def read_run(path, run: str | None = None) -> RunLog:
    """Read a run's logs (see the module docstring for the accepted shapes) into a `RunLog`.

    `run` picks one run from an export that holds several (a chart-panel CSV, or a W&B table with a
    run-name column); without it, mixed runs are an error, and giving it for a log that names no runs is one
    too. Only regular files are read: a FIFO, device or socket is refused before anything is opened.
    """
    p = Path(path)
    label = str(path)
    try:
        try:
            os.stat(p)   # follows symlinks: a dangling one is "no such file"
        except FileNotFoundError:
            raise TinkerNomicsError(f"{label}: no such file or folder") from None
        if p.is_dir():
            return _read_folder(p, label, run)
        return _read_file(p, label, run)
    except PermissionError:
        raise TinkerNomicsError(f"{label}: cannot read it (permission denied)") from None
    except IsADirectoryError:
        raise TinkerNomicsError(f"{label}: is a folder where a file was expected") from None
    except OSError as exc:
        raise TinkerNomicsError(f"{label}: cannot read it ({exc.strerror or exc})") from None


def _no_run(label: str, run: str | None) -> None:
    if run is not None:
        raise TinkerNomicsError(f"{label}: there is no run to pick with --run {run!r}: {ONE_RUN}")


def _read_folder(folder: Path, label: str, run: str | None) -> RunLog:
    metrics = next((folder / name for name in ("metrics.jsonl", "metrics.jsonl.gz") if exists(folder / name)),
                   folder / "metrics.jsonl")
    if exists(metrics):
        _no_run(label, run)
        config = read_config(folder / "config.json")
        return from_jsonl(metrics, str(metrics), label, "tinker-cookbook log folder", config=config)
    parquet = sorted(folder.glob("*.parquet"))
    if parquet:
        return _read_parquet(parquet, label, run)
    found = wandb_file.run_file(folder)
    if found is not None:   # a W&B run folder: its run-<id>.wandb
        return _read_wandb_file(found, str(found), run)
    sessions = wandb_file.sessions(wandb_file.run_folders(folder))
    if sessions:            # W&B's folder of one resumed run's sessions: read one after the other
        return _read_wandb_file([wandb_file.run_file(s) for s in sessions], label, run)
    raise TinkerNomicsError(f"{label}: the folder has no metrics.jsonl (a tinker-cookbook log folder), no "
                            f".parquet files (a W&B run-history artifact) and no W&B run file (run-<id>.wandb)")


def _read_file(p: Path, label: str, run: str | None) -> RunLog:
    suffix = log_suffix(p)
    if suffix == ".parquet":
        return _read_parquet([p], label, run)
    if suffix == ".csv":
        return _read_csv(p, label, run)
    if suffix in (".jsonl", ".ndjson"):
        config = read_config(p.parent / "config.json") if p.name in ("metrics.jsonl", "metrics.jsonl.gz") else {}
        return _from_lines(p, label, run, config)
    if suffix == ".json":
        return _read_json(p, label, run)
    head = _head(p, label)
    if wandb_file.is_wandb_file(head):
        return _read_wandb_file(p, label, run)
    if head.startswith(b"{"):
        return _from_lines(p, label, run, {})
    if head.startswith(b"["):
        return _read_json(p, label, run)
    raise TinkerNomicsError(f"{label}: unknown format (expected a log folder, metrics.jsonl, or a W&B export "
                            f"as .csv, .json, .jsonl or .parquet)")


def _read_wandb_file(p: Path | list[Path], label: str, run: str | None) -> RunLog:
    """W&B's own run file (runs.wandb_file) of a tinker-cookbook run: its history rows as a W&B export's, its
    config (the cookbook's, as wandb.init took it) as config.json's. A list: the run files of one resumed run's
    sessions, oldest first, their histories one after the other and each later config over the earlier."""
    _no_run(label, run)
    notes: list[str] = []
    files = p if isinstance(p, list) else [p]
    obj: dict = {}
    for file in files:
        obj.update(wandb_file.run_info(file, str(file))[0])
    config = config_from(obj, f"{label} (its W&B config)") if obj else {}
    if len(files) > 1:
        notes.append(f"{len(files)} sessions of one W&B run ({', '.join(f.parent.name for f in files)}), read one "
                     f"after the other")
    rows = (row for file in files for row in wandb_file.history(file, str(file), notes))
    log = from_records(drop_nulls(rows), label, label, "W&B run file (.wandb)",
                       config=config, null_is_absent=True)
    return replace(log, notes=tuple(notes) + log.notes) if notes else log


def _head(p: Path, label: str) -> bytes:
    with open_regular(p, label) as fh:
        head = fh.read(4096).removeprefix(BOM).lstrip()
    if not head:
        raise TinkerNomicsError(f"{label}: empty file")
    return head


def _from_lines(p: Path, label: str, run: str | None, config: dict) -> RunLog:
    head = jsonl_records(p, label)
    first = next(head, None)
    head.close()
    if first is not None and "step" not in first[1] and "_step" in first[1]:   # W&B writes _step, not step
        return from_records(select_run(drop_nulls(jsonl_records(p, label)), label, run), label, label,
                            "W&B history (JSON lines)", null_is_absent=True)
    _no_run(label, run)
    return from_jsonl(p, label, label, "metrics.jsonl", config=config)


def _read_json(p: Path, label: str, run: str | None) -> RunLog:
    from . import stream
    try:
        first, records = peek(stream.json_records(p, label))   # record by record (memory flat)
    except JsonLines:
        return _from_lines(p, label, run, {})  # JSON lines saved with a .json name
    if first is not None and "step" in first[1] and "_step" not in first[1]:
        _no_run(label, run)
        return from_records(records, label, label, "metrics (JSON array)", null_is_absent=False)
    return from_records(select_run(drop_nulls(records), label, run), label, label, "W&B history (JSON)",
                        null_is_absent=True)


def _read_csv(p: Path, label: str, run: str | None) -> RunLog:
    header, rows = csv_rows(p, label)
    if "Step" in header and any(" - " in h for h in header):
        return _read_chart_csv(header, rows, label, run)
    first, records = peek(csv_records(header, rows))
    if first is None:
        raise TinkerNomicsError(f"{label}: no data rows under the header")
    kind = "W&B history (CSV)"
    if "step" in header and "_step" not in header:
        kind = "metrics (CSV)"
    return from_records(select_run(records, label, run, columns=header), label, label, kind, null_is_absent=True,
                        text_numbers=True)


def _read_chart_csv(header: list[str], rows, label: str, run: str | None) -> RunLog:
    """W&B chart-panel download: `Step`, `<run> - <metric>`, `<run> - <metric>__MIN`, `__MAX`."""
    run, metrics, companions = chart_columns(header, label, run)
    step_col = header.index("Step")
    downsampled = [False]

    def records():
        for line, cells in rows:
            rec, exact = {}, []
            if step_col < len(cells) and cells[step_col].strip():
                rec["_step"] = cells[step_col].strip()
            for metric, i in metrics.items():
                if i < len(cells) and cells[i].strip():
                    rec[metric] = cells[i].strip()
                    spread = [cells[j].strip() for j in companions.get(metric, []) if j < len(cells)]
                    if len(set(s for s in spread if s)) > 1:
                        downsampled[0] = True   # a bucket's average: a count may be fractional
                    elif is_count(alias_name(metric)):
                        exact.append(metric)
            for metric in exact:   # a value W&B did not average is the logged count: a whole number
                check_count(label, ("row", line), rec, metric)
            yield ("row", line), rec

    first, stream = peek(records())
    if first is None:
        raise TinkerNomicsError(f"{label}: no data rows under the header")
    log = from_records(stream, label, label, "W&B chart-panel CSV", null_is_absent=True, text_numbers=True,
                       run_name=run, whole_counts=False)
    if downsampled[0]:
        log = replace(log, notes=(DOWNSAMPLED_NOTE,) + log.notes)
    return log


def _read_parquet(paths: list[Path], label: str, run: str | None) -> RunLog:
    import pyarrow.parquet as pq

    try:
        with open_regular(paths[0], str(paths[0])) as fh:
            columns = pq.ParquetFile(fh).schema_arrow.names if os.fstat(fh.fileno()).st_size else None
    except TinkerNomicsError:
        raise
    except Exception:   # parquet_records words the error for a corrupt file
        columns = None
    return from_records(select_run(drop_nulls(parquet_records(paths, label)), label, run, columns=columns), label,
                        label, "W&B history (Parquet)", null_is_absent=True)
