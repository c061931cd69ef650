"""The calibrated method's fit (analysis/calibration.py, tools/calibrate.py, data/calibration/*.csv).

Measured values: data/measurements/decode_cases.csv, rl_step_cases.csv and rl_phase_cases.csv (usable rows),
built from the raw published rows by tools/build_measurement_cases.py. Nothing here pins a fitted number: the
committed tables must be what a fresh fit writes, no fitted parameter may sit on a bound of its range, and the
held-out errors must come from fits that never saw the family they judge.
"""
import csv
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from tinker_nomics import sources
from tinker_nomics.analysis import calibration
from tinker_nomics.sources.calibration import (PARAMETER_NAMES, fitted_values, model_error, parameters,
                                               regime_errors)

REPO = sources.data_dir().parent


def test_committed_tables_are_what_the_fit_writes():
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "calibrate.py"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_no_fitted_parameter_sits_on_a_bound():
    """A value the measurements push against its limit is a defect of the model (issue 19): every searched
    parameter is inside its range, and the committed range is the search range of analysis/calibration.py."""
    searched = 0
    for name, value in fitted_values().items():
        assert (value.low is None) == (not value.how.startswith("searched")), name
        if value.low is None:
            assert not value.on_bound      # a stated prior or a median, not a search: no range to sit on
            continue
        searched += 1
        low, high, _ = calibration.RANGES[name]
        assert (value.low, value.high) == (low, high), name
        assert not value.on_bound, f"{name} = {value.value:g} on a bound of [{low:g}, {high:g}]"
        assert not calibration.on_bound(name, value.value)
    assert searched == len(calibration.RANGES)     # this fit searches every parameter it has a range for


def test_on_bound_tells_an_end_from_the_inside():
    for name, (low, high, start) in calibration.RANGES.items():
        assert calibration.on_bound(name, low) and calibration.on_bound(name, high)
        assert not calibration.on_bound(name, (low + high) / 2)
        assert not calibration.on_bound(name, high - 0.01 * (high - low))


def test_the_package_reads_the_fit_it_wrote():
    fit = calibration.fit_all()
    table = parameters()
    for name in PARAMETER_NAMES:
        assert getattr(table, name) == pytest.approx(getattr(fit, name), rel=1e-5, abs=1e-12), name


def test_parameters_are_physical():
    p = parameters()
    for share in (p.decode_bandwidth_efficiency, p.decode_compute_efficiency, p.weight_only_efficiency,
                  p.train_gemm_efficiency, p.moe_gemm_share):
        assert 0 < share <= 1
    for seconds in (p.decode_step_overhead_seconds, p.decode_sequence_overhead_seconds,
                    p.allreduce_latency_seconds, p.generation_overhead_seconds, p.micro_batch_overhead_seconds,
                    p.step_overhead_seconds, p.rollout_sequence_overhead_seconds):
        assert 0 <= seconds < 120
    assert p.response_max_over_mean >= 1 and p.train_flops_per_byte > 0


def test_rows_above_the_physical_limit_are_screened_with_the_reason():
    """A 70B model at batch 1 on one H100 cannot read its 70 GB of FP8 weights 120 times a second (3.35 TB/s);
    the Spheron blog's 120–130 tok/s rows are left out of the fit, and say why."""
    cases = {c.case_id: c for c in calibration.decode_cases()}
    spheron = [c for c in cases.values() if c.source == "Spheron blog" and "batch1" in c.regimes]
    assert spheron and all(c.screened.startswith("above the physical limit") for c in spheron)
    kept = [c for c in cases.values() if not c.screened]
    limit = calibration.predict_decode(kept, calibration._physical_limit())
    assert np.all(np.array([c.measured for c in kept]) <= limit * (1 + 1e-9))


def test_versions_of_one_page_are_one_family():
    families = {c.family for c in calibration.rl_cases()} | {c.family for c in calibration.decode_cases()}
    assert not any(f.startswith("NeMo RL v0.") for f in families)
    nemo = {c.source for c in calibration.rl_cases() if c.family.startswith("NeMo RL")}
    assert len(nemo) >= 2      # v0.4, v0.5, v0.6 of the performance summary share the family


def test_a_held_out_family_never_touches_its_fit(monkeypatch):
    """Leave-one-family-out: doubling every measurement of the held-out family leaves its fit unchanged, and
    changes the fit that includes it."""
    cases = calibration.decode_cases()
    family = next(c.family for c in cases if not c.screened and c.family != cases[0].family)
    held_out, everything = calibration.fit_decode(exclude_family=family), calibration.fit_decode()
    doubled = tuple(replace(c, measured=c.measured * 2) if c.family == family else c for c in cases)
    monkeypatch.setattr(calibration, "decode_cases", lambda: doubled)
    assert calibration.fit_decode(exclude_family=family) == held_out
    assert calibration.fit_decode() != everything


def test_each_family_weighs_the_same():
    weights = calibration._weights(["a", "a", "a", "a", "b"])
    assert weights[:4].sum() ** 2 / 4 == pytest.approx(weights[4] ** 2)   # squared weight per family: equal
    assert np.all(weights[:4] == 0.5) and weights[4] == 1.0


def test_errors_by_regime_are_held_out_and_complete():
    frame = calibration.errors_by_regime()
    committed = regime_errors()
    for row in frame.itertuples():
        stored = committed[(row.quantity, row.regime)]
        assert stored.cases == row.cases and stored.median_abs_error == pytest.approx(row.median_abs_error, abs=1e-4)
    for quantity in ("decode", "rl_step"):
        assert (quantity, "all") in committed and committed[(quantity, "all")].families >= 2
    decode = calibration.held_out_decode()
    assert set(decode["case_id"]) == {c.case_id for c in calibration.decode_cases() if not c.screened}


