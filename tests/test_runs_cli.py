"""`tinker-nomics validate`: the contract's JSON keys, exit codes, one-line errors, the report folder rules,
and that validating never changes the log folder. Rendering a report executes the chapter: marked slow.
"""
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import run_shapes as shapes
from tinker_nomics.faces.cli import main
from tinker_nomics.sources.bundled_runs import bundled_runs

REPO = Path(__file__).resolve().parents[1]
V3B = bundled_runs()["gptoss-20b-v3b"].path


def run(*args):
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def folder_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
            digest.update(str(path.stat().st_mtime_ns).encode())
    return digest.hexdigest()


@pytest.fixture
def log_dir(tmp_path):
    return shapes.write_cookbook_dir(tmp_path / "logs" / "run1", shapes.async_records(), shapes.NESTED_CONFIG)


def test_json_has_the_contract_keys(log_dir, tmp_path):
    rows = tmp_path / "steps.jsonl"
    code, out, err = run("validate", log_dir, "--prices", "2026-01-05", "--format", "json", "--per-step", rows)
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["model"] == "Qwen/Qwen3-8B" and d["prices"] == "2026-01-05" and d["steps"] == 4
    assert {k: d["tokens"][k] for k in ("sample", "train", "prefill", "eval_sample", "eval_prefill")} == \
        shapes.EXPECTED_FINAL
    for key in ("sample_usd", "train_usd", "prefill_usd", "total_usd"):
        assert isinstance(d["tinker"][key], float)
    assert d["calibration"]["sign_convention"].startswith("signed error = (predicted - measured) / measured")
    assert isinstance(d["caveats"], list) and "per_step" not in d and d["per_step_file"] == str(rows)
    per_step = [json.loads(line) for line in rows.read_text().splitlines()]   # 4 steps and the final eval's row
    assert len(per_step) == 5 and sum(r["sample_tokens"] for r in per_step) == shapes.EXPECTED_FINAL["sample"]


def test_table_output_for_each_omnimath_log():
    for b in bundled_runs().values():
        code, out, err = run("validate", b.path, "--model", b.model, "--prices", "2026-01-05",
                             *(["--price-as", b.price_as] if b.price_as else []))
        assert code == 0 and err == "", err
        assert "Tinker        $" in out and "sample" in out and "Calibration" in out
        if b.price_as:
            assert f"billed as {b.price_as}" in out


