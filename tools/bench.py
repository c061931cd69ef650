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

TARGETS = {  # figure -> (target, unit, "<" or ">") from issue 6
    "estimate_1e6_seconds": (1.0, "s", "<"),
    "estimate_speedup_vs_loop": (100.0, "×", ">"),
    "widget_redraw_p95_ms": (150.0, "ms", "<"),
    "book_build_cold_seconds": (180.0, "s", "<"),
    "book_build_cached_seconds": (20.0, "s", "<"),
    "validate_lines_per_second": (50_000.0, "lines/s", ">"),
}


# --------------------------------------------------------------------------- measurements (child side)

def bench_estimate() -> dict:
    import numpy as np
    from tinker_nomics import Scenario, estimate
    n = 1_000_000
    rng = np.random.default_rng(0)
    arrays = dict(prompts_per_step=rng.integers(8, 513, n), group_size=rng.integers(2, 33, n),
                  completion_tokens=rng.integers(128, 16385, n), prompt_tokens=rng.integers(50, 4001, n),
                  steps=rng.integers(10, 1001, n))
    base = Scenario.from_workload("math_rl")
    estimate(base.replace(**{k: v[:10] for k, v in arrays.items()}))   # warm caches
    t0 = time.perf_counter()
    vector = estimate(base.replace(**arrays))
    vector_s = time.perf_counter() - t0
    loop_n = 2000
    t0 = time.perf_counter()
    for i in range(loop_n):
        estimate(base.replace(**{k: int(v[i]) for k, v in arrays.items()}))
    loop_per = (time.perf_counter() - t0) / loop_n
    assert vector.tinker.total_usd.shape == (n,)
    return {"estimate_1e6_seconds": vector_s, "estimate_loop_ms_per_scenario": loop_per * 1e3,
            "estimate_speedup_vs_loop": loop_per * n / vector_s}


def bench_widget() -> dict:
    import matplotlib
    matplotlib.use("Agg")
    import numpy as np
    from IPython.core.pylabtools import print_figure
    import tinker_nomics.widgets as widgets_module
    from tinker_nomics.faces.widgets import Calculator

    rendered = []
    original = widgets_module.display

    def render(obj, *args, **kwargs):  # a Figure is drawn to PNG as the inline backend would; an Image is drawn
        data = getattr(obj, "data", None)
        rendered.append(len(data) if isinstance(data, bytes) else len(print_figure(obj, "png")))
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


def bench_validate() -> dict:
    from tinker_nomics.runs import validate
    lines = 100_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "metrics.jsonl"
        with open(path, "w") as fh:
            for step in range(lines):
                fh.write(json.dumps({"step": step, "progress/batch": step, "env/all/total_ac_tokens": 500_000 + step,
                                     "env/all/total_ob_tokens": 20_000, "env/all/total_episodes": 1024,
                                     "env/all/total_turns": 1024, "env/all/reward/total": 0.5,
                                     "time/total": 60.0}) + "\n")
        t0 = time.perf_counter()
        validate.validate_run(path, model="Qwen3-8B", prices="2026-01-05")
        seconds = time.perf_counter() - t0
    return {"validate_100k_lines_seconds": seconds, "validate_lines_per_second": lines / seconds}


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


MEASUREMENTS = {"estimate": bench_estimate, "widget": bench_widget, "montecarlo": bench_montecarlo,
                "validate": bench_validate, "validate_verl": bench_validate_verl, "notebooks": bench_notebooks, "book": bench_book}


# --------------------------------------------------------------------------- driver (parent side)

def run_child(name: str) -> dict:
    proc = subprocess.run([PY, __file__, "--child", name], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "Agg"})
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
    lines = [f"{'figure':42s} {'value':>14s}   target"]
    for key, value in results.items():
        target = TARGETS.get(key)
        shown = f"{value:,.3g}" if isinstance(value, float) else str(value)
        goal = ""
        if target:
            limit, unit, sense = target
            ok = value < limit if sense == "<" else value > limit
            goal = f"{sense} {limit:,g} {unit}  {'met' if ok else 'MISSED'}"
        lines.append(f"{key:42s} {shown:>14s}   {goal}")
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
