"""Hostile logs met by the readers (the third QA sweep, /work/notes/s8/cli_qa3.md): TensorBoard records whose length
runs past the file, late tags, empty event files; duplicate columns and keys in W&B exports and JSON lines; a resumed
NeMo RL console. Each input is a real run of tests/hosted_shapes.py, tests/run_shapes.py or tests/test_nemo_rl.py
with one hostile change."""
from __future__ import annotations

import gzip
import struct

import pandas as pd
import pytest

import test_nemo_rl as nemo
import test_tensorboard as tbt
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.runs import detect, tensorboard

ARGS = ("--gpu", "H100 SXM", "--model", "Qwen3-8B", "--num-gpus", 8)


def frame(data: bytes, length: int | None = None) -> bytes:
    """One TFRecord frame (tensorboard's layout) around `data`, its length field `length` when given."""
    head = struct.pack("<Q", len(data) if length is None else length)
    return head + struct.pack("<I", tensorboard.masked_crc(head)) + data + struct.pack("<I", tensorboard.masked_crc(data))


# -- 1: a record length past the end of the file

@pytest.mark.parametrize("length", [2 ** 64 - 1, 2 ** 63, 2 ** 40, (1 << 26) + 100])
@pytest.mark.parametrize("compressed", [False, True])
def test_a_record_whose_length_runs_past_the_file_is_a_cut_record(tmp_path, length, compressed):
    """A 12-byte header whose length passes its checksum but runs past the end of the file (a hostile file, or a
    run stopped while writing a large image record) ends the file as a cut record, read up to it: no crash, and
    no record 'skipped (not a scalar)' that is not there."""
    data = tbt.event_file("verl").read_bytes() + frame(b"", length)[:12] + b"x" * 1000
    path = tmp_path / "run" / "events.out.tfevents.1.host"
    path.parent.mkdir()
    path.write_bytes(gzip.compress(data) if compressed else data)
    for target in (path, path.parent):
        hosted = detect.read_hosted(target)
        assert list(hosted.steps["step"]) == [1, 2, 3, 4]
        assert any("cut record" in n for n in hosted.notes) and not any("skipped" in n for n in hosted.notes)
    code, out, err = tbt.run("validate", path.parent, *ARGS)
    assert code == 0, err
    assert "ends in a cut record" in out


def test_a_large_record_held_whole_is_still_skipped(tmp_path):
    """A large record that is all there (an image) is skipped with its note, and the records after it read."""
    whole = tbt.event_file("verl").read_bytes()
    first = 16 + int.from_bytes(whole[:8], "little")     # the file_version header record
    path = tmp_path / "events.out.tfevents.1.host"
    image = frame(b"", (1 << 26) + 100)[:12] + bytes((1 << 26) + 104)   # its data's checksum is not read
    path.write_bytes(whole[:first] + image + whole[first:])
    hosted = detect.read_hosted(path)
    assert list(hosted.steps["step"]) == [1, 2, 3, 4]
    assert any("skipped (not a scalar)" in n for n in hosted.notes)


# -- 11: an empty or header-only event file in a folder

@pytest.mark.parametrize("holds", ["nothing", "header"])
def test_an_event_file_with_no_scalar_says_so_read_by_its_folder_or_itself(tmp_path, holds):
    whole = tbt.event_file("verl").read_bytes()
    path = tmp_path / "run" / "events.out.tfevents.1.host"
    path.parent.mkdir()
    path.write_bytes(b"" if holds == "nothing" else whole[:16 + int.from_bytes(whole[:8], "little")])
    for target in (path.parent, path):
        code, out, err = tbt.run("validate", target, *ARGS)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert str(path) in err and "different folders" not in err
        assert ("is empty" if holds == "nothing" else "holds no scalar") in err


# -- 8: tags that arrive late, a resumed console

def frames(data: bytes) -> list[bytes]:
    """The TFRecord frames of an event file, whole."""
    out, i = [], 0
    while i < len(data):
        end = i + 16 + int.from_bytes(data[i:i + 8], "little")
        out.append(data[i:end])
        i = end
    return out


def tags_of(frame_: bytes) -> tuple[int, set[str]]:
    step, values = tensorboard._scalars(frame_[12:-4], lambda tag: True)
    return step, {tag for tag, _ in values}