def test_model_error_falls_back_to_all_cases_where_a_regime_has_one_family():
    table = regime_errors()
    thin = [key for key, row in table.items() if row.families < 2 and key[0] == "rl_step"]
    for quantity, regime in thin:
        assert model_error(quantity, regime) == table[(quantity, "all")].log_sd
    assert model_error("rl_step", "no such regime") == table[("rl_step", "all")].log_sd


def test_parameter_table_names_its_inputs():
    with open(REPO / "data" / "calibration" / "parameters.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["parameter"] for r in rows] == list(PARAMETER_NAMES)
    for r in rows:
        assert r["inputs"] and r["unit"] and r["fitted"]


def test_the_real_verl_runs_phase_rows_are_what_their_logs_give():
    """data/measurements/rl_phases.csv holds, for each real verl log in ../shared/realdata/verl_runs (read in place,
    never copied), the phase means tools/import_verl_phases.py computes from it with the package's verl reader."""
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "import_verl_phases.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def test_a_prior_keeps_a_search_the_cases_cannot_decide_off_its_bounds(monkeypatch):
    """The RL cases' GPUs (H100, GB200) share one ridge point, so they cannot tell the training GEMM efficiency from
    the memory term beside it, and one family trains a mixture of experts: searched on the cases alone, the GEMM
    efficiency and the memory term trade off along a valley the cases do not decide (the memory term all but vanishes,
    or the efficiency runs to an end of its range) and the mixture-of-experts share runs up to the top of its range.
    Searched with their stated priors beside the cases, they end inside it, near the FlashAttention paper's 72% and
    Megatron-Core's 39% / 47% MFU ratio; a fold with no mixture-of-experts case leaves that share where its prior
    puts it."""
    decode_fit = calibration.fit_decode()
    with monkeypatch.context() as patch:       # neither a prior's residual nor a hold at the prior: the bare search
        for name in ("train_gemm_efficiency", "moe_gemm_share"):
            patch.delitem(calibration.PRIOR_SPREAD, name)
            patch.delitem(calibration.PRIORS, name)
        bare = calibration.fit_rl(decode_fit=decode_fit)
    with_priors = calibration.fit_all()
    assert calibration.on_bound("train_gemm_efficiency", bare.train_gemm_efficiency) \
        or bare.train_flops_per_byte > 5.0 * with_priors.train_flops_per_byte
    assert bare.moe_gemm_share > 0.95
    full = calibration.fit_all()
    for name in ("train_gemm_efficiency", "moe_gemm_share"):
        assert not calibration.on_bound(name, getattr(full, name))
        assert getattr(full, name) == pytest.approx(calibration.PRIORS[name][0], rel=0.05), name
    assert calibration.held_at_prior(full, calibration.RL_RANGES) == ()
    moe_families = {c.family for c in calibration.rl_cases() if "moe" in c.regimes}
    assert len(moe_families) == 1                # so leaving that family out leaves no MoE case to fit
    fold = calibration.fit_rl(exclude_family=moe_families.pop(), decode_fit=decode_fit)
    assert fold.moe_gemm_share == pytest.approx(39.0 / 47.0, rel=1e-3)


def test_the_check_forgives_only_the_last_digits():
    """tools/calibrate.py --check: a fit's last printed digit may differ between CPUs; a real change may not."""
    sys.path.insert(0, str(REPO / "tools"))
    import calibrate as tool
    header = "parameter,value,fitted\n"
    assert tool.same_table(header + "a,328.605,2026-01-01\n", header + "a,328.604,2026-12-03\n")
    assert not tool.same_table(header + "a,328.605,x\n", header + "a,330.0,x\n")
    assert not tool.same_table(header + "a,0.2329,x\n", header + "a,0.2455,x\n")
    assert not tool.same_table(header + "a,1,x\n", header + "a,1,x\nb,2,x\n")
    assert not tool.same_table(header + "a,held,x\n", header + "a,free,x\n")


def test_rl_cases_fall_only_in_rl_regimes():
    """The accuracy chapter lists the RL regimes no published step measures (calibration.unmeasured_rl_regimes).
    Today's usable RL steps are NeMo RL's and verl's full fine-tunes on H100 and GB200: they fall in the
    mixture-of-experts, TP >= 4 and long-context regimes and in no decode-only regime, so LoRA and compute-poor
    GPUs are the unmeasured ones. A LoRA step on an H20 (dense BF16 peak 148 TFLOP/s over 4.0 TB/s, data/hardware/
    gpus_added.csv, far below the 100 FLOPs-per-byte mark) falls in both; the same model on one H100 in neither."""
    cases = calibration.rl_cases()
    assert {r for c in cases for r in c.regimes} == {"moe", "tp4plus", "long_context"}
    assert calibration.unmeasured_rl_regimes() == ("lora", "compute_poor")
    h20 = calibration._rl_case("x", "s", "f", "Qwen/Qwen3-8B", "H20", 4, 256, 200, 800, None, critic=False,
                               reference=True, optimizer_steps=None, off_policy=0.0, rollout_tp=None, fine_tune="lora",
                               measured={"step": 100.0}, includes_refit=False, max_over_mean=None)
    assert set(h20.regimes) == {"lora", "compute_poor"}
    assert calibration.rl_regimes(sources.get_arch("Qwen/Qwen3-8B"), calibration.gpu_specs("H100 SXM"), 1.0, 1000,
                                   "full") == ()
