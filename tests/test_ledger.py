"""The other side of the ledger, and the command line around it: Tinker runs priced on GPUs, Tinker's usage export
read, priced under the snapshot in force on each row's date and reconciled with a log, `validate` on self-hosted
logs (JSON keys, refusals), `--save-calibration` / `estimate --calibration`, and that nothing is written into a
log folder.

Expected token counts are the hand-computed ones in tests/run_shapes.py and tests/hosted_shapes.py; rates are read
from the registry for the snapshot each row must use, so the test checks which snapshot is chosen, not a typed rate.
"""
import json
import math

import numpy as np
import pytest

import hosted_shapes as hs
import run_shapes as shapes
from test_runs_cli import folder_hash
from test_runs_cli import run as cli
from tinker_nomics import TinkerNomicsError
from tinker_nomics.model.rl_step import rl_steps
from tinker_nomics.runs.calibration_file import load_calibration
from tinker_nomics.runs.ledger import TinkerCheck, UsageBill, check_run
from tinker_nomics.runs.tinker_usage import price_usage, read_usage, snapshot_on
from tinker_nomics.sources import default_gpu_price, get_arch, get_gpu, get_price, number, storage_usd_per_gb_month


@pytest.fixture
def cookbook(tmp_path):
    """tinker-cookbook 0.6.1 shape (cache hits logged), Qwen/Qwen3-8B: meters sample 6400, train 5060, prefill 640."""
    return shapes.write_cookbook_dir(tmp_path / "logs" / "run", shapes.v061_records(), shapes.NESTED_CONFIG)


# ------------------------------------------------------------------------------------------ Tinker run on GPUs


def test_a_tinker_run_is_priced_on_gpus_step_by_step(cookbook):
    check = check_run(cookbook, prices="2026-01-05", gpu="H100 SXM", num_gpus=8)
    assert isinstance(check, TinkerCheck)
    g = check.on_gpus
    # run_shapes: 4 training steps of 8 episodes, ac = 1000..1300, ob = 100..130 tokens per step
    hosted = rl_steps(arch=get_arch(shapes.MODEL), gpu=get_gpu("H100 SXM"), num_gpus=8, samples=np.full(4, 8.0),
                      prompt_tokens=np.array(shapes.OB) / 8, response_tokens=np.array(shapes.AC) / 8,
                      method=g.method, fine_tune="lora")
    assert float(g.per_step["train_seconds"].sum()) == pytest.approx(float(np.sum(hosted.train_hours)) * 3600)
    assert float(g.per_step["rollout_seconds"].sum()) == pytest.approx(float(np.sum(hosted.rollout_hours)) * 3600)
    assert g.gpu_hourly_usd == default_gpu_price("H100 SXM").usd_per_gpu_hour
    assert g.compute_usd == pytest.approx(g.gpu_hours * g.gpu_hourly_usd)
    d = check.to_dict()
    assert d["ran_on"] == "tinker" and d["self_hosted"]["gpu"] == "H100 SXM" and d["measured"]["steps"] == 4
    assert d["tokens"]["sample"] == shapes.EXPECTED_FINAL["sample"]


# ------------------------------------------------------------------------------------------ usage export


@pytest.mark.parametrize("writer", [hs.write_usage_csv, hs.write_usage_json])
def test_usage_export_rows_are_read_by_name(tmp_path, writer):
    export = read_usage(writer(tmp_path / ("u.csv" if writer is hs.write_usage_csv else "u.json")))
    assert len(export.rows) == len(hs.USAGE_ROWS) + 1
    mine = export.rows[export.rows["base_model"] == hs.USAGE_MODEL]
    tokens = mine[mine["type"] != "storage"]
    assert float(tokens.loc[tokens["type"] == "sampling_sample", "quantity"].sum()) == hs.USAGE_BILLED["sample"]
    assert list(mine["cached"].dropna()) == [False, True, False, True]


