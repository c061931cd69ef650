"""Issue 22, "Nothing silently wrong: hostile and real-world inputs, round three": one test (or a few) per numbered
defect of this round, each built the way the probe was and failing before the fix. The fuzz tests
(test_runs_fuzz.py, test_hosted_fuzz.py, test_fuzz_cli.py) cover the same classes with generated input.
"""
import copy
import json
import pprint
from pathlib import Path

import pytest

import hosted_shapes as hs
import run_shapes as shapes
from tinker_nomics import TinkerNomicsError
from tinker_nomics.runs.ledger import check_run
from tinker_nomics.runs.verl import read_console
from test_reliability import cli, one_line_error, strict_json   # the helpers of round two


# ------------------------------------------------------------------------------------------ 1: verl config dump

def _config(**changes) -> dict:
    """tests/hosted_shapes.py's verl config with some settings changed ("section.key": value)."""
    config = copy.deepcopy(hs.CONFIG)
    for dotted, value in changes.items():
        node = config
        *parents, last = dotted.split(".")
        for part in parents:
            node = node[part]
        node[last] = value
    return config


def _short_step(step: int) -> str:
    """A verl step line (2025 shape) with the keys the reader needs: one step of hosted_shapes' run, repeated."""
    i = (step - 1) % 4
    return hs.step_line(step, {"timing_s/gen": hs.GEN[i], "timing_s/update_actor": hs.UPDATE[i],
                               "timing_s/step": hs.STEP_2026[i], "response_length/mean": hs.RESPONSE[i],
                               "prompt_length/mean": hs.PROMPT[i], "perf/total_num_tokens": hs.TOTAL[i]}, "2025")


def write_console(path: Path, steps: int, *configs: tuple[int, dict], ray: bool = True) -> Path:
    """A verl console log of `steps` step lines, each config dump pprint'ed (as TaskRunner.run prints it) before
    the step given with it: (first step after it, config)."""
    dumps = dict(configs)
    with open(path, "w") as fh:
        for step in range(1, steps + 1):
            if step in dumps:
                for line in pprint.pformat(dumps[step], width=80).splitlines():
                    fh.write(f"\x1b[36m(TaskRunner pid=4242)\x1b[0m {line}\n" if ray else line + "\n")
            line = _short_step(step)
            fh.write((f"\x1b[36m(TaskRunner pid=4242)\x1b[0m {line}" if ray else line) + "\n")
    return path


# the probe's '{/data…' (a brace that never closes), and a string pprint writes in double quotes with escapes
BRACE_IN_A_STRING = {"data.train_files": "{/data/gsm8k/train.parquet",
                     "data.val_files": "/data/it's \"quoted\" \\ [and (bracketed.parquet"}


def test_item1_a_brace_inside_a_config_string_drops_no_step(tmp_path):
    """The probe: 25,000 steps after a dump holding `'train_files': '{/data…'` gave 5,026 steps and no caveat (and
    took 196 s: the brace count re-scanned the growing dump for every line)."""
    path = write_console(tmp_path / "verl.log", 25_000, (1, _config(**BRACE_IN_A_STRING)))
    run = read_console(path, str(path))
    assert len(run.steps) == 25_000 and run.steps["step"].iloc[0] == 1
    assert run.model == hs.VERL_MODEL and run.config["num_gpus"] == hs.GPUS   # the dump itself is read
    assert not any("config dump" in n for n in run.notes)


def test_item1_a_short_log_with_the_same_dump_is_read(tmp_path):
    """The probe's short log with the same dump got "no verl step lines"."""
    path = write_console(tmp_path / "verl.log", 4, (1, _config(**BRACE_IN_A_STRING)), ray=False)
    result = check_run(path, gpu="H100 SXM")
    assert result.measured.totals["steps"] == 4
    assert result.setup.model == hs.VERL_MODEL


