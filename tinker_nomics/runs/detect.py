"""Which framework wrote a log, and on which side of the ledger the run ran.

`detect(path)` looks at as little as it can (a folder's file names, a file's first bytes, a table's column names,
the keys of the first JSON record) and names the framework: tinker-cookbook (the run ran on Tinker), verl, TRL,
NeMo RL or OpenRLHF (self-hosted), or a `tinker billing usage` export (Tinker's own record of what it billed).
`read_hosted` then reads a self-hosted log with its framework's reader; tinker-cookbook logs are read by runs.read.

Keys that identify a framework (any one is enough): tinker-cookbook `env/all/total_ac_tokens` (or W&B's
`env_all_total_ac_tokens`); verl `timing_s/step`, `perf/total_num_tokens`, `timing_s/gen`, `response_length/mean`;
TRL `num_tokens` or `completions/mean_length` (under `train/` in W&B); NeMo RL `timing/train/total_step_time` with
one of its phases (`timing/train/policy_training`, `generation`); OpenRLHF `timing/make_experience` or
`timing/ppo_train` (under `train/` in W&B and TensorBoard). A usage export has `bucket_start` and an
event type.
"""
from __future__ import annotations

import dataclasses

from dataclasses import dataclass
from pathlib import Path

from ..errors import TinkerNomicsError
from . import easyr1, nemo_rl, openrlhf, skyrl, stream, tensorboard, trl, verl, wandb_file, wandb_metadata
from .compressed import log_suffix, not_compressed_parquet
from .files import BOM, JsonLines, exists
from .hosted import HostedRun

TINKER, SELF_HOSTED, USAGE = "tinker", "self-hosted", "usage export"
COOKBOOK = "tinker-cookbook"
COOKBOOK_KEYS = ("env/all/total_ac_tokens", "env_all_total_ac_tokens")
USAGE_KEYS = ("bucket_start", "event_info")
SIDES = (TINKER, SELF_HOSTED)


@dataclass(frozen=True)
class Detected:
    framework: str        # tinker-cookbook, verl, TRL, tinker billing usage
    side: str             # tinker, self-hosted, or usage export
    shape: str            # console, jsonl, file-logger, table, trainer-state, folder
    reason: str           # what gave it away
    file: Path | None = None   # the log inside a folder to read (a verl console log found in it)


def _by_keys(keys, shape: str, where: str, side: str | None = None) -> Detected:
    """The framework whose keys a table or record carries; keys of both sides need `side` (--ran-on) to choose."""
    keys = set(keys)
    cookbook = any(k in keys for k in COOKBOOK_KEYS) or any(k.endswith("env/all/total_ac_tokens") for k in keys)
    hosted = verl.is_verl_keys(keys) or trl.is_trl_keys(keys) or nemo_rl.is_nemo_rl_keys(keys) \
        or openrlhf.is_openrlhf_keys(keys) or skyrl.is_skyrl_keys(keys)
    if cookbook and hosted and side is None:
        raise TinkerNomicsError(f"{where}: keys of a Tinker run (env/all/…) and of a self-hosted run (verl or TRL) "
                                f"in one log; say which with --ran-on tinker or --ran-on self-hosted")
    if cookbook and (side != SELF_HOSTED or not hosted):
        return Detected(COOKBOOK, TINKER, shape, f"{where} has tinker-cookbook's env/all/total_ac_tokens")
    if easyr1.is_easyr1_keys(keys):
        return Detected(easyr1.FRAMEWORK, SELF_HOSTED, shape, f"{where} has EasyR1's timing_s/old and perf/mfu_actor "
                                                              f"beside verl's keys")
    if verl.is_verl_keys(keys):
        return Detected(verl.FRAMEWORK, SELF_HOSTED, shape, f"{where} has verl's timing_s/ and perf/ keys")
    if nemo_rl.is_nemo_rl_keys(keys):
        return Detected(nemo_rl.FRAMEWORK, SELF_HOSTED, shape, f"{where} has NeMo RL's timing/train/ keys")
    if skyrl.is_skyrl_keys(keys):
        return Detected(skyrl.FRAMEWORK, SELF_HOSTED, shape, f"{where} has SkyRL's timing/step and "
                                                             f"timing/fwd_logprobs_values_reward keys")
    if openrlhf.is_openrlhf_keys(keys):
        return Detected(openrlhf.FRAMEWORK, SELF_HOSTED, shape, f"{where} has OpenRLHF's timing/make_experience or "
                                                                f"timing/ppo_train keys")
    if trl.is_trl_keys(keys):
        return Detected(trl.FRAMEWORK, SELF_HOSTED, shape, f"{where} has TRL's num_tokens / completions keys")
    if "bucket_start" in keys and ("type" in keys or "event_info" in keys):
        return Detected("tinker billing usage", USAGE, shape, f"{where} has the usage export's bucket_start and type")
    raise TinkerNomicsError(f"{where}: no keys of a known log (tinker-cookbook env/all/…, verl timing_s/…, TRL "
                            f"num_tokens/completions/…, NeMo RL timing/train/…, OpenRLHF train/timing/…)")


