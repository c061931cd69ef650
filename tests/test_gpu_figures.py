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
from tinker_nomics.errors import UnknownNameError
from tinker_nomics.model.predict import predict_decode
from tinker_nomics.sources import hardware
from tinker_nomics.sources.hardware import gpu_price_listing, gpu_specs

from test_reliability import cli, one_line_error, strict_json

from conftest import PEAKLESS  # the GPUs the `peakless` fixture takes the dense peak from

UNPRICED = "H20"
PRICED = "H100 SXM"


def test_the_registry_has_gpus_without_a_peak_and_one_without_a_price(peakless):
    assert PEAKLESS and all(not hardware.gpus()[n].bf16_dense_tflops for n in PEAKLESS)
    assert all(not sources.get_gpu(n).bf16_dense_tflops for n in PEAKLESS)   # what the CLI resolves sees it too
    assert gpu_price_listing(UNPRICED) is None and sources.get_gpu(UNPRICED).bf16_dense_tflops
    assert gpu_price_listing(PRICED) is not None


@pytest.mark.parametrize("gpu", PEAKLESS)
@pytest.mark.parametrize("method", ["calibrated", "seed"])
def test_estimate_on_a_gpu_without_a_peak_names_it(gpu, method, peakless):
    one_line_error(*cli("estimate", "--workload", "math_rl", "--gpu", gpu, "--method", method),
                   f"{gpu} has no bf16_dense_tflops in data/hardware/gpus.csv")


@pytest.mark.parametrize("gpu", PEAKLESS)
def test_predict_on_a_gpu_without_a_peak_names_it(gpu, peakless):
    one_line_error(*cli("predict", "decode", "--model", "Qwen/Qwen3-8B", "--gpu", gpu, "--num-gpus", 1,
                        "--concurrency", 8, "--input-len", 512, "--output-len", 512), gpu)
    one_line_error(*cli("predict", "rl-step", "--model", "Qwen/Qwen3-8B", "--gpu", gpu, "--num-gpus", 8,
                        "--samples", 256, "--prompt-len", 512, "--response-len", 1024), gpu)


def test_fp8_decode_reads_the_fp8_peak(monkeypatch):
    """A GPU with an FP8 peak and no BF16 one decodes FP8 weights, and refuses BF16. GB300 was such a GPU until
    gpus_added.csv completed its BF16 peak (2026-12-03); the test removes that peak again, so it keeps checking."""
    fp8_only = [n for n in PEAKLESS if not sources.get_gpu(n).bf16_dense_tflops and sources.get_gpu(n).fp8_dense_tflops]
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


def test_an_array_with_a_gpu_without_a_peak_names_only_it(peakless):
    with pytest.raises(Exception) as info:
        estimate(Scenario.from_workload("math_rl", gpu=np.array([PRICED, PEAKLESS[0]])))
    assert PEAKLESS[0] in str(info.value) and PRICED not in str(info.value)


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

ADDED = ["T4", "V100 32GB SXM", "A100 40GB PCIe", "A40", "L40", "RTX 3090", "MI250X", "H200 NVL", "A30",
         # GPUs published LLM-inference benchmarks use (second pass of 2026-12-03)
         "GH200 96GB", "GH200 144GB", "L20", "A800 80GB SXM", "A800 80GB PCIe", "A800 40GB PCIe", "V100 16GB SXM",
         "V100 16GB PCIe", "V100 32GB PCIe", "V100S PCIe", "H800 PCIe", "RTX 4090 D"]
COMPLETED = ["GB300", "A10G"]   # gpus.csv rows whose empty BF16 peak a gpus_added.csv row fills
FILLED = ["RTX PRO 6000 Blackwell Server"]   # a gpus_added.csv row whose empty BF16 peak was filled in place


@pytest.mark.parametrize("gpu", ADDED + COMPLETED + FILLED)
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


class Figures:
    """A GPU's figures compared to sourced values: numbers to 1e-12 relative (TB/s x 1e12 is not exact in binary),
    the link kind exactly."""
    def __init__(self, numbers, kind):
        self.numbers, self.kind = numbers, kind

    def __eq__(self, other):
        numbers, kind = other
        return self.numbers == pytest.approx(numbers, rel=1e-12) and self.kind == kind

    def __repr__(self):
        return f"Figures({self.numbers}, {self.kind!r})"