def test_item1_a_dump_that_never_closes_is_a_caveat_naming_its_lines(tmp_path):
    """A dump cut short (its closing brackets lost) ends at the next step line: every step is read, and the caveat
    names the line the dump starts on and the line that cut it."""
    path = tmp_path / "verl.log"
    dump = pprint.pformat(hs.CONFIG, width=80).splitlines()
    lines = dump[:-1] + [dump[-1].rstrip("}")] + [_short_step(s) for s in range(1, 5)]
    path.write_text("\n".join(lines) + "\n")
    result = check_run(path, gpu="H100 SXM", num_gpus=8, model="Qwen3-8B")
    assert result.measured.totals["steps"] == 4
    cut = f"the config dump starting at line 1 is cut off by the step line at line {len(dump) + 1}"
    assert any(cut in c for c in result.caveats), result.caveats


def test_item1_a_dump_open_at_the_end_of_the_log_is_named(tmp_path):
    path = tmp_path / "verl.log"
    dump = pprint.pformat(hs.CONFIG, width=80).splitlines()
    path.write_text("\n".join([_short_step(s) for s in range(1, 5)] + dump[:5]) + "\n")
    result = check_run(path, gpu="H100 SXM", num_gpus=8, model="Qwen3-8B")
    assert any("the config dump starting at line 5 never closes" in c for c in result.caveats), result.caveats


# ------------------------------------------------------------------------------------------ 8: appended runs

def test_item8_two_verl_runs_appended_are_not_read_as_one(tmp_path):
    """The probe: Qwen3-8B on 8 GPUs, then Llama-70B on 16, appended; read as one Qwen3-8B run with a "restart"
    caveat."""
    second = _config(**{"actor_rollout_ref.model.path": "meta-llama/Llama-3.1-70B", "trainer.nnodes": 4})
    path = write_console(tmp_path / "verl.log", 8, (1, hs.CONFIG), (5, second))
    first_dump = len(pprint.pformat(hs.CONFIG, width=80).splitlines())
    second_line = first_dump + 4 + 1
    code, out, err = cli("validate", path, "--gpu", "H100 SXM")
    one_line_error(code, out, err, f"line {second_line}: a second run starts")
    assert "Llama-3.1-70B" in err and "trainer.nnodes" in err


def test_item8_the_same_config_printed_again_is_one_run_restarted(tmp_path):
    path = write_console(tmp_path / "verl.log", 8, (1, hs.CONFIG), (5, hs.CONFIG))
    run = read_console(path, str(path))
    assert len(run.steps) == 8
    assert any("printed again" in n for n in run.notes)


TABLE_LAYOUTS = {"csv": "h.csv", "records": "h.json", "parquet": "h.parquet"}


@pytest.mark.parametrize("layout", sorted(TABLE_LAYOUTS))
def test_item8_two_runs_in_a_name_column_are_refused_as_mixed_in_every_table(tmp_path, layout):
    """The probe: a self-hosted W&B CSV with two runs in a `name` column was read as one run of twice the steps; the
    same export as JSON or Parquet was refused."""
    rows = [dict(r, name="run-a") for r in hs.verl_wandb_rows()] + [dict(r, name="run-b")
                                                                     for r in hs.verl_wandb_rows()]
    path = hs.write_table(tmp_path / TABLE_LAYOUTS[layout], rows, layout)
    one_line_error(*cli("validate", path, "--gpu", "H100 SXM"), "mixed runs in one export (column 'name': run-a, run-b)")
    one_line_error(*cli("validate", path, "--gpu", "H100 SXM", "--run", "no-such-run"),
                   "no run named 'no-such-run' in column 'name'; it holds run-a, run-b")
    code, out, err = cli("validate", path, "--gpu", "H100 SXM", "--num-gpus", "8", "--run", "run-b", "--format", "json")
    assert code == 0, err
    data = strict_json(out)
    assert data["steps"] == hs.VERL_EXPECTED["steps"] and data["run_name"] == "run-b"
    assert data["measured"]["gpu_hours"] == pytest.approx(hs.VERL_2026["gpu_hours"])


def test_item8_an_unknown_run_in_a_one_run_csv_names_the_run_it_holds(tmp_path):
    path = hs.write_table(tmp_path / "h.csv", [dict(r, name="run-a") for r in hs.verl_wandb_rows()], "csv")
    one_line_error(*cli("validate", path, "--gpu", "H100 SXM", "--run", "no-such-run"),
                   "no run named 'no-such-run' in column 'name'; it holds run-a")