def _table_keys(path: Path, label: str) -> set[str]:
    """Column names of a W&B table export (a chart panel's metric names), without reading its rows."""
    suffix = log_suffix(path)
    if suffix == ".parquet":
        import pyarrow.parquet as pq
        with stream.open_read(path, label) as fh:
            not_compressed_parquet(fh, label)
            try:
                return set(pq.ParquetFile(fh).schema_arrow.names)
            except Exception as exc:  # pyarrow raises several types for a corrupt file
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise TinkerNomicsError(f"{label}: not a readable Parquet file ({reason[:200]})") from None
    import csv
    import io
    data = stream.utf8_text(stream.head(path, label, 1 << 20), label)
    if not data.strip():
        raise TinkerNomicsError(f"{label}: empty file")
    text = data.decode("utf-8-sig", errors="replace")
    try:
        header = next(csv.reader(io.StringIO(text)))
    except (csv.Error, StopIteration):
        raise TinkerNomicsError(f"{label}: row 1: not a CSV header") from None
    names = {h.strip() for h in header}
    names |= {h.rsplit(" - ", 1)[-1].removesuffix("__MIN").removesuffix("__MAX") for h in names if " - " in h}
    return names


SNIFF_RECORDS_ARRAY = 200   # records of a JSON list looked at for its keys (as many as a whole-file read looked at)
SNIFF_RECORDS = 50   # records looked at to recognise a JSON-lines log (the first may be a validation-only one)


def _first_records(path: Path, label: str) -> list[dict]:
    out = []
    for _, rec in stream.json_lines(path, label, cut_off={}):   # the reader says whether the last line was cut
        out.append(rec)
        if len(out) >= SNIFF_RECORDS:
            break
    return out


def _object_kind(p: Path, label: str) -> "Detected | set[str]":
    """What a JSON object says it is, read a member at a time (memory flat): a trainer_state.json (log_history), a
    tinker billing usage export (data records with event_info), or else the keys a history table's layout names
    (its `columns` list, or its members)."""
    members = stream.json_members(p, label)
    keys: set[str] = set()
    columns = None
    for key, value in members:
        keys.add(key)
        if isinstance(value, stream.Streamed) and value.kind == "list" and key in ("log_history", "data", "columns"):
            if key == "log_history":
                members.close()
                return Detected(trl.FRAMEWORK, SELF_HOSTED, "trainer-state", "a trainer_state.json (log_history)")
            if key == "columns":
                columns = [item for _, item in value]
                continue
            first = next(iter(value), (0, None))[1]
            if isinstance(first, dict) and "event_info" in first:
                members.close()
                return Detected("tinker billing usage", USAGE, "json", "a tinker billing usage JSON export")
    return keys if columns is None else {str(c) for c in columns}


def _lines_kind(path: Path, label: str, side: str | None) -> Detected:
    records = _first_records(path, label)
    if all("step" in r and isinstance(r.get("data"), dict) for r in records):   # verl's FileLogger records
        keys = set().union(*(r["data"] for r in records))
        if verl.is_verl_keys(keys):
            return Detected(verl.FRAMEWORK, SELF_HOSTED, "file-logger", f"{label} has verl's file-logger records")
    if records and all("step" in r for r in records) and any(isinstance(v, dict) for r in records for v in r.values()):
        keys = set().union(*(easyr1.flattened(r, rename=False) for r in records))   # EasyR1's file logger nests
        if easyr1.is_easyr1_keys(keys):
            return Detected(easyr1.FRAMEWORK, SELF_HOSTED, "file-logger", f"{label} has EasyR1's file-logger records")
    return _by_keys(set().union(*records), "jsonl", label, side)