# ------------------------------------------------------- GPUs published LLM-inference benchmarks use (2026-12-03)

BENCHMARK_GPUS = ADDED[ADDED.index("GH200 96GB"):] + COMPLETED[1:] + FILLED


@pytest.mark.parametrize("gpu", BENCHMARK_GPUS)
def test_a_benchmark_gpu_answers_the_decode_command(gpu):
    """`tinker-nomics predict decode --model Qwen/Qwen2.5-7B-Instruct --gpu GPU ...` answers with a positive rate (the
    16 GB parts cannot hold the 7B's bf16 weights on one GPU, so they answer for two)."""
    num_gpus = 2 if sources.get_gpu(gpu).memory_gb < 20 else 1
    code, out, err = cli("predict", "decode", "--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", gpu, "--num-gpus", num_gpus,
                         "--concurrency", 1, "--input-len", 128, "--output-len", 128, "--format", "json")
    assert code == 0, err
    assert strict_json(out)["output_tokens_per_second"] > 0


def test_benchmark_gpus_carry_their_sourced_figures():
    """Each figure the model reads is the one its source prints (dense; halved where the source says 'with sparsity')."""
    def figures(name):
        """(memory, bandwidth, BF16 peak, FP8 peak, link each way) as the model reads them, and the link kind."""
        s = gpu_specs(name)
        numbers = (float(s.memory_bytes), float(s.bandwidth_bytes_per_s), float(s.bf16_flops), float(s.fp8_flops),
                   float(s.link_bytes_per_s))
        return Figures(numbers, str(s.link_kind))

    # GH200 datasheet, GH200 column: 'BFLOAT16 Tensor Core 1,979 teraFLOPS* | 990 teraFLOPS', 'FP8 Tensor Core 3,958
    # teraFLOPS* | 1,979 teraFLOPS' (* With sparsity), 'HBM size 96GB HBM3 | 144GB HBM3e', 'Memory bandwidth Up to 4TB/s |
    # Up to 4.9TB/s'; JSC JUPITER: 'NVLink 4 GPU-to-GPU links, 300 GB/s between pairs of GPUs (150 GB/s per direction)'.
    # The dense figures are the datasheet's own (990, not 1,979 / 2 = 989.5)
    assert figures("GH200 96GB") == ((96e9, 4.0e12, 990e12, 1979e12, 150e9), "nvlink")
    assert figures("GH200 144GB") == ((144e9, 4.9e12, 990e12, 1979e12, 150e9), "nvlink")
    # L20 spec tables: '48GB (GDDR6)', 'FP16/BF16 119.5 TFLOPS (Tensor Core)', 'FP8 239'; FlagScale: 'bandwidth_gbps': 864;
    # PCIe 4.0 x16 (64 GB/s both directions)
    assert figures("L20") == ((48e9, 864e9, 119.5e12, 239e12, 32e9), "pcie")
    # A800 = A100 silicon: 'BF16 312 / 624*' (* sparse), no FP8 (falls back to BF16); SXM4 80GB '2,039 GB/s | NVLink
    # 400 GB/s' (both directions), 80GB PCIe '1,935 GB/s', 40GB '1,555 GB/s'; the PCIe cards' NVLink bridge not modelled
    assert figures("A800 80GB SXM") == ((80e9, 2.039e12, 312e12, 312e12, 200e9), "nvlink")
    assert figures("A800 80GB PCIe") == ((80e9, 1.935e12, 312e12, 312e12, 32e9), "pcie")
    assert figures("A800 40GB PCIe") == ((40e9, 1.555e12, 312e12, 312e12, 32e9), "pcie")
    a100, a800 = sources.get_gpu("A100 80GB SXM"), sources.get_gpu("A800 80GB SXM")
    assert (a800.bf16_dense_tflops, a800.hbm_bandwidth_tb_s) == (a100.bf16_dense_tflops, a100.hbm_bandwidth_tb_s)
    assert hardware.links()["A800 80GB SXM"].gb_s_per_direction < hardware.links()["A100 80GB SXM"].gb_s_per_direction
    # V100 datasheet: SXM2 'Tensor Performance 125 TFLOPS', PCIe '112 TFLOPS' (FP16; no BF16, no sparsity), '32GB /16GB
    # HBM2 | 900GB/sec', SXM2 NVLink '300GB/sec', PCIe 'Interconnect Bandwidth 32 GB/sec'; V100S PCIe: 130, 32 GB, 1134 GB/s
    assert figures("V100 16GB SXM") == ((16e9, 900e9, 125e12, 125e12, 150e9), "nvlink")
    assert figures("V100 16GB PCIe") == ((16e9, 900e9, 112e12, 112e12, 16e9), "pcie")
    assert figures("V100 32GB PCIe") == ((32e9, 900e9, 112e12, 112e12, 16e9), "pcie")
    assert figures("V100S PCIe") == ((32e9, 1134e9, 130e12, 130e12, 16e9), "pcie")
    # H800 PCIe = H100 PCIe silicon (114 SMs): 'H800 PCIe peak F8: 3026 TFLOPS' (sparse) -> 1513 dense; BF16 1,513 sparse ->
    # 756, the H100 PCIe row's dense figure (an engine table's 'fp16: 756, bf16: 756, fp8: 1513', 2000 GB/s); 80 GB
    assert figures("H800 PCIe") == ((80e9, 2.0e12, 756e12, 3026e12 / 2, 64e9), "pcie")
    assert figures("H800 PCIe").numbers[:4] == figures("H100 PCIe").numbers[:4]
    # RTX 4090 D (hmc-tech): 'BF16 ... 147.09 TFLOPS Tensor', 'FP8 ... 294.18 TFLOPS Tensor (FP32 Accumulate)', 1008 GB/s,
    # 24 GB; the RTX 4090's Ada-whitepaper 165.2 scaled by its 114 of 128 SMs agrees to 0.1 TFLOPS
    assert figures("RTX 4090 D") == ((24e9, 1008e9, 147.09e12, 294.18e12, 32e9), "pcie")
    assert abs(sources.get_gpu("RTX 4090").bf16_dense_tflops * 114 / 128 - 147.09) < 0.1


