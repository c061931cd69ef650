"""GPUs the registry knows only in part. data/hardware/gpus.csv lists some GPUs without a dense BF16 peak (the
model times training and prefill from it), and data/hardware/gpu_prices*.csv prices some GPUs nowhere (the H20).
Each must be a one-line error naming the GPU and the missing figure, or an answer whose unknown part is null,
never NaN presented as a result, a 'defect of the model' message, or another GPU's price.

The GPUs are picked by what the data says of them, and each test checks that first.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tinker_nomics import Scenario, TinkerNomicsError, estimate, sources
from tinker_nomics.model.predict import predict_decode
from tinker_nomics.sources import hardware
from tinker_nomics.sources.hardware import gpu_price_listing, gpu_specs

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


def test_fp8_decode_reads_the_fp8_peak(monkeypatch):
    """A GPU with an FP8 peak and no BF16 one decodes FP8 weights, and refuses BF16. GB300 was such a GPU until
    gpus_added.csv completed its BF16 peak (2026-12-03); the test removes that peak again, so it keeps checking."""
    fp8_only = [n for n in NO_PEAK if sources.get_gpu(n).fp8_dense_tflops]
    gpu = fp8_only[0] if fp8_only else "GB300"
    table = dict(hardware.gpus())
    table[gpu] = replace(table[gpu], bf16_dense_tflops=None)
    monkeypatch.setattr(hardware, "gpus", lambda: table)
    code, out, err = cli("predict", "decode", "--model", "Qwen/Qwen3-8B", "--gpu", gpu, "--num-gpus", 1,
                         "--concurrency", 8, "--input-len", 512, "--output-len", 512, "--precision", "fp8",
                         "--format", "json")
    assert code == 0, err
    assert strict_json(out)["output_tokens_per_second"] > 0
    one_line_error(*cli("predict", "decode", "--model", "Qwen/Qwen3-8B", "--gpu", gpu, "--num-gpus", 1,
                        "--concurrency", 8, "--input-len", 512, "--output-len", 512), f"{gpu} has no bf16_dense_tflops")


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


# ------------------------------------------------------------------------ GPUs added or completed on 2026-12-03

ADDED = ["T4", "V100 32GB SXM", "A100 40GB PCIe", "A40", "L40", "RTX 3090", "MI250X", "H200 NVL", "A30"]
COMPLETED = ["GB300"]   # gpus.csv rows whose empty BF16 peak a gpus_added.csv row fills


@pytest.mark.parametrize("gpu", ADDED + COMPLETED)
@pytest.mark.parametrize("method", ["calibrated", "exact", "seed"])
def test_decode_on_an_added_gpu_is_finite(gpu, method):
    """Each GPU answers `predict decode` (the function the CLI calls): a finite, positive tokens/s on one GPU and
    on a tensor-parallel pair (which reads its link row)."""
    assert sources.get_gpu(gpu).bf16_dense_tflops and gpu in hardware.links()
    arch = sources.get_arch("Llama-3.2-3B")
    for num_gpus in (1, 2):
        tps = predict_decode(arch, sources.get_gpu(gpu), num_gpus, 8, 128, 128, method=method).output_tokens_per_second
        assert np.isfinite(tps) and tps > 0, (gpu, method, num_gpus, tps)


def test_added_gpus_carry_their_datasheet_figures():
    """The figures the model reads are the sourced ones (dense; FP16 tensor peak for GPUs without BF16)."""
    # NVIDIA T4 datasheet: 'GPU Memory 16 GB GDDR6 300 GB/sec', 'Mixed-Precision (FP16/FP32) 65 TFLOPS',
    # 'Interconnect Bandwidth 32 GB/sec' (x16 PCIe Gen3, both directions); no FP8, so FP8 falls back to the 16-bit peak
    t4 = gpu_specs("T4")
    assert float(t4.bandwidth_bytes_per_s) == 300e9 and float(t4.memory_bytes) == 16e9
    assert float(t4.bf16_flops) == 65e12 == float(t4.fp8_flops)
    assert float(t4.link_bytes_per_s) == 16e9 and t4.link_kind == "pcie"
    assert "No BF16: the bf16_dense_tflops column holds the FP16 tensor peak" in sources.get_gpu("T4").description
    # NVIDIA V100 datasheet: SXM2 'Tensor Performance 125 TFLOPS', '32GB HBM2 900GB/sec', NVLink '300GB/sec'
    v100 = gpu_specs("V100 32GB SXM")
    assert (float(v100.bf16_flops), float(v100.bandwidth_bytes_per_s), float(v100.link_bytes_per_s)) == \
        (125e12, 900e9, 150e9)
    assert sources.get_gpu("V100 32GB") is sources.get_gpu("V100 32GB SXM")   # the SXM alias, as for the A100s
    # NVIDIA H200 product page, NVL column: BF16 1,671 and FP8 3,341 TFLOPS 'With sparsity', 4.8 TB/s
    h200 = gpu_specs("H200 NVL")
    assert (float(h200.bf16_flops), float(h200.fp8_flops)) == (1671e12 / 2, 3341e12 / 2)
    # NVIDIA L40 datasheet: 'BFLOAT16 Tensor Core TFLOPS 181.05 | 362.1*', 'FP8 Tensor Core 362 | 724*' (* sparsity)
    assert (float(gpu_specs("L40").bf16_flops), float(gpu_specs("L40").fp8_flops)) == (181.05e12, 362e12)
    # AMD: MI250X 383.0 TFLOPS BF16 (MI200 has no sparsity and no FP8), 128 GB HBM2e at 3.2 TB/s per module
    mi = gpu_specs("MI250X")
    assert (float(mi.bf16_flops), float(mi.memory_bytes), float(mi.bandwidth_bytes_per_s)) == (383e12, 128e9, 3.2e12)
    assert mi.link_kind == "infinity_fabric"


def test_gb300_is_completed_not_replaced():
    """GB300's BF16 peak comes from gpus_added.csv (NVIDIA's NVL72 rack: 360 PFLOPS BF16 with sparsity / 72 GPUs / 2);
    everything else, and the source, stays gpus.csv's."""
    gb300 = sources.get_gpu("GB300")
    assert gb300.bf16_dense_tflops == 360e3 / 72 / 2 == gb300.fp8_dense_tflops / 2
    assert (gb300.memory_gb, gb300.hbm_bandwidth_tb_s) == (288, 8.0)
    assert gb300.interconnect.startswith("NVLink 5") and gb300.description.startswith("per GPU of an NVL72 rack; ")
    assert gb300.source_url.startswith("https://resources.nvidia.com/en-us-blackwell-architecture/blackwell-ultra")
    assert list(sources.gpus()).index("GB300") < list(sources.gpus()).index("L40S")   # keeps its gpus.csv place