COOKBOOK_FILES = ("metrics.jsonl", "metrics.jsonl.gz")
# The tags read from a TensorBoard event file, by prefix: every framework's metrics (verl, NeMo RL, TRL's `train/`,
# SkyRL's `timing/`, `generate/` and `reward/`).
TENSORBOARD_PREFIXES = ("timing_s/", "perf/", "response_length/", "prompt_length/", "critic/", "val-core/",
                        "timing/", "train/", "performance/", "validation/", "generate/", "reward/")


def _without_scalars(path: Path) -> str | None:
    """What an event file with no scalar at all holds ("is empty", "holds only its header record"); None when it
    has scalars."""
    if tensorboard.keys(path, str(path), ("",), limit=1):
        return None
    return "is empty" if path.stat().st_size == 0 else "holds no scalar value"


def _tensorboard_kind(path: Path, label: str, side: str | None) -> Detected:
    nothing = _without_scalars(path)
    if nothing:
        raise TinkerNomicsError(f"{label}: the TensorBoard event file {nothing}: a run that has not logged a step "
                                f"yet? Nothing to read")
    found = _by_keys(tensorboard.keys(path, label, TENSORBOARD_PREFIXES), "tensorboard", label, side)
    if found.side != SELF_HOSTED:
        raise TinkerNomicsError(f"{label}: a TensorBoard log of a {found.framework} run; validate reads its "
                                f"metrics.jsonl (or a W&B export)")
    return Detected(found.framework, found.side, "tensorboard", found.reason + " (TensorBoard events)", path)
MAX_FOLDER_FILES = 200   # files of a folder looked at for a console log; a folder of more is not a run's


CONSOLE_SUFFIXES = ("", ".log", ".txt", ".out", ".err")   # files of a folder read through for a console's lines


def _wandb_file_kind(path: Path, label: str, side: str | None) -> Detected:
    """The framework of a W&B run file, by the names its history logs."""
    return _by_keys(wandb_file.keys(path, label), "wandb-file", f"{label} (a W&B run file)", side)


def console_logs(folder: Path) -> list[tuple[Path, str]]:
    """The regular files directly in `folder` that are a verl, NeMo RL, OpenRLHF or SkyRL console log, each with
    its framework: a verl step line (or config dump) in the first bytes, or, in a file named like a log, a step line of
    any of them further in (NeMo RL prints its first step header after the set-up's long output)."""
    found = []
    for i, entry in enumerate(sorted(folder.iterdir())):
        if i >= MAX_FOLDER_FILES:
            break
        if entry.name.startswith(".") or not entry.is_file():
            continue
        try:
            framework = _console_framework(entry)
        except TinkerNomicsError:
            continue   # unreadable or not regular: not the log
        if framework:
            found.append((entry, framework))
    return found


def _console_framework(path: Path) -> str | None:
    label = str(path)
    if verl.looks_like_console(stream.head(path, label).decode("utf-8", errors="replace")):
        return verl.FRAMEWORK
    if path.suffix.lower() not in CONSOLE_SUFFIXES:
        return None
    before = None
    for _, line in stream.text_lines(path, label):
        text = verl.strip_line(line)[0].rstrip()
        if verl.STEP_LINE.match(text):
            return verl.FRAMEWORK
        if easyr1.looks_like_console(text, before):
            return easyr1.FRAMEWORK
        before = text
        if nemo_rl.looks_like_console(line):
            return nemo_rl.FRAMEWORK
        if openrlhf.looks_like_console(line):
            return openrlhf.FRAMEWORK
        if skyrl.looks_like_console(line):
            return skyrl.FRAMEWORK
    return None


