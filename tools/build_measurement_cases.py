"""Turn the raw published measurements in data/measurements/ into structured cases the model can predict.

    .venv/bin/python tools/build_measurement_cases.py          # rewrite the four *_cases.csv files
    .venv/bin/python tools/build_measurement_cases.py --check  # exit 1 if they differ from what is committed

Inputs (one row per published number): decode_throughput.csv, rl_mfu.csv, published_runs.csv (copies of
../shared/reference, decode_throughput.csv extended by the measurements pass of 2026-12-02), decode_more.csv,
rl_more.csv (further sources gathered 2026-12-01; the reading of each source is in the raw rows' `notes`,
and repeated in the cases' notes) and rl_phases.csv (RL steps phase by phase, 2026-12-02; measurements-2026-12-02.md)
Outputs (read by tinker_nomics.analysis.accuracy and .calibration; committed):
    decode_cases.csv, rl_step_cases.csv, rl_phase_cases.csv, run_cases.csv

Every case carries its `family` (FAMILY_MEMBERS: versions of one publisher's page are one family), the unit that
leave-one-family-out holds out.

Every output row names the raw row it came from (`raw_file`, `raw_row`: the CSV line, header = row 1, the
convention of the registry's error messages) and carries `notes` for every interpretation made on the way:
a registry model or GPU chosen for a raw name, a precision assumed, a range replaced by its midpoint, a
concurrency read as "the KV-memory-limited maximum". A raw row the model cannot predict still gets a case,
with usable=no and the reason, so the accuracy chapter can count what it left out. The rules are the
tables below; nothing here computes a prediction.
"""
from __future__ import annotations

import csv
import io
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tinker_nomics import sources  # noqa: E402
from tinker_nomics.sources.defaults import number  # noqa: E402

MEASUREMENTS = REPO / "data" / "measurements"

# ----------------------------------------------------------------------------------------- shared rules

# Raw model names -> (registry architecture id, why that architecture).
MODELS = {
    "nvidia/Llama-3.1-8B-Instruct-FP8": (
        "meta-llama/Llama-3.1-8B", "NVIDIA ModelOpt FP8 checkpoint of Llama-3.1-8B-Instruct; instruct and base "
        "share one architecture (registry row meta-llama/Llama-3.1-8B)"),
    "meta-llama/Llama-3.1-8B-Instruct": (
        "meta-llama/Llama-3.1-8B", "instruct and base share one architecture (registry row meta-llama/Llama-3.1-8B)"),
    "nvidia/Llama-3.3-70B-Instruct-FP8": (
        "meta-llama/Llama-3.3-70B-Instruct", "NVIDIA ModelOpt FP8 checkpoint of Llama-3.3-70B-Instruct"),
    "nvidia/Llama-3.3-70B-Instruct-FP4": (
        "meta-llama/Llama-3.3-70B-Instruct", "NVIDIA ModelOpt FP4 (NVFP4) checkpoint of Llama-3.3-70B-Instruct"),
    "meta-llama/Llama-3.3-70B-Instruct": ("meta-llama/Llama-3.3-70B-Instruct", ""),
    "nvidia/Qwen3-30B-A3B-FP4": ("Qwen/Qwen3-30B-A3B", "NVIDIA ModelOpt FP4 (NVFP4) checkpoint of Qwen3-30B-A3B"),
    "nvidia/Qwen3-235B-A22B-FP8": ("Qwen/Qwen3-235B-A22B", "NVIDIA ModelOpt FP8 checkpoint of Qwen3-235B-A22B"),
    "nvidia/Qwen3-235B-A22B-FP4": ("Qwen/Qwen3-235B-A22B", "NVIDIA ModelOpt FP4 (NVFP4) checkpoint of Qwen3-235B-A22B"),
    "Nemotron Nano 30B (as named on page; MoE)": (
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "the page names 'Nemotron Nano 30B' (MoE) without a version; "
        "the 30B MoE Nemotron Nano is NVIDIA-Nemotron-3-Nano-30B-A3B (hybrid Mamba-2 + attention), identified by "
        "name only"),
    # decode_more.csv names (AMD ROCm, TensorRT-LLM @03e27c7d, LMDeploy).
    "amd/Llama-3.1-70B-Instruct-FP8-KV": (
        "meta-llama/Llama-3.1-70B", "AMD Quark FP8-KV checkpoint of Llama-3.1-70B-Instruct (architecture of "
        "the registry row meta-llama/Llama-3.1-70B)"),
    "amd/Llama-3.1-405B-Instruct-FP8-KV": (
        "meta-llama/Llama-3.1-405B", "AMD Quark FP8-KV checkpoint of Llama-3.1-405B-Instruct (architecture from "
        "data/models/configs/meta-llama--Llama-3.1-405B.json)"),
    "openai/gpt-oss-20b": ("openai/gpt-oss-20b", ""),
    "meta-llama/Llama-2-7b (table says 'llama2-7b/13b/70b'; base vs chat not stated)": (
        "meta-llama/Llama-2-7b-hf", "base and chat share one architecture (data/models/configs/)"),
    "meta-llama/Llama-2-13b (table says 'llama2-7b/13b/70b'; base vs chat not stated)": (
        "meta-llama/Llama-2-13b-hf", "base and chat share one architecture (data/models/configs/)"),
    "meta-llama/Llama-2-70b (table says 'llama2-7b/13b/70b'; base vs chat not stated)": (
        "meta-llama/Llama-2-70b-hf", "base and chat share one architecture (data/models/configs/)"),
    "deepseek-ai/DeepSeek-R1": ("deepseek-ai/DeepSeek-V3", "DeepSeek-R1 shares DeepSeek-V3's architecture"),
    "deepseek-ai/DeepSeek-V3": ("deepseek-ai/DeepSeek-V3", ""),
    # decode_more.csv: Qwen's speed benchmark pages (checkpoints named by Qwen's scheme) and llama.cpp's PR tables.
    **{f"Qwen/{base}{suffix}": (f"Qwen/{base}", f"Qwen's {suffix[1:]} checkpoint of {base}: the same architecture"
                                if suffix else "")
       for base in ("Qwen3-4B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B", "Qwen3-30B-A3B", "Qwen3-235B-A22B",
                    "Qwen2.5-7B-Instruct", "Qwen2.5-14B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-72B-Instruct")
       for suffix in ("", "-FP8", "-AWQ", "-GPTQ-Int4", "-GPTQ-Int8")},
    "llama 7B (llama.cpp's label; a LLaMA-1/Llama-2 7B, 6.74B parameters)": (
        "meta-llama/Llama-2-7b-hf", "llama-bench's 'llama 7B' (6.74B parameters): LLaMA-1 7B and Llama-2-7B share "
        "one architecture (32 layers, width 4,096, 32,000-token vocabulary)"),
    "codellama/CodeLlama-7b-hf": ("codellama/CodeLlama-7b-hf", ""),
    # rl_more.csv names.
    "meta-llama/Llama-3.1-8B": ("meta-llama/Llama-3.1-8B", ""),
    "Qwen/Qwen2.5-7B (report: 'Qwen2.5-7B Function RM')": (
        "Qwen/Qwen2.5-7B", "the report's 'Qwen2.5-7B Function RM' run trains Qwen2.5-7B (data/models/configs/)"),
    # NeMo RL names.
    "Llama-3.1-8B": ("meta-llama/Llama-3.1-8B", ""),
    "DeepSeek-V3": ("deepseek-ai/DeepSeek-V3", ""),
    "Qwen3-235B-A22B": ("Qwen/Qwen3-235B-A22B", ""),
    "Nemotron-3-Super-120B-A12B": ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16",
                                   "NeMo RL v0.7 names the model 'Nemotron-3-Super-120B-A12B': the registry's "
                                   "NVIDIA-Nemotron-3-Super-120B-A12B (BF16 release)"),
    "Qwen3-30B-A3B": ("Qwen/Qwen3-30B-A3B", ""),
    "Qwen3-32B": ("Qwen/Qwen3-32B", ""),
    # decode_throughput.csv rows 62-177 (measurements pass of 2026-12-02).
    "meta-llama/Llama-2-7b": (
        "meta-llama/Llama-2-7b-hf", "the page's 'LLaMA 7B' is Llama-2-7b (its methodology section: 'Llama2-7b'); base "
        "and chat share one architecture (data/models/configs/meta-llama--Llama-2-7b-hf.json)"),
    "meta-llama/Llama-2-13b": (
        "meta-llama/Llama-2-13b-hf", "the blog's 'llama_13b' is Llama-2-13b (the page title says Llama2-13B); base "
        "and chat share one architecture (data/models/configs/)"),
    "meta-llama/Llama-2-70b": (
        "meta-llama/Llama-2-70b-hf", "the page's 'LLaMA 70B' is Llama-2-70b (the methodology section and blog titles "
        "say Llama2-70b); base and chat share one architecture (data/models/configs/)"),
    "meta-llama/Llama-2-7b-chat-hf": (
        "meta-llama/Llama-2-7b-hf", "chat and base share one architecture (data/models/configs/)"),
    "meta-llama/Llama-2-13b-chat-hf": (
        "meta-llama/Llama-2-13b-hf", "chat and base share one architecture (data/models/configs/)"),
    "meta-llama/Llama-2-70b-chat-hf": (
        "meta-llama/Llama-2-70b-hf", "chat and base share one architecture (data/models/configs/)"),
    "NousResearch/Llama-2-7b-chat-hf": (
        "meta-llama/Llama-2-7b-hf", "NousResearch's re-upload of Llama-2-7b-chat-hf: the same architecture "
        "(data/models/configs/)"),
    "meta-llama/Llama-2-7b (issue: 'Llama-2 7B')": (
        "meta-llama/Llama-2-7b-hf", "the issue's 'Llama-2 7B'; base and chat share one architecture"),
    "meta-llama/Llama-2-7b-hf": ("meta-llama/Llama-2-7b-hf", ""),
    "meta-llama/Llama-2-70b-hf": ("meta-llama/Llama-2-70b-hf", ""),
    "meta-llama/Llama-2-70b-hf (README: 'llama2-70B')": (
        "meta-llama/Llama-2-70b-hf", "the README's 'llama2-70B'; base and chat share one architecture"),
    "meta-llama/Meta-Llama-3-8B": ("meta-llama/Meta-Llama-3-8B", ""),
    "meta-llama/Meta-Llama-3-70B": ("meta-llama/Meta-Llama-3-70B", ""),
    "Qwen/Qwen3-14B-AWQ": ("Qwen/Qwen3-14B", "Qwen's AWQ (int4) checkpoint of Qwen3-14B: the same architecture"),
    "Qwen/Qwen3-0.6B": ("Qwen/Qwen3-0.6B", ""),
    "Qwen/Qwen3-14B": ("Qwen/Qwen3-14B", ""),
    "Qwen/Qwen3-30B-A3B": ("Qwen/Qwen3-30B-A3B", ""),
}