HEADER = ("gpu,description,memory_gb,hbm_bandwidth_tb_s,bf16_dense_tflops,fp8_dense_tflops,interconnect,"
          "seed_bf16_dense_tflops,seed_source,recorded,source_url\n")
REFERENCE = "X1,,80,2.0,,1000,NVLink,,,2026-11-30,https://a.example\n"


@pytest.mark.parametrize("added, needle", [
    ("X1,,80,2.0,500,,,,,2026-12-03,https://b.example\n", None),
    ("X1,,80,2.5,500,,,,,2026-12-03,https://b.example\n", "row 2: hbm_bandwidth_tb_s 2.5 differs"),
    ("X1,,80,2.0,500,900,,,,2026-12-03,https://b.example\n", "row 2: fp8_dense_tflops 900 differs"),
    ("X1,,80,2.0,500,,,,,2026-12-03,https://b.example\nX1,,80,2.0,500,,,,,2026-12-03,https://c.example\n",
     "row 3: GPU 'X1' is already listed"),
])
def test_an_added_row_completes_a_reference_row_or_names_the_conflict(tmp_path, monkeypatch, added, needle):
    (tmp_path / "hardware").mkdir()
    (tmp_path / "hardware" / "gpus.csv").write_text(HEADER + REFERENCE)
    (tmp_path / "hardware" / "gpus_added.csv").write_text(HEADER + added)
    monkeypatch.setenv("TINKER_NOMICS_DATA", str(tmp_path))
    sources.clear_caches()
    try:
        if needle is None:
            x1 = hardware.gpus()["X1"]
            assert (x1.bf16_dense_tflops, x1.fp8_dense_tflops, x1.interconnect) == (500, 1000, "NVLink")
            assert x1.source_url == "https://a.example ; https://b.example"
        else:
            with pytest.raises(TinkerNomicsError, match=needle):
                hardware.gpus()
    finally:
        monkeypatch.delenv("TINKER_NOMICS_DATA")
        sources.clear_caches()
