"""Benchmarks: `make bench` prints one JSON object, then a readable table with each figure next to its target.

Each measurement runs in its own Python process so its peak memory (max RSS) is its own. Times are wall-clock
on this machine; run on an idle machine for figures worth recording in the README.

    python tools/bench.py              # everything (includes two book builds: a few minutes)
    python tools/bench.py --only estimate,widget
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

TARGETS = {  # figure -> (target, unit, "<", ">", "≤" or "≥"): issue 6, issue 11 (to_frame), issue 22 (validate)
    "estimate_1e6_seconds": (1.0, "s", "<"),
    "estimate_1e6_first_call_seconds": (1.0, "s", "<"),
    "estimate_1e6_seed_seconds": (1.0, "s", "<"),
    "estimate_1e6_exact_seconds": (1.0, "s", "<"),
    "estimate_speedup_vs_loop": (100.0, "×", ">"),
    "to_frame_1e6_seconds": (1.0, "s", "<"),
    "widget_redraw_p95_ms": (150.0, "ms", "<"),
    "book_build_cold_seconds": (180.0, "s", "<"),
    "book_build_cached_seconds": (20.0, "s", "<"),
    "validate_table_lines_per_second": (100_000.0, "lines/s", "≥"),
    "validate_table_peak_memory_mb": (500.0, "MB", "≤"),
    "validate_json_lines_per_second": (100_000.0, "lines/s", "≥"),
    "validate_json_peak_memory_mb": (500.0, "MB", "≤"),
    "validate_per_step_parquet_lines_per_second": (100_000.0, "lines/s", "≥"),
    "validate_per_step_parquet_peak_memory_mb": (500.0, "MB", "≤"),
    "validate_per_step_jsonl_lines_per_second": (100_000.0, "lines/s", "≥"),
    "validate_per_step_jsonl_peak_memory_mb": (500.0, "MB", "≤"),
    "validate_report_seconds": (60.0, "s", "<"),
    "validate_report_peak_memory_mb": (500.0, "MB", "≤"),
    "validate_trainer_state_json_peak_memory_mb": (500.0, "MB", "≤"),
    "validate_columns_json_peak_memory_mb": (500.0, "MB", "≤"),
    "validate_split_json_peak_memory_mb": (500.0, "MB", "≤"),
    "plan_seconds": (2.0, "s", "<"),                      # issue 21: >= 5,000 candidates x 1,000 draws
    "plan_candidates": (5000.0, "options", "≥"),
    "plan_cli_seconds": (2.0, "s", "<"),
}
# `tinker-nomics validate` on the 1,000,000-line log, end to end as a user runs it (reading, pricing on both sides,
# writing): case -> the options after the log. Each runs in a process of its own.
VALIDATE_CASES = {"table": [], "json": ["--format", "json"],
                  "per_step_parquet": ["--format", "json", "--per-step", "{tmp}/steps.parquet"],
                  "per_step_jsonl": ["--format", "json", "--per-step", "{tmp}/steps.jsonl"],
                  "report": ["--report", "{tmp}/report"]}
# Runs the command in this process, its output thrown away, and reports its own peak memory and that of its
# child processes (the part readers, the report's chapter and kernel), which are separate processes.
CLI_PROBE = """import json, os, resource, sys, time
from tinker_nomics.faces.cli import main
t0, c0 = time.perf_counter(), os.times()
code = main(sys.argv[1:])
c1 = os.times()
print(json.dumps({"code": code, "seconds": time.perf_counter() - t0, "cpu": sum(c1[:4]) - sum(c0[:4]),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "children_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}), file=sys.stderr)
"""
VALIDATE_LINES = 1_000_000
BUNDLED_LOG = ROOT / "data" / "runs" / "omnimath" / "gptoss-20b-v3b-metrics.jsonl"


# --------------------------------------------------------------------------- measurements (child side)

def bench_estimate() -> dict:
    import numpy as np
    from tinker_nomics import Scenario, estimate
    n = 1_000_000
    rng = np.random.default_rng(0)
    arrays = dict(prompts_per_step=rng.integers(8, 513, n), group_size=rng.integers(2, 33, n),
                  completion_tokens=rng.integers(128, 16385, n), prompt_tokens=rng.integers(50, 4001, n),
                  steps=rng.integers(10, 1001, n))
    t0 = time.perf_counter()   # the first call of the process: the registries and the fit are read inside it
    base = Scenario.from_workload("math_rl")
    first = estimate(base.replace(**arrays))
    first_s = time.perf_counter() - t0
    assert first.tinker.total_usd.shape == (n,)
    del first
    t0 = time.perf_counter()
    vector = estimate(base.replace(**arrays))
    vector_s = time.perf_counter() - t0
    loop_n = 2000
    t0 = time.perf_counter()
    for i in range(loop_n):
        estimate(base.replace(**{k: int(v[i]) for k, v in arrays.items()}))
    loop_per = (time.perf_counter() - t0) / loop_n
    assert vector.tinker.total_usd.shape == (n,)
    estimate(base.replace(**{k: v[:10] for k, v in arrays.items()})).to_frame()   # warm: imports pandas
    t0 = time.perf_counter()
    frame = vector.to_frame()
    frame_s = time.perf_counter() - t0
    assert len(frame) == n
    columns = len(frame.columns)
    del frame, vector
    other = {}
    for method in ("seed", "exact"):          # the other two methods' paths, same scenarios, after a first call each
        estimate(base.replace(method=method, **arrays))
        t0 = time.perf_counter()
        estimate(base.replace(method=method, **arrays))
        other[f"estimate_1e6_{method}_seconds"] = time.perf_counter() - t0
    return {**other, "estimate_1e6_seconds": vector_s, "estimate_1e6_first_call_seconds": first_s,
            "estimate_loop_ms_per_scenario": loop_per * 1e3,
            "estimate_speedup_vs_loop": loop_per * n / vector_s, "to_frame_1e6_seconds": frame_s,
            "to_frame_1e6_columns": columns}


def bench_widget() -> dict:
    import matplotlib
    matplotlib.use("Agg")
    import numpy as np
    from IPython.core.pylabtools import print_figure
    import tinker_nomics.faces.widgets as widgets_module
    from tinker_nomics.faces.widgets import Calculator

    rendered = []
    original = widgets_module.display

    def render(obj, *args, **kwargs):  # a Figure is drawn to PNG as the inline backend would; an Image or SVG
        data = getattr(obj, "data", None)  # (show_png's drawing) is already drawn
        rendered.append(len(data) if isinstance(data, (bytes, str)) else len(print_figure(obj, "png")))
    widgets_module.display = render
    try:
        calc = Calculator("swe_rl")
        times = []
        for i in range(40):
            t0 = time.perf_counter()
            calc.controls["turns"].value = 10 + i % 30
            times.append(time.perf_counter() - t0)
    finally:
        widgets_module.display = original
    assert rendered and all(rendered)
    times_ms = np.array(times) * 1e3
    return {"widget_redraw_p50_ms": float(np.percentile(times_ms, 50)),
            "widget_redraw_p95_ms": float(np.percentile(times_ms, 95))}


def bench_montecarlo() -> dict:
    from tinker_nomics.analysis import uncertainty
    t0 = time.perf_counter()
    uncertainty.simulate("swe_rl", n=100_000, seed=0)
    return {"montecarlo_1e5_seconds": time.perf_counter() - t0}


def bench_plan() -> dict:
    """`plan` on math_rl with the committed offers (every candidate, 1,000 draws): the planner's own call after the
    imports, and the command end to end as a user runs it (a fresh process, JSON out)."""
    from tinker_nomics import Scenario
    from tinker_nomics.analysis import plan
    scenario = Scenario.from_workload("math_rl")
    plan.plan(scenario, workload="math_rl", deadline_hours=24, draws=50)       # warm the registries
    t0 = time.perf_counter()
    result = plan.plan(scenario, workload="math_rl", deadline_hours=24, draws=1000)
    seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    proc = subprocess.run([PY, "-m", "tinker_nomics", "plan", "--workload", "math_rl", "--deadline", "1d", "--format",
                           "json"], cwd=ROOT, capture_output=True, text=True)
    cli = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["options_considered"] == len(result.options)
    return {"plan_seconds": seconds, "plan_candidates": float(len(result.options)), "plan_draws": result.draws,
            "plan_cli_seconds": cli}


def write_cookbook_log(path: Path, lines: int) -> int:
    """A cookbook-shaped metrics.jsonl of `lines` lines: the bundled gpt-oss-20b v3b log (async, stream-minibatch,
    eval rows on lines of their own, ~1.8 KB a line) repeated with its step numbers moved on each time. Returns
    the number of bytes written."""
    import re
    template = []
    for line in BUNDLED_LOG.read_bytes().splitlines():
        m = re.match(rb'\{"step": (\d+), ', line)
        template.append((int(m.group(1)), line[m.end():]))
    span = max(step for step, _ in template) + 1
    written = size = 0
    with open(path, "wb") as fh:
        for repeat in range(lines // len(template) + 1):
            chunk = [b'{"step": %d, %s\n' % (step + repeat * span, rest) for step, rest in template]
            chunk = chunk[:lines - written]
            data = b"".join(chunk)
            fh.write(data)
            written += len(chunk)
            size += len(data)
            if written >= lines:
                break
    return size


def bench_validate() -> dict:
    """`tinker-nomics validate` on the 1,000,000-line log the parent wrote (BENCH_LOG), end to end, once per case of
    VALIDATE_CASES: the command's wall-clock time and lines per second (its reader splits a log this large across
    one process per CPU), CPU seconds (its own and its children's: the figure that does not depend on what else the
    machine is doing), its own peak memory (the target's figure) and its children's (the largest of them; a child
    forked from the command counts the command's pages until it starts its own program, so the report's figure
    repeats the command's)."""
    path = Path(os.environ["BENCH_LOG"])
    lines = int(os.environ["BENCH_LINES"])
    out = {"validate_log_mb": path.stat().st_size / 1e6}
    for case, options in VALIDATE_CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            args = ["validate", str(path), "--model", "openai/gpt-oss-20b", "--prices", "2026-01-05",
                    *(o.format(tmp=tmp) for o in options)]
            proc = subprocess.run([PY, "-c", CLI_PROBE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, cwd=ROOT)
        probe = json.loads(proc.stderr.strip().splitlines()[-1])
        if probe["code"] != 0:
            raise RuntimeError(f"validate {case} failed: {proc.stderr.strip().splitlines()[-2:]}")
        name = f"validate_{case}"
        if case == "report":
            out[f"{name}_seconds"] = probe["seconds"]
        else:
            out[f"{name}_lines_per_second"] = lines / probe["seconds"]
            out[f"{name}_seconds"] = probe["seconds"]
        out[f"{name}_lines_per_cpu_second"] = lines / probe["cpu"]
        out[f"{name}_peak_memory_mb"] = probe["peak_mb"]
        out[f"{name}_children_peak_memory_mb"] = probe["children_peak_mb"]
    return out


def bench_validate_verl() -> dict:
    """A verl console log of 50,000 steps (the 2025 format of tests/hosted_shapes.py, a noise line after each step
    line), checked end to end: the reader streams it and keeps a compact per-step table."""
    sys.path.insert(0, str(ROOT / "tests"))
    import hosted_shapes as hs
    from tinker_nomics.runs.ledger import check_run
    steps = 50_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "verl.log"
        with open(path, "w") as fh:
            for step in range(1, steps + 1):
                line = hs.step_line(step, hs.verl_metrics((step - 1) % 4, "2025"), "2025")
                fh.write(f"\x1b[36m(TaskRunner pid=4242)\x1b[0m {line}\n")
                fh.write(f"Training Progress:  1%| | {step}/{steps} [00:32<00:00, 32.17s/it]\n")
        size = path.stat().st_size
        t0 = time.perf_counter()
        result = check_run(path, gpu="H100 SXM", num_gpus=8, model="Qwen3-8B", prices="2026-01-05")
        seconds = time.perf_counter() - t0
    assert result.measured.totals["steps"] == steps
    return {"validate_verl_50k_steps_seconds": seconds, "validate_verl_lines_per_second": 2 * steps / seconds,
            "validate_verl_file_mb": size / 1e6}


def bench_validate_nemo() -> dict:
    """A NeMo RL W&B history export of 50,000 steps (CSV, the columns of tests/test_nemo_rl.py's run), checked end
    to end: read as a stream into the compact per-step table."""
    sys.path.insert(0, str(ROOT / "tests"))
    import run_shapes
    import test_nemo_rl as nemo
    from tinker_nomics.runs.ledger import check_run
    steps = 50_000
    template = nemo.nemo_rows()[1:4]     # steps 1-3: no validation or checkpoint
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nemo.csv"
        rows = ({**template[i % 3], "_step": i + 1, "_runtime": 60.0 * (i + 1)} for i in range(steps))
        run_shapes.write_wandb_csv(path, list(rows))
        size = path.stat().st_size
        t0 = time.perf_counter()
        result = check_run(path, gpu="H100 SXM", num_gpus=8, model="Qwen3-8B", prices="2026-01-05")
        seconds = time.perf_counter() - t0
    assert result.measured.totals["steps"] == steps
    return {"validate_nemo_50k_steps_seconds": seconds, "validate_nemo_rows_per_second": steps / seconds,
            "validate_nemo_file_mb": size / 1e6}


def bench_validate_wandb() -> dict:
    """A verl run's W&B run file (run-<id>.wandb) of 50,000 steps, written as the W&B SDK writes it (the writer of
    tests/test_wandb_file.py), checked end to end: its chunks and records read as a stream."""
    from tinker_nomics.runs.ledger import check_run
    steps = 50_000
    writer = ("import sys; sys.path.insert(0, 'tests'); from pathlib import Path; import hosted_shapes as hs; "
              "import test_wandb_file as wf; wf.write_file(Path(sys.argv[1]), [wf.config(hs.CONFIG)] + "
              "[wf.history(s, hs.verl_metrics((s - 1) % 4, '2026')) for s in range(1, int(sys.argv[2]) + 1)])")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run-bench.wandb"   # written by a process of its own: the peak below is validate's
        subprocess.run([PY, "-c", writer, str(path), str(steps)], cwd=ROOT, check=True)
        size = path.stat().st_size
        t0 = time.perf_counter()
        result = check_run(path, gpu="H100 SXM", prices="2026-01-05")
        seconds = time.perf_counter() - t0
    assert result.measured.totals["steps"] == steps
    return {"validate_wandb_50k_steps_seconds": seconds, "validate_wandb_records_per_second": steps / seconds,
            "validate_wandb_file_mb": size / 1e6}


DOCUMENT_WRITER = """import json, sys; sys.path.insert(0, 'tests'); import hosted_shapes as hs, pandas as pd
kind, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == 'trainer_state':
    entry = hs.trl_entries()[0]
    with open(path, 'w') as fh:
        fh.write('{"epoch": 1.0, "global_step": %d, "log_history": [\\n' % (2 * n))
        fh.write(',\\n'.join(json.dumps(dict(entry, step=2 * i, num_tokens=20000 * i)) for i in range(1, n + 1)))
        fh.write('\\n], "logging_steps": 2}\\n')
else:
    base = hs.verl_wandb_rows()[1]
    pd.DataFrame([dict(base, _step=i) for i in range(1, n + 1)]).to_json(path, orient=kind)
"""
# one-document logs: log entries (or rows) -> the CLI's options after the log
DOCUMENT_CASES = {"trainer_state": (300_000, ["--gpu", "H100 SXM", "--num-gpus", "2", "--model", "Qwen3-8B",
                                              "--prompts-per-step", "4", "--group-size", "8"]),
                  "columns": (100_000, ["--gpu", "H100 SXM", "--num-gpus", "8", "--model", "Qwen3-8B"]),
                  "split": (100_000, ["--gpu", "H100 SXM", "--num-gpus", "8", "--model", "Qwen3-8B"])}


def bench_validate_documents() -> dict:
    """Logs saved as one JSON document, checked end to end by `tinker-nomics validate` in a process of its own: a
    TRL trainer_state.json (its log_history read an entry at a time) and a W&B history saved by pandas in its
    "columns" and "split" layouts (a column, or a data row, at a time). Each file is written by a process of its
    own, so the peak memory is validate's."""
    out = {}
    for kind, (entries, options) in DOCUMENT_CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / ("trainer_state.json" if kind == "trainer_state" else "history.json")
            subprocess.run([PY, "-c", DOCUMENT_WRITER, kind, str(path), str(entries)], cwd=ROOT, check=True)
            proc = subprocess.run([PY, "-c", CLI_PROBE, "validate", str(path), *options], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, cwd=ROOT)
            probe = json.loads(proc.stderr.strip().splitlines()[-1])
            if probe["code"] != 0:
                raise RuntimeError(f"validate {kind} failed: {proc.stderr.strip().splitlines()[-2:]}")
            out[f"validate_{kind}_json_mb"] = path.stat().st_size / 1e6
            out[f"validate_{kind}_json_seconds"] = probe["seconds"]
            out[f"validate_{kind}_json_peak_memory_mb"] = probe["peak_mb"]
    return out


def bench_notebooks() -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import toc_notebooks   # the same list of chapters the tests execute
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for nb in toc_notebooks():
            t0 = time.perf_counter()
            subprocess.run([str(Path(PY).parent / "papermill"), str(nb), f"{tmp}/out.ipynb", "--cwd",
                            str(nb.parent), "-k", "python3"], check=True, capture_output=True)
            out[f"notebook_{nb.stem}_seconds"] = time.perf_counter() - t0
    return out


def bench_book() -> dict:
    build = ROOT / "_build"
    backup = None
    if build.exists():
        backup = Path(tempfile.mkdtemp()) / "_build"
        shutil.move(str(build), backup)
    try:
        t0 = time.perf_counter()
        subprocess.run(["tools/build_book.sh"], cwd=ROOT, check=True, capture_output=True)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        subprocess.run(["tools/build_book.sh"], cwd=ROOT, check=True, capture_output=True)
        cached = time.perf_counter() - t0
    finally:
        if backup is not None:
            shutil.rmtree(build, ignore_errors=True)
            shutil.move(str(backup), build)
    return {"book_build_cold_seconds": cold, "book_build_cached_seconds": cached}


MEASUREMENTS = {"estimate": bench_estimate, "widget": bench_widget, "montecarlo": bench_montecarlo, "plan": bench_plan,
                "validate": bench_validate, "validate_verl": bench_validate_verl, "validate_nemo": bench_validate_nemo,
                "validate_wandb": bench_validate_wandb, "validate_documents": bench_validate_documents,
                "notebooks": bench_notebooks,
                "book": bench_book}


# --------------------------------------------------------------------------- driver (parent side)

def run_child(name: str) -> dict:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    with tempfile.TemporaryDirectory() as tmp:
        if name == "validate":   # the log is written here, so the child's peak memory is validate's alone
            env["BENCH_LOG"], env["BENCH_LINES"] = str(Path(tmp) / "metrics.jsonl"), str(VALIDATE_LINES)
            write_cookbook_log(Path(env["BENCH_LOG"]), VALIDATE_LINES)
        proc = subprocess.run([PY, __file__, "--child", name], cwd=ROOT, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {f"{name}_error": tail}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def child(name: str) -> None:
    result = MEASUREMENTS[name]()
    # ru_maxrss is in KiB on Linux; children (papermill, jupyter-book) counted separately
    result[f"{name}_peak_memory_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if kids:
        result[f"{name}_children_peak_memory_mb"] = kids
    print(json.dumps(result))


def table(results: dict) -> str:
    width = max([42, *(len(k) for k in results)])
    lines = [f"{'figure':{width}s} {'value':>14s}   target"]
    for key, value in results.items():
        target = TARGETS.get(key)
        shown = f"{value:,.3g}" if isinstance(value, float) else str(value)
        goal = ""
        if target:
            limit, unit, sense = target
            ok = {"<": value < limit, ">": value > limit, "≤": value <= limit, "≥": value >= limit}[sense]
            goal = f"{sense} {limit:,g} {unit}  {'met' if ok else 'MISSED'}"
        lines.append(f"{key:{width}s} {shown:>14s}   {goal}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated subset of: " + ", ".join(MEASUREMENTS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0
    names = args.only.split(",") if args.only else list(MEASUREMENTS)
    results: dict = {"machine_cpus": os.cpu_count()}
    for name in names:
        results.update(run_child(name))
    print(json.dumps(results))
    print()
    print(table(results))
    return 1 if any(k.endswith("_error") for k in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