def test_each_row_is_priced_under_the_snapshot_in_force_on_its_date(tmp_path):
    priced = price_usage(read_usage(hs.write_usage_json(tmp_path / "u.json")), hs.USAGE_MODEL)
    rows = priced.rows
    assert snapshot_on("2026-07-16") == "2026-H1" and snapshot_on("2026-07-17") == "2026-07-17"
    expected = 0.0
    for start, kind, cached, qty in hs.USAGE_ROWS:
        snap = snapshot_on(start[:10])
        price = get_price(hs.USAGE_MODEL, snap)
        if kind == "storage":
            expected += storage_usd_per_gb_month(snap) * qty / number("gigabyte_hours_per_month")
        elif kind == "checkpoint":
            continue
        else:
            meter = {"training": "train", "sampling_sample": "sample", "sampling_prefill": "prefill"}[kind]
            rate = price.cached_prefill if cached and price.cached_prefill is not None else price.rate(meter)
            expected += qty * rate / 1e6
    assert priced.total_usd == pytest.approx(expected, rel=1e-12)
    assert set(rows["snapshot"]) == {"2026-H1", "2026-07-17"}
    assert any("no cached-prefill rate" in n for n in priced.notes)        # 2026-H1 has none
    assert any("other models left out" in n for n in priced.notes)


def test_usage_reconciles_with_the_log_per_meter(tmp_path, cookbook):
    usage = hs.write_usage_csv(tmp_path / "usage.csv")
    check = check_run(cookbook, prices="2026-10-07", usage=str(usage), sessions=[hs.SESSION])
    table = check.usage.table.set_index("meter")
    logged = {"sample": 6400.0, "train": 5060.0, "prefill": 640.0, "cached_prefill": 340.0}   # run_shapes v061
    for meter, billed in hs.USAGE_BILLED.items():
        assert table.loc[meter, "billed_tokens"] == billed
        assert table.loc[meter, "log_tokens"] == logged[meter]
        assert table.loc[meter, "difference"] == logged[meter] - billed
    assert table.loc["sample", "relative_difference"] == pytest.approx(-10 / 6410)
    d = check.to_dict()["usage"]
    assert d["sign_convention"].startswith("difference = log − billed")
    assert "Usage export" in check.render()


def test_usage_export_alone_is_priced(tmp_path):
    bill = check_run(hs.write_usage_json(tmp_path / "usage.json"))
    assert isinstance(bill, UsageBill)
    d = bill.to_dict()
    assert d["models"] == ["Qwen/Qwen3-8B", "openai/gpt-oss-20b"] and len(d["rows"]) == len(hs.USAGE_ROWS) + 1
    assert d["total_usd"] == pytest.approx(bill.priced.total_usd) and "Priced" in bill.render()


def test_usage_errors_are_one_line(tmp_path, cookbook):
    bad = tmp_path / "bad.csv"
    bad.write_text("bucket_start,type,token_count\n2026-07-16T00:00:00Z,sampling_sample,-5\n")
    with pytest.raises(TinkerNomicsError, match=r"row 2: token_count is -5"):
        read_usage(bad)
    with pytest.raises(TinkerNomicsError, match="no rows for session"):
        check_run(cookbook, usage=str(hs.write_usage_csv(tmp_path / "u.csv")), sessions=["nope"])
    with pytest.raises(TinkerNomicsError, match="--usage"):
        check_run(cookbook, sessions=["x"])


# ------------------------------------------------------------------------------------------ the command line


def test_validate_a_verl_log_json_keys(tmp_path):
    log = hs.write_verl_console(tmp_path / "c.log")
    code, out, err = cli("validate", log, "--gpu", "H100 SXM", "--prices", "2026-01-05", "--format", "json")
    assert code == 0 and err == ""
    d = json.loads(out)
    for dotted in ("measured.steps", "measured.step_seconds_mean", "measured.generation_seconds_mean",
                   "measured.training_seconds_mean", "measured.gpu_hours", "predicted.step_seconds_mean",
                   "error.step_seconds", "tinker.total_usd"):
        node = d
        for part in dotted.split("."):
            node = node[part]
        assert isinstance(node, (int, float)) and math.isfinite(node), dotted
    assert d["measured"]["steps"] == 4 and d["measured"]["gpu_hours"] == hs.VERL_2025["gpu_hours"]
    assert "validation is inside" in d["measured"]["basis"]["gpu_hours"]
    assert d["ran_on"] == "self-hosted" and d["framework"] == "verl" and d["gpu"] == "H100 SXM"
    assert "NaN" not in out and "Infinity" not in out