@pytest.mark.parametrize("layout", sorted(TABLE_LAYOUTS))
def test_item8_two_runs_concatenated_without_a_name_column_are_refused(tmp_path, layout):
    """W&B's _step is unique within a run: the same steps twice are two runs' rows, never one run of twice the
    GPU-hours."""
    path = hs.write_table(tmp_path / TABLE_LAYOUTS[layout], hs.verl_wandb_rows() * 2, layout)
    one_line_error(*cli("validate", path, "--gpu", "H100 SXM"), "W&B's _step 0 appears again")


def test_item8_a_trl_history_with_two_runs_is_refused(tmp_path):
    rows = [dict(r, name="a") for r in hs.trl_wandb_rows()] + [dict(r, name="b") for r in hs.trl_wandb_rows()]
    path = hs.write_table(tmp_path / "trl.csv", rows, "csv")
    one_line_error(*cli("validate", path, "--gpu", "H100 SXM", "--prompts-per-step", "4", "--group-size", "8"),
                   "mixed runs in one export (column 'name': a, b)")


# ------------------------------------------------------------------------------------------ 7: odd metric keys

@pytest.mark.parametrize("key", ['reward/"best"', "path\\to\\metric", "tab\there", "new\nline", "nul\x00key"])
def test_item7_a_metric_key_msgspec_cannot_name_is_read_the_dict_way(tmp_path, key):
    """The probe: a key holding `"`, `\\` or a control character ended validate in an internal error (msgspec's
    defstruct refuses such field names in the typed fast path). Every line carries the key, so every line after
    the first would go the typed way."""
    records = [{**r, key: 1.0} for r in shapes.sync_records()]
    path = shapes.write_jsonl(tmp_path / "metrics.jsonl", records)
    code, out, err = cli("validate", path, "--model", "Qwen3-8B", "--format", "json")
    assert code == 0, err
    tokens = strict_json(out)["tokens"]
    assert tokens["sample"] == shapes.EXPECTED["sample"] and tokens["train"] == shapes.EXPECTED["train"]


# ------------------------------------------------------------------------------------------ 9: size

def test_item9_the_cookbook_reader_caps_a_line_like_the_self_hosted_readers(tmp_path):
    """The probe: a 200 MB single line in metrics.jsonl took 740 MB (verl's and TRL's readers stop at 16 MiB). Here
    17 MiB, after a hundred good lines (past what detection looks at), in a log folder and at the end of a file
    without its newline."""
    good = [{**r, "step": s} for s in range(100) for r in shapes.sync_records()[:1]]
    folder = tmp_path / "run"
    folder.mkdir()
    path = folder / "metrics.jsonl"
    huge = json.dumps({**good[1], "step": 100, "junk": "x" * (17 * 2 ** 20)})
    path.write_text("".join(json.dumps(r) + "\n" for r in good) + huge + "\n" + json.dumps(good[2]) + "\n")
    one_line_error(*cli("validate", folder, "--model", "Qwen3-8B"), "line 101: longer than 16 MiB (not a text log)")
    path.write_text("".join(json.dumps(r) + "\n" for r in good) + huge)
    one_line_error(*cli("validate", folder, "--model", "Qwen3-8B"), "line 101: longer than 16 MiB (not a text log)")


def test_item9_json_holds_the_summary_and_per_step_rows_go_to_a_file_on_request(tmp_path):
    """The probe: the JSON of a 10^6-line log carried a per-step array of 10^6 objects (267 MB). Now the JSON is the
    summary, and `--per-step FILE` writes the rows as Parquet or JSON lines, the same rows either way."""
    import pandas as pd
    logs = shapes.write_cookbook_dir(tmp_path / "logs" / "run", shapes.sync_records(), shapes.NESTED_CONFIG)
    code, out, err = cli("validate", logs, "--format", "json")
    assert code == 0 and "per_step" not in strict_json(out), err
    for name in ("steps.parquet", "steps.jsonl"):
        code, out, err = cli("validate", logs, "--format", "json", "--per-step", tmp_path / name)
        assert code == 0, err
        assert strict_json(out)["per_step_file"] == str(tmp_path / name)
    table = pd.read_parquet(tmp_path / "steps.parquet")
    lines = [strict_json(line) for line in (tmp_path / "steps.jsonl").read_text().splitlines()]
    assert len(table) == len(lines) == 4 and list(table.columns) == list(lines[0])
    assert table["sample_tokens"].sum() == sum(r["sample_tokens"] for r in lines) == shapes.EXPECTED["sample"]
    assert lines[1]["eval_reward"] is None   # NaN in the table is null in the file


