"""A decode GEMM costs at least the rows of its tensor-core instruction (decode.gemm_rows, gemm_tokens): 64 with
Hopper's and Blackwell's warpgroup MMA, 16 with mma.sync, AMD's MFMA and the weight-only Marlin kernels. On a GPU
whose peak is small against its bandwidth (an H20: 148 dense BF16 TFLOP/s against 4 TB/s) this, not the weights'
bytes, sets batch-1 decode: Qwen's speed benchmark measures it (data/measurements/decode_more.csv)."""
from __future__ import annotations

import numpy as np
import pytest

from tinker_nomics.analysis import accuracy
from tinker_nomics.model import decode, rl_phases
from tinker_nomics.model.predict import predict_decode
from tinker_nomics.sources import get_arch, get_gpu, gpu_specs, number


@pytest.mark.parametrize("gpu, precision, rows", [
    ("H100 SXM", "bf16", "warpgroup_mma_rows"), ("H20", "fp8", "warpgroup_mma_rows"),
    ("B200", "bf16", "warpgroup_mma_rows"),
    ("H100 SXM", "int4", "mma_rows"),            # Marlin dequantises with mma.sync on Hopper too
    ("A100 80GB SXM", "bf16", "mma_rows"), ("RTX 4090", "fp8", "mma_rows"),
    ("RTX 5090", "bf16", "mma_rows"),            # compute capability 12.0: no wgmma, no tcgen05
    ("MI300X", "bf16", "mma_rows"),              # no compute capability: MFMA 16 × 16
])
def test_the_rows_follow_the_instruction_the_gpu_has(gpu, precision, rows):
    assert float(decode.gemm_rows(gpu_specs(gpu), precision)) == number(rows)


def test_a_dense_step_costs_the_instruction_s_rows_below_them_and_the_batch_above():
    arch = get_arch("Qwen/Qwen3-8B")
    assert np.array_equal(decode.gemm_tokens(arch, np.array([1.0, 63.0, 64.0, 200.0]), 64.0), [64, 64, 64, 200])


def test_each_routed_expert_costs_its_rows_over_the_tokens_routed_to_it():
    """Qwen3-30B-A3B (128 experts, 8 a token): at batch 1, eight experts each run 16 padded rows for one token;
    at a batch of 10,000 every expert sees 625 tokens and no padding is left."""
    arch = get_arch("Qwen/Qwen3-30B-A3B")
    one = float(decode.gemm_tokens(arch, 1.0, 16.0))
    assert one == pytest.approx(16.0, rel=1e-9)
    assert float(decode.gemm_tokens(arch, 10_000.0, 16.0)) == pytest.approx(10_000.0, rel=1e-6)
    assert float(decode.gemm_tokens(arch, 1.0, 0.0)) == pytest.approx(1.0)


def test_the_rows_do_not_change_a_step_the_weights_bytes_bound():
    """An H100 reads Qwen3-8B's 16 GB in about 5 ms, while 64 rows of its GEMMs take about 1 ms at peak: batch-1
    decode stays bandwidth-bound and its compute term grows 64-fold without mattering."""
    arch, gpus = get_arch("Qwen/Qwen3-8B"), gpu_specs("H100 SXM")
    tiled = decode.decode_features(arch, gpus, 1.0, 1.0, 1024.0)
    plain = decode.decode_features(arch, gpus, 1.0, 1.0, 1024.0, tiles=False)
    assert float(tiled.compute_seconds) > 30 * float(plain.compute_seconds)
    assert float(tiled.compute_seconds) < float(tiled.memory_seconds)


def test_the_seed_and_exact_methods_keep_their_plain_compute():
    assert rl_phases.CALIBRATED.tiles and not rl_phases.EXACT.tiles and not rl_phases.SEED.tiles


def _qwen_h20_rows():
    return [r for r in accuracy.decode_cases(usable_only=True)
            if r["source"] == "Qwen3 speed benchmark (SGLang, H20)" and not get_arch(r["model"]).is_moe]


def _predicted(r) -> float:
    return float(predict_decode(get_arch(r["model"]), get_gpu(r["gpu"]), 1, 1, r["input_tokens"],
                                r["output_tokens"], r["precision"].lower()).output_tokens_per_second)


def test_batch_one_on_an_h20_is_bound_by_the_padded_gemms():
    """Qwen's Qwen3 speed benchmark (SGLang 0.4.6, one H20, batch 1, BF16/FP8/AWQ, 2,048 tokens out): the dense
    rows run at about a third of what the H20's 4 TB/s would allow. With each GEMM charged its instruction's rows
    the calibrated prediction of the BF16 and FP8 rows has a median error within 35% (in the fit: -4% to -38%,
    the padded GEMMs running a little faster than the compute efficiency fitted on large batches) and none is off
    by more than a factor of 1.65; charged the batch alone, the same fit predicts every one of them at least 1.8×
    too fast (the next test)."""
    rows = [r for r in _qwen_h20_rows() if r["precision"] in ("BF16", "FP8")]
    assert len(rows) == 8
    ratios = np.array([_predicted(r) / r["measured_output_tok_s"] for r in rows])
    assert np.median(np.abs(ratios - 1)) < 0.35
    assert np.all(np.abs(np.log(ratios)) < np.log(1.65)), ratios


def test_without_the_rows_the_h20_rows_are_far_too_fast(monkeypatch):
    rows = [r for r in _qwen_h20_rows() if r["precision"] in ("BF16", "FP8")]
    monkeypatch.setattr(decode, "gemm_rows", lambda gpus, precision: np.asarray(0.0))
    for r in rows:
        plain = _predicted(r)
        assert plain > 1.8 * r["measured_output_tok_s"], (r["case_id"], plain)