# Raw GPU names -> (registry GPU id, why).
GPUS = {
    "H200 SXM 141GB": ("H200 SXM", ""),
    "H100 SXM 80GB": ("H100 SXM", ""),
    "H100 SXM5 80GB": ("H100 SXM", ""),
    "B200 180GB": ("B200", "DGX B200 per the perf-overview hardware list"),
    "NVIDIA HGX B200": ("B200", ""),
    "H100 80GB": ("H100 SXM", "'H100 80GB' does not say SXM or PCIe; SXM assumed (3.35 TB/s; the PCIe part has "
                  "2.0 TB/s)"),
    "DGX-H100": ("H100 SXM", "a DGX H100 holds 8 H100 SXM GPUs"),
    "GB200-NVL72": ("GB200", "a GPU of a GB200 NVL72 rack"),
    "MI300X": ("MI300X", ""),
    "H100 SXM": ("H100 SXM", ""),
    "H200 SXM": ("H200 SXM", ""),
    "B200": ("B200", ""),
    "H20": ("H20", ""),
    "RTX PRO 6000 Blackwell Server": ("RTX PRO 6000 Blackwell Server", ""),
    "A100 80GB (form factor not stated)": (
        "A100 80GB SXM", "'(x8) A100-80G' does not say SXM or PCIe; the SXM part (2.04 TB/s) of an 8-GPU server "
        "assumed (PCIe: 1.94 TB/s, 5% less)"),
    "H100 (variant not stated)": ("H100 SXM", "'H100' without a variant; SXM assumed (3.35 TB/s)"),
    # decode_throughput.csv rows 62-177 and rl_phases.csv (measurements pass of 2026-12-02).
    "H100 SXM 80GB (HBM3)": ("H100 SXM", ""),
    "H100 80GB HBM3": ("H100 SXM", "'H100 80GB HBM3' is the SXM5 part (the PCIe card carries HBM2e)"),
    "H100 (table 'NVIDIA-H100'; variant not stated)": (
        "H100 SXM", "'NVIDIA-H100' without a variant; SXM assumed (3.35 TB/s): the README's own achieved "
        "bandwidth for the BF16 row, 1,905 GB/s, would be 95% of the PCIe card's 2.0 TB/s"),
    "H100": ("H100 SXM", "'H100' without a variant; SXM assumed (3.35 TB/s)"),
    "H100 80GB (CoreWeave H100x8 nodes)": ("H100 SXM", "CoreWeave's H100x8 nodes are HGX H100 (SXM) servers"),
    "H800": ("H800 SXM", "'H800' without a variant; the SXM part of an 8-GPU server assumed"),
    "L40S 48GB": ("L40S", ""),
    "RTX 4090 24GB": ("RTX 4090", ""),
    "A10G 24GB": ("A10G", ""),
    "MI250X (one GCD)": ("MI250X GCD", ""),
    "A100-SXM4-80GB": ("A100 80GB SXM", ""),
    "A100 40GB": ("A100 40GB SXM", "'A100(40GiB)x8' does not say SXM or PCIe; the SXM part (1.555 TB/s) of an "
                                   "8-GPU server assumed"),
    "A100 80GB": ("A100 80GB SXM", "'A100 80GB' does not say SXM or PCIe; SXM assumed (2.04 TB/s; the PCIe card "
                                   "1.94 TB/s, 5% less)"),
    "A100 (80GB per the doc's A100 notes; form factor not stated)": (
        "A100 80GB SXM", "'A100' with 80 GB per the page; SXM assumed (2.04 TB/s; the PCIe card 1.94 TB/s, 5% less)"),
    "A100 (80GB; form factor not stated)": (
        "A100 80GB SXM", "'A100' with 80 GB per the page; SXM assumed (2.04 TB/s; the PCIe card 1.94 TB/s, 5% less)"),
    "A100 80GB (table 'NVIDIA-A100-80GB')": (
        "A100 80GB SXM", "'NVIDIA-A100-80GB' does not say SXM or PCIe; SXM assumed (2.04 TB/s; the PCIe card "
                         "1.94 TB/s, 5% less)"),
    "NVIDIA H20 96GB": ("H20", ""),
    "NVIDIA A100 80GB": ("A100 80GB SXM", "'NVIDIA A100 80GB' does not say SXM or PCIe; SXM assumed (2.04 TB/s; "
                                          "the PCIe card 1.94 TB/s, 5% less)"),
    "NVIDIA GeForce RTX 3090 24GB": ("RTX 3090", ""),
    "NVIDIA GeForce RTX 3090 Ti 24GB": ("RTX 3090 Ti", ""),
    "NVIDIA GeForce RTX 4090 24GB": ("RTX 4090", ""),
    "A100 SXM 80GB (power-limited to 330 W)": (
        "A100 80GB SXM", "power-capped at 330 W (the SXM part's default is 400 W); the README finds about 1,700 GB/s "
                         "of peak bandwidth against the registry's 2,039 GB/s, a loss the fitted bandwidth "
                         "efficiency has to absorb"),
}

# Raw GPU names that map to no registry GPU, with the reason the row cannot be predicted.
UNKNOWN_GPUS = {
    "A100 (memory/form factor not stated)": "A100 memory size not stated (40 GB: 1.555 TB/s; 80 GB: 2.039 TB/s)",
    "A100": "A100 memory size not stated (40 GB: 1.555 TB/s; 80 GB: 2.039 TB/s)",
    "RTX 4090 48GB (modified)": "GPU 'RTX 4090 48GB (modified)' is not in the registry: the registry's RTX 4090 "
                                "has 24 GB, and memory sets the rollout batch and the colocated layout",
    "not stated (NVIDIA in-house; see notes)": "GPU type not stated (the blog does not name it; H100 is suggested "
                                               "by another NeMo RL page only)",
    "not stated": "GPU type not stated",
}

VERL_ROLLOUT_TP = number("verl_rollout_tensor_parallel")   # a verl run's rollout TP where it does not say
PRECISION_BYTES = {"BF16": 2.0, "FP16": 2.0, "FP8": 1.0, "FP4": 0.5, "INT8": 1.0, "INT4": 0.5}
# NVIDIA's ModelOpt checkpoints (nvidia/*-FP8, *-FP4) carry "kv_cache_quant_algo": "FP8" in their
# hf_quant_config.json (e.g. ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/
# nvidia--Qwen3-32B-NVFP4_hf_quant_config.json), and the engines follow it: the KV cache is FP8.
MODELOPT_KV_NOTE = ("NVIDIA ModelOpt checkpoint: its hf_quant_config.json sets kv_cache_quant_algo FP8 (as in "
                    "ai-dynamo/aiconfigurator's copy of nvidia/Qwen3-32B-NVFP4), so the KV cache is FP8, 1 byte "
                    "per cached value")

PRECISION_NOTES = {
    "FP8": "FP8 weights priced at 1 byte per parameter (any layers the checkpoint leaves in BF16, such as the "
           "LM head, are not split out); KV cache priced at BF16 (the row does not say whether it was FP8)",
    "FP4": "NVFP4 weights priced at 0.5 byte per parameter (the per-16-value FP8 scales, about 0.06 byte, and "
           "layers left in higher precision are ignored); KV cache priced at BF16 (the row does not say)",
}


def _int4_note(group: str) -> str:
    if group == "not stated":
        scales = "the row does not state the group size"
    elif group == "128":
        scales = "the row's group size, 128, is the one priced"
    else:
        size = int(group)
        scales = (f"at the row's group size {size} they are {4 / size:.3g} byte per weight, so the weights are "
                  f"{(0.5 + 4 / size) / (0.5 + 4 / 128) - 1:.0%} larger than priced")
    return ("INT4 weight-only: 0.5 byte per weight (bytes_per_param); the model (model/decode.py) adds one 16-bit "
            "scale and zero point per group of 128 weights (0.031 byte per weight); " + scales + "; computed in 16 "
            "bits after dequantisation, at the fitted weight-only efficiency")


INT8_NOTE = ("INT8 weight-only (per channel): 1 byte per weight, computed in 16 bits after dequantisation, at the "
             "fitted weight-only efficiency")
KV_16_NOTE = "KV cache 16-bit (FP16 and BF16 are both 2 bytes per cached value: kv_precision BF16)"