def test_validate_table_for_a_verl_log(tmp_path):
    code, out, err = cli("validate", hs.write_verl_console(tmp_path / "c.log"), "--gpu", "B200")
    assert code == 0 and err == ""
    for needle in ("Measured      step", "GPU-hours", "Model         method", "Would match", "On Tinker     $"):
        assert needle in out


@pytest.mark.parametrize("args, needle", [
    (["--ran-on", "tinker"], "which ran on self-hosted GPUs"),
    (["--usage", "x.csv"], "--usage cannot apply to a verl log"),
    (["--num-gpus", "0"], "--num-gpus must be a finite number from 1 to 1e+06, got 0"),
    (["--num-gpus", "nan"], "--num-gpus must be a finite number from 1 to 1e+06, got nan"),
    (["--gpu-hourly-usd", "-1"], "--gpu-hourly-usd must be"),
    (["--gpu", "H1OO"], "unknown GPU"),
    (["--model", "no-such-model"], "unknown model"),
    (["--force"], "--force only applies"),
    (["--cached-prefill", "logged"], "--cached-prefill logged cannot apply"),
    (["--save-calibration", ""], "--save-calibration needs a path"),
])
def test_validate_bad_options_are_one_line(tmp_path, args, needle):
    code, out, err = cli("validate", hs.write_verl_console(tmp_path / "c.log"), *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err, err


def test_save_calibration_round_trips_into_estimate(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    log = hs.write_verl_console(logs / "c.log")
    before = folder_hash(logs)
    target = tmp_path / "cal.json"
    code, out, err = cli("validate", log, "--gpu", "H100 SXM", "--save-calibration", target, "--format", "json")
    assert code == 0 and err == "", err
    fitted = json.loads(out)["fitted"]
    cal = load_calibration(target)
    assert cal.rollout_efficiency == pytest.approx(fitted["rollout_efficiency"])
    assert cal.mfu == pytest.approx(fitted["step_mfu"])
    assert cal.run["model"] == hs.VERL_MODEL and cal.run["num_gpus"] == hs.GPUS and cal.run["gpu"] == "H100 SXM"
    code, out, err = cli("estimate", "--workload", "math_rl", "--calibration", target, "--format", "json")
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["scenario"]["rollout_efficiency"] == pytest.approx(cal.rollout_efficiency)
    assert d["scenario"]["mfu"] == pytest.approx(cal.mfu) and d["scenario"]["method"] == cal.method
    assert any("from calibration" in n for n in d["notes"])
    code, out, _ = cli("estimate", "--workload", "math_rl", "--calibration", target, "--mfu", "0.3", "--format",
                       "json")
    assert json.loads(out)["scenario"]["mfu"] == 0.3            # an explicit flag still wins
    assert folder_hash(logs) == before                           # the log folder is untouched
    code, _, err = cli("validate", log, "--gpu", "H100 SXM", "--save-calibration", target)
    assert code == 2 and "exists; pass --force" in err
    code, _, err = cli("validate", log, "--gpu", "H100 SXM", "--save-calibration", logs / "cal.json")
    assert code == 2 and "inside the run's log folder" in err
    assert folder_hash(logs) == before


def test_calibration_needs_a_self_hosted_run(tmp_path, cookbook):
    code, _, err = cli("validate", cookbook, "--save-calibration", tmp_path / "c.json", "--prices", "2026-01-05")
    assert code == 2 and "needs a self-hosted run" in err


def test_a_bad_calibration_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "tinker-nomics calibration", "version": 1, "mfu": 1.5, "method": "seed",
                               "run": {}}))
    code, _, err = cli("estimate", "--workload", "math_rl", "--calibration", bad)
    assert code == 2 and "mfu is 1.5" in err and err.count("\n") == 1