def detect(path, side: str | None = None) -> Detected:
    """What wrote the log at `path`; `side` (tinker or self-hosted) settles a log whose keys fit both."""
    p = Path(path)
    label = str(path)
    if p.is_dir():
        if any(exists(p / name) for name in COOKBOOK_FILES):   # a FIFO named so is found, then refused
            return Detected(COOKBOOK, TINKER, "folder", "the folder has metrics.jsonl")
        if trl.state_file(p) is not None:
            return Detected(trl.FRAMEWORK, SELF_HOSTED, "trainer-state", "the folder has trainer_state.json")
        parquet = sorted(p.glob("*.parquet"))
        if parquet:
            return _by_keys(_table_keys(parquet[0], str(parquet[0])), "table", str(parquet[0]), side)
        events = tensorboard.event_files(p)
        # add_hparams writes an event file of its own, with no metric, below the run's: only files of metrics count
        scalars = [e for e in events if tensorboard.keys(e, str(e), TENSORBOARD_PREFIXES, limit=2)]
        if len(scalars) == 1:
            return _tensorboard_kind(scalars[0], str(scalars[0]), side)
        if scalars and len({e.parent for e in scalars}) == 1:
            # files of one log folder: a run resumed into a new event file, read one after the other
            found = _tensorboard_kind(scalars[0], str(scalars[0]), side)
            return Detected(found.framework, found.side, found.shape,
                            f"{len(scalars)} event files of one run folder ({found.reason})", scalars[0].parent)
        if scalars:
            events = scalars
        elif events and len({e.parent for e in events}) == 1:   # one run's folder, no metric in it
            first = next((e for e in events if not _without_scalars(e)), events[0])
            return _tensorboard_kind(first, str(first), side)
        if events:
            shown = ", ".join(str(e.relative_to(p)) for e in events[:4])
            raise TinkerNomicsError(f"{label}: the folder holds {len(events)} TensorBoard event files in different "
                                    f"folders, each a run's ({shown}{', …' if len(events) > 4 else ''}); pass the "
                                    f"folder or file of one run")
        if (p / easyr1.LOG_FILE).is_file():   # EasyR1's checkpoint folder: its file logger's log
            return Detected(easyr1.FRAMEWORK, SELF_HOSTED, "file-logger", f"the folder has EasyR1's "
                            f"{easyr1.LOG_FILE}", p / easyr1.LOG_FILE)
        run_file = wandb_file.run_file(p)
        if run_file is not None:   # a W&B run folder (wandb/run-<date>-<id>/): its run-<id>.wandb
            found = _wandb_file_kind(run_file, str(run_file), side)
            return Detected(found.framework, found.side, found.shape, f"{run_file.name} in the folder "
                            f"({found.reason})", run_file)
        consoles = console_logs(p)
        if len(consoles) == 1:
            (log, framework), = consoles
            lines = {verl.FRAMEWORK: "step lines", nemo_rl.FRAMEWORK: "step headers and Timing blocks"}.get(
                framework, "Global step status lines")
            return Detected(framework, SELF_HOSTED, "console", f"{log.name} in the folder has {framework} {lines}",
                            log)
        if consoles:
            raise TinkerNomicsError(f"{label}: the folder holds {len(consoles)} console logs "
                                    f"({', '.join(c.name for c, _ in consoles[:6])}); pass the one to read")
        runs = wandb_file.run_folders(p)
        resumed = wandb_file.sessions(runs)
        if resumed:   # every folder a session of one run (resumed): read one after the other
            first = wandb_file.run_file(resumed[0])
            found = _wandb_file_kind(first, str(first), side)
            return Detected(found.framework, found.side, found.shape,
                            f"{len(resumed)} W&B run folders of one run id (a run resumed in a new folder each "
                            f"session; {found.reason})", p)
        if runs:   # W&B's wandb/ folder: a folder per run
            shown = ", ".join(r.name for r in runs[:4]) + (", …" if len(runs) > 4 else "")
            latest = " (latest-run is the newest)" if (p / "latest-run").is_dir() else ""
            raise TinkerNomicsError(f"{label}: W&B's folder of {len(runs)} runs ({shown}); pass one run's "
                                    f"folder{latest}")
        raise TinkerNomicsError(f"{label}: the folder has no metrics.jsonl (tinker-cookbook), trainer_state.json "
                                f"(TRL), .parquet files (a W&B run-history artifact), W&B run file "
                                f"(run-<id>.wandb), TensorBoard event file or verl, NeMo RL, OpenRLHF or SkyRL "
                                f"console log")
    stream.check_regular(p, label)
    if tensorboard.is_event_file(p):
        return _tensorboard_kind(p, label, side)
    if wandb_file.is_wandb_file(stream.head(p, label)):
        return _wandb_file_kind(p, label, side)
    suffix = log_suffix(p)
    if suffix in (".parquet", ".csv"):
        return _by_keys(_table_keys(p, label), "table", label, side)
    head = stream.utf8_text(stream.head(p, label), label).removeprefix(BOM)
    if not head.strip():
        raise TinkerNomicsError(f"{label}: empty file")
    start = head.lstrip()[:1]
    if head.lstrip().startswith(b"{'") and suffix not in (".json", ".jsonl", ".ndjson"):
        start = b""   # a Python dict, not JSON: verl's config dump at the top of a console log without Ray prefixes
    if suffix in (".jsonl", ".ndjson") or (suffix != ".json" and start == b"{" and b"\n{" in head):
        return _lines_kind(p, label, side)
    if suffix == ".json" or start in (b"{", b"["):
        if stream.opens_an_array(p, label):   # a list of records: its first ones say what wrote it (memory flat)
            keys: set[str] = set()
            records = stream.json_array(p, label)
            for (_, number), item in records:
                keys.update(item)
                if number >= SNIFF_RECORDS_ARRAY:
                    break
            records.close()
            return _by_keys(keys, "table", label, side)
        try:
            found = _object_kind(p, label)
        except JsonLines:
            return _lines_kind(p, label, side)
        return found if isinstance(found, Detected) else _by_keys(found, "table", label, side)
    text = head.decode("utf-8", errors="replace")
    if verl.looks_like_console(text):
        return Detected(verl.FRAMEWORK, SELF_HOSTED, "console", "verl step lines (step:N - key:value)")
    # a long console log may print its first step line far into the file (after the model's loading): scan line
    # by line for a verl step line or NeMo RL's step header or step time
    trl_console = False
    before = None
    for _, line in stream.text_lines(p, label):
        trl_console = trl_console or trl.looks_like_console(line)
        text = verl.strip_line(line)[0].rstrip()
        if verl.STEP_LINE.match(text):
            return Detected(verl.FRAMEWORK, SELF_HOSTED, "console", "verl step lines (step:N - key:value)")
        if easyr1.looks_like_console(text, before):
            return Detected(easyr1.FRAMEWORK, SELF_HOSTED, "console", "EasyR1's `Step N` headers and their metrics")
        before = text
        if nemo_rl.looks_like_console(line):
            return Detected(nemo_rl.FRAMEWORK, SELF_HOSTED, "console", "NeMo RL's step header and Timing block")
        if openrlhf.looks_like_console(line):
            return Detected(openrlhf.FRAMEWORK, SELF_HOSTED, "console",
                            "OpenRLHF's `Global step N: {…}` status lines")
        if skyrl.looks_like_console(line):
            return Detected(skyrl.FRAMEWORK, SELF_HOSTED, "console",
                            "SkyRL's console tracker (`skyrl_train.utils.tracking:log - Step N:` and its metrics)")
    if trl_console:
        raise TinkerNomicsError(f"{label}: TRL's console output ({{'loss': …, 'epoch': …}} lines) is not read: it has no "
                                f"step numbers and prints each number to 4 significant digits, so the token counts "
                                f"cannot be recovered; pass the run's trainer_state.json (in its output_dir or newest "
                                f"checkpoint-N/ folder) or its W&B export")
    raise TinkerNomicsError(f"{label}: unknown format (expected a tinker-cookbook log folder or metrics.jsonl, a verl, "
                            f"EasyR1, NeMo RL, OpenRLHF or SkyRL console log, a verl or EasyR1 file-logger .jsonl, a TRL "
                            f"trainer_state.json, a TensorBoard event file, "
                            f"or a W&B export (verl, TRL, NeMo RL, OpenRLHF, SkyRL) as .csv, .json, .jsonl or "
                            f".parquet)")


