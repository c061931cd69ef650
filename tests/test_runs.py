"""Run ingestion (tinker_nomics.runs): every log shape gives the hand-computed sums, bad input is one clear
error, and the four real OmniMath logs parse to the totals an independent json-module sum gives.

Synthetic shapes and their hand-computed totals: tests/run_shapes.py.
"""
import json
import math
import os
from pathlib import Path

import pandas as pd
import pytest

import run_shapes as shapes
from tinker_nomics import TinkerNomicsError
from tinker_nomics.runs.runlog import COLUMNS
from tinker_nomics.sources.bundled_runs import bundled_runs
from tinker_nomics.runs.read import read_run
from tinker_nomics.runs.meters import run_meters

REPO = Path(__file__).resolve().parents[1]
OMNIMATH = REPO / "data" / "runs" / "omnimath"


def meters(run):
    m = run_meters(run)
    return {"sample": m.sample, "train": m.train, "prefill": m.prefill, "eval_sample": m.eval_sample,
            "eval_prefill": m.eval_prefill}


# ------------------------------------------------------------------------------------ every shape, exact sums

def _cookbook_sync(tmp):
    return shapes.write_cookbook_dir(tmp / "sync", shapes.sync_records(), shapes.NESTED_CONFIG), shapes.EXPECTED


def _cookbook_stream(tmp):
    return shapes.write_cookbook_dir(tmp / "stream", shapes.stream_records(), shapes.NESTED_CONFIG), shapes.EXPECTED


def _cookbook_async(tmp):
    return shapes.write_cookbook_dir(tmp / "async", shapes.async_records(), shapes.NESTED_CONFIG), shapes.EXPECTED_FINAL


def _cookbook_061(tmp):
    return shapes.write_cookbook_dir(tmp / "v061", shapes.v061_records(), shapes.NESTED_CONFIG), shapes.EXPECTED_FINAL


def _bare_jsonl(tmp):
    return shapes.write_jsonl(tmp / "metrics.jsonl", shapes.sync_records()), shapes.EXPECTED


def _bare_jsonl_other_name(tmp):
    return shapes.write_jsonl(tmp / "run7.jsonl", shapes.async_records()), shapes.EXPECTED_FINAL


def _wandb_csv(tmp):
    return shapes.write_wandb_csv(tmp / "history.csv", shapes.wandb_rows(shapes.async_records())), shapes.EXPECTED_FINAL


def _wandb_json_records(tmp):
    return shapes.write_wandb_json(tmp / "h.json", shapes.wandb_rows(shapes.sync_records())), shapes.EXPECTED


def _wandb_json_lines(tmp):
    return shapes.write_wandb_json(tmp / "h.jsonl", shapes.wandb_rows(shapes.v061_records()), "lines"), \
        shapes.EXPECTED_FINAL


def _wandb_json_lines_named_json(tmp):
    return shapes.write_wandb_json(tmp / "h.json", shapes.wandb_rows(shapes.sync_records()), "lines"), shapes.EXPECTED


def _wandb_json_columns(tmp):
    return shapes.write_wandb_json(tmp / "h.json", shapes.wandb_rows(shapes.async_records()), "columns"), \
        shapes.EXPECTED_FINAL


def _wandb_json_split(tmp):
    return shapes.write_wandb_json(tmp / "h.json", shapes.wandb_rows(shapes.stream_records()), "split"), shapes.EXPECTED


def _wandb_parquet(tmp):
    return shapes.write_parquet(tmp / "0000.parquet", shapes.wandb_rows(shapes.async_records())), shapes.EXPECTED_FINAL


def _wandb_parquet_nullable(tmp):  # pandas nullable dtypes: a missing cell is pd.NA, not NaN
    path = tmp / "h.parquet"
    pd.DataFrame(shapes.wandb_rows(shapes.async_records())).convert_dtypes().to_parquet(path)
    return path, shapes.EXPECTED_FINAL


def _wandb_parquet_folder(tmp):
    rows = shapes.wandb_rows(shapes.sync_records())
    folder = tmp / "run-abc-history"
    folder.mkdir()
    shapes.write_parquet(folder / "0000.parquet", rows[:2])
    shapes.write_parquet(folder / "0001.parquet", rows[2:])
    return folder, shapes.EXPECTED


def _chart_csv(tmp):
    return shapes.write_chart_csv(tmp / "chart.csv", {"grpo-gsm8k-1": shapes.wandb_rows(shapes.sync_records())}), \
        shapes.EXPECTED