# Raw precision texts of decode_throughput.csv rows 62-177 -> (weight precision, KV-cache precision, note).
PRECISION_RULES = {
    "FP8 weights+activations, FP8 KV cache (--enable_fp8 --fp8_kv_cache)": (
        "FP8", "FP8", "FP8 weights and activations and an FP8 KV cache (the page's build flags --enable_fp8 "
                      "--fp8_kv_cache): 1 byte per weight and per cached value"),
    "FP8 (table title 'L40S GPUs (FP8)'; FP8 KV cache per the doc's build commands, not restated for L40S)": (
        "FP8", "FP8", "FP8 per the table title; KV cache FP8 per the page's build commands (--fp8_kv_cache), which "
                      "the L40S table does not restate"),
    "FP8 (KV precision not stated)": ("FP8", "BF16", PRECISION_NOTES["FP8"]),
    "FP16 weights and KV cache": ("FP16", "BF16", "FP16 weights; " + KV_16_NOTE),
    "Mixed (FP16/BF16, no FP8)": (
        "FP16", "BF16", "'Mixed' = not quantized: 16-bit weights as in the checkpoint (2 bytes); " + KV_16_NOTE),
    "FP16 (as stated: '--quant fp16')": ("FP16", "BF16", "FP16 weights as stated; " + KV_16_NOTE),
    "FP16 (model dtype; not stated)": (
        "FP16", "BF16", "precision not stated: the checkpoint's FP16 (the row's reading); " + KV_16_NOTE),
    "not stated (FP16 likely)": (
        "FP16", "BF16", "precision not stated: 16-bit assumed (Llama-2-70b-hf's config.json torch_dtype is float16, "
                        "and the README quantizes nothing); " + KV_16_NOTE),
    "not stated (BF16 checkpoint)": ("BF16", "BF16", "precision not stated: the checkpoint's BF16 assumed"),
    "BF16/FP16 ('without quantization')": (
        "BF16", "BF16", "'without quantization': 16-bit weights and KV cache (BF16 and FP16 both 2 bytes)"),
    "INT8 weight-only (per-channel), BF16 activations and KV": ("INT8", "BF16", INT8_NOTE + "; KV cache BF16"),
    "INT8 weight-only (per-channel), BF16 activations": ("INT8", "BF16", INT8_NOTE + "; KV cache BF16"),
    "INT8 weight-only, BF16 activations": ("INT8", "BF16", INT8_NOTE + "; KV cache BF16 (the README says so)"),
    "FP8 weight-only, BF16 activations": (
        "INT8", "BF16", "FP8 weight-only (torchao float8wo): 8-bit weights upcast to BF16 for BF16 GEMMs, i.e. an "
                        "8-bit weight-only row, priced as INT8 (1 byte per weight, BF16 compute, the weight-only "
                        "efficiency); KV cache BF16"),
    "INT4 weight-only, group size 32, BF16 activations and KV": ("INT4", "BF16", _int4_note("32") + "; KV cache BF16"),
    "INT4 weight-only G=32 (verifier Llama-2-70B and draft Llama-2-7B both int4)": (
        "INT4", "BF16", _int4_note("32") + "; KV cache BF16"),
    "INT4 weight-only, group 64, BF16 activations": ("INT4", "BF16", _int4_note("64") + "; KV cache BF16"),
    "INT4 weight-only (AWQ W4A16, group 128), FP16 activations and KV": (
        "INT4", "BF16", _int4_note("128") + "; " + KV_16_NOTE),
    "INT4 weight-only (AWQ W4A16), FP16 activations; KV dtype default (auto = model dtype)": (
        "INT4", "BF16", _int4_note("not stated") + "; KV cache in the model dtype (vLLM's kv-cache-dtype auto), "
                        "16-bit: " + KV_16_NOTE),
}

# trtllm-bench, which made the perf-overview's v0.12.0 table ("FP8 = trtllm-bench --quantization FP8"), builds the
# engine with an FP8 KV cache whenever the weights are FP8: NVIDIA/TensorRT-LLM tensorrt_llm/bench/build/build.py
# (@000a01de: "If the quantization is NVFP4 or FP8, force the KV cache dtype to FP8"; the earlier stored versions:
# "If the quantization is FP8, force the KV cache dtype to FP8").
TRTLLM_BENCH_FP8_KV_NOTE = ("FP8 weights (trtllm-bench --quantization FP8) at 1 byte per parameter; KV cache FP8: "
                            "trtllm-bench forces the KV cache dtype to FP8 when the quantization is FP8 "
                            "(NVIDIA/TensorRT-LLM tensorrt_llm/bench/build/build.py @000a01de)")

# TensorRT-LLM perf-overview (the decode rows' source @ 00f37686): "the default setting of 0.90" for
# --kv_cache_free_gpu_mem_fraction ("in many cases" 0.95). Used to size the offline KV-limited batch.
TRTLLM_KV_FRACTION = 0.90
TRTLLM_KV_NOTE = ("offline maximum load ('max'): concurrency = the KV-memory-limited maximum, computed by "
                  "tinker_nomics.accuracy from the architecture's KV bytes at the case's kv_precision for a full "
                  "input+output sequence and kv_memory_fraction of the memory the weights leave free (perf-overview: "
                  "'the default setting of 0.90'; 'in many cases' 0.95); trtllm-bench's own max_batch_size heuristic "
                  "is not modelled")
# For engines whose KV budget the row does not state (vLLM, SGLang, NIM), the same fraction stands in; it
# only caps a stated concurrency that would not fit.
SERVING_KV_NOTE = ("stated concurrency; capped by the exact methods at the KV-memory-limited maximum with "
                   "kv_memory_fraction 0.90 of the memory the weights leave free (TensorRT-LLM's documented "
                   "default, standing in for this engine's unstated memory setting)")


def _source_label(url: str) -> str:
    for key, label in (("TensorRT-LLM/blob/138f96d4", "TensorRT-LLM performance.md (v0.5/v0.6.1)"),
                       ("H200launch", "TensorRT-LLM H200 launch blog"),
                       ("Falcon180B-H200", "TensorRT-LLM Falcon-180B/H200 blog"),
                       ("gpt-fast/issues", "gpt-fast issue 27"), ("gpt-fast", "gpt-fast README"),
                       ("pytorch/ao", "torchao quantization README"), ("2499968698", "TensorRT-LLM perf-overview v0.12.0"),
                       ("nm-vllm", "nm-vllm CI benchmark"), ("rkooo567", "llm_benchmark README"),
                       ("quantization/w4a16", "LMDeploy W4A16 doc"), ("vllm/issues/20469", "vLLM issue 20469"),
                       ("yobitelcomm", "InferenceBench recipe"), ("tt-inference-server", "tenstorrent GPU reference"),
                       ("TensorRT-LLM", "TensorRT-LLM perf-overview"), ("docs.nvidia.com/nim", "NVIDIA NIM"),
                       ("vultr", "Vultr B200 cookbook"), ("tim-wang", "tim-wang blog"),
                       ("aimultiple", "aimultiple blog"), ("spheron", "Spheron blog"),
                       ("NeMo/RL/blob/9dbd9adc", "NeMo RL v0.5"), ("NeMo/RL/blob/7ea279ab", "NeMo RL v0.6"),
                       ("svcnemo-autobot/RL/blob/ad3472a8", "NeMo RL v0.7"),
                       ("NeMo/RL/blob/06beed91", "NeMo RL v0.4"),
                       ("docs/perf/dpsk.md", "verl perf docs"), ("fully_async_policy", "verl fully_async README"),
                       ("py-inference-scheduler", "verl step log (llm-d)"),
                       ("sglang-ant-group", "LMSYS SGLang on H20"), ("2db4e4042b", "LMSYS 96×H100 EP"),
                       ("lm-sys", "Miles (LMSYS/AMD)"),
                       ("vllm-colocate", "TRL colocate blog"), ("2405.11143", "OpenRLHF report"),
                       ("ROCm/vllm", "AMD ROCm vLLM"), ("InternLM/lmdeploy", "LMDeploy benchmark"),
                       ("AReaL/blob/3ec86a4c", "AReaL examples"), ("AReaL_v0_3", "AReaL v0.3 blog"),
                       ("one_step_off", "verl one-step-off doc"), ("37899697233", "verl benchmark report (H100)"),
                       ("prime-rl", "prime-rl trainer bench"),
                       ("QwenLM/Qwen2.5/blob/ac727245", "Qwen3 speed benchmark (SGLang, H20)"),
                       ("QwenLM/Qwen2.5/blob/010c37c3", "Qwen2.5 speed benchmark (vLLM, A100)"),
                       ("ggml-org/llama.cpp/pull", "llama.cpp PR benchmarks (maintainers)")):
        if key in url:
            return label
    return url


# A family is one publisher's measurements: versions of one page, or one team's runs, are one family, so that a
# leave-one-family-out judgement never fits on one version of a page and tests on another. Every source label the
# builder gives (the _source_label table for the CSVs with URLs, rl_phases.csv's own source_family column) is listed;
# a label missing here stops the build.
FAMILY_MEMBERS = {
    # TensorRT-LLM's performance pages of every version (performance.md v0.5/v0.6.1, perf-overview v0.12.0 and
    # @00f37686/@03e27c7d) and the two H200 blogs of the same docs folder: the same team's static-batch benchmarks of
    # the v0.5-v0.7 engines, published beside performance.md.
    "TensorRT-LLM perf docs": ("TensorRT-LLM perf-overview", "TensorRT-LLM perf-overview v0.12.0",
                               "TensorRT-LLM performance.md (v0.5/v0.6.1)", "TensorRT-LLM H200 launch blog",
                               "TensorRT-LLM Falcon-180B/H200 blog"),
    # gpt-fast and torchao: one code lineage (torchao's generate.py is gpt-fast's), one team (PyTorch); the issue
    # is a user's run of gpt-fast.
    "gpt-fast / torchao (PyTorch)": ("gpt-fast README", "gpt-fast issue 27", "torchao quantization README"),
    # LMDeploy's own tables: its 2023 benchmark and its W4A16 doc (whose MLC-LLM and llm-awq rows it measured too).
    "LMDeploy": ("LMDeploy benchmark", "LMDeploy W4A16 doc"),
    # NeMo RL: the performance summaries v0.4-v0.7 (v0.7 held back: see _rl_cases), the v0.3 blog and its GitHub
    # issues (reruns of the blog's recipes).
    "NeMo RL": ("NeMo RL v0.4", "NeMo RL v0.5", "NeMo RL v0.6", "NeMo RL v0.7", "NeMo RL blog and docs (v0.3 blog)",
                "NeMo RL GitHub issues"),
    # verl's documentation pages: docs/perf/dpsk.md, the fully_async README/docs page and the one-step-off page.
    "verl docs": ("verl perf docs", "verl fully_async README", "verl one-step-off doc",
                  "verl docs (fully_async_policy / one_step_off pages)"),
    # The anonymous verl benchmark reports of the search index (rl_more.csv re-reads one of rl_phases.csv's two).
    "verl benchmark reports (anonymous)": ("verl benchmark report (H100)",
                                           "verl benchmark reports (anonymous, search index)"),
    # Miles on MI300X: the LMSYS blog and the secondary summary of it.
    "Miles (LMSYS blog)": ("Miles (LMSYS/AMD)", "slime / Miles (LMSYS blog)"),
    "AReaL": ("AReaL examples", "AReaL v0.3 blog"),
    # Qwen's speed benchmark page, for Qwen2.5 (vLLM on A100) and for Qwen3 (SGLang on H20): one publisher's page.
    "Qwen speed benchmark": ("Qwen2.5 speed benchmark (vLLM, A100)", "Qwen3 speed benchmark (SGLang, H20)"),
    # One family each.
    **{label: (label,) for label in (
        "NVIDIA NIM", "Vultr B200 cookbook", "tim-wang blog", "aimultiple blog", "Spheron blog", "AMD ROCm vLLM",
        "LMSYS SGLang on H20", "LMSYS 96×H100 EP", "vLLM issue 20469", "InferenceBench recipe",
        "tenstorrent GPU reference", "nm-vllm CI benchmark", "llm_benchmark README", "verl step log (llm-d)",
        "TRL colocate blog", "OpenRLHF report", "prime-rl trainer bench", "verl GitHub issues and PRs",
        "ISEEKYAN/Megatron-LM PRs (verl 'lite' Megatron engine)", "SkyRL / MarinSkyRL (marin-community issues)",
        "verl console log: dingxianzhong/play-verl", "verl console log: Bihan/dstack-configs",
        "llama.cpp PR benchmarks (maintainers)")},
}
FAMILIES = {label: fam for fam, labels in FAMILY_MEMBERS.items() for label in labels}


