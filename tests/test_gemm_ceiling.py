"""The calibrated method's GEMMs run against what a GPU sustains, not its boost-clock datasheet peak, where the vendor
measured it: AMD's "Measuring Max-Achievable FLOPs – Part 2" (data/hardware/gemm_ceilings.csv) gives MI300X
708 BF16 / 1,273 FP8 TFLOP/s against datasheet peaks of 1,307.4 / 2,614.9 (its clock under dense load, 1,207 MHz,
against the 2,100 MHz boost), MI325X 843 / 1,519. Every other GPU keeps its datasheet peak. The seed and exact
methods, and a user's MFU, stay on the datasheet peak (MFU's convention).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tinker_nomics.analysis import calibration
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.model import decode, rl_phases
from tinker_nomics.sources import get_arch, gpu_specs, hardware


def test_the_ceilings_are_amd_s_measured_figures_and_the_datasheet_elsewhere():
    mi300x, mi325x, h100 = gpu_specs("MI300X"), gpu_specs("MI325X"), gpu_specs("H100 SXM")
    assert float(mi300x.gemm_bf16_flops) == 708e12 and float(mi300x.gemm_fp8_flops) == 1273e12
    assert float(mi325x.gemm_bf16_flops) == 843e12 and float(mi325x.gemm_fp8_flops) == 1519e12
    assert float(mi300x.bf16_flops) == pytest.approx(1307.4e12)   # the datasheet peak is kept beside it
    assert float(h100.gemm_bf16_flops) == float(h100.bf16_flops)
    assert float(h100.gemm_fp8_flops) == float(h100.fp8_flops)
    both = gpu_specs(np.array(["MI300X", "H100 SXM"]))
    assert list(both.gemm_bf16_flops) == [708e12, float(h100.bf16_flops)]


def test_a_decode_step_computes_against_the_ceiling():
    """A compute-bound step (Llama-3.1-70B FP8, batch 1,024 on 8 MI300X): its compute time at efficiency 1 is its
    FLOPs over the FP8 ceiling."""
    arch, gpus = get_arch("meta-llama/Llama-3.1-70B"), gpu_specs("MI300X")
    f = decode.decode_features(arch, gpus, 8.0, 1024.0, 1000.0, "fp8", "fp8")
    assert float(f.compute_seconds) == pytest.approx(1024.0 * float(decode.token_flops(arch, 1000.0)) / (8 * 1273e12))


def test_the_trainer_s_efficiency_is_scaled_by_the_ceiling_s_share_and_a_user_mfu_is_not():
    arch = get_arch("Qwen/Qwen2.5-7B")
    common = dict(micro_batch_tokens=8000.0)
    amd = rl_phases.rl_features(arch, gpu_specs("MI300X"), 8.0, 512.0, 100.0, 200.0, **common)
    exact = rl_phases.rl_features(arch, gpu_specs("MI300X"), 8.0, 512.0, 100.0, 200.0, terms=rl_phases.EXACT,
                                  **common)
    assert float(amd.gemm_share) == pytest.approx(708e12 / 1307.4e12)
    assert float(exact.gemm_share) == 1.0
    params = calibration.fit_all()
    fitted = rl_phases.phase_seconds(amd, params)
    # a user's MFU: the update's FLOPs over (GPUs × datasheet peak × MFU), whatever the ceiling
    user = rl_phases.phase_seconds(amd, params, mfu=0.3)
    assert float(user.training_seconds) == pytest.approx(float(amd.update_gemm_units) / 0.3)
    h100 = rl_phases.rl_features(arch, gpu_specs("H100 SXM"), 8.0, 512.0, 100.0, 200.0, **common)
    assert float(h100.gemm_share) == 1.0
    # the fitted update on the MI300X: its GEMM time grows by 1 / share against the same step at the datasheet peak
    at_peak = rl_phases.phase_seconds(dataclasses.replace(amd, gemm_share=np.asarray(1.0)), params)
    eta = 1.0 / (1.0 / params.train_gemm_efficiency + float(amd.ridge) / params.train_flops_per_byte)
    eta_ceiling = 1.0 / (1.0 / (params.train_gemm_efficiency * float(amd.gemm_share))
                         + float(amd.ridge) / params.train_flops_per_byte)
    gemm = float(amd.update_gemm_units)
    assert float(fitted.training_seconds - at_peak.training_seconds) == pytest.approx(gemm / eta_ceiling - gemm / eta,
                                                                                     rel=1e-9)


def test_a_ceiling_for_a_gpu_the_registry_lacks_is_one_line(tmp_path, monkeypatch):
    import shutil

    from tinker_nomics import sources
    copy = tmp_path / "data"
    shutil.copytree(sources.data_dir(), copy)
    path = copy / "hardware" / "gemm_ceilings.csv"
    path.write_text(path.read_text().replace("\nMI325X,", "\nMI999X,", 1))
    monkeypatch.setenv("TINKER_NOMICS_DATA", str(copy))
    sources.clear_caches()
    hardware.gemm_ceilings.cache_clear()
    try:
        with pytest.raises(TinkerNomicsError, match="GPU 'MI999X' is not in the GPU registry"):
            gpu_specs("H100 SXM")
    finally:
        monkeypatch.delenv("TINKER_NOMICS_DATA")
        sources.clear_caches()
        hardware.gemm_ceilings.cache_clear()