@pytest.mark.parametrize("name, needle", [("steps.csv", "name it .parquet"),
                                          ("logs/run/steps.jsonl", "inside the run's log folder"),
                                          ("taken.jsonl", "exists; pass --force")])
def test_item9_a_bad_per_step_destination_is_refused_before_reading(tmp_path, name, needle):
    logs = shapes.write_cookbook_dir(tmp_path / "logs" / "run", shapes.sync_records(), shapes.NESTED_CONFIG)
    (tmp_path / "taken.jsonl").write_text("mine\n")
    one_line_error(*cli("validate", logs, "--per-step", tmp_path / name), needle)
    assert (tmp_path / "taken.jsonl").read_text() == "mine\n"


def test_item9_the_report_page_is_compact_whatever_the_log_length(tmp_path):
    """The probe's report handed the kernel a 300 MB pickle of 10^6 rows. The page data is the first rows and series
    of at most MAX_POINTS points, each the mean of its steps; sums come from the whole run."""
    from tinker_nomics.analysis import run_report
    from tinker_nomics.runs.ledger import check_run
    steps = 2 * run_report.MAX_POINTS + 1
    records = [{**r, "step": s, "progress/batch": s} for s in range(steps)
               for r in [shapes.sync_records()[s % 4]]]
    logs = shapes.write_cookbook_dir(tmp_path / "logs" / "run", records, shapes.NESTED_CONFIG)
    result = check_run(logs)
    page = run_report.report_page(result)
    per_point = page["series_steps_per_point"]
    assert per_point == 3 and len(page["series"]["step"]) == -(-steps // per_point) <= run_report.MAX_POINTS
    assert len(page["steps_head"]["rows"]) == run_report.HEAD_ROWS
    costs = result.validation.per_step["cost_usd"].to_numpy()
    assert page["series"]["cost_usd"][0] == pytest.approx(costs[:3].mean())   # a point is the mean of its steps
    assert page["series"]["step"][0] == 2 and page["series"]["cumulative_usd"][-1] == pytest.approx(costs.sum())
    assert page["summary"]["total_usd"] == result.validation.total_usd
    assert len(run_report.page_json(page)) < 500_000


def _running_report(tmp_path, log):
    """`validate LOG --report R` as a command in a session of its own, with its temporary files under tmp_path; returns
    (process, report folder, temp folder) once the chapter's process is running."""
    import os
    import subprocess
    import sys
    import time
    temp = tmp_path / "temp"
    temp.mkdir()
    out = tmp_path / "reports" / "r"
    out.parent.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "tinker_nomics", "validate", str(log), "--report", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "TMPDIR": str(temp)})
    deadline = time.monotonic() + 120
    while not any(out.parent.glob(".r.tmp-*")):   # the report is being made
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    time.sleep(3)   # the chapter (papermill, its kernel) starting
    return proc, out, temp


def _nothing_left(out: Path, temp: Path) -> None:
    import os
    assert not out.exists() and list(out.parent.iterdir()) == []   # no .r.tmp-* folder beside the report
    assert list(temp.iterdir()) == []   # the private hand-over folder, and the kernel's connection file, gone
    chapter = [pid for pid in os.listdir("/proc") if pid.isdigit() and str(temp).encode() in
               _cmdline(pid)]
    assert chapter == []   # the chapter's process is gone


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


@pytest.mark.slow
def test_item9_sigterm_during_a_report_removes_its_temporary_files(tmp_path):
    """The probe: a SIGTERM left a 267 MB .DIR.tmp-* folder and a 300 MB result.pickle in the temp directory."""
    import signal
    proc, out, temp = _running_report(tmp_path, shapes.write_cookbook_dir(tmp_path / "logs" / "run",
                                                                          shapes.sync_records(), shapes.NESTED_CONFIG))
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143 and stdout == "" and stderr == "tinker-nomics: terminated (SIGTERM)\n", stderr
    _nothing_left(out, temp)