def _wandb_underscored(tmp):
    rows = [{k.replace("/", "_"): v for k, v in r.items()} for r in shapes.wandb_rows(shapes.sync_records())]
    return shapes.write_wandb_csv(tmp / "h.csv", rows), shapes.EXPECTED


def _wandb_run_file(tmp):
    """W&B's own run file (tests/test_wandb_file.py's writer): the config as wandb.init took it, then the rows."""
    import test_wandb_file as wf
    records = [wf.config(shapes.NESTED_CONFIG)] + [wf.history(r["_step"], {k: v for k, v in r.items() if k != "_step"})
                                                   for r in shapes.wandb_rows(shapes.sync_records())]
    return wf.write_file(tmp / "run-abc.wandb", records), shapes.EXPECTED


def _wandb_run_folder(tmp):
    path, expected = _wandb_run_file(tmp)
    folder = tmp / "run-20261204_101010-abc"
    folder.mkdir()
    return path.rename(folder / path.name).parent, expected


def _wandb_resumed_sessions(tmp):
    """A run resumed with its id (wandb.init(id=…, resume="allow")): W&B's folder holds a run folder per session,
    here steps 0-1 then 2-3, read one after the other as the one run they are."""
    import test_wandb_file as wf
    rows = shapes.wandb_rows(shapes.sync_records())
    wandb_dir = tmp / "wandb"
    for name, part in (("run-20261204_101010-abc", rows[:2]), ("run-20261205_090000-abc", rows[2:])):
        (wandb_dir / name).mkdir(parents=True)
        wf.write_file(wandb_dir / name / "run-abc.wandb", [wf.config(shapes.NESTED_CONFIG)] + [
            wf.history(r["_step"], {k: v for k, v in r.items() if k != "_step"}) for r in part])
    return wandb_dir, shapes.EXPECTED


SHAPES = [_cookbook_sync, _cookbook_stream, _cookbook_async, _cookbook_061, _bare_jsonl, _bare_jsonl_other_name,
          _wandb_csv, _wandb_json_records, _wandb_json_lines, _wandb_json_lines_named_json, _wandb_json_columns,
          _wandb_json_split, _wandb_parquet, _wandb_parquet_nullable, _wandb_parquet_folder, _chart_csv, _wandb_underscored,
          _wandb_run_file, _wandb_run_folder, _wandb_resumed_sessions]


@pytest.mark.parametrize("make", SHAPES, ids=[f.__name__.lstrip("_") for f in SHAPES])
def test_every_shape_gives_the_hand_computed_sums(tmp_path, make):
    path, expected = make(tmp_path)
    run = read_run(path)
    assert meters(run) == expected
    assert run.n_steps == 4
    assert list(run.train["step"]) == [0, 1, 2, 3]
    assert list(run.steps.columns) == COLUMNS


def test_a_wandb_run_file_reads_the_cookbook_config_it_holds(tmp_path):
    run = read_run(_wandb_run_file(tmp_path)[0])
    assert run.model == shapes.MODEL and run.kind == "W&B run file (.wandb)"
    assert run.config["groups_per_batch"] == 2 and run.config["group_size"] == 4


def test_cookbook_folder_reads_config_nested_anywhere(tmp_path):
    run = read_run(shapes.write_cookbook_dir(tmp_path / "r", shapes.sync_records(), shapes.NESTED_CONFIG))
    assert run.model == shapes.MODEL and run.kind == "tinker-cookbook log folder"
    assert run.config["groups_per_batch"] == 2 and run.config["group_size"] == 4   # dataset_builder.batch_size
    assert run.config["max_tokens"] == 512 and run.config["eval_every"] == 2
    assert run.mode == "sync"


def test_bare_metrics_jsonl_reads_its_sibling_config(tmp_path):
    folder = shapes.write_cookbook_dir(tmp_path / "r", shapes.sync_records(), shapes.NESTED_CONFIG)
    assert read_run(folder / "metrics.jsonl").model == shapes.MODEL


def test_modes_are_recognised(tmp_path):
    assert read_run(_cookbook_stream(tmp_path)[0]).mode == "stream-minibatch"
    assert read_run(_cookbook_async(tmp_path)[0]).mode == "async + stream-minibatch"
    assert read_run(_cookbook_061(tmp_path)[0]).mode == "sync"