def test_the_a10g_and_rtx_pro_6000_server_peaks_are_filled_with_their_caveats():
    # AWS A10G datasheet as tabulated: FP16 tensor 70 TFLOPS; a torch BF16 matmul reached 69.47 TFLOPS on an A10G
    # (zzc0721/torch-performance-test-data#126), so 70 is no sparse figure (a dense 35 would be below the measurement)
    a10g = sources.get_gpu("A10G")
    assert (a10g.bf16_dense_tflops, a10g.fp8_dense_tflops) == (70, None) and a10g.bf16_dense_tflops > 69.47 > 70 / 2
    assert (a10g.memory_gb, a10g.hbm_bandwidth_tb_s, a10g.interconnect) == (24, 0.6, "PCIe Gen4")   # gpus.csv's
    assert a10g.description.startswith("AWS G5; Completes") and "CAVEAT" in a10g.description
    assert a10g.source_url.startswith("https://www.baseten.co/") and "NVIDIA_AWS_A10G_DataSheet" in a10g.source_url
    assert a10g.bf16_dense_tflops < sources.get_gpu("A10").bf16_dense_tflops   # not the datacenter A10's 125
    # RTX PRO 6000 Blackwell Server: the product page's '1 PFLOP FP16/BF16' halved (read as 2:4 sparse); torch BF16
    # matmuls measured 417.34 TFLOPS (zzc0721/torch-performance-test-data#161), below it; FP8 twice that, derived as
    # the Workstation row's (Blackwell's dense FP8 rate is twice its BF16: RTX 5090's 209.5 / 419 in the whitepaper)
    server = sources.get_gpu("RTX PRO 6000 Blackwell Server")
    workstation = sources.get_gpu("RTX PRO 6000 Blackwell Workstation")
    assert (server.bf16_dense_tflops, server.fp8_dense_tflops) == (1000 / 2, 1000)
    assert workstation.fp8_dense_tflops == 2 * workstation.bf16_dense_tflops
    assert 417.34 < server.bf16_dense_tflops < sources.get_gpu("RTX PRO 6000 Blackwell Workstation").bf16_dense_tflops
    assert "DERIVED" in server.description and "CAVEAT" in server.description