@pytest.mark.slow
def test_item12_ctrl_c_during_a_report_exits_130_with_one_line(tmp_path):
    """The probe: Ctrl-C during a report printed an ipykernel traceback. The terminal sends SIGINT to the command's
    process group; the chapter runs in a session of its own."""
    import os
    import signal
    proc, out, temp = _running_report(tmp_path, shapes.write_cookbook_dir(tmp_path / "logs" / "run",
                                                                          shapes.sync_records(), shapes.NESTED_CONFIG))
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and stdout == "" and stderr == "tinker-nomics: interrupted (Ctrl-C)\n", stderr
    _nothing_left(out, temp)


# ------------------------------------------------------------------------------------------ 10: internal errors

def _calibration(tmp_path, name="cal.json", **changes) -> Path:
    record = {"kind": "tinker-nomics calibration", "version": 1, "rollout_efficiency": 0.3, "mfu": 0.1,
              "method": "exact", "basis": {}, "run": {"source": "verl.log", "framework": "verl",
                                                      "model": hs.VERL_MODEL, "gpu": "H100 SXM", "num_gpus": 8,
                                                      "fine_tune": "full", "steps": 4}}
    for key, value in changes.items():
        if key.startswith("run_"):
            record["run"][key[4:]] = value
        else:
            record[key] = value
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path


@pytest.mark.parametrize("gpus", [None, "eight", [8]])
def test_item10_a_calibration_whose_gpu_count_is_null_or_text_is_one_line(tmp_path, gpus):
    path = _calibration(tmp_path, run_num_gpus=gpus)
    one_line_error(*cli("estimate", "--workload", "math_rl", "--calibration", path),
                   f"{path}: run.num_gpus is {json.dumps(gpus)}, not a GPU count")


def _usage_json(tmp_path, records=None, **top) -> Path:
    path = hs.write_usage_json(tmp_path / "usage.json", records)
    data = json.loads(path.read_text())
    data.update(top)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("sessions", [["s1", "s2"], "s1"])
def test_item10_a_usage_export_whose_sessions_is_a_list_or_text_is_one_line(tmp_path, sessions):
    path = _usage_json(tmp_path, sessions=sessions)
    one_line_error(*cli("validate", path), "sessions is")


@pytest.mark.parametrize("writer", [hs.write_usage_json, hs.write_usage_csv])
def test_item10_a_usage_row_with_an_empty_base_model_is_one_line(tmp_path, writer):
    records = hs.usage_records()
    records[2]["base_model"] = ""
    path = writer(tmp_path / ("usage.json" if writer is hs.write_usage_json else "usage.csv"), records)
    one_line_error(*cli("validate", path), "base_model is empty: a training row names the model it billed")


# ------------------------------------------------------------------------------------------ 12: lesser