def test_async_eval_rows_join_their_training_step_and_the_final_eval_has_its_own_row(tmp_path):
    run = read_run(_cookbook_async(tmp_path)[0])
    t = run.steps
    assert list(t["step"]) == [0, 1, 2, 3, 4]
    assert list(t["has_train"]) == [True, True, True, True, False]
    assert list(t["eval_completion_tokens"]) == [500, 0, 600, 0, 700]
    # eval line 1 precedes training line 2 at step 0 (source lines are 1-based)
    assert t.loc[0, "line"] == 2 and t.loc[0, "eval_line"] == 1
    assert pd.isna(t.loc[4, "line"]) and t.loc[4, "eval_line"] == 7
    assert list(run.train["step_seconds"]) == [20.0] * 4          # time/training_loop/total


def test_v061_keys_cache_hits_and_cumulative_row(tmp_path):
    run = read_run(_cookbook_061(tmp_path)[0])
    assert run.train["cached_prompt_tokens"].sum() == sum(shapes.CACHED)       # 340
    assert run.cached_logged
    assert run.train["logged_trained_tokens"].sum() == 5060
    assert run.logged_totals["cost/cumulative_usd"] == 0.004
    assert run.logged_totals["tokens/cumulative/sampled"] == 4600


def test_chart_csv_mixed_runs_need_a_pick(tmp_path):
    rows = shapes.wandb_rows(shapes.sync_records())
    other = [{**r, "env/all/total_ac_tokens": 1} for r in rows]
    path = shapes.write_chart_csv(tmp_path / "chart.csv", {"run-a": rows, "run-b": other})
    with pytest.raises(TinkerNomicsError, match=r"chart.csv: mixed runs in one export \(run-a, run-b\); pick one"):
        read_run(path)
    assert meters(read_run(path, run="run-a")) == shapes.EXPECTED
    assert read_run(path, run="run-b").train["train_completion_tokens"].sum() == 4
    with pytest.raises(TinkerNomicsError, match="no run named 'run-c'"):
        read_run(path, run="run-c")


def test_downsampled_chart_csv_is_flagged(tmp_path):
    path = shapes.write_chart_csv(tmp_path / "c.csv", {"a": shapes.wandb_rows(shapes.sync_records())}, spread=True)
    assert any("downsampled" in note for note in read_run(path).notes)


def test_wandb_table_with_a_run_column_of_several_runs(tmp_path):
    rows = shapes.wandb_rows(shapes.sync_records())
    mixed = [{**r, "run": "first"} for r in rows] + [{**r, "run": "second"} for r in rows]
    path = shapes.write_wandb_csv(tmp_path / "h.csv", mixed)
    with pytest.raises(TinkerNomicsError, match="h.csv: mixed runs in one export"):
        read_run(path)
    assert meters(read_run(path, run="second")) == shapes.EXPECTED


def test_wandb_export_with_a_step_twice_is_refused(tmp_path):
    rows = shapes.wandb_rows(shapes.sync_records())
    path = shapes.write_wandb_json(tmp_path / "h.json", rows + rows[1:2])
    with pytest.raises(TinkerNomicsError, match="step 1 appears 2 times"):
        read_run(path)


def test_resumed_jsonl_with_a_repeated_step_bills_both_and_says_so(tmp_path):
    records = shapes.sync_records()
    path = shapes.write_jsonl(tmp_path / "metrics.jsonl", records + [records[3]])
    run = read_run(path)
    assert run.n_steps == 5 and any("more than once" in n for n in run.notes)


def test_missing_steps_are_reported(tmp_path):
    records = [r for r in shapes.sync_records() if r["step"] != 1]
    run = read_run(shapes.write_jsonl(tmp_path / "metrics.jsonl", records))
    assert any("1 training step(s) between 0 and 3 are missing" in n for n in run.notes)


def test_shuffled_lines_give_the_same_table(tmp_path):
    records = shapes.async_records()
    a = read_run(shapes.write_jsonl(tmp_path / "a.jsonl", records))
    b = read_run(shapes.write_jsonl(tmp_path / "b.jsonl", records[::-1]))
    columns = [c for c in COLUMNS if c not in ("line", "eval_line")]
    pd.testing.assert_frame_equal(a.steps[columns], b.steps[columns])


# ------------------------------------------------------------------------------------ bad input


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


GOOD = json.dumps({"step": 0, "env/all/total_ac_tokens": 10, "env/all/total_ob_tokens": 5})