@pytest.mark.parametrize("bare, parts", [
    ("GH200", ["GH200 96GB", "GH200 144GB"]),
    ("A800", ["A800 80GB SXM", "A800 80GB PCIe", "A800 40GB PCIe"]),
    ("A100", ["A100 40GB SXM", "A100 80GB SXM"]),        # the precedent the GH200 and A800 follow
])
def test_a_bare_name_of_several_memory_variants_is_refused_listing_them(bare, parts):
    with pytest.raises(UnknownNameError) as info:
        sources.get_gpu(bare)
    assert all(p in str(info.value) for p in parts), str(info.value)
    code, out, err = cli("predict", "decode", "--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", bare, "--num-gpus", 1,
                         "--concurrency", 1, "--input-len", 128, "--output-len", 128)
    one_line_error(code, out, err, f"unknown GPU '{bare}'")
    assert all(p in err for p in parts)


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


def test_fp4_runs_on_fp4_tensor_cores_only_where_a_datasheet_gives_them():
    """data/hardware/fp4_peaks.csv: the Blackwell and CDNA 4 parts. B200's datasheet prints 18 PFLOPS FP4 with
    sparsity (9 dense, twice its dense FP8); Blackwell Ultra's prints 18 | 14 sparse | dense, so B300's dense FP4
    is not half its sparse figure. Elsewhere (H100, L40S, MI300X: no FP4 tensor cores) NVFP4 weights run
    weight-only, vLLM's Marlin W4A16, at the BF16 peak."""
    from tinker_nomics.model import decode
    peaks = hardware.fp4_peaks()
    assert peaks["B200"] == 2 * sources.get_gpu("B200").fp8_dense_tflops * 1e12
    assert peaks["B300"] == 14_000e12 != 2 * sources.get_gpu("B300").fp8_dense_tflops * 1e12
    for gpu in ("H100 SXM", "L40S", "MI300X", "A100 80GB SXM"):
        specs = hardware.gpu_specs(gpu)
        assert gpu not in peaks and bool(decode.weight_only("fp4", specs))
        assert decode.gemm_peak(specs, "fp4") == specs.bf16_flops
    blackwell = hardware.gpu_specs("B200")
    assert not decode.weight_only("fp4", blackwell) and decode.gemm_peak(blackwell, "fp4") == peaks["B200"]


@pytest.mark.parametrize("gpu, fp4_faster", [("B200", True), ("H100 SXM", False)])
def test_nvfp4_outruns_fp8_at_saturation_only_on_fp4_tensor_cores(gpu, fp4_faster):
    """At a batch that saturates the GEMMs, FP4 weights beat FP8 on a GPU that computes in FP4 and lose on one that
    dequantises them to BF16 (W4A16 at the BF16 peak, against FP8 at the FP8 peak)."""
    def speed(precision):
        code, out, err = cli("predict", "decode", "--model", "meta-llama/Llama-3.1-8B", "--gpu", gpu, "--num-gpus", 1,
                             "--concurrency", 1024, "--input-len", 1024, "--output-len", 1024, "--precision",
                             precision, "--kv-precision", "fp8", "--format", "json")
        assert code == 0, err
        return strict_json(out)["output_tokens_per_second"]
    assert (speed("nvfp4") > speed("fp8")) == fp4_faster