def read_hosted(path, detected: Detected | None = None, run: str | None = None,
                facts: dict | None = None) -> HostedRun:
    """A self-hosted run's logs read with its framework's reader (`facts` override the log's config: samples
    per step, group size, GPU count), with the GPU type of W&B's metadata file beside the log where the log has
    none (runs.wandb_metadata)."""
    p = Path(path)
    label = str(path)
    found = detected or detect(p)
    if found.side != SELF_HOSTED:
        raise TinkerNomicsError(f"{label}: a {found.framework} log, not a self-hosted run's")
    if found.file is not None:
        p = found.file
    hosted = _read_hosted(p, label, found, run, facts)
    if Path(path).is_dir() and found.shape == "console":   # the folder's other logs are not read: say which
        others = sorted(f.name for f in Path(path).iterdir() if f != found.file and f.is_file()
                        and log_suffix(f) in OTHER_LOG_SUFFIXES)
        if others:
            shown = ", ".join(others[:4]) + (", …" if len(others) > 4 else "")
            hosted = dataclasses.replace(hosted, notes=(*hosted.notes, f"read {found.file.name}, the folder's "
                                         f"console log; also in the folder, not read: {shown} (pass a file to read "
                                         f"it instead)"))
    return wandb_metadata.with_gpu(hosted, p if p.is_dir() else p.parent)