def test_tags_written_after_later_steps_are_read_with_their_own_step(tmp_path):
    """The verl run with step 1's step time written after step 4's records (more than the two steps the reader
    waits for): the same table as the run itself, with a note; not a fifth step that loses the Tinker price."""
    original = tbt.event_file("verl")
    parts = frames(original.read_bytes())
    late = next(i for i, f in enumerate(parts) if tags_of(f) == (1, {"timing_s/step"}))
    moved = tmp_path / "run" / "events.out.tfevents.1.host"
    moved.parent.mkdir()
    moved.write_bytes(b"".join(parts[:late] + parts[late + 1:] + [parts[late]]))
    hosted, expected = detect.read_hosted(moved.parent), detect.read_hosted(original)
    tbt.same_steps(hosted.steps, expected.steps)
    assert any("written after later steps" in n for n in hosted.notes)
    code, out, err = tbt.run("validate", moved.parent, *ARGS)
    assert code == 0, err
    assert "not priced" not in out and "more than once" not in out


def test_a_step_logged_again_with_the_same_tags_is_still_a_repeated_step(tmp_path):
    """Step 1's whole record written again after step 4: a repeat (both count, with the caveat), as before."""
    parts = frames(tbt.event_file("verl").read_bytes())
    step1 = [f for f in parts if tags_of(f)[0] == 1]
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(b"".join(parts + step1))
    hosted = detect.read_hosted(path)
    assert list(hosted.steps["step"]).count(1) == 2
    assert not any("written after later steps" in n for n in hosted.notes)


@pytest.mark.parametrize("epochs", [False, True])
def test_a_resumed_nemo_rl_console_repeats_its_step_with_the_caveat(tmp_path, epochs):
    """The run of tests/test_nemo_rl.py stopped after step 2 and resumed from the checkpoint of step 1: the new
    process prints `Step 2/n` again (after its epoch's header again, when the run has epochs). That is step 2
    repeated, with the repeated-step caveat the other readers give, not a step 5 that never ran."""
    rows = nemo.nemo_rows()
    first = nemo.nemo_console(rows[:3], epochs=epochs)
    resumed = nemo.nemo_console([rows[0]] + rows[2:], epochs=epochs).splitlines(keepends=True)[9:]  # no set-up
    again = [f"{'=' * 25} Epoch 1/2 {'=' * 25}\n"] if epochs else []
    log = tmp_path / "nemo_stdout.log"
    log.write_text(first + "".join(again + resumed))
    hosted = detect.read_hosted(log)
    assert list(hosted.steps["step"]) == [1, 2, 2, 3, 4]
    assert any("logged more than once (first: step 2)" in n for n in hosted.notes)


# -- 6: a wide Parquet export, read a few rows at a time

