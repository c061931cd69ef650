"""GPUs the registry knows only in part. data/hardware/gpus.csv lists some GPUs without a dense BF16 peak (the
model times training and prefill from it), and data/hardware/gpu_prices*.csv prices some GPUs nowhere (the H20).
Each must be a one-line error naming the GPU and the missing figure, or an answer whose unknown part is null,
never NaN presented as a result, a 'defect of the model' message, or another GPU's price.

The GPUs are picked by what the data says of them, and each test checks that first.
"""
from __future__ import annotations

import numpy as np
import pytest

from tinker_nomics import Scenario, estimate, sources
from tinker_nomics.sources.hardware import gpu_price_listing

from test_reliability import cli, one_line_error, strict_json

NO_PEAK = sorted(n for n, g in sources.gpus().items() if not g.bf16_dense_tflops)
UNPRICED = "H20"
PRICED = "H100 SXM"


def test_the_registry_has_gpus_without_a_peak_and_one_without_a_price():
    assert NO_PEAK, "data/hardware/gpus.csv lists a peak for every GPU: these tests would check nothing"
    assert gpu_price_listing(UNPRICED) is None and sources.get_gpu(UNPRICED).bf16_dense_tflops
    assert gpu_price_listing(PRICED) is not None


@pytest.mark.parametrize("gpu", NO_PEAK)
@pytest.mark.parametrize("method", ["calibrated", "seed"])
def test_estimate_on_a_gpu_without_a_peak_names_it(gpu, method):
    one_line_error(*cli("estimate", "--workload", "math_rl", "--gpu", gpu, "--method", method),
                   f"{gpu} has no bf16_dense_tflops in data/hardware/gpus.csv")


@pytest.mark.parametrize("gpu", NO_PEAK)
def test_predict_on_a_gpu_without_a_peak_names_it(gpu):
    one_line_error(*cli("predict", "decode", "--model", "Qwen/Qwen3-8B", "--gpu", gpu, "--num-gpus", 1,
                        "--concurrency", 8, "--input-len", 512, "--output-len", 512), gpu)
    one_line_error(*cli("predict", "rl-step", "--model", "Qwen/Qwen3-8B", "--gpu", gpu, "--num-gpus", 8,
                        "--samples", 256, "--prompt-len", 512, "--response-len", 1024), gpu)


def test_fp8_decode_reads_the_fp8_peak():
    """A GPU with an FP8 peak and no BF16 one (GB300's datasheet figure) decodes FP8 weights, and refuses BF16."""
    fp8_only = [n for n in NO_PEAK if sources.get_gpu(n).fp8_dense_tflops]
    if not fp8_only:
        pytest.skip("no GPU in data/hardware/gpus.csv has an FP8 peak without a BF16 one")
    code, out, err = cli("predict", "decode", "--model", "Qwen/Qwen3-8B", "--gpu", fp8_only[0], "--num-gpus", 1,
                         "--concurrency", 8, "--input-len", 512, "--output-len", 512, "--precision", "fp8",
                         "--format", "json")
    assert code == 0, err
    assert strict_json(out)["output_tokens_per_second"] > 0


def test_an_array_with_a_gpu_without_a_peak_names_only_it():
    with pytest.raises(Exception) as info:
        estimate(Scenario.from_workload("math_rl", gpu=np.array([PRICED, NO_PEAK[0]])))
    assert NO_PEAK[0] in str(info.value) and PRICED not in str(info.value)


@pytest.mark.parametrize("workload", ["math_rl", "exp1a_gsm8k", "exp1b_math"])
def test_an_array_with_an_unpriced_gpu_prices_each_gpu_on_its_own(workload):
    """Each GPU of an array takes its own registry rate (the preset's rate is its own GPU's): the unpriced one's
    dollars are null, the priced one's are its hours at its rate, and `cheaper` is null only for the unpriced."""
    both = estimate(Scenario.from_workload(workload, gpu=np.array([PRICED, UNPRICED])))
    alone = estimate(Scenario.from_workload(workload, gpu=PRICED))
    d = both.to_dict()
    assert d["self_hosted"]["total_usd"][1] is None and d["cheaper"][1] is None
    assert d["self_hosted"]["gpu_hours"][1] > 0
    assert d["self_hosted"]["total_usd"][0] == pytest.approx(alone.to_dict()["self_hosted"]["total_usd"])
    assert d["cheaper"][0] == alone.to_dict()["cheaper"]
    assert any(UNPRICED in note and "unknown" in note for note in both.notes)
