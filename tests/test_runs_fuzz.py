"""Fuzzing the run readers: whatever bytes a reader is given, the only outcomes are a result or one
TinkerNomicsError line. Any other exception (a traceback for the user) fails.

Inputs start from valid logs of every shape (tests/run_shapes.py) and are damaged the ways real files get
damaged: truncated, bytes flipped or inserted, lines shuffled or duplicated, values replaced with wrong
types, huge or negative numbers; plus logs built from random JSON records.
"""
import csv
import io
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import run_shapes as shapes
import test_runs
from fuzz_damage import ODD_VALUES, damage
from tinker_nomics import TinkerNomicsError
from tinker_nomics.runs.read import read_run
from tinker_nomics.runs.validate import validate_run


def _bytes_of(writer, suffix: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = writer(Path(tmp) / f"f{suffix}")
        return path.read_bytes()


SOURCES = {  # name -> (suffix, valid bytes)
    "sync.jsonl": (".jsonl", _bytes_of(lambda p: shapes.write_jsonl(p, shapes.sync_records()), ".jsonl")),
    "async.jsonl": (".jsonl", _bytes_of(lambda p: shapes.write_jsonl(p, shapes.async_records()), ".jsonl")),
    "v061.jsonl": (".jsonl", _bytes_of(lambda p: shapes.write_jsonl(p, shapes.v061_records()), ".jsonl")),
    "history.csv": (".csv", _bytes_of(lambda p: shapes.write_wandb_csv(p, shapes.wandb_rows(shapes.async_records())),
                                      ".csv")),
    "history.json": (".json", _bytes_of(lambda p: shapes.write_wandb_json(p, shapes.wandb_rows(shapes.sync_records())),
                                        ".json")),
    "history-columns.json": (".json", _bytes_of(lambda p: shapes.write_wandb_json(
        p, shapes.wandb_rows(shapes.sync_records()), "columns"), ".json")),
    "history.parquet": (".parquet", _bytes_of(lambda p: shapes.write_parquet(
        p, shapes.wandb_rows(shapes.sync_records())), ".parquet")),
    "chart.csv": (".csv", _bytes_of(lambda p: shapes.write_chart_csv(
        p, {"a": shapes.wandb_rows(shapes.sync_records())}), ".csv")),
    "run.wandb": (".wandb", _bytes_of(lambda p: test_runs._wandb_run_file(p.parent)[0], ".wandb")),
}


def _outcome(data: bytes, suffix: str) -> None:
    """Read (and bill) the bytes; only a result or a TinkerNomicsError is acceptable."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"log{suffix}"
        path.write_bytes(data)
        try:
            run = read_run(path)
        except TinkerNomicsError as exc:
            assert "\n" not in str(exc)
            return
        assert run.n_steps >= 1
        try:
            validate_run(run, model=shapes.MODEL, prices="2026-01-05")
        except TinkerNomicsError as exc:
            assert "\n" not in str(exc)


@st.composite
def damaged(draw):
    name = draw(st.sampled_from(sorted(SOURCES)))
    suffix, data = SOURCES[name]
    return suffix, damage(draw, data, suffix)


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "180")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
def test_damaged_logs_give_a_result_or_one_error_line(case):
    suffix, data = case
    _outcome(data, suffix)


KEYS = ["step", "_step", "env/all/total_ac_tokens", "env/all/total_ob_tokens", "env/all/total_episodes",
        "env/all/turns_per_episode", "env/all/reward/total", "env/all/total_cached_ob_tokens",
        "test/env/all/total_ac_tokens", "test/env/all/total_ob_tokens", "test/test/env/all/total_ac_tokens",
        "test/test/env/all/total_ob_tokens", "time/total", "cost/step_usd", "tokens/trained",
        "tokens/cumulative/sampled", "training_client/step", "run"]
VALUES = st.one_of(st.integers(min_value=-5, max_value=10**6), ODD_VALUES)


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "100")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8), min_size=1, max_size=6),
       st.sampled_from([".jsonl", ".json", ".csv"]))
def test_random_records_give_a_result_or_one_error_line(records, suffix):
    if suffix == ".json":
        data = json.dumps(records).encode()
    elif suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=sorted({k for r in records for k in r}) or ["x"])
        writer.writeheader()
        writer.writerows(records)
        data = buffer.getvalue().encode()
    else:
        data = "".join(json.dumps(r) + "\n" for r in records).encode()
    _outcome(data, suffix)


# ------------------------------------------------------------------------------------ issue 11, defects 4 and 7

@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SOURCES)), st.sampled_from(["regular", "fifo", "device", "dangling", "folder",
                                                          "fifo-in-folder"]), st.sampled_from([None, "a", "x"]))
def test_any_kind_of_file_gives_a_result_or_one_line_without_blocking(name, kind, run):
    """Defect 7: only regular files are read; a FIFO, a device or a dangling link is one line, at once. Defect 4:
    --run on a log that names no runs is an error, never silently ignored."""
    import os
    import threading
    suffix, data = SOURCES[name]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"log{suffix}"
        if kind == "regular":
            path.write_bytes(data)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "device":
            path.symlink_to("/dev/zero")
        elif kind == "dangling":
            path.symlink_to(Path(tmp) / "gone")
        elif kind == "folder":
            path.mkdir()
        else:
            path.mkdir()
            os.mkfifo(path / "metrics.jsonl")
        box = {}

        def read():
            try:
                box["run"] = read_run(path, run=run)
            except TinkerNomicsError as exc:
                box["error"] = str(exc)
        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        thread.join(20)
        assert not thread.is_alive(), (name, kind, "blocked")
        if "error" in box:
            assert "\n" not in box["error"]
            if kind in ("fifo", "device") or (kind == "fifo-in-folder" and run is None):
                assert "only regular files are read" in box["error"]
        else:
            assert kind == "regular" and "run" in box
            if run is not None:   # a pick that matched: the export names runs ("a" in the chart CSV)
                assert box["run"].run_name == run or name == "chart.csv"


@st.composite
def cookbook_lines(draw):
    """metrics.jsonl lines of the cookbook shapes, some values replaced by odd ones: the typed fast path
    (runs.cookbook.TypedLines) and the dict path must agree on every one of them."""
    records = draw(st.sampled_from([shapes.sync_records, shapes.async_records, shapes.v061_records]))()
    records = [dict(r) for r in records] * draw(st.integers(1, 3))
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(records) - 1))
        keys = sorted(records[i])
        key = draw(st.sampled_from(keys + ["new/key", "step"]))
        records[i][key] = draw(st.one_of(ODD_VALUES, st.integers(0, 10**6), st.floats(0, 1e6)))
    return records


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "100")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(cookbook_lines())
def test_typed_fast_path_and_dict_path_give_the_same_table(records):
    import pandas as pd
    from tinker_nomics.runs import cookbook
    from tinker_nomics.runs.files import jsonl_records
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "metrics.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        outcomes = []
        for read in (lambda: cookbook.from_jsonl(path, str(path), str(path), "metrics.jsonl"),
                     lambda: cookbook.from_records(jsonl_records(path, str(path)), str(path), str(path),
                                                   "metrics.jsonl")):
            try:
                outcomes.append(read())
            except TinkerNomicsError as exc:
                outcomes.append(str(exc))
        fast, careful = outcomes
        assert type(fast) is type(careful), (fast, careful)
        if isinstance(fast, str):
            assert fast == careful
        else:
            pd.testing.assert_frame_equal(fast.steps, careful.steps)
            assert fast.keys == careful.keys and fast.notes == careful.notes and fast.mode == careful.mode
            assert fast.logged_totals == careful.logged_totals


# ------------------------------------------------------------------------------------ issue 22: appended or mixed logs

RUN_NAMES = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n"), min_size=1,
                    max_size=12).filter(lambda t: t.strip() == t and t)
TABLES = {".csv": shapes.write_wandb_csv, ".json": shapes.write_wandb_json, ".parquet": shapes.write_parquet}


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([shapes.sync_records, shapes.async_records, shapes.v061_records]),
       st.sampled_from([".jsonl", *TABLES]), st.lists(RUN_NAMES, min_size=2, max_size=2, unique=True),
       st.booleans())
def test_appended_or_mixed_runs_are_never_summed_silently(records, suffix, names, named):
    """Issue 22 item 8 in every Tinker-side reader: two runs in one file (appended, or rows of two runs in a W&B
    table, with or without a run-name column) are refused in one line, picked with --run, or, for a metrics.jsonl
    (which names no run: a resumed run repeats its steps too), billed with a note that steps repeat."""
    first, second = records(), records()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"log{suffix}"
        if suffix == ".jsonl":
            shapes.write_jsonl(path, first + second)
        else:
            rows = [shapes.wandb_rows(first), shapes.wandb_rows(second)]
            if named:
                rows = [[{**r, "name": n} for r in part] for part, n in zip(rows, names)]
            TABLES[suffix](path, rows[0] + rows[1])
        try:
            run = read_run(path)
        except TinkerNomicsError as exc:
            assert "\n" not in str(exc) and ("mixed runs" in str(exc) or "appears" in str(exc)), str(exc)
            if named:
                picked = read_run(path, run=names[1])
                assert picked.n_steps == read_run(shapes.write_jsonl(Path(tmp) / "one.jsonl", second)).n_steps
                try:
                    read_run(path, run=names[0] + names[1])
                except TinkerNomicsError as exc:
                    assert "no run named" in str(exc) and "\n" not in str(exc)
            return
        assert suffix == ".jsonl", "a W&B table of two runs was read as one"
        assert any("more than once" in n for n in run.notes), run.notes


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=3), st.sampled_from([1.0, "x", None]))
def test_any_metric_key_gives_a_result_or_one_error_line(keys, value):
    """Issue 22 item 7: keys with a quote, a backslash or a control character on every line (the typed fast path
    names struct fields after keys); the bill is the one the same log without them gives."""
    records = shapes.sync_records()
    odd = [{**r, **{k: value for k in keys if k not in r}} for r in records]
    with tempfile.TemporaryDirectory() as tmp:
        plain = read_run(shapes.write_jsonl(Path(tmp) / "plain.jsonl", records))
        try:
            run = read_run(shapes.write_jsonl(Path(tmp) / "odd.jsonl", odd))
        except TinkerNomicsError as exc:
            assert "\n" not in str(exc)
            return
        assert run.train["train_completion_tokens"].sum() == plain.train["train_completion_tokens"].sum()