# files beside a console log that may hold the same run's metrics (a file logger's lines, a W&B export)
OTHER_LOG_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".parquet")   # not .json: configs are


def _read_hosted(p: Path, label: str, found: Detected, run: str | None, facts: dict | None) -> HostedRun:
    if found.shape == "tensorboard":
        _no_run(run, label, "a TensorBoard event file")
        return _read_tensorboard(p, label, found.framework, facts)
    if found.shape == "wandb-file":
        _no_run(run, label, "a W&B run file")
        return _read_wandb_file(p, label, found.framework, facts)
    if found.framework == verl.FRAMEWORK:
        if found.shape == "console":
            _no_run(run, label, "a console log")
            return verl.read_console(p, label, facts)
        if found.shape == "file-logger":
            _no_run(run, label, "a file-logger JSON lines file")
            return verl.read_records(stream.GrowingJsonLines(p, label), label, "verl file logger (JSON lines)", False,
                                     facts)
        return verl.read_records(_table(p, label, run), label, None, True, facts)
    if found.framework == easyr1.FRAMEWORK:
        if found.shape == "console":
            _no_run(run, label, "a console log")
            return easyr1.read_console(p, label, facts)
        if found.shape == "file-logger":
            _no_run(run, label, "a file-logger JSON lines file")
            return easyr1.read_file_logger(p, label, facts)
        return easyr1.read_records(_table(p, label, run), label, None, True, facts)
    if found.framework == nemo_rl.FRAMEWORK:
        if found.shape == "console":
            _no_run(run, label, "a console log")
            return nemo_rl.read_console(p, label, facts)
        return nemo_rl.read_records(_table(p, label, run), label, None, facts)
    if found.framework == skyrl.FRAMEWORK:
        if found.shape == "console":
            _no_run(run, label, "a console log")
            return skyrl.read_console(p, label, facts)
        return skyrl.read_records(_table(p, label, run), label, None, facts)
    if found.framework == openrlhf.FRAMEWORK:
        if found.shape == "console":
            _no_run(run, label, "a console log")
            return openrlhf.read_console(p, label, facts)
        return openrlhf.read_records(_table(p, label, run), label, None, facts)
    if found.shape == "trainer-state":
        _no_run(run, label, "a trainer_state.json")
        return trl.read_state(p, label, facts)
    return trl.read_records(_table(p, label, run), label, None, facts)


def _read_tensorboard(p: Path, label: str, framework: str, facts: dict | None) -> HostedRun:
    """An event file (or the event files of one run folder, a run resumed into a new file: read one after the
    other, in the order of their first step) read with its framework's reader: its scalars per step, as a W&B
    export's rows are."""
    notes: list[str] = []
    kind = f"{framework} TensorBoard events"
    folder = p if p.is_dir() else p.parent
    files = [p] if not p.is_dir() else sorted(
        (e for e in folder.iterdir() if tensorboard.is_event_file(e) and e.is_file()
         and tensorboard.keys(e, str(e), TENSORBOARD_PREFIXES, limit=1)),
        key=lambda e: (_first_step(e), e.name))
    if len(files) > 1:
        notes.append(f"{len(files)} event files in {folder.name}/, read one after the other (a run resumed into a "
                     f"new file); a step logged in two of them counts twice, as it ran twice")
    return tensorboard.read_steps(lambda rows, notes: _read_tensorboard_rows(rows, notes, label, kind, framework, facts,
                                                                             folder, files),
                                  files, TENSORBOARD_PREFIXES, notes)