def family(source: str) -> str:
    if source not in FAMILIES:
        raise SystemExit(f"source {source!r} has no family (add it to FAMILY_MEMBERS in {Path(__file__).name})")
    return FAMILIES[source]


def _read(name: str) -> list[tuple[int, dict]]:
    with open(MEASUREMENTS / name, newline="", encoding="utf-8") as fh:
        return list(enumerate(csv.DictReader(fh), start=2))


def _number(text: str) -> float:
    return float(re.sub(r"[~,\s]", "", text))


def _fp8_peak_missing(gpu: str, precision: str) -> list[str]:
    """Why an FP8 row cannot be timed: its GPU has FP8 tensor cores but the registry has no sourced FP8 peak (the
    package would run its weights weight-only at the BF16 peak, as on a GPU without FP8 tensor cores). FP4 rows
    need no such screen: data/hardware/fp4_peaks.csv gives every registry GPU with FP4 tensor cores its peak, and
    on any other GPU FP4 weights do run weight-only."""
    if str(precision).upper() == "FP8" and sources.get_gpu(gpu).fp8_dense_tflops is None:
        return [f"GPU {gpu} has no sourced dense FP8 peak (data/hardware/gpus_added.csv), so its {precision} GEMMs "
                f"cannot be timed"]
    return []


def _check_ids(model: str | None, gpu: str | None) -> None:
    """Fail loudly if a rule above names an id the registries do not hold."""
    if model:
        sources.get_arch(model)
    if gpu:
        sources.get_gpu(gpu)


# ----------------------------------------------------------------------------------------- decode

DECODE_COLUMNS = ["case_id", "source", "family", "raw_file", "raw_row", "usable", "reason", "engine", "model", "gpu",
                  "num_gpus", "tensor_parallel", "precision", "bytes_per_param", "kv_precision", "concurrency",
                  "concurrency_basis", "max_num_seqs", "kv_memory_fraction", "input_tokens", "output_tokens",
                  "measured_output_tok_s", "notes"]


def _length(text: str, what: str, notes: list[str]) -> float | None:
    text = text.strip()
    if re.fullmatch(r"\d+", text):
        return float(text)
    m = re.fullmatch(r"(\d+)-(\d+)", text)
    if m:
        low, high = float(m.group(1)), float(m.group(2))
        notes.append(f"{what} given as the range {text}: its midpoint {(low + high) / 2:g} is used")
        return (low + high) / 2
    m = re.fullmatch(r"~(\d+) avg", text)
    if m:
        notes.append(f"{what} '{text}' (an approximate average) taken as {m.group(1)}")
        return float(m.group(1))
    return None


def _tensor_parallel(row: dict) -> float | None:
    m = re.search(r"TP=?(\d+)", row["notes"])
    if m:
        return float(m.group(1))
    return float(row["num_gpus"]) if row["num_gpus"] == "1" else None


def decode_cases() -> list[dict]:
    return _with_family(_decode_reference_cases() + _decode_more_cases())


# Engine texts whose parenthetical names another engine (the fit picks an engine's batch cap from the words
# "tensorrt", "lmdeploy", "sglang" in the engine column): the engine's own name, as the raw row gives it.
ENGINE_NAMES = {
    "MLC-LLM (as measured by LMDeploy)": "MLC-LLM",
    "llm-awq (as measured by LMDeploy)": "llm-awq",
    "Triton server (backend not stated; TensorRT-LLM or FasterTransformer)": "Triton server",
    "not stated (tt-inference-server 'gpu' reference run: model_impl 'gpu', OpenAI-compatible server; "
    "vllm_commit 'n/a')": "not stated",
}

# Batch-1 rows of the gpt-fast code lineage whose prompt or output length is "not stated": the generate script's
# documented defaults. pytorch-labs/gpt-fast generate.py (@0055c42d) and pytorch/ao torchao/_models/llama/generate.py
# (@00109449) both declare `--prompt default="Hello, my name is"` and `--max_new_tokens default=200`; gpt-fast's README
# runs `generate.py --compile --checkpoint_path ... --prompt "Hello, my name is"` and calls its benchmark prompt
# "just 5 tokens"; torchao's benchmarks.sh (@08d598cb) runs the README's rows ("# in readme") with neither flag.
SCRIPT_DEFAULT_OUTPUT = 200.0
SCRIPT_DEFAULT_PROMPT = 5.0
GPT_FAST_OUTPUT_NOTE = ("output length not stated: generate.py's default --max_new_tokens 200 (pytorch-labs/gpt-fast "
                        "generate.py @0055c42d; the README's benchmark command passes no --max_new_tokens)")
GPT_FAST_PROMPT_NOTE = ("prompt length not stated: generate.py's default prompt 'Hello, my name is' (pytorch-labs/"
                        "gpt-fast generate.py @0055c42d), which gpt-fast's README counts as 'just 5 tokens'")
TORCHAO_LENGTHS_NOTE = ("prompt and output lengths not stated: torchao's generate.py defaults, --prompt 'Hello, my "
                        "name is' and --max_new_tokens 200 (pytorch/ao torchao/_models/llama/generate.py @00109449; "
                        "the README's rows are run by torchao/_models/llama/benchmarks.sh, lines marked '# in "
                        "readme', with neither flag, @08d598cb); the prompt taken as 5 tokens, as gpt-fast's README "
                        "counts the same default prompt")
SCRIPT_DEFAULT_SOURCES = ("gpt-fast README", "gpt-fast issue 27", "torchao quantization README")
# gpt-fast's one speculative row: the README links scripts/speculate_70B_int4.sh, stored as
# pytorch-labs/gpt-fast mixtral-moe/scripts/speculate_70B_int4.sh @a66d91e8: "python generate.py --compile
# --draft_checkpoint_path .../Llama-2-7b-chat-hf/model_int4.g32.pth --checkpoint_path .../Llama-2-70b-chat-hf/
# model_int4.g32.pth --speculate_k 4 --prompt "def quicksort(arr):" --max_new_tokens 100" (one process: no torchrun).
SPECULATIVE_OUTPUT = 100.0
SPECULATIVE_NOTE = ("SPECULATIVE DECODING (draft Llama-2-7B int4, speculate_k 4): a verifier step can emit up to 5 "
                    "tokens, which the model's one-token-per-step decode does not describe; one GPU and 100 output "
                    "tokens per the README's script speculate_70B_int4.sh (as stored in pytorch-labs/gpt-fast "
                    "mixtral-moe/scripts @a66d91e8: 'python generate.py ... --speculate_k 4 --prompt \"def "
                    "quicksort(arr):\" --max_new_tokens 100', no torchrun); prompt taken as 5 tokens, as the README "
                    "says of all its benchmarks")
# It stays out of the fit: a 70B int4 verifier at batch 1 reads so many bytes per step that the row (48.4 tok/s) is
# still under the one-token-per-step ceiling of one A100, so the fit's screen of rows above the physical limit does
# not catch it, while it runs at twice the rate of the same verifier decoding alone (decode-95, 25.25 tok/s).
SPECULATIVE_REASON = ("speculative decoding (a draft model proposes 4 tokens per verifier step): the model has no "
                      "term for it, and the row stays below the plain-decode ceiling, so the fit's screen of rows "
                      "above the physical limit would not catch it (it runs at about twice the rate of the same "
                      "verifier alone, decode-95)")

# performance.md @138f96d4 heads its A100 table "Throughput (out tok/s)", its H100 table "(out tok/s/GPU)"; the same
# page at 77d24b5f (NVIDIA/TensorRT-LLM docs/source/performance.md, identical numbers) heads the A100 table
# "Throughput (out tok/s/GPU)". So the A100 rows at TP > 1, recorded as printed, are per GPU: × TP for the group.
PER_GPU_MARK = "AMBIGUOUS whether"

STATIC_BATCH_SOURCES = ("TensorRT-LLM performance.md (v0.5/v0.6.1)", "TensorRT-LLM H200 launch blog",
                        "TensorRT-LLM Falcon-180B/H200 blog", "llm_benchmark README")
STATIC_BATCH_NOTE = ("static batch: the stated batch is prefilled and decoded together (concurrency = batch size), "
                     "so the end-to-end rate includes the batch's prefill")
BATCH_ONE_NOTE = "batch 1: one sequence at a time (concurrency 1)"
OFFLINE_VLLM_NOTE = ("offline maximum load (every prompt queued at once): concurrency = the KV-memory-limited maximum, "
                     "at kv_memory_fraction 0.90 (vLLM's default gpu_memory_utilization), capped by the engine's "
                     "default max_num_seqs")