def test_price_as_and_cached_group_options():
    code, out, _ = run("validate", V3B, "--model", "gpt-oss-20b", "--prices", "2026-10-07", "--cached-prefill",
                       "group", "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["tinker"]["cached_prefill"]["mode"] == "group"
    assert d["tinker"]["cached_prefill"]["tokens"] == pytest.approx(25_995_888 * 15 / 16)   # G = 16, runs.csv
    code, out, _ = run("validate", V3B, "--model", "Qwen/Qwen3-30B-A3B-Instruct-2507", "--price-as",
                       "Qwen3-30B-A3B", "--prices", "2026-01-05")
    assert code == 0 and "billed as Qwen/Qwen3-30B-A3B" in out


@pytest.mark.parametrize("args, needle", [
    (["validate", "no/such/file.jsonl", "--model", "Qwen3-8B"], "no/such/file.jsonl: no such file or folder"),
    (["validate", V3B], "which model? no config.json beside it; pass --model"),
    (["validate", V3B, "--model", "Qwen/Qwen3-30B-A3B-Instruct-2507", "--prices", "2026-01-05"],
     "Tinker prices it in no snapshot; to bill it at another model's rates use --price-as MODEL"),
    (["validate", V3B, "--model", "Qwen3-30B-A3B", "--prices", "2026-10-07"], "it is priced in 2026-01-05, 2026-H1"),
    (["validate", V3B, "--model", "gpt-oss-20b", "--prices", "1999-01-01"], "unknown price snapshot"),
    (["validate", V3B, "--model", "gpt-oss-21b"], "unknown model 'gpt-oss-21b'; closest"),
    (["validate", V3B, "--model", "gpt-oss-20b", "--force"], "--force only applies with --report DIR"),
    (["validate", V3B, "--model", "gpt-oss-20b", "--group-size", "many"], "expects a number"),
    (["validate", V3B, "--model", "gpt-oss-20b", "--cached-prefill", "maybe"], "invalid choice"),
    (["validate"], "the following arguments are required: PATH"),
])
def test_bad_input_exits_2_with_one_line(args, needle):
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_bad_log_lines_name_file_and_line(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text(json.dumps(shapes.sync_records()[0]) + "\nnot json\n")
    code, _, err = run("validate", path, "--model", "Qwen3-8B")
    assert code == 2 and f"{path}: line 2: not JSON" in err and err.count("\n") == 1


def test_mixed_runs_need_run(tmp_path):
    rows = shapes.wandb_rows(shapes.sync_records())
    path = shapes.write_chart_csv(tmp_path / "panel.csv", {"a": rows, "b": rows})
    code, _, err = run("validate", path, "--model", "Qwen3-8B")
    assert code == 2 and "mixed runs in one export (a, b); pick one with --run NAME" in err
    code, out, _ = run("validate", path, "--model", "Qwen3-8B", "--run", "b", "--format", "json")
    assert code == 0 and json.loads(out)["run_name"] == "b"


def test_report_folder_rules(log_dir, tmp_path):
    inside = log_dir / "report"
    for target in (inside, log_dir):
        code, _, err = run("validate", log_dir, "--report", target, "--force")
        assert code == 2 and "is inside the run's log folder" in err
    code, _, err = run("validate", log_dir / "metrics.jsonl", "--report", log_dir / "r")   # a file: its folder
    assert code == 2 and "is inside the run's log folder" in err
    existing = tmp_path / "existing"
    existing.mkdir()
    code, _, err = run("validate", log_dir, "--report", existing)
    assert code == 2 and "exists; pass --force" in err
    assert not inside.exists() and not (log_dir / "r").exists()


def test_validating_never_changes_the_log_folder(log_dir, tmp_path):
    (log_dir / "metrics.jsonl").chmod(0o444)
    before = folder_hash(log_dir.parent)
    for args in ([], ["--format", "json"], ["--cached-prefill", "group"], ["--prices", "2026-10-07"]):
        code, _, _ = run("validate", log_dir, *args)
        assert code == 0
    code, _, _ = run("validate", log_dir, "--report", log_dir / "x")
    assert code == 2
    assert folder_hash(log_dir.parent) == before


def test_python_module_entry_point(log_dir):
    proc = subprocess.run([sys.executable, "-m", "tinker_nomics", "validate", str(log_dir), "--prices", "2026-01-05"],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0 and "Tinker" in proc.stdout


def test_make_validate_calls_the_cli():
    proc = subprocess.run(["make", "-n", "--no-print-directory", "validate", f"RUN={V3B}", "MODEL=openai/gpt-oss-20b",
                           "PRICES=2026-10-07", "FORCE=1"], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0
    line = next(x for x in proc.stdout.replace("\\\n", " ").splitlines() if "tinker_nomics validate" in x)
    assert f'validate "{V3B}"' in line and '--model "openai/gpt-oss-20b"' in line
    assert '--prices "2026-10-07"' in line and '--report "reports/gptoss-20b-v3b-metrics"' in line
    assert "--force" in line
    help_text = subprocess.run(["make", "help"], capture_output=True, text=True, cwd=REPO).stdout
    assert "validate" in help_text and "RUN=<path>" in help_text


# ------------------------------------------------------------------------------------ rendering (slow)

def _executed_cleanly(notebook: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(notebook, as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    return nb


@pytest.mark.slow
def test_report_renders_for_a_cookbook_folder_and_refuses_to_overwrite(log_dir, tmp_path):
    before = folder_hash(log_dir.parent)
    out = tmp_path / "reports" / "run1"
    code, stdout, err = run("validate", log_dir, "--report", out)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "run_validation.ipynb", "summary.txt",
                                                     "validation.json"]
    nb = _executed_cleanly(out / "run_validation.ipynb")
    assert nb.metadata["papermill"]["parameters"]["run_path"] == str(log_dir.resolve())
    assert nb.metadata["papermill"]["parameters"]["report_file"]   # the check validate printed (faces.report)
    assert json.loads((out / "validation.json").read_text())["steps"] == 4
    assert f"Report: {out.resolve() / 'run_validation.ipynb'}" in stdout
    code, _, err = run("validate", log_dir, "--report", out)
    assert code == 2 and "exists; pass --force" in err
    code, _, err = run("validate", log_dir, "--report", out, "--force")
    assert code == 0, err
    assert folder_hash(log_dir.parent) == before


@pytest.mark.slow
def test_report_renders_for_a_wandb_export_with_price_as(tmp_path):
    (tmp_path / "exports").mkdir()
    path = shapes.write_wandb_csv(tmp_path / "exports" / "history.csv", shapes.wandb_rows(shapes.sync_records()))
    out = tmp_path / "report"
    code, _, err = run("validate", path, "--model", "Qwen/Qwen3-30B-A3B-Instruct-2507", "--price-as", "Qwen3-30B-A3B",
                       "--prices", "2026-01-05", "--report", out)
    assert code == 0, err
    _executed_cleanly(out / "run_validation.ipynb")


def _markdown_outputs(nb) -> list[str]:
    """The Markdown a chapter displays from code (its kind-specific paragraphs), with MyST's escaped $ plain."""
    return [output["data"]["text/markdown"].replace("\\$", "$") for cell in nb.cells
            for output in cell.get("outputs", []) if "text/markdown" in output.get("data", {})]


@pytest.mark.slow
def test_report_page_and_summary_show_the_same_bill(tmp_path):
    """Issue 11 defect 5: with --cached-prefill group the page's headline ignored the option ($570.64) that
    summary.txt applied ($567.13); both now come from one Validation."""
    out = tmp_path / "report"
    code, _, err = run("validate", V3B, "--model", "gpt-oss-20b", "--prices", "2026-10-07", "--cached-prefill", "group",
                       "--report", out)
    assert code == 0, err
    nb = _executed_cleanly(out / "run_validation.ipynb")
    summary = (out / "summary.txt").read_text()
    headline = next(line for line in summary.splitlines() if line.startswith("Tinker"))
    total = re.match(r"Tinker +(\$[\d,.]+) =", headline).group(1)
    assert any(f"cost **{total}**" in text for text in _markdown_outputs(nb))
    uncached = json.loads(subprocess.run([sys.executable, "-m", "tinker_nomics", "validate", str(V3B), "--model",
                                          "gpt-oss-20b", "--prices", "2026-10-07", "--cached-prefill", "none",
                                          "--format", "json"], capture_output=True, text=True, cwd=REPO).stdout)
    assert f"${uncached['tinker']['total_usd']:,.2f}" != total   # the option changes the bill