def test_item12_a_gzip_compressed_log_is_read_as_it_is(tmp_path):
    """The probe: gzip-compressed logs got "not UTF-8 text"."""
    import gzip
    plain = shapes.write_jsonl(tmp_path / "metrics.jsonl", shapes.sync_records())
    packed = tmp_path / "metrics.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    code, out, err = cli("validate", packed, "--model", "Qwen3-8B", "--format", "json")
    assert code == 0, err
    assert strict_json(out)["tokens"]["sample"] == shapes.EXPECTED["sample"]
    folder = shapes.write_cookbook_dir(tmp_path / "logs" / "run", shapes.sync_records(), shapes.NESTED_CONFIG)
    (folder / "metrics.jsonl.gz").write_bytes(gzip.compress((folder / "metrics.jsonl").read_bytes()))
    (folder / "metrics.jsonl").unlink()   # a log folder whose metrics.jsonl was compressed in place
    code, out, err = cli("validate", folder, "--format", "json")
    assert code == 0 and strict_json(out)["tokens"]["sample"] == shapes.EXPECTED["sample"], err
    console = hs.write_verl_console(tmp_path / "verl.log")
    (tmp_path / "verl.log.gz").write_bytes(gzip.compress(console.read_bytes()))
    code, out, err = cli("validate", tmp_path / "verl.log.gz", "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    assert strict_json(out)["measured"]["gpu_hours"] == pytest.approx(hs.VERL_2025["gpu_hours"])
    (tmp_path / "cut.log.gz").write_bytes(gzip.compress(console.read_bytes())[:200])
    one_line_error(*cli("validate", tmp_path / "cut.log.gz", "--gpu", "H100 SXM"), "is truncated")


def test_item12_a_utf8_byte_order_mark_is_accepted_in_json_jsonl_and_csv(tmp_path):
    bom = b"\xef\xbb\xbf"
    usage = hs.write_usage_json(tmp_path / "usage.json")
    usage.write_bytes(bom + usage.read_bytes())
    code, out, err = cli("validate", usage, "--format", "json")
    assert code == 0, err
    lines = shapes.write_jsonl(tmp_path / "metrics.jsonl", shapes.sync_records())
    lines.write_bytes(bom + lines.read_bytes())
    code, out, err = cli("validate", lines, "--model", "Qwen3-8B", "--format", "json")
    assert code == 0, err
    assert strict_json(out)["tokens"]["sample"] == shapes.EXPECTED["sample"]
    table = hs.write_table(tmp_path / "h.csv", hs.verl_wandb_rows(), "csv")
    table.write_bytes(bom + table.read_bytes())
    assert cli("validate", table, "--gpu", "H100 SXM")[0] == 0


@pytest.mark.parametrize("start", ["2026-99-99T22:00:00Z", "2026-02-30T22:00:00Z", "2099-01-01T00:00:00Z"])
def test_item12_usage_rows_dated_impossibly_or_in_the_future_are_refused(tmp_path, start):
    """The probe: rows dated 2026-99-99 or 2099-… were priced silently."""
    records = hs.usage_records()
    records[0]["bucket_start"] = start
    path = hs.write_usage_csv(tmp_path / "usage.csv", records)
    code, out, err = cli("validate", path)
    one_line_error(code, out, err, f"row 2: bucket_start")
    assert start in err or start[:10] in err


def test_item12_usage_rows_after_the_newest_price_list_are_flagged(tmp_path):
    from tinker_nomics.sources.price_list import newest_snapshot, snapshots
    effective = snapshots()[newest_snapshot()]
    later = f"{int(effective[:4]) + (effective[5:7] == '12')}-{int(effective[5:7]) % 12 + 1:02d}-01T01:00:00Z"
    records = hs.usage_records()
    records[5]["bucket_start"] = later
    code, out, err = cli("validate", hs.write_usage_csv(tmp_path / "usage.csv", records), "--format", "json")
    assert code == 0, err
    assert any(f"1 row(s) dated after the newest price list in data/prices ({newest_snapshot()}" in n
               for n in strict_json(out)["notes"])


def test_item12_a_tiny_calibration_mfu_is_a_bad_calibration_value_naming_the_file(tmp_path):
    """The probe: a tiny MFU in a calibration file was reported as a bad --mfu, a flag the user never passed."""
    path = _calibration(tmp_path, mfu=1e-320)
    code, out, err = cli("estimate", "--workload", "math_rl", "--calibration", path)
    one_line_error(code, out, err, f"{path}: mfu is 1e-320")
    assert "--mfu" not in err and "bad calibration value" in err


def test_item12_a100_suggests_the_a100_entries_first():
    code, out, err = cli("estimate", "--workload", "math_rl", "--gpu", "A100")
    one_line_error(code, out, err, "closest: A100 40GB SXM, A100 80GB SXM, A100 80GB PCIe")


def test_item12_a_folder_holding_only_a_verl_console_log_reads_the_log(tmp_path):
    """The probe: `validate DIR` said the folder has no metrics.jsonl."""
    (tmp_path / "run").mkdir()
    hs.write_verl_console(tmp_path / "run" / "train.log")
    (tmp_path / "run" / "README.txt").write_text("a verl run\n")
    code, out, err = cli("validate", tmp_path / "run", "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    assert strict_json(out)["measured"]["steps"] == hs.VERL_EXPECTED["steps"]
    hs.write_verl_console(tmp_path / "run" / "again.log")
    one_line_error(*cli("validate", tmp_path / "run", "--gpu", "H100 SXM"),
                   "the folder holds 2 console logs (again.log, train.log)")


# ------------------------------------------------------------------------------------------ 11: --force and inputs

CONFIG_JSON = Path(__file__).resolve().parents[1] / "data" / "models" / "configs" / "Qwen--Qwen2.5-7B.json"


def _verl_log(tmp_path) -> Path:
    (tmp_path / "logs").mkdir()
    return hs.write_verl_console(tmp_path / "logs" / "verl.log")


def _linked(tmp_path, original: Path, how: str) -> Path:
    """`original` itself, a symbolic link to it or a hard link to it, under another name."""
    if how == "itself":
        return original
    other = tmp_path / f"{how}-{original.name}"
    (other.symlink_to if how == "symlink" else other.hardlink_to)(original)
    return other


@pytest.mark.parametrize("how", ["itself", "symlink", "hardlink"])
def test_item11_save_calibration_never_overwrites_the_model_config(tmp_path, how):
    """The probe: `--model-config X --save-calibration X --force` replaced the model's config with the calibration.
    The input given as a symbolic link to the destination, or the destination a hard link to the input, is the
    same file too (a destination that is itself a link is refused anyway)."""
    config = tmp_path / "config.json"
    config.write_bytes(CONFIG_JSON.read_bytes())
    log = _verl_log(tmp_path)
    given, target = config, config
    if how == "symlink":
        given = _linked(tmp_path, config, "symlink")
    elif how == "hardlink":
        target = _linked(tmp_path, config, "hardlink")
    code, out, err = cli("validate", log, "--gpu", "H100 SXM", "--model-config", given, "--save-calibration", target,
                         "--force")
    one_line_error(code, out, err, "is the input")
    assert config.read_bytes() == CONFIG_JSON.read_bytes()


@pytest.mark.parametrize("how", ["itself", "symlink", "hardlink"])
def test_item11_report_force_never_replaces_a_usage_export_in_the_report_folder(tmp_path, how):
    """The probe: `--report D --force` with `--usage D/validation.json` overwrote the usage export."""
    logs = shapes.write_cookbook_dir(tmp_path / "logs" / "run", shapes.v061_records(), shapes.NESTED_CONFIG)
    report = tmp_path / "report"
    report.mkdir()
    usage = hs.write_usage_json(tmp_path / "usage.json")
    before = usage.read_bytes()
    if how == "itself":
        usage = hs.write_usage_json(report / "validation.json")
        given = usage
    else:
        (report / "validation.json").unlink(missing_ok=True)
        (report / "validation.json").symlink_to(usage) if how == "symlink" else \
            (report / "validation.json").hardlink_to(usage)
        given = usage
    code, out, err = cli("validate", logs, "--usage", given, "--report", report, "--force")
    one_line_error(code, out, err, "validation.json is the input")
    assert usage.read_bytes() == before


# ------------------------------------------------------------------------------------------ 10: a full disk

@pytest.mark.parametrize("errno_name", ["ENOSPC", "EROFS"])
def test_item10_save_calibration_on_a_full_or_read_only_disk_is_one_line(tmp_path, monkeypatch, errno_name):
    """The disk refuses the write (as a full or read-only file system does); the probe got an internal error."""
    import errno
    import os

    log = _verl_log(tmp_path)

    def refuse(*args, **kwargs):
        code = getattr(errno, errno_name)
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(os, "replace", refuse)
    target = tmp_path / "cal.json"
    code, out, err = cli("validate", log, "--gpu", "H100 SXM", "--model", "Qwen3-8B", "--save-calibration", target)
    one_line_error(code, out, err, f"calibration file {target}: cannot write it")
    assert not target.exists() and [p.name for p in tmp_path.iterdir()] == ["logs"]


# ------------------------------------------------------------------------------------------ issue 19, item 6

UNPRICED_GPU = "H20"   # data/hardware/gpus.csv lists it; no listing in data/hardware/gpu_prices*.csv prices it


def test_issue19_item6_the_unpriced_gpu_is_unpriced_in_the_registry():
    from tinker_nomics import sources
    assert sources.gpu_price_listing(UNPRICED_GPU) is None and sources.get_gpu(UNPRICED_GPU).gpu == UNPRICED_GPU


def test_issue19_item6_estimate_on_a_gpu_without_a_price_gives_times_and_unknown_dollars():
    """The probe: `estimate --gpu H20` exited 2 naming the Python field gpu_hourly_usd."""
    code, out, err = cli("estimate", "--workload", "math_rl", "--gpu", UNPRICED_GPU, "--format", "json")
    assert code == 0, err
    d = strict_json(out)
    sh = d["self_hosted"]
    assert sh["compute_usd"] is None and sh["total_usd"] is None and sh["gpu_hourly_usd"] is None
    assert sh["gpu_hours"] > 0 and sh["wallclock_hours"] > 0 and d["tinker"]["total_usd"] > 0
    assert d["cheaper"] is None        # no side claimed: null, as for a model Tinker does not offer
    (note,) = [n for n in d["notes"] if "$/GPU-hour" in n]
    assert "--gpu-hourly-usd" in note
    priced = strict_json(cli("estimate", "--workload", "math_rl", "--gpu", UNPRICED_GPU, "--gpu-hourly-usd", "2",
                             "--format", "json")[1])
    assert priced["self_hosted"]["gpu_hours"] == sh["gpu_hours"]   # the same hours, now priced
    assert priced["self_hosted"]["compute_usd"] == pytest.approx(2 * sh["gpu_hours"])
    code, out, err = cli("estimate", "--workload", "math_rl", "--gpu", UNPRICED_GPU)
    assert code == 0 and err == ""
    assert "Self-hosted   dollars unknown" in out and "Cheaper       unknown" in out
    assert out.count("--gpu-hourly-usd") == 1 and "gpu_hourly_usd)" in out   # one note names the flag


def test_issue19_item6_validate_a_self_hosted_run_on_a_gpu_without_a_price(tmp_path):
    """The probe: `validate` of an H20 run exited 2 before showing anything."""
    log = _verl_log(tmp_path)
    code, out, err = cli("validate", log, "--gpu", UNPRICED_GPU, "--model", "Qwen3-8B", "--format", "json")
    assert code == 0, err
    d = strict_json(out)
    assert d["measured"]["gpu_hours"] == pytest.approx(hs.VERL_2025["gpu_hours"])
    assert d["measured"]["compute_usd"] is None and d["measured"]["gpu_hourly_usd"] is None
    assert d["predicted"]["step_seconds_mean"] > 0 and d["predicted"]["compute_usd"] is None
    assert d["tinker"]["total_usd"] > 0
    assert any("--gpu-hourly-usd" in n for n in d["notes"])
    code, out, err = cli("validate", log, "--gpu", UNPRICED_GPU, "--model", "Qwen3-8B")
    assert code == 0 and "GPU dollars unknown" in out


def test_issue19_item6_validate_a_tinker_run_priced_on_a_gpu_without_a_price(tmp_path):
    logs = shapes.write_cookbook_dir(tmp_path / "logs" / "run", shapes.sync_records(), shapes.NESTED_CONFIG)
    code, out, err = cli("validate", logs, "--gpu", UNPRICED_GPU, "--format", "json")
    assert code == 0, err
    gpus = strict_json(out)["self_hosted"]
    assert gpus["gpu_hours"] > 0 and gpus["compute_usd"] is None
    assert any("--gpu-hourly-usd" in n for n in gpus["notes"])
    assert "On GPUs       dollars unknown" in cli("validate", logs, "--gpu", UNPRICED_GPU)[1]


@pytest.mark.parametrize("errno_name", ["ENOSPC", "EROFS"])
def test_item10_report_on_a_full_or_read_only_disk_is_one_line(tmp_path, monkeypatch, errno_name):
    """The report's files refused by the disk (as a full or read-only file system does: checked by hand with a
    16 KB tmpfs and a read-only one); the probe got an internal error. Nothing is left beside the report folder."""
    import errno
    import os
    import pathlib
    logs = shapes.write_cookbook_dir(tmp_path / "logs" / "run", shapes.sync_records(), shapes.NESTED_CONFIG)

    def refuse(self, data):
        code = getattr(errno, errno_name)
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(pathlib.Path, "write_bytes", refuse)
    out = tmp_path / "reports" / "r"
    one_line_error(*cli("validate", logs, "--report", out), f"report folder {out}: cannot write it")
    assert list(out.parent.iterdir()) == []