def test_fp8_and_fp4_weights_are_refused_where_marlin_cannot_run_them():
    """FP8 and FP4 weights run weight-only through vLLM's Marlin kernels on GPUs without tensor cores of that
    precision, and Marlin needs compute capability 8.0 (vLLM's is_fp8_marlin_supported: has_device_capability(80)).
    NVIDIA's CUDA GPU tables give the A100 8.0 and the RTX 3090 8.6 (weight-only there), the T4 7.5 and the V100
    7.0 (refused in one line naming the part). Every NVIDIA part of the registry has a compute capability; the
    AMD parts have none and keep the weight-only answer (ROCm's own kernels)."""
    from tinker_nomics.errors import TinkerNomicsError
    from tinker_nomics.model import decode
    capability = hardware.compute_capabilities()
    assert capability["T4"] == 7.5 and capability["V100 32GB SXM"] == 7.0 and capability["A100 80GB SXM"] == 8.0
    assert not {g for g in hardware.gpus() if g.startswith("MI")} & set(capability)
    assert {g for g in hardware.gpus() if not g.startswith("MI")} == set(capability)
    for gpu in ("A100 80GB SXM", "RTX 3090", "A10G"):
        specs = hardware.gpu_specs(gpu)
        assert bool(decode.weight_only("fp8", specs)) and bool(decode.weight_only("nvfp4", specs))
    for gpu, precision in (("T4", "fp8"), ("V100 16GB PCIe", "nvfp4"), ("T4", "mxfp4")):
        with pytest.raises(TinkerNomicsError, match=f"weights on {gpu}: it has no FP[48] tensor cores.*compute "
                                                    f"capability 8.0"):
            decode.weight_only(precision, hardware.gpu_specs(gpu))
    assert not decode.weight_only("fp8", hardware.gpu_specs("H100 SXM"))
    assert bool(decode.weight_only("fp8", hardware.gpu_specs("MI250X")))
    assert bool(decode.weight_only("int4", hardware.gpu_specs("V100 16GB PCIe")))
    mixed = hardware.gpu_specs(np.array(["A100 80GB SXM", "T4", "V100 16GB SXM"]))
    with pytest.raises(TinkerNomicsError, match="on T4, V100 16GB SXM: they have"):
        decode.weight_only("fp8", mixed)


@pytest.mark.parametrize("table, row, needle", [
    ("compute_capability.csv", "T4,75,2026-12-03,https://a.example,\n",
     "compute_capability.csv row .*: compute_capability 75.0 is not a CUDA compute capability"),
    ("compute_capability.csv", "X9,8.0,2026-12-03,https://a.example,\n", "GPU 'X9' is not in the GPU registry"),
    ("fp4_peaks.csv", "B200,-9000,2026-12-03,https://a.example,\n", "fp4_dense_tflops -9000.0 is not a positive peak"),
    ("int8_peaks.csv", "V100 32GB SXM,0,2026-12-04,https://a.example,\n",
     "int8_dense_tops 0.0 is not a positive peak"),
])
def test_a_bad_per_gpu_figure_is_one_line_naming_it(tmp_path, monkeypatch, table, row, needle):
    """A compute capability outside CUDA's range (75 for 7.5), an unknown GPU or a negative FP4 or zero INT8 peak in
    the small per-GPU tables is refused in one line naming the table, the row and the value."""
    import shutil
    from tinker_nomics.sources.shipped import shipped
    data = tmp_path / "data"
    shutil.copytree(shipped("data"), data)
    path = data / "hardware" / table
    path.write_text(path.read_text() + row)
    monkeypatch.setenv("TINKER_NOMICS_DATA", str(data))
    sources.clear_caches()
    try:
        with pytest.raises(TinkerNomicsError, match=needle):
            {"compute_capability.csv": hardware.compute_capabilities, "fp4_peaks.csv": hardware.fp4_peaks,
             "int8_peaks.csv": hardware.int8_peaks}[table]()
    finally:
        monkeypatch.delenv("TINKER_NOMICS_DATA")
        sources.clear_caches()