def test_validate_a_trl_folder(tmp_path):
    folder = hs.write_trainer_state(tmp_path / "trl")
    code, out, err = cli("validate", folder, "--prompts-per-step", 4, "--group-size", 8, "--num-gpus", 2, "--gpu",
                         "H100 SXM", "--prices", "2026-01-05", "--format", "json")
    assert code == 0 and err == "", err
    d = json.loads(out)
    assert d["framework"] == "TRL" and d["measured"]["steps"] == 6
    assert d["measured"]["gpu_hours"] == pytest.approx(hs.TRL_EXPECTED["gpu_hours"])
    assert d["tinker"]["tokens"]["sample"] == hs.TRL_EXPECTED["generated_tokens"]


def test_validate_a_tinker_run_adds_the_gpu_side(cookbook):
    code, out, err = cli("validate", cookbook, "--prices", "2026-01-05", "--gpu", "H200 SXM", "--num-gpus", "4")
    assert code == 0 and err == "" and "On GPUs" in out and "4 × H200 SXM" in out
    code, out, err = cli("validate", cookbook, "--ran-on", "self-hosted")
    assert code == 2 and "which ran on Tinker" in err


def test_report_refuses_a_usage_export_alone(tmp_path):
    (tmp_path / "exports").mkdir()
    code, _, err = cli("validate", hs.write_usage_csv(tmp_path / "exports" / "u.csv"), "--report", tmp_path / "out")
    assert code == 2 and "usage export alone" in err and not (tmp_path / "out").exists()


def test_make_validate_passes_the_gpus(tmp_path):
    import subprocess
    from pathlib import Path
    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.run(["make", "-n", "--no-print-directory", "validate", "RUN=logs/verl.log", "GPU=H100 SXM",
                           "NUM_GPUS=16", "RAN_ON=self-hosted"], capture_output=True, text=True, cwd=repo)
    line = " ".join(proc.stdout.replace("\\\n", " ").split())
    assert proc.returncode == 0 and '--gpu "H100 SXM"' in line and '--num-gpus "16"' in line
    assert '--ran-on "self-hosted"' in line and '--report "reports/verl"' in line


@pytest.mark.slow
def test_report_renders_for_a_verl_log_and_a_trl_folder(tmp_path):
    import nbformat
    logs = tmp_path / "logs"
    logs.mkdir()
    log = hs.write_verl_console(logs / "c.log", "2026")
    trl = hs.write_trainer_state(logs / "trl")
    before = folder_hash(logs)
    for path, extra in ((log, ["--gpu", "H100 SXM"]), (trl, ["--prompts-per-step", "4", "--group-size", "8"])):
        out = tmp_path / f"report-{path.name}"
        code, stdout, err = cli("validate", path, *extra, "--report", out)
        assert code == 0, err
        nb = nbformat.read(out / "run_validation.ipynb", as_version=4)
        errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                  if o.output_type == "error"]
        assert not errors
        assert json.loads((out / "validation.json").read_text())["ran_on"] == "self-hosted"
    assert folder_hash(logs) == before


def test_a_calibration_above_one_is_not_saved(tmp_path):
    """A run faster than the model at full utilization cannot be written as an efficiency: one line, no file."""
    from tinker_nomics.runs.calibration_file import calibration_record
    with pytest.raises(TinkerNomicsError, match="fitted mfu is 1.5, outside"):
        calibration_record({"rollout_efficiency": 0.5, "mfu": 1.5, "method": "seed", "run": {}})
    record = calibration_record({"rollout_efficiency": float("nan"), "mfu": 0.2, "method": "seed", "run": {}})
    assert record["rollout_efficiency"] is None
