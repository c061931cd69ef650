"""The calibrated method's fit (analysis/calibration.py, tools/calibrate.py, data/calibration/efficiencies.csv).

Measured values: data/measurements/decode_cases.csv and rl_step_cases.csv (usable rows), built from the raw
published rows by tools/build_measurement_cases.py. The leave-one-source-out medians pinned here are regression
pins of this repository's fit; the issue's targets (median |signed error| at most 30% for decode tokens/s and
35% for RL step time on sources the fit has not seen) are checked on them too.
"""
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from tinker_nomics import sources
from tinker_nomics.analysis import calibration
from tinker_nomics.sources.calibration import efficiencies, fitted_values, model_error

REPO = sources.data_dir().parent


def test_committed_table_is_what_the_fit_writes():
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "calibrate.py"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_package_reads_the_table():
    eff, fit = efficiencies(), calibration.fit_all()
    for name in ("bandwidth_dense", "bandwidth_moe", "compute", "tp_sync_seconds", "tail", "mfu_dense", "mfu_moe"):
        assert getattr(eff, name) == pytest.approx(getattr(fit, name), rel=1e-5)   # the table keeps 6 digits
    for value in fitted_values().values():
        assert value.cases > 0 and value.source.startswith("tools/calibrate.py") and value.inputs


def test_efficiencies_are_physical():
    eff = efficiencies()
    for share in (eff.bandwidth_dense, eff.bandwidth_moe, eff.compute, eff.mfu_dense, eff.mfu_moe):
        assert 0 < share <= 1
    assert eff.tp_sync_seconds > 0 and eff.tail >= 0
    assert model_error("decode") > 0 and model_error("rl_step") > 0


def test_a_value_on_the_top_of_its_range_is_reported_as_a_bound():
    """The book says when a fitted efficiency is its search ceiling (the cost model and takeaway chapters), so
    `at_upper_bound` must tell the ceiling from an interior value and from one just below it."""
    for name, (low, high) in {**calibration.DECODE_BOUNDS, **calibration.RL_BOUNDS}.items():
        assert calibration.at_upper_bound(name, high)
        assert not calibration.at_upper_bound(name, (low + high) / 2)
        assert not calibration.at_upper_bound(name, high * (1 - 1e-3))   # near the ceiling is not on it


def test_held_out_source_never_touches_its_fit(monkeypatch):
    """Leave-one-source-out: doubling every measurement of the held-out source leaves its fit unchanged (and
    changes the fit that includes it)."""
    terms = calibration.decode_terms()
    source = "LMDeploy benchmark"
    held_out, everything = calibration.fit_decode(exclude=source), calibration.fit_decode()
    doubled = replace(terms, measured=np.where(terms.source == source, terms.measured * 2, terms.measured))
    calibration.clear_caches()
    monkeypatch.setattr(calibration, "decode_terms", lambda: doubled)
    try:
        assert calibration.fit_decode(exclude=source) == held_out
        assert calibration.fit_decode() != everything
    finally:
        monkeypatch.undo()
        calibration.clear_caches()


# Leave-one-source-out median |signed error| per source (regression pins of this fit).
DECODE_LOSO = {"TensorRT-LLM perf-overview": 0.108, "tim-wang blog": 0.408, "NVIDIA NIM": 0.237,
               "Vultr B200 cookbook": 0.259, "Spheron blog": 0.660, "AMD ROCm vLLM": 1.494,
               "LMDeploy benchmark": 0.145}
RL_LOSO = {"NeMo RL v0.4": 0.230, "NeMo RL v0.5": 0.310, "NeMo RL v0.6": 0.260, "verl benchmark report (H100)": 0.289}


def test_decode_loso_medians():
    frame = calibration.loso_decode()
    per = frame.groupby("source")["signed_error"].apply(calibration.median_abs)
    assert per.to_dict() == pytest.approx(DECODE_LOSO, abs=1e-3)
    overall = calibration.median_abs(frame["signed_error"])
    assert overall == pytest.approx(0.255, abs=1e-3) and overall <= sources.number("target_decode_error")


def test_rl_loso_medians():
    frame = calibration.loso_rl()
    per = frame.groupby("source")["signed_error"].apply(calibration.median_abs)
    assert per.to_dict() == pytest.approx(RL_LOSO, abs=1e-3)
    overall = calibration.median_abs(frame["signed_error"])
    assert overall == pytest.approx(0.289, abs=1e-3) and overall <= sources.number("target_rl_step_error")


def test_calibrated_beats_the_default_methods_out_of_sample():
    table = calibration.comparison_table().set_index(["quantity", "method", "source"])["median_abs_error"]
    for quantity in ("decode tokens/s", "RL step time"):
        calibrated = table[(quantity, "calibrated (LOSO)", "all sources")]
        for method in ("seed", "exact"):
            assert calibrated < table[(quantity, method, "all sources")]


def test_objective_weighs_sources_equally():
    measured = np.array([1.0, 1.0, 1.0, 1.0])
    source = np.array(["a", "a", "a", "b"])
    predicted = np.array([2.0, 2.0, 2.0, 1.0])      # source a is off by 2x on three rows, b exact on one
    assert calibration.objective(predicted, measured, source) == pytest.approx(np.log(2) / 2)