def _decode_lengths(row: dict, source: str, notes: list[str], reasons: list[str]) -> tuple[float | str, float | str]:
    """(input, output) tokens of a decode_throughput.csv row; a reason when they cannot be known."""
    speculative = "SPECULATIVE DECODING" in row["notes"]
    input_tokens = _length(row["input_len"], "input length", notes)
    output_tokens = _length(row["output_len"], "output length", notes)
    if source in SCRIPT_DEFAULT_SOURCES and row["concurrency"].strip() == "1":
        if speculative:
            output_tokens = SPECULATIVE_OUTPUT
        elif source == "torchao quantization README":
            input_tokens, output_tokens = SCRIPT_DEFAULT_PROMPT, SCRIPT_DEFAULT_OUTPUT
            notes.append(TORCHAO_LENGTHS_NOTE)
        else:
            if input_tokens is None:
                input_tokens = SCRIPT_DEFAULT_PROMPT
                notes.append(GPT_FAST_PROMPT_NOTE)
            if output_tokens is None:
                output_tokens = SCRIPT_DEFAULT_OUTPUT
                notes.append(GPT_FAST_OUTPUT_NOTE)
    if input_tokens is None or output_tokens is None:
        why = ("ShareGPT conversations of unrecorded average length" if "ShareGPT" in row["input_len"] else
               "the page names a workload but not its lengths")
        reasons.append(f"input/output lengths not stated ({row['input_len']!r}, {row['output_len']!r}): {why}")
    return ("" if input_tokens is None else input_tokens), ("" if output_tokens is None else output_tokens)


def _decode_reference_cases() -> list[dict]:
    out = []
    for line, row in _read("decode_throughput.csv"):
        source = _source_label(row["source_url"])
        case = {c: "" for c in DECODE_COLUMNS}
        case.update(case_id=f"decode-{line:02d}", source=source, raw_file="decode_throughput.csv", raw_row=line,
                    engine=ENGINE_NAMES.get(row["engine"], row["engine"]), num_gpus=row["num_gpus"],
                    measured_output_tok_s=row["output_tok_s"])
        notes: list[str] = []
        reasons: list[str] = []

        model = MODELS.get(row["model"])
        if model is None:
            reasons.append(f"model {row['model']!r} has no architecture in data/models/model_archs.csv "
                           f"(Llama-3.3-Nemotron-Super-49B; the registry's Nemotron Super is the 120B-A12B)")
        else:
            case["model"] = model[0]
            if model[1]:
                notes.append(model[1])
        gpu = GPUS.get(row["gpu"])
        if gpu is None:
            reasons.append(UNKNOWN_GPUS.get(row["gpu"], f"GPU {row['gpu']!r} is not in data/hardware/gpus.csv"))
        else:
            case["gpu"] = gpu[0]
            if gpu[1]:
                notes.append(gpu[1])
            if sources.get_gpu(gpu[0]).bf16_dense_tflops is None:
                reasons.append(f"GPU {gpu[0]} has no sourced dense BF16 peak (data/hardware/gpus.csv), so the "
                               f"compute ceiling and the prefill cannot be evaluated")
        _check_ids(case["model"] or None, case["gpu"] or None)
        if case["engine"] == "not stated":
            reasons.append("engine not stated (its fixed per-step cost and batch cap are the engine's)")

        text = row["precision"].strip()
        if text in PRECISION_RULES:
            precision, kv, note = PRECISION_RULES[text]
            case["precision"], case["kv_precision"] = precision, kv
            if gpu is not None:
                reasons.extend(_fp8_peak_missing(gpu[0], precision))
            notes.append(note)
        else:
            precision = text
            if precision == "not stated":
                precision = "BF16"
                notes.append("precision not stated: BF16 assumed (vLLM and SGLang load meta-llama/Llama-3.1-8B-"
                             "Instruct in its checkpoint dtype, bfloat16, unless asked to quantize)")
            case["precision"], case["kv_precision"] = precision, "BF16"
            if row["model"].startswith("nvidia/") and precision in ("FP8", "FP4"):
                case["kv_precision"] = "FP8"
                notes.append(PRECISION_NOTES[precision].split("; KV cache")[0])
                notes.append(MODELOPT_KV_NOTE)
            elif source == "TensorRT-LLM perf-overview v0.12.0" and precision == "FP8":
                case["kv_precision"] = "FP8"
                notes.append(TRTLLM_BENCH_FP8_KV_NOTE)
            elif precision in PRECISION_NOTES:
                notes.append(PRECISION_NOTES[precision])
        case["bytes_per_param"] = PRECISION_BYTES[case["precision"]]

        speculative = "SPECULATIVE DECODING" in row["notes"]
        if speculative:
            case["num_gpus"] = "1"
            notes.append(SPECULATIVE_NOTE)
            reasons.append(SPECULATIVE_REASON)
        tp = 1.0 if speculative else _tensor_parallel(row)
        case["tensor_parallel"] = tp if tp is not None else ""
        if tp is None:
            reasons.append("GPU count and tensor parallelism not stated")
        elif float(case["num_gpus"]) != tp:
            raise SystemExit(f"decode_throughput.csv row {line}: TP{tp:g} on {case['num_gpus']} GPUs (one TP engine "
                             f"per row is the rule)")
        elif tp > 1:
            notes.append(f"TP{int(tp)}: one replica spans {int(tp)} GPUs")
        if source == "TensorRT-LLM performance.md (v0.5/v0.6.1)" and PER_GPU_MARK in row["notes"]:
            printed = float(row["output_tok_s"])
            case["measured_output_tok_s"] = printed * tp
            notes.append(f"per GPU: the page prints {printed:g} under 'Throughput (out tok/s)', and the same page at "
                         f"77d24b5f (NVIDIA/TensorRT-LLM docs/source/performance.md, identical numbers) heads this "
                         f"A100 table 'Throughput (out tok/s/GPU)'; {printed:g} x TP{int(tp)} = {printed * tp:g} for "
                         f"the group (DERIVED here)")

        case["input_tokens"], case["output_tokens"] = _decode_lengths(row, source, notes, reasons)

        concurrency = row["concurrency"].strip()
        if concurrency.startswith("max"):
            case["concurrency_basis"] = "kv_limited_max"
            case["kv_memory_fraction"] = TRTLLM_KV_FRACTION
            notes.append(TRTLLM_KV_NOTE if "TensorRT-LLM" in case["engine"] else OFFLINE_VLLM_NOTE)
        elif re.fullmatch(r"\d+", concurrency):
            case["concurrency"] = float(concurrency)
            case["concurrency_basis"] = "stated"
            case["kv_memory_fraction"] = TRTLLM_KV_FRACTION
            notes.append(BATCH_ONE_NOTE if concurrency == "1" and source in SCRIPT_DEFAULT_SOURCES + (
                "LMDeploy W4A16 doc", "vLLM issue 20469") else
                         STATIC_BATCH_NOTE if source in STATIC_BATCH_SOURCES else SERVING_KV_NOTE)
        else:
            reasons.append(f"concurrency {concurrency!r}: an offline batch with unknown sequence lengths, so the "
                           f"KV-limited batch cannot be sized")

        notes.extend(text for key, text in SOURCE_NOTES.items() if key == source)
        if source == "Vultr B200 cookbook" and case["model"]:
            notes.append("FP8 per the row; the Mamba-2 state per sequence is the registry's figure")
        if source == "LMDeploy W4A16 doc" and case["engine"] != "LMDeploy TurboMind":
            notes.append("a competing engine measured by the LMDeploy team (the row says so)")

        case["usable"] = "no" if reasons else "yes"
        case["reason"] = "; ".join(reasons)
        case["notes"] = "; ".join(notes)
        out.append(case)
    return out


# One note per source, about how its metric was read (the raw rows' notes give the evidence).
SOURCE_NOTES = {
    "tim-wang blog": "metric 'Average Generation Rate (Gen. toks/sec)' read as the aggregate output rate of all "
                     "concurrent requests (it rises from concurrency 5 to 50)",
    "NVIDIA NIM": "metric 'Throughput(Tokens/s)' read as output tokens/s (at concurrency 1 it is below the "
                  "single-stream decode rate, so it cannot include the 5000 input tokens)",
    "Spheron blog": "figures look rounded (the row says so)",
    "gpt-fast README": "gpt-fast README (A100s power-capped at 330 W), batch 1, torch.compile'd decode",
    "gpt-fast issue 27": "a user's report ('around 65 tokens per second'), gpt-fast version not stated; the "
                         "maintainer's reply reads it as batch 1 near the bandwidth limit",
    "torchao quantization README": "torchao README table: batch 1, torch.compile'd decode (gpt-fast's generate.py "
                                   "lineage)",
    "vLLM issue 20469": "--enforce-eager (no CUDA graphs: a larger per-step cost than the engine's default); the "
                        "rate is output tokens over the benchmark's duration, the 16k-token prefill included",
    "llm_benchmark README": "low trust: a personal 2023 benchmark; rate = batch x output / total time (DERIVED in "
                            "the raw row, prefill included)",
    "TensorRT-LLM perf-overview v0.12.0": "perf-overview at v0.12.0 (trtllm-bench, in-flight batching): the whole "
                                          "TP group's output tokens/s (the row's reading)",
    "TensorRT-LLM H200 launch blog": "preliminary TensorRT-LLM v0.5.0 figures of the H200 launch blog",
    "TensorRT-LLM Falcon-180B/H200 blog": "preliminary TensorRT-LLM v0.7a figures; batch from the table's footnote",
}


# decode_more.csv weight-only rows: what each stored format is priced as.
WEIGHT_ONLY_MORE_NOTE = {
    "INT4": "weight-only 4-bit (AWQ/GPTQ with groups of 128, or llama.cpp's Q4_0 with blocks of 32 and about 4.5 "
            "bits a weight) priced as int4: 0.5 byte a weight plus one FP16 scale and zero point per 128",
    "INT8": "weight-only 8-bit (GPTQ-Int8, or llama.cpp's Q8_0 with about 8.5 bits a weight) priced as int8: 1 byte "
            "a weight",
}
EAGER_REASON = ("run without CUDA graphs (the page's 'Setting 1': enforce_eager=True): every decode step pays its "
                "kernel launches from Python; the decode fit is on engines that replay CUDA graphs, and the model's "
                "launch time per layer for an eager engine is fitted on the RL runs that log enforce_eager")