def _read_tensorboard_rows(rows, notes: list, label: str, kind: str, framework: str, facts: dict | None,
                           folder: Path, files: list[Path]) -> HostedRun:
    if framework == verl.FRAMEWORK:
        return verl.read_records(rows, label, kind, False, facts, notes)
    if framework == easyr1.FRAMEWORK:
        return easyr1.read_records(rows, label, kind, False, facts, notes)
    if framework == nemo_rl.FRAMEWORK:
        found = {}
        for other in tensorboard.event_files(folder):   # the run's add_hparams file, in a folder below it
            if all(other.resolve() != f.resolve() for f in files):
                found.update(tensorboard.hparams(other, str(other)))
        return nemo_rl.read_records(rows, label, kind, facts, notes, config=nemo_rl.config_facts(found))
    if framework == skyrl.FRAMEWORK:      # its tensorboard tracker logs at the global step, as W&B's _step
        return skyrl.read_records(rows, label, kind, facts, notes)
    if framework == openrlhf.FRAMEWORK:   # its TensorboardLogger logs at the global step, which W&B has as a column
        return openrlhf.read_records(((where, {**rec, "train/global_step": rec["_step"]}) for where, rec in rows),
                                     label, kind, facts, notes)
    # transformers' TensorBoard callback logs at step = global_step, which a W&B export carries as a column
    return trl.read_records(((where, {**rec, "train/global_step": rec["_step"]}) for where, rec in rows), label, kind,
                            facts, notes)


def _read_wandb_file(p: Path, label: str, framework: str, facts: dict | None) -> HostedRun:
    """A W&B run file read with its framework's reader: its history records as a W&B export's rows, its config as
    the framework's config (verl's, NeMo RL's master config, OpenRLHF's launch arguments, TRL's model and group
    size), its GPUs from the environment record."""
    notes: list[str] = []
    if p.is_dir():   # W&B's folder of one run's sessions (detect): their histories one after the other
        config, devices, rows = _sessions(wandb_file.sessions(wandb_file.run_folders(p)) or [], notes)
    else:
        config, devices = wandb_file.run_info(p, label)
        rows = wandb_file.history(p, label, notes)
    kind = f"{framework} W&B run file (.wandb)"
    if framework == verl.FRAMEWORK:
        hosted = verl.read_records(rows, label, kind, False, facts, notes, config=config)
    elif framework == easyr1.FRAMEWORK:
        hosted = easyr1.read_records(rows, label, kind, False, facts, notes, config=config)
    elif framework == nemo_rl.FRAMEWORK:
        hosted = nemo_rl.read_records(rows, label, kind, facts, notes,
                                      config=nemo_rl.config_facts(nemo_rl.flattened(config)) if config else None)
    elif framework == openrlhf.FRAMEWORK:
        hosted = openrlhf.read_records(rows, label, kind, facts, notes, config=config)
    elif framework == skyrl.FRAMEWORK:
        hosted = skyrl.read_records(rows, label, kind, facts, notes, config=config)
    else:
        hosted = trl.read_records(rows, label, kind, facts, notes, config=config)
    if devices:
        hosted = wandb_metadata.with_devices(hosted, devices, "the W&B run file's environment record")
    return hosted


def _sessions(folders: list[Path], notes: list) -> tuple[dict, dict, object]:
    """The sessions of one resumed run (wandb_file.sessions), oldest first: the config each later session updates
    over the earlier ones, the GPUs of the last that records them, and every session's history in turn (each record's
    place named by its session's folder). A step a session logs again counts again: it ran again."""
    config, devices = {}, {}
    files = [wandb_file.run_file(folder) for folder in folders]
    for folder, file in zip(folders, files):
        more, gpus = wandb_file.run_info(file, str(file))
        config.update(more)
        devices = gpus or devices
    notes.append(f"{len(folders)} sessions of one W&B run ({', '.join(f.name for f in folders)}), read one after "
                 f"the other")

    def rows():
        for folder, file in zip(folders, files):
            for (unit, number), row in wandb_file.history(file, str(file), notes):
                yield (f"{folder.name}: {unit}", number), row
    return config, devices, rows()


def _first_step(path: Path) -> int:
    """The first step an event file logs a metric at."""
    return next((rec["_step"] for _, rec in tensorboard.records(path, str(path), TENSORBOARD_PREFIXES, [])), 0)


def _table(p: Path, label: str, run: str | None) -> stream.Table:
    if p.is_dir():
        parquet = sorted(p.glob("*.parquet"))
        if len(parquet) > 1:
            raise TinkerNomicsError(f"{label}: {len(parquet)} .parquet files; pass one of them")
        p = parquet[0]
    return stream.Table(p, label, run)


def _no_run(run: str | None, label: str, what: str) -> None:
    if run is not None:
        raise TinkerNomicsError(f"{label}: --run picks a run from a W&B export that holds several; {what} holds one")