def test_a_wide_parquet_export_read_a_row_at_a_time_gives_its_csvs_run(tmp_path, monkeypatch):
    """A W&B history with a column per layer is turned into Python values a batch of at most PARQUET_BATCH_CELLS
    cells at a time (memory flat in its width × rows; measured, not asserted here). Batches of one row, crossing
    row groups, give the same run as the CSV export, on both sides."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import hosted_shapes as hs
    import run_shapes
    from tinker_nomics.runs import files, read

    def wide(rows):
        table = pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False)   # as run_shapes.write_parquet
        for i in range(40):
            table = table.append_column(f"actor/layer{i}/grad_norm", pa.array([float(i)] * len(rows)))
        return table

    monkeypatch.setattr(files, "PARQUET_BATCH_CELLS", 10)   # one row per batch
    verl_rows = hs.verl_wandb_rows()
    pq.write_table(wide(verl_rows), tmp_path / "verl.parquet", row_group_size=2)
    tbt.same_steps(detect.read_hosted(tmp_path / "verl.parquet").steps,
                   detect.read_hosted(hs.write_table(tmp_path / "verl.csv", verl_rows)).steps)
    cookbook_rows = run_shapes.wandb_rows(run_shapes.sync_records())
    pq.write_table(wide(cookbook_rows), tmp_path / "cookbook.parquet", row_group_size=2)
    from_parquet = read.read_run(tmp_path / "cookbook.parquet").steps
    from_csv = read.read_run(run_shapes.write_wandb_csv(tmp_path / "cookbook.csv", cookbook_rows)).steps
    lines = [c for c in from_csv.columns if c.endswith("line")]   # a CSV's row 1 is its header
    tbt.same_steps(from_parquet.drop(columns=lines), from_csv.drop(columns=lines))


# -- 7: a column or key named twice

def _twice_in_csv(path, column):
    """The CSV at `path` with `column` appended again at the end, holding 999 on every row."""
    import csv
    rows = list(csv.reader(path.open(newline="")))
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows([rows[0] + [column]] + [r + ["999"] for r in rows[1:]])
    return path


def _twice_in_parquet(path, column):
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pq.read_table(path)
    pq.write_table(table.append_column(column, pa.array([999.0] * table.num_rows)), path)
    return path


def _twice_in_jsonl(path, key, line=1):
    lines = path.read_text().splitlines()
    lines[line - 1] = lines[line - 1].rstrip()[:-1] + f', "{key}": 999}}'
    path.write_text("\n".join(lines) + "\n")
    return path


def _refused_naming(path, words, *args):
    code, out, err = tbt.run("validate", path, *args)
    assert code == 2 and len(err.strip().splitlines()) == 1, (out, err)
    assert str(path) in err and "appears twice" in err and all(w in err for w in words), err


@pytest.mark.parametrize("layout", ["csv", "parquet"])
def test_a_column_named_twice_in_a_self_hosted_export_is_refused(tmp_path, layout):
    import hosted_shapes as hs
    path = hs.write_table(tmp_path / f"verl.{layout}", hs.verl_wandb_rows(), layout)
    (_twice_in_csv if layout == "csv" else _twice_in_parquet)(path, "timing_s/step")
    _refused_naming(path, ["'timing_s/step'"] + (["row 1"] if layout == "csv" else []), *ARGS)


@pytest.mark.parametrize("layout", ["csv", "parquet"])
def test_a_column_named_twice_in_a_cookbook_export_is_refused(tmp_path, layout):
    import run_shapes
    rows = run_shapes.wandb_rows(run_shapes.sync_records())
    if layout == "csv":
        path = _twice_in_csv(run_shapes.write_wandb_csv(tmp_path / "h.csv", rows), "env/all/total_ac_tokens")
    else:
        path = _twice_in_parquet(run_shapes.write_parquet(tmp_path / "h.parquet", rows), "env/all/total_ac_tokens")
    _refused_naming(path, ["'env/all/total_ac_tokens'"], "--model", "Qwen/Qwen3-8B")


@pytest.mark.parametrize("line", [1, 3])   # lines with an eval: read as dicts (see the commit message)
def test_a_key_written_twice_in_a_cookbook_line_is_refused(tmp_path, line):
    import run_shapes
    path = _twice_in_jsonl(run_shapes.write_jsonl(tmp_path / "metrics.jsonl", run_shapes.sync_records()),
                           "env/all/total_ac_tokens", line)
    _refused_naming(path, [f"line {line}", "'env/all/total_ac_tokens'"], "--model", "Qwen/Qwen3-8B")


def test_a_key_written_twice_in_a_verl_file_logger_line_is_refused(tmp_path):
    import hosted_shapes as hs
    path = hs.write_verl_jsonl(tmp_path / "verl.jsonl")   # {"step": n, "data": {...}}: the key twice in data
    lines = path.read_text().splitlines()
    assert lines[1].endswith("}}")
    lines[1] = lines[1][:-2] + ',"timing_s/step":999}}'
    path.write_text("\n".join(lines) + "\n")
    _refused_naming(path, ["line 2", "'timing_s/step'"], *ARGS)


def test_a_colon_in_a_value_or_a_nested_object_is_no_key_twice(tmp_path):
    """The cheap check parses a line again only when it has more ':' than keys: such a line still reads."""
    import run_shapes
    records = run_shapes.sync_records()
    records[0] = {**records[0], "note": "started at 12:30:00", "extra": {"a": 1, "b": {"c": 2}}}
    path = run_shapes.write_jsonl(tmp_path / "metrics.jsonl", records)
    code, out, err = tbt.run("validate", path, "--model", "Qwen/Qwen3-8B")
    assert code == 0, err


def test_a_column_named_twice_in_a_usage_export_is_refused(tmp_path):
    import hosted_shapes as hs
    path = _twice_in_csv(hs.write_usage_csv(tmp_path / "usage.csv"), "type")
    with pytest.raises(TinkerNomicsError, match=r"row 1: the column 'type' appears twice"):
        from tinker_nomics.runs import tinker_usage
        tinker_usage.read_usage(path)