# decode_more.csv: one rule per source (each raw row's `notes` give its reading).
MORE_EXCLUDED = {
    "LMSYS SGLang on H20": "speculative decoding (MTP) on: accept lengths of 1.8-3.3 tokens per step, while the "
                           "roofline emits one token per sequence per step",
    "LMSYS 96×H100 EP": "a decode-only rate at a fixed 2,000-token KV length with no output length (prefill "
                        "measured separately), not an end-to-end request rate",
}


def _decode_more_cases() -> list[dict]:
    out = []
    for line, row in _read("decode_more.csv"):
        source = _source_label(row["source_url"])
        case = {c: "" for c in DECODE_COLUMNS}
        case.update(case_id=f"decode-m{line:02d}", source=source, raw_file="decode_more.csv", raw_row=line,
                    engine=row["engine"].split(" (")[0], num_gpus=row["num_gpus"],
                    measured_output_tok_s=row["output_tok_s"])
        notes: list[str] = []
        reasons: list[str] = []
        if source in MORE_EXCLUDED:
            reasons.append(MORE_EXCLUDED[source])
        model = MODELS.get(row["model"])
        gpu = GPUS.get(row["gpu"])
        if model is None or gpu is None:
            raise SystemExit(f"decode_more.csv row {line}: no rule for model {row['model']!r} or GPU {row['gpu']!r}")
        case["model"], case["gpu"] = model[0], gpu[0]
        notes.extend(text for text in (model[1], gpu[1]) if text)
        _check_ids(case["model"], case["gpu"])
        if sources.get_gpu(case["gpu"]).bf16_dense_tflops is None:
            reasons.append(f"GPU {case['gpu']} has no sourced dense BF16 or FP8 peak (data/hardware/gpus_added.csv), "
                           f"so the compute ceiling cannot be evaluated")
        text = row["precision"]
        labelled = "'(FP8)'" in text   # gpt-oss rows: the column label, before the MXFP4 caveat
        weight_only = ""   # a weight-only checkpoint: AWQ/GPTQ 4-bit or llama.cpp's Q4_0; GPTQ 8-bit or Q8_0
        if re.search(r"AWQ|INT4|Int4|Q4_0", text):
            weight_only = "INT4"
        elif re.search(r"INT8|Int8|Q8_0", text):
            weight_only = "INT8"
        precision = weight_only or ("FP8" if labelled else "FP16" if text.startswith("F16") else
                                    next((p for p in ("FP4", "FP8", "FP16", "BF16") if p in text), "BF16"))
        if weight_only:
            notes.append(WEIGHT_ONLY_MORE_NOTE[weight_only])
        if "Q2_K" in text:
            reasons.append("llama.cpp's 2-bit k-quant (Q2_K) mixes 2- to 6-bit blocks: a weight precision the model "
                           "does not price")
        if "enforce_eager=True" in row["notes"]:
            reasons.append(EAGER_REASON)
        if source.startswith("Qwen3 speed benchmark") and precision == "INT4" and "MoE" in row["notes"] \
                or source.startswith("Qwen3 speed benchmark") and "GPTQ-INT4" in text and "235B" in row["model"]:
            reasons.append("GPTQ-INT4 mixture of experts in SGLang 0.4.6: the page itself says 'The performance of "
                           "GPTQ-INT4 in SGLang also needs improvement' (4-5× slower than its BF16 row)")
        case["precision"], case["bytes_per_param"] = precision, PRECISION_BYTES[precision]
        reasons.extend(_fp8_peak_missing(case["gpu"], precision))
        case["kv_precision"] = "FP8" if "FP8 KV" in text else ("FP16" if "weights and KV" in text else "BF16")
        if row["model"].startswith("nvidia/") and precision in ("FP8", "FP4"):
            case["kv_precision"] = "FP8"
            notes.append(PRECISION_NOTES[precision].split("; KV cache")[0])
            notes.append(MODELOPT_KV_NOTE)
        elif precision in PRECISION_NOTES and case["kv_precision"] == "BF16":
            notes.append(PRECISION_NOTES[precision])
        if "MXFP4" in text:
            notes.append("the doc labels the column FP8, but gpt-oss ships its MoE weights as MXFP4: weights priced "
                         "at FP8's 1 byte as labelled")
        if case["kv_precision"] == "FP8":
            notes.append("FP8 KV cache (the row's --kv-cache-dtype fp8): 1 byte per cached value")
        tp = re.search(r"TP(\d+)", row["notes"])
        pp = re.search(r"PP(\d+)", row["notes"])
        tensor = float(tp.group(1)) if tp else float(row["num_gpus"])
        if pp and int(pp.group(1)) > 1:
            reasons.append("pipeline parallel over PCIe (PP2): two pipeline stages, a layout the roofline's "
                           "tensor-parallel replica does not describe")
        case["tensor_parallel"] = tensor
        if source == "LMSYS SGLang on H20":
            case["tensor_parallel"] = float(row["num_gpus"])
        case["input_tokens"] = float(row["input_len"])
        out_len = row["output_len"].strip()
        case["output_tokens"] = float(out_len) if re.fullmatch(r"\d+", out_len) else ""
        conc = row["concurrency"].strip()
        if conc.startswith("max"):
            case["concurrency_basis"] = "kv_limited_max"
            if source == "AMD ROCm vLLM":
                seqs = re.search(r"max_num_seqs=(\d+)", conc)
                case["concurrency"] = case["max_num_seqs"] = float(seqs.group(1))
                notes.append(f"offline maximum load with max_num_seqs = num_prompts = {seqs.group(1)} (the row's "
                             f"settings): the engine runs as many as fit in KV memory, up to that cap")
            else:
                notes.append(TRTLLM_KV_NOTE)
            case["kv_memory_fraction"] = TRTLLM_KV_FRACTION
        else:
            case["concurrency"] = float(conc)
            case["concurrency_basis"] = "stated"
            case["kv_memory_fraction"] = TRTLLM_KV_FRACTION
            notes.append("static batch: the stated batch is the concurrency (the end-to-end rate includes the "
                         "batch's prefill)" if source in ("AMD ROCm vLLM", "LMDeploy benchmark") else SERVING_KV_NOTE)
        if source == "AMD ROCm vLLM" and "latency" in row["notes"]:
            notes.append("DERIVED by the raw row: batch × output length / end-to-end latency")
        if source == "AMD ROCm vLLM" and conc.startswith("max"):
            notes.append("'Throughput (tokens/s)' read as output tokens/s (the same README's latency table makes a "
                         "total-token reading inconsistent; the raw row's notes)")
        if source == "TensorRT-LLM perf-overview":
            notes.append("newer perf-overview (@03e27c7d): 'output tokens per second per GPU' × GPUs (DERIVED); the "
                         "same publisher as decode_throughput.csv's rows, so held out with them")
        if source == "LMDeploy benchmark":
            notes.append("LMDeploy 0.1.0a1 (late 2023) static-batch benchmark; FP16 weights and KV cache")
        case["usable"] = "no" if reasons else "yes"
        case["reason"] = "; ".join(reasons)
        case["notes"] = "; ".join(notes)
        out.append(case)
    return out


# ----------------------------------------------------------------------------------------- RL step

RL_COLUMNS = ["case_id", "source", "family", "raw_file", "raw_row", "usable", "reason", "framework", "algorithm", "model",
              "gpu", "num_gpus", "precision", "bytes_per_param", "off_policy", "fine_tune", "generation_samples",
              "prompt_tokens", "generated_tokens", "max_sequence_tokens", "generation_tp", "measured_step_s",
              "measured_tokens_per_s_per_gpu",
              "measured_mfu", "notes"]


def _off_policy(algorithm: str) -> float | None:
    if "On policy" in algorithm or "colocate sync" in algorithm:
        return 0.0
    m = re.search(r"(\d+)-step off", algorithm)
    return float(m.group(1)) if m else None


RL_MORE_EXCLUDED = {
    "AReaL examples": "average generated length not stated (only the 16K default / 27K recipe maximum); the example "
                      "log's 16,384 sequences conflict with the table's 512×16",
    "AReaL v0.3 blog": "batch and generation lengths not restated; GPU type assumed",
    "verl one-step-off doc": "batch size and mean response length not stated (only the 20K/8K maximum)",
    "prime-rl trainer bench": "trainer-only micro-batch benchmark: no generation, not a whole RL step",
}


def rl_step_cases() -> list[dict]:
    return _with_family([case for name, prefix in (("rl_mfu.csv", "rl-"), ("rl_more.csv", "rl-m"))
                         for case in _rl_cases(name, prefix)])


def _with_family(cases: list[dict]) -> list[dict]:
    for case in cases:
        case["family"] = family(case["source"])
    return cases