@pytest.mark.parametrize("name, content, needle", [
    ("metrics.jsonl", "", r"metrics.jsonl: empty file"),
    ("metrics.jsonl", "\n \n", r"metrics.jsonl: empty file"),
    ("metrics.jsonl", GOOD + "\n{oops\n" + GOOD + "\n", r"metrics.jsonl: line 2: not JSON"),
    ("metrics.jsonl", GOOD + "\n[1, 2]\n", r"line 2: not a JSON object"),
    ("metrics.jsonl", json.dumps({"step": 0, "train_mean_nll": 1.0}) + "\n", r"no training steps.*supervised run"),
    ("metrics.jsonl", json.dumps({"step": 0, "env/all/reward/total": 1.0}) + "\n", r"no training steps: no record has"),
    ("metrics.jsonl", json.dumps({"step": 0, "env/all/total_ac_tokens": 10}) + "\n",
     r"line 1: no env/all/total_ob_tokens"),
    ("metrics.jsonl", json.dumps({"step": 0, "env/all/total_ob_tokens": 10}) + "\n",
     r"line 1: has env/all/total_ob_tokens but no env/all/total_ac_tokens"),
    ("metrics.jsonl", GOOD.replace("10", "NaN") + "\n", r"line 1: env/all/total_ac_tokens is NaN"),
    ("metrics.jsonl", GOOD.replace("10", "-10") + "\n", r"line 1: env/all/total_ac_tokens is negative"),
    ("metrics.jsonl", GOOD.replace("10", '"10"') + "\n", r"line 1: env/all/total_ac_tokens is the text '10'"),
    ("metrics.jsonl", GOOD.replace("10", "true") + "\n", r"env/all/total_ac_tokens is true, not a number"),
    ("metrics.jsonl", GOOD.replace("10", "null") + "\n", r"env/all/total_ac_tokens is null, not a number"),
    ("metrics.jsonl", GOOD.replace("10", "1e400") + "\n", r"env/all/total_ac_tokens is infinite"),
    ("metrics.jsonl", GOOD.replace("10", "1" + "0" * 400) + "\n", r"env/all/total_ac_tokens is too large"),
    ("metrics.jsonl", GOOD.replace("10", "1e16") + "\n", r"implausibly large"),
    ("metrics.jsonl", GOOD.replace('"step": 0', '"step": 1.5') + "\n", r"step is 1.5, not a whole number"),
    ("metrics.jsonl", GOOD.replace('"step": 0, ', "") + "\n", r"line 1: no step number"),
    ("metrics.jsonl", b'{"step": 0, "env/all/total_ac_tokens": 10, "x": "\xff"}\n', r"line 1: not UTF-8 text"),
    ("metrics.jsonl", "[" * 100000 + "\n", r"line 1: not JSON"),
    ("metrics.jsonl", json.dumps({"step": 0, "env/all/total_ac_tokens": 10, "env/all/total_ob_tokens": 5,
                                  "env/all/total_cached_ob_tokens": 6}) + "\n", r"cached prompt tokens \(6\) exceed"),
    ("metrics.jsonl", json.dumps({"step": 0, "env/all/total_ac_tokens": 10, "env/all/total_ob_tokens": 5,
                                  "test/env/all/total_ac_tokens": 3}) + "\n", r"no test/env/all/total_ob_tokens"),
    ("h.csv", "", r"h.csv: empty file"),
    ("h.csv", "_step,env/all/total_ac_tokens,env/all/total_ob_tokens\n0,abc,5\n", r"h.csv: row 2: .* is 'abc'"),
    ("h.csv", "_step,env/all/total_ac_tokens,env/all/total_ob_tokens\n0,10,-5\n", r"row 2: .*total_ob_tokens is neg"),
    ("h.csv", "_step,env/all/total_ac_tokens,env/all/total_ob_tokens\n0,10,5,7,8\n", r"row 2: more cells"),
    ("h.csv", "_step,env/all/total_ac_tokens\n0,10\n", r"h.csv: row 2: no env/all/total_ob_tokens"),
    ("h.csv", "_step,a\n", r"no data rows"),
    ("h.json", "", r"h.json: empty file"),
    ("h.json", "[1, 2]", r"h.json: record 1: not a JSON object"),
    ("h.json", "[]", r"no records"),
    ("h.json", '{"a": 1}', r"not a run history"),
    ("h.json", '[{"_step": 0, "env/all/total_ac_tokens": 10', r"h.json: line 1: not JSON"),
    ("h.parquet", b"PAR1 not really", r"h.parquet: not a readable Parquet file"),
    ("h.parquet", b"", r"h.parquet: empty file"),
    ("run.txt", "hello", r"unknown format"),
    ("run.txt", "", r"run.txt: empty file"),
])
def test_bad_input_is_one_line_naming_file_line_and_reason(tmp_path, name, content, needle):
    path = _write(tmp_path, name, content)
    with pytest.raises(TinkerNomicsError, match=needle) as info:
        read_run(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_unreadable_paths(tmp_path):
    with pytest.raises(TinkerNomicsError, match="no such file or folder"):
        read_run(tmp_path / "nope.jsonl")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(TinkerNomicsError, match="no metrics.jsonl"):
        read_run(tmp_path / "empty_dir")
    locked = shapes.write_jsonl(tmp_path / "locked.jsonl", shapes.sync_records())
    locked.chmod(0)
    try:
        if os.geteuid() != 0:  # root reads anything; the check only means something for other users
            with pytest.raises(TinkerNomicsError, match="permission denied"):
                read_run(locked)
    finally:
        locked.chmod(0o644)


def test_bad_config_json(tmp_path):
    folder = shapes.write_cookbook_dir(tmp_path / "r", shapes.sync_records())
    (folder / "config.json").write_text("{not json")
    with pytest.raises(TinkerNomicsError, match=r"config.json: line 1: not JSON"):
        read_run(folder)
    (folder / "config.json").write_text(json.dumps({"model_name": 5}))
    with pytest.raises(TinkerNomicsError, match=r"config.json: model_name is 5, not a text"):
        read_run(folder)


def test_readers_open_files_read_only(tmp_path, monkeypatch):
    """Every file the readers open goes through os.open (runs.files.open_regular) with read-only flags, and
    builtins.open is not used to open any log file at all."""
    import builtins
    opened, opened_builtin = [], []
    real_open, real_os_open = builtins.open, os.open

    def spy(file, mode="r", *args, **kwargs):
        if not isinstance(file, int):   # os.fdopen wraps a descriptor os.open made
            opened_builtin.append((str(file), mode))
        return real_open(file, mode, *args, **kwargs)

    def os_spy(file, flags, *args, **kwargs):
        opened.append((str(file), flags))
        return real_os_open(file, flags, *args, **kwargs)

    path, _ = _cookbook_061(tmp_path)
    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(os, "open", os_spy)
    read_run(path)
    monkeypatch.undo()
    assert {Path(f).name for f, _ in opened} == {"metrics.jsonl", "config.json"}
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    assert all(flags & writing == 0 for _, flags in opened)
    assert not [f for f, _ in opened_builtin if str(tmp_path) in f]


# ------------------------------------------------------------------------------------ the real OmniMath logs

def independent_sums(path: Path) -> dict:
    """Sum the logged keys with the json module alone (no package code): the reference for the readers."""
    out = {"steps": 0, "ac": 0, "ob": 0, "eval_ac": 0, "eval_ob": 0, "episodes": 0}
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            if "env/all/total_ac_tokens" in rec:
                out["steps"] += 1
                out["ac"] += rec["env/all/total_ac_tokens"]
                out["ob"] += rec["env/all/total_ob_tokens"]
                out["episodes"] += rec["env/all/total_episodes"]
            for key, value in rec.items():
                if key.startswith("test/") and key.endswith("env/all/total_ac_tokens"):
                    out["eval_ac"] += value
                if key.startswith("test/") and key.endswith("env/all/total_ob_tokens"):
                    out["eval_ob"] += value
    return out


# Pinned from independent_sums() on the committed files; steps and episodes also match
# data/runs/omnimath/README.md (48/75/51/23 train steps; mean ac tokens/episode 5202, 4222, 6541, 7412).
OMNIMATH_TOTALS = {
    "gptoss-20b-v2": {"steps": 48, "ac": 17_560_585, "ob": 587_872, "eval_ac": 10_324_444, "eval_ob": 423_052,
                      "episodes": 3_376},
    "gptoss-20b-v3b": {"steps": 75, "ac": 648_510_506, "ob": 25_995_888, "eval_ac": 15_322_695, "eval_ob": 740_341,
                       "episodes": 153_600},
    "qwen3-30b-instruct-v3b": {"steps": 51, "ac": 683_211_554, "ob": 12_109_776, "eval_ac": 16_400_348,
                               "eval_ob": 338_980, "episodes": 104_448},
    "qwen3-30b-think-v3b": {"steps": 23, "ac": 349_125_424, "ob": 4_602_320, "eval_ac": 9_340_834,
                            "eval_ob": 135_592, "episodes": 47_104},
}
README_MEAN_AC = {"gptoss-20b-v2": 5202, "gptoss-20b-v3b": 4222, "qwen3-30b-instruct-v3b": 6541,
                  "qwen3-30b-think-v3b": 7412}
README_HOURS = {"gptoss-20b-v2": 3.51, "gptoss-20b-v3b": 12.46, "qwen3-30b-instruct-v3b": 12.65,
                "qwen3-30b-think-v3b": 12.09}


@pytest.mark.parametrize("name", sorted(OMNIMATH_TOTALS))
def test_real_omnimath_logs_parse_to_the_independent_sums(name):
    b = bundled_runs()[name]
    assert independent_sums(b.path) == OMNIMATH_TOTALS[name]
    run = read_run(b.path)
    t = run.steps
    expected = OMNIMATH_TOTALS[name]
    assert run.n_steps == expected["steps"]
    assert t["train_completion_tokens"].sum() == expected["ac"]
    assert t["train_prompt_tokens"].sum() == expected["ob"]
    assert t["eval_completion_tokens"].sum() == expected["eval_ac"]
    assert t["eval_prompt_tokens"].sum() == expected["eval_ob"]
    assert run.train["episodes"].sum() == expected["episodes"]
    assert round(expected["ac"] / expected["episodes"]) == README_MEAN_AC[name]
    assert round(run.train["step_seconds"].sum() / 3600, 2) == README_HOURS[name]
    assert not run.notes and not run.multi_turn


def test_bundled_logs_are_byte_copies_of_the_published_logs():
    """The checksums in data/runs/omnimath/SHA256SUMS were taken from the copies in ../shared/realdata (the
    public repository's files); where that folder is beside the checkout, compare the bytes too."""
    import hashlib
    sums = {}
    for line in (OMNIMATH / "SHA256SUMS").read_text().splitlines():
        if line and not line.startswith("#"):
            digest, name = line.split()
            sums[name] = digest
    assert set(sums) == {b.path.name for b in bundled_runs().values()}
    for b in bundled_runs().values():
        assert hashlib.sha256(b.path.read_bytes()).hexdigest() == sums[b.path.name]
    shared = REPO.parent / "shared" / "realdata" / "tinker_joanvelja_omnimath"
    for b in bundled_runs().values() if shared.is_dir() else ():
        assert b.path.read_bytes() == (shared / b.path.name).read_bytes()
    assert "Apache License" in (OMNIMATH / "LICENSE").read_text() and "Version 2.0" in (OMNIMATH / "LICENSE").read_text()


def test_v3b_eval_rows_share_the_training_step_number():
    run = read_run(bundled_runs()["gptoss-20b-v3b"].path)
    evals = run.eval_steps
    assert list(evals["step"]) == [10, 20, 30, 40, 50, 60, 70]
    # separate eval lines: before the training line at most steps, after it at step 50
    assert evals["has_train"].all() and (evals["eval_line"] != evals["line"]).all()
    assert list(evals["eval_line"] - evals["line"]) == [-1, -1, -1, -1, 1, -1, -1]
    assert math.isclose(evals["eval_episodes"].mean(), 664)


def test_bundled_qwen_runs_get_their_successors_october_bill():
    """No price list after the 2026-07-17 repricing names Qwen3-30B-A3B (data/prices/tinker_prices.csv), so the
    October column is empty and the successor's (data/models/successors.csv) is billed and named instead."""
    import math
    from tinker_nomics.analysis.run_bills import bundled_bills, snapshot_bills
    from tinker_nomics.runs.read import read_run
    from tinker_nomics.sources.bundled_runs import bundled_runs
    table = bundled_bills().set_index("run")
    think = table.loc["qwen3-30b-think-v3b"]
    assert math.isnan(think["usd_2026-10-07"])
    assert think["successor_2026-10-07"] == "Qwen/Qwen3.6-35B-A3B"
    direct = snapshot_bills(read_run(bundled_runs()["qwen3-30b-think-v3b"].path), "Qwen/Qwen3-30B-A3B",
                            ("2026-10-07",), ("none",), "Qwen/Qwen3.6-35B-A3B", 16)
    assert think["usd_2026-10-07_successor"] == float(direct["total_usd"].iloc[0])
    assert math.isnan(table.loc["gptoss-20b-v3b"].get("usd_2026-10-07_successor", math.nan))  # still priced