def test_an_all_reduce_reaches_the_share_of_its_link_that_nccl_tests_runs_reach():
    """data/hardware/allreduce_busbw.csv holds published nccl-tests bus bandwidths (NVIDIA/nccl-tests#175: 8 × A100
    SXM 232.54 GB/s; NVIDIA/nccl-tests#212: 8 × H100 SXM 370 GB/s on the ring; PCIe boxes of RTX 4090, RTX PRO
    6000 and RTX 5090 at 12.8-40 GB/s). Each link kind's share is the median of busbw / the link's rate each way,
    and a GPU's collective rate is its link's rate times that share; a kind with no measurement keeps its rate."""
    import csv
    from tinker_nomics.sources.tables import data_dir
    rows = list(csv.DictReader(open(data_dir() / "hardware" / "allreduce_busbw.csv", encoding="utf-8")))
    shares = hardware.collective_shares()
    for kind in ("nvlink", "pcie"):
        measured = [float(r["busbw_gb_s"]) / float(r["link_gb_s_per_direction"]) for r in rows
                    if r["link_kind"] == kind]
        assert len(measured) >= 2 and shares[kind] == pytest.approx(float(np.median(measured)))
    assert 232.54 / 300 <= shares["nvlink"] <= 370 / 450       # between the A100 and the H100 rings
    assert shares["pcie"] < shares["nvlink"] and shares["infinity_fabric"] == 1.0
    h100, l40s = gpu_specs("H100 SXM"), gpu_specs("L40S")
    assert float(h100.collective_bytes_per_s) == pytest.approx(450e9 * shares["nvlink"])
    assert float(l40s.collective_bytes_per_s) == pytest.approx(float(l40s.link_bytes_per_s) * shares["pcie"])


def test_a_decode_all_reduce_moves_its_bytes_at_the_collective_rate():
    """Two all-reduces a layer, each of batch × hidden BF16 values, ring traffic 2 (tp - 1) / tp of it, at the bus
    bandwidth an all-reduce reaches over the GPU's link (collective_bytes_per_s), not the link's nominal rate."""
    from tinker_nomics.model import decode
    arch, gpus = sources.get_arch("Llama-2-70b-hf"), gpu_specs("L40S")
    f = decode.decode_features(arch, gpus, 8, 256, 2048)
    wire = 2 * arch.num_layers * 2 * 7 / 8 * 256 * arch.hidden_size * 2 / float(gpus.collective_bytes_per_s)
    assert float(f.allreduce_seconds) == pytest.approx(wire)
    assert float(gpus.collective_bytes_per_s) < float(gpus.link_bytes_per_s)


def test_the_prompts_all_reduce_their_tokens_too():
    """A prefill's all-reduces carry every prompt token (2 a layer, tokens × hidden BF16 values each, the same ring
    traffic): a serving plan of up to 64 prompts of 2,048 tokens on 4 L40S (PCIe) pays them on the wire, 1 GPU
    none."""
    from tinker_nomics.model import decode
    arch, gpus = sources.get_arch("Llama-2-70b-hf"), gpu_specs("L40S")
    plan = decode.serving_plan(arch, gpus, 4, 64, 2048, 128, tensor_parallel=4)
    batch = float(plan.batch)   # the prompts the KV cache holds at once (fewer than 64 for 70B on 4 × 48 GB)
    wire = 2 * arch.num_layers * 2 * 3 / 4 * batch * 2048 * arch.hidden_size * 2 / float(gpus.collective_bytes_per_s)
    assert float(plan.prefill_wire) == pytest.approx(wire) and batch > 1
    single = decode.serving_plan(sources.get_arch("Llama-3.1-8B"), gpus, 1, 64, 2048, 128)
    assert float(single.prefill_wire) == 0.0


@pytest.mark.parametrize("row, needle", [
    ("2 x X,2,pcie,32,80,1 GB,,2026-12-03,https://a.example,\n", "busbw 80 GB/s over a 32 GB/s link"),
    ("2 x X,2,carrier_pigeon,32,20,1 GB,,2026-12-03,https://a.example,\n", "'carrier_pigeon' is not one of"),
])
def test_a_bad_all_reduce_measurement_is_one_line_naming_it(tmp_path, monkeypatch, row, needle):
    import shutil
    from tinker_nomics.sources.shipped import shipped
    data = tmp_path / "data"
    shutil.copytree(shipped("data"), data)
    path = data / "hardware" / "allreduce_busbw.csv"
    path.write_text(path.read_text() + row)
    monkeypatch.setenv("TINKER_NOMICS_DATA", str(data))
    sources.clear_caches()
    try:
        with pytest.raises(TinkerNomicsError, match=needle) as info:
            hardware.collective_shares()
        assert "\n" not in str(info.value) and "allreduce_busbw.csv row" in str(info.value)
    finally:
        monkeypatch.delenv("TINKER_NOMICS_DATA")
        sources.clear_caches()