def _rl_cases(raw_file: str, prefix: str) -> list[dict]:
    out = []
    for line, row in _read(raw_file):
        source = _source_label(row["source_url"])
        case = {c: "" for c in RL_COLUMNS}
        case.update(case_id=f"{prefix}{line:02d}", source=source, raw_file=raw_file, raw_row=line,
                    framework=row["framework"], algorithm=row["algorithm"], num_gpus=row["num_gpus"],
                    measured_step_s=row["step_time_s"], measured_mfu=row["mfu"])
        notes: list[str] = []
        reasons: list[str] = []
        if re.fullmatch(r"[\d.]+", row["tokens_per_s_per_gpu"].strip()):
            case["measured_tokens_per_s_per_gpu"] = row["tokens_per_s_per_gpu"]

        nemo = source.startswith("NeMo RL")
        model = MODELS.get(row["model"]) if nemo else None
        gpu = GPUS.get(row["gpu"]) if nemo else None
        if nemo:
            case["model"], case["gpu"] = model[0], gpu[0]
            notes.extend(text for text in (model[1], gpu[1]) if text)
            _check_ids(case["model"], case["gpu"])
            precision = row["precision"].split()[0]
            case["precision"] = precision
            case["bytes_per_param"] = PRECISION_BYTES[precision]
            if precision != "BF16":
                reasons.append("FP8 training and generation: the package's RL step model "
                               "(selfhosted.self_hosted_cost) prices weights and peak FLOPs at BF16 only")
            case["off_policy"] = _off_policy(row["algorithm"])
            batch = re.search(r"G-GBS (\d+)", row["batch_config"])
            tp = re.search(r"gen \[TP,PP\]=\[(\d+),", row["batch_config"])
            length = re.search(r"G-avg seq len (\d+)", row["seq_len_info"])
            case["generation_samples"] = float(batch.group(1))
            case["generation_tp"] = float(tp.group(1))
            case["generated_tokens"] = float(length.group(1))
            longest = re.search(r"T-max seq (\d+)", row["seq_len_info"])
            if longest:
                case["max_sequence_tokens"] = float(longest.group(1))
                notes.append("'T-max seq' read as the longest sequence (prompt + response) the run allows")
            notes.append("'G-avg seq len' read as the average generated length; the prompt length is not stated, "
                         "so tinker_nomics.accuracy derives the per-sample training tokens from the row's own "
                         "definition 'Tokens/sec/GPU = total tokens used in training / (step time x #GPUs)' (a "
                         "token count, not a time) and takes prompt = that − generated")
            notes.append("full-parameter training (Megatron-core): 6N FLOPs per trained token")
            case["fine_tune"] = "full"
            if case["off_policy"]:
                notes.append(f"{int(case['off_policy'])}-step off-policy: generation overlaps training, so the step "
                             f"is the longer of the two (training.wallclock_hours)")
            if "DAPO" in row["algorithm"]:
                reasons.append("DAPO's dynamic sampling drops the groups whose rewards all agree and generates more "
                               "until the generation batch (NeMo RL's G-GBS) is full: how many it generated per step "
                               "is not stated, so the step's generation work is unknown (its trained tokens, 2.45 tokens/s/GPU against "
                               "12.7 for the GRPO row of the same model, are only what was kept)")
            if "v0.6" in source:
                notes.append("NeMo RL v0.6 remeasures the v0.5 Qwen3-30B-A3B configuration; kept as its own source")
            if "v0.7" in source:
                reasons.append("held back: the v0.7 table is read from NVIDIA's cherry-pick bot fork "
                               "(svcnemo-autobot/RL @ad3472a, whose header says v0.7 and whose recipe links name the "
                               "v0.7.0 release); the published v0.7.0 page was not available to check it against")
            if "v0.4" in source:
                notes.append("NeMo RL v0.4 measures the Llama-3.1-8B configuration of v0.5 (gathered "
                             "2026-12-01 as a version-drift check); kept as its own source")
        elif source == "verl benchmark report (H100)":
            model, gpu = MODELS[row["model"]], GPUS[row["gpu"]]
            case["model"], case["gpu"] = model[0], gpu[0]
            notes.extend(text for text in (model[1], gpu[1]) if text)
            _check_ids(case["model"], case["gpu"])
            case.update(precision="BF16", bytes_per_param=2.0, off_policy=0.0, fine_tune="full",
                        generation_tp=VERL_ROLLOUT_TP,
                        generation_samples=5120.0, prompt_tokens=92.97754, generated_tokens=232.04102,
                        measured_step_s=80.33)
            notes.append("a single anonymous W&B summary (low trust); samples per step 5,120 DERIVED in the raw row "
                         "from total tokens / (mean prompt + mean response); the step without the final step's "
                         "validation (16.59 s) and checkpoint save (17.93 s), 114.85 − 16.59 − 17.93 = 80.33 s "
                         "(DERIVED in the raw row); verl's default colocated synchronous GRPO, FSDP full-parameter "
                         "training; BF16 assumed (not stated); rollout tensor parallel not stated: verl's default "
                         f"{VERL_ROLLOUT_TP:g} (defaults.csv verl_rollout_tensor_parallel)")
        elif raw_file == "rl_more.csv":
            reasons.append(RL_MORE_EXCLUDED[source])
            notes.append("raw row kept for the count of excluded measurements")
        else:
            # Name the architecture where the raw row allows it, so the chapter can quote these rows' MFU.
            known = next((hf for raw, (hf, _) in MODELS.items() if row["model"].startswith(raw + " ")), "")
            case["model"] = known
            if source == "verl perf docs" and row["step_time_s"]:
                reasons.append("batch size not stated (a recommended configuration with its mean response length)")
            if source == "verl perf docs" and not row["step_time_s"]:
                reasons.append("MFU only, no step time, GPU not stated; quoted beside the fitted MFU")
            if source == "verl step log (llm-d)":
                reasons.append("model and GPU not stated in the log")
            if source == "Miles (LMSYS/AMD)":
                reasons.append("batch size and sequence lengths not stated (step structure only)")
            if source in ("TRL colocate blog", "OpenRLHF report"):
                reasons.append("relative speedups only, no absolute step time")
            if source == "verl fully_async README":
                reasons.append("average response length not stated (only the 28K/8K maximum)")
            notes.append("raw row kept for the count of excluded measurements")
        case["usable"] = "no" if reasons else "yes"
        case["reason"] = "; ".join(reasons)
        case["notes"] = "; ".join(notes)
        out.append(case)
    return out


# ----------------------------------------------------------------------------------------- published runs

RUN_COLUMNS = ["case_id", "source", "run", "raw_file", "raw_row", "usable", "reason", "hardware", "num_gpus",
               "reported_gpu_hours", "reported_cost_usd", "notes"]

# What each run lacks for a prediction (the shape the cost model needs: model architecture, GPU, steps,
# prompts per step, rollouts per prompt, average prompt and completion lengths).
RUN_GAPS = {
    "DeepSeek": "steps, batch and lengths not in the row",
    "DeepScaleR": "A100 memory size not stated; batch and average lengths not in the row (only the 8K→16K→24K "
                  "context limits and ~1,750 steps)",
    "SimpleRL-Zoo": "average prompt and completion lengths not in the row (only the 8,192 maximum response)",
    "MiniMax": "steps, batch and lengths not in the row",
    "ProRL": "steps, batch and lengths not in the row",
    "DAPO (": "duration not stated",
    "verl": "average response length not stated (28K/8K maximum only)",
    "Olmo": "GPU type not stated; steps, batch and lengths not in the row",
    "Light-R1": "stages covered by the cost unclear",
    "s1-32B": "supervised fine-tuning, not RL (outside the RL cost model); token counts not in the row",
    "ScaleRL": "model, GPU and shape not captured",
}


def _first_number(text: str) -> str:
    m = re.match(r"~?([\d,]+(?:\.\d+)?)(K)?", text.strip())
    if not m:
        return ""
    value = float(m.group(1).replace(",", ""))
    return f"{value * (1000 if m.group(2) else 1):g}"


def run_cases() -> list[dict]:
    out = []
    for line, row in _read("published_runs.csv"):
        gap = next((text for key, text in RUN_GAPS.items() if row["run"].startswith(key)), None)
        if gap is None:
            raise SystemExit(f"published_runs.csv row {line}: no rule for run {row['run']!r}")
        cost = row["cost_usd"].strip()
        reported_cost = _first_number(cost) if cost and not cost.startswith("part of") else ""
        notes = []
        if "derived" in row["gpu_hours"]:
            notes.append("GPU-hours derived in the raw row (GPUs × hours)")
        if "estimate" in cost:
            notes.append("the cost is a third-party estimate, not a bill")
        out.append({"case_id": f"run-{line:02d}", "source": row["source_type"], "run": row["run"], "raw_file": "published_runs.csv",
                    "raw_row": line, "usable": "no", "reason": f"not enough information: {gap}",
                    "hardware": row["hardware"], "num_gpus": row["num_gpus"],
                    "reported_gpu_hours": _first_number(row["gpu_hours"]), "reported_cost_usd": reported_cost,
                    "notes": "; ".join(notes)})
    return out


# ----------------------------------------------------------------------------------------- RL phases

PHASE_COLUMNS = ["case_id", "source", "family", "raw_file", "raw_row", "usable", "reason", "framework", "algorithm",
                 "model", "gpu", "num_gpus", "fine_tune", "lora_rank", "critic", "reference", "samples",
                 "prompt_tokens", "response_tokens", "response_max_tokens", "rollout_tp", "rollout_memory_fraction",
                 "optimizer_steps", "micro_batch_tokens", "micro_batch_samples", "logprob_micro_batch_tokens",
                 "logprob_micro_batch_samples", "reference_micro_batch_tokens", "reference_micro_batch_samples",
                 "values_micro_batch_tokens", "values_micro_batch_samples", "critic_micro_batch_tokens",
                 "critic_micro_batch_samples", "padded_tokens",
                 "critic_padded_tokens", "off_policy", "enforce_eager",
                 "generation_includes_refit", "measured_step_s",
                 "measured_generation_s", "measured_logprob_s", "measured_values_s", "measured_update_actor_s",
                 "measured_update_critic_s", "measured_refit_s", "notes"]

