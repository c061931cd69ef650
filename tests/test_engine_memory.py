"""What a vLLM engine keeps on each GPU besides its weights and KV cache (sources/engine_memory.py), checked against
vLLM's own start-up logs (data/measurements/vllm_memory_profiles.csv: llm-d-planner's vLLM 0.19 sweep on H100,
'total_gpu_memory (79.19GiB)'; Llama-3.1-8B-Instruct at gpu_memory_utilization 0.95, max_num_seqs 1024: 'model weights
take 14.99GiB', activation peak 1.89 GiB, non-torch 0.25 GiB, KV cache 58.11 GiB = 476,016 tokens)."""
import numpy as np
import pytest

from tinker_nomics.model import decode
from tinker_nomics.sources import engine_memory, get_arch
from tinker_nomics.sources.hardware import gpu_specs

GIB = 2 ** 30
H100 = gpu_specs("H100 SXM")
LLAMA = get_arch("meta-llama/Llama-3.1-8B-Instruct")


def test_an_h100_shows_its_capacity_in_gib():
    # '80GB' of HBM3 is 80 GiB; CUDA reports 79.19 GiB of it (the sweep's total_gpu_memory)
    assert float(engine_memory.engine_memory_bytes(H100)) / GIB == pytest.approx(79.19, abs=0.05)


def test_the_activation_peak_is_the_samplers_logits():
    # Llama-3.1-8B's 128,256-token vocabulary, 1,024 sequences of FP32 logits: the log's 1.89 GiB
    reserved = engine_memory.reserved_bytes(LLAMA.vocab_size, 1024, 1)
    assert float(reserved) / GIB == pytest.approx(1.89 + 0.25, rel=0.05)
    # more on a tensor-parallel group (the log's non-torch 2.07 GiB at TP 2), none for an engine without a cap
    assert float(engine_memory.reserved_bytes(LLAMA.vocab_size, 1024, 2)) > float(reserved)
    assert float(engine_memory.reserved_bytes(LLAMA.vocab_size, np.inf, 1)) / GIB == pytest.approx(0.25)
    # the profiling run samples at most its batched tokens: a cap of a million reserves what 8,192 sequences do
    assert float(engine_memory.reserved_bytes(LLAMA.vocab_size, 1e6, 1)) == \
        pytest.approx(float(engine_memory.reserved_bytes(LLAMA.vocab_size, 8192, 1)))


def test_the_kv_cache_holds_what_vllm_logged():
    tokens = decode.kv_capacity(LLAMA, H100, 1, 1, 0.95, "bf16", "bf16", max_num_seqs=1024)
    assert float(tokens) == pytest.approx(476_016, rel=0.01)
    # at TP 2 each GPU holds half of every token's cache: the log's 63.76 GiB a GPU is 1,044,688 tokens
    pair = decode.kv_capacity(LLAMA, H100, 2, 1, 0.95, "bf16", "bf16", max_num_seqs=1024)
    assert float(pair) == pytest.approx(1_044_688, rel=0.01)


def test_a_model_that_nearly_fills_a_gpu_needs_a_second_one():
    """Qwen2.5-72B's 145 GB of BF16 weights on two H100s at vLLM's 0.9: 2 × (71.3 − the reserve) GiB is less than
    the weights and one sequence, so the engine spans four (the sweep ran it at TP 2 with 0.95)."""
    arch = get_arch("Qwen/Qwen2.5-72B")
    assert float(decode.smallest_replica(arch, H100, 4096, 0.9)) == 4
    assert float(decode.smallest_replica(arch, H100, 4096, 0.95)) == 2