PHASE_MODELS = {
    "Qwen/Qwen2-7B-Instruct": (
        "Qwen/Qwen2.5-7B", "Qwen2-7B and Qwen2.5-7B share one architecture (hidden 3584, 28 layers, 28 heads, 4 KV "
        "heads, FFN 18944, vocab 152064, untied; data/models/configs/Qwen--Qwen2.5-7B.json)"),
    "Qwen/Qwen2.5-7B-Instruct": ("Qwen/Qwen2.5-7B", "instruct and base share one architecture"),
    "Qwen/Qwen2.5-0.5B-Instruct": ("Qwen/Qwen2.5-0.5B", "instruct and base share one architecture "
                                                        "(data/models/configs/Qwen--Qwen2.5-0.5B.json)"),
    "meta-llama/Llama-3.2-1B-Instruct": ("meta-llama/Llama-3.2-1B", "instruct and base share one architecture"),
    "Qwen/Qwen2.5-7B (report: 'Qwen2.5-7B Function RM'; Instruct vs base not stated)": (
        "Qwen/Qwen2.5-7B", "the report's Qwen2.5-7B, Instruct or base (one architecture; data/models/configs/)"),
    "Qwen/Qwen3.5-9B (vision tower frozen)": (
        "Qwen/Qwen3.5-9B", "the registry's Qwen3.5-9B; the frozen vision tower's passes are not modelled"),
    "Qwen/Qwen3-4B-Instruct-2507 (issue: 'Qwen3-4B-Instruct')": ("Qwen/Qwen3-4B-Instruct-2507", ""),
    "meta-llama/Llama-3.1-70B (Base)": ("meta-llama/Llama-3.1-70B", ""),
    "Qwen/Qwen3-30B-A3B-Base": ("Qwen/Qwen3-30B-A3B", "base and post-trained share one architecture"),
    "Qwen/Qwen3-235B-A22B-Thinking-2507": (
        "Qwen/Qwen3-235B-A22B", "the Thinking-2507 release has Qwen3-235B-A22B's architecture (the row says so)"),
}

# Values a phase row states only in its notes (each rule says which words it reads).
SAMPLES_IN_NOTES = re.compile(r"samples_per_step (\d+)")
# verl logs timing_s/reshard (the weight hand-off) inside timing_s/gen in these rows: generation includes the refit.
REFIT_IN_GENERATION = re.compile(r"nested (inside timing_s/gen|in gen)")
# A row whose step is a W&B summary of the last step, which also ran validation (timing_s/testing) and a checkpoint
# save: the step without them, when the row states both, else no step (the phases stay).
LAST_STEP_VALIDATION = re.compile(r"testing ([\d.]+)\)")
LAST_STEP_SAVE = re.compile(r"checkpoint save \(([\d.]+)\)")
# rl_more.csv row 17 reads the same anonymous verl report (search-index file id 37899697233) for its step alone.
SAME_RUN_IN_RL_MORE = "37899697233"
# verl's optimizer steps per RL step: train_batch_size / ppo_mini_batch_size x ppo_epochs (1 unless stated), as
# tools/import_verl_phases.py counts them for the logs it reads.
TRAIN_BATCH = re.compile(r"train_batch_size (\d+)", re.IGNORECASE)
MINI_BATCH = re.compile(r"ppo_mini_batch(?:_size)? (\d+)", re.IGNORECASE)


def _text_number(text: str) -> str:
    text = (text or "").strip()
    return text if re.fullmatch(r"[\d.eE+-]+", text) else ""


def rl_phase_cases() -> list[dict]:
    """One case per raw row of rl_phases.csv: an RL step with its phases measured (verl's timing_s/*, NeMo RL's
    generation / logprobs / training / refit), the inputs a prediction needs and the measured seconds per phase
    (log-prob = the old-policy and reference passes; the critic's passes apart)."""
    out = []
    for line, row in _read("rl_phases.csv"):
        case = {c: "" for c in PHASE_COLUMNS}
        notes, reasons = [row.get("notes", "")], []
        model = PHASE_MODELS.get(row["model"]) or (MODELS.get(row["model"]))
        if model is None and row["model"]:
            try:
                sources.get_arch(row["model"])
                model = (row["model"], "")
            except Exception:
                model = None
        if model is None:
            reasons.append(f"model {row['model']!r} has no architecture in the registry")
        else:
            _check_ids(model[0], None)
            if model[1]:
                notes.append(model[1])
        gpu = GPUS.get(row["gpu"]) or ((row["gpu"], "") if row["gpu"] in sources.gpus() else None)
        if gpu is None:
            reasons.append(UNKNOWN_GPUS.get(row["gpu"], f"GPU {row['gpu']!r} is not in the registry"))
        else:
            _check_ids(None, gpu[0])
        prompts, per_prompt = _text_number(row["prompts_per_step"]), _text_number(row["samples_per_prompt"])
        samples = float(prompts) * float(per_prompt) if prompts and per_prompt else None
        stated = SAMPLES_IN_NOTES.search(row["notes"])
        if samples is None and stated:
            samples = float(stated.group(1))
            notes.append(f"samples per step {stated.group(1)}, as the row's notes state")
        for name, value in (("samples per step", samples), ("mean prompt length", _text_number(row["prompt_len_mean"])),
                            ("mean response length", _text_number(row["response_len_mean"])),
                            ("GPU count", _text_number(row["num_gpus"]))):
            if not value:
                reasons.append(f"{name} not stated")
        old, ref = _text_number(row["old_log_prob_s"]), _text_number(row["ref_s"])
        logprob = float(old or 0) + float(ref or 0) if (old or ref) else None
        includes_refit = row.get("gen_includes_refit", "") or ("no" if row["refit_s"] else "yes")
        if REFIT_IN_GENERATION.search(row["notes"]):
            includes_refit = "yes"
            notes.append("generation includes the refit: timing_s/reshard is logged inside timing_s/gen (the row "
                         "says so)")
        step = _text_number(row["step_s"])
        validation, save = LAST_STEP_VALIDATION.search(row["notes"]), LAST_STEP_SAVE.search(row["notes"])
        if step and SAME_RUN_IN_RL_MORE in row["source_url"]:
            step = ""
            notes.append("the step of this run (without validation and checkpoint) is the usable case rl-m17 "
                         "of rl_step_cases.csv (rl_more.csv row 17 reads the same report): left out here so that the "
                         "fit counts it once; the phases are this row's")
        elif step and validation:
            if save:
                step = f"{float(step) - float(validation.group(1)) - float(save.group(1)):.6g}"
                notes.append(f"step without the last step's validation ({validation.group(1)} s) and checkpoint save "
                             f"({save.group(1)} s): {row['step_s']} - {validation.group(1)} - {save.group(1)} = {step} "
                             f"s (DERIVED here)")
            else:
                step = ""
                notes.append(f"the logged step includes the last step's validation ({validation.group(1)} s) and a "
                             f"checkpoint save whose time the source does not give: the step is left out, its "
                             f"phases kept")
        optimizer_steps = _text_number(row.get("optimizer_steps", ""))
        train, mini = TRAIN_BATCH.search(row["notes"]), MINI_BATCH.search(row["notes"])
        if not optimizer_steps and train and mini and row["framework"].startswith("verl") \
                and train.group(1) == row["prompts_per_step"]:
            optimizer_steps = f"{float(train.group(1)) / float(mini.group(1)):g}"
            notes.append(f"optimizer steps = train_batch_size {train.group(1)} / ppo_mini_batch_size {mini.group(1)} "
                         f"(ppo_epochs not stated: verl's default 1)")
        rollout_tp = _text_number(row["rollout_tp"])
        if not rollout_tp and row["framework"].startswith("verl"):
            rollout_tp = f"{VERL_ROLLOUT_TP:g}"
            notes.append(f"rollout tensor parallel not stated: verl's default {VERL_ROLLOUT_TP:g} "
                         f"(defaults.csv verl_rollout_tensor_parallel)")
        case.update(
            case_id=f"phase-{line:02d}", source=row["source_family"], raw_file="rl_phases.csv", raw_row=line,
            usable="no" if reasons else "yes", reason="; ".join(reasons), framework=row["framework"],
            algorithm=row["algorithm"], model=model[0] if model else "", gpu=gpu[0] if gpu else "",
            num_gpus=_text_number(row["num_gpus"]), fine_tune=row["fine_tune"] or "full",
            lora_rank=_text_number(row["lora_rank"]), critic=row["critic"] or "no",
            reference=row["kl_reference"] or "yes", samples=samples if samples else "",
            prompt_tokens=_text_number(row["prompt_len_mean"]), response_tokens=_text_number(row["response_len_mean"]),
            response_max_tokens=_text_number(row["response_len_max"]), rollout_tp=rollout_tp,
            rollout_memory_fraction=_text_number(row["gpu_memory_utilization"]),
            optimizer_steps=optimizer_steps,
            micro_batch_tokens=_text_number(row.get("micro_batch_tokens", "")),
            micro_batch_samples=_text_number(row.get("micro_batch_samples", "")),
            logprob_micro_batch_tokens=_text_number(row.get("logprob_micro_batch_tokens", "")),
            logprob_micro_batch_samples=_text_number(row.get("logprob_micro_batch_samples", "")),
            **{f"{stem}_micro_batch_{unit}": _text_number(row.get(f"{stem}_micro_batch_{unit}", ""))
               for stem in ("reference", "values", "critic") for unit in ("tokens", "samples")},
            padded_tokens=_text_number(row.get("padded_tokens", "")),
            critic_padded_tokens=_text_number(row.get("critic_padded_tokens", "")),
            off_policy=_off_policy(row["algorithm"]) or 0.0, enforce_eager=row.get("enforce_eager", ""),
            generation_includes_refit=includes_refit,
            measured_step_s=step, measured_generation_s=_text_number(row["gen_s"]),
            measured_logprob_s=f"{logprob:g}" if logprob is not None else "",
            measured_values_s=_text_number(row["values_s"]), measured_update_actor_s=_text_number(row["update_actor_s"]),
            measured_update_critic_s=_text_number(row["update_critic_s"]), measured_refit_s=_text_number(row["refit_s"]),
            notes="; ".join(n for n in notes if n))
        case["family"] = family(case["source"])
        if gpu and gpu[1]:
            case["notes"] += "; " + gpu[1]
        out.append(case)
    return out


# ----------------------------------------------------------------------------------------- main

def _render(rows: list[dict], columns: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:g}" if isinstance(v, float) else v) for k, v in row.items()})
    return buffer.getvalue()


OUTPUTS = {"decode_cases.csv": (decode_cases, DECODE_COLUMNS), "rl_step_cases.csv": (rl_step_cases, RL_COLUMNS),
           "rl_phase_cases.csv": (rl_phase_cases, PHASE_COLUMNS),
           "run_cases.csv": (run_cases, RUN_COLUMNS)}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, (build, columns) in OUTPUTS.items():
        text = _render(build(), columns)
        path = MEASUREMENTS / name
        if check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)} (run tools/build_measurement_cases.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
