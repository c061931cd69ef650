"""Key/value heads on a tensor-parallel engine (model/decode.py), as vLLM lays them out.

vLLM's QKVParallelLinear (vllm/model_executor/layers/linear.py) splits the key/value heads over the GPUs with
divide(total_num_kv_heads, tp_size) while they outnumber the GPUs, and copies each whole onto tp_size / heads GPUs
once the GPUs outnumber them (divide(tp_size, total_num_kv_heads)); `divide` refuses a remainder either way. Its
ModelConfig.get_num_kv_heads gives each GPU max(1, heads // tp_size) heads, and 1 under multi-head latent attention
("When using MLA during decode it becomes MQA"): the latent is held whole on every GPU. The expected values below
are those rules applied to each model's config.json figures (data/models), not outputs of the package."""
import numpy as np
import pytest

from tinker_nomics.model import decode
from tinker_nomics.sources.architectures import get_arch
from tinker_nomics.sources.hardware import gpu_specs

from test_hostile_counts import _refused

QWEN25_14B = get_arch("Qwen/Qwen2.5-14B")          # 40 attention heads, 8 key/value heads
QWEN3_235B = get_arch("Qwen/Qwen3-235B-A22B")      # 64 attention heads, 4 key/value heads
DEEPSEEK_V3 = get_arch("deepseek-ai/DeepSeek-V3")  # multi-head latent attention, 128 heads
QWEN35_9B = get_arch("Qwen/Qwen3.5-9B")            # 4 key/value heads on its full-attention layers, recurrent rest
H100 = gpu_specs("H100 SXM")


def vllm_allows(heads, kv_heads, tp):
    """vLLM's two divisions, written out: the attention heads by the size, then the key/value heads by the size or
    the size by them."""
    if heads % tp:
        return False
    return tp % kv_heads == 0 if tp >= kv_heads else kv_heads % tp == 0


@pytest.mark.parametrize("arch", [QWEN25_14B, QWEN3_235B, QWEN35_9B], ids=lambda a: a.model)
def test_layout_rule_is_vllms(arch):
    for tp in range(1, arch.num_heads + 1):
        expected = vllm_allows(arch.num_heads, arch.num_kv_heads, tp)
        assert bool(decode.layout_allowed(arch, tp)) == expected, tp
    assert list(decode.engine_sizes(arch)) == [d for d in range(1, arch.num_heads + 1)
                                                 if vllm_allows(arch.num_heads, arch.num_kv_heads, d)]


def test_sizes_that_split_the_heads_but_not_the_key_value_heads_are_refused():
    # 40 heads split into 5, 10 or 20, but 8 key/value heads neither divide by those sizes nor divide them
    for tp in (5, 10, 20):
        assert QWEN25_14B.num_heads % tp == 0
        assert not decode.layout_allowed(QWEN25_14B, tp)
    assert list(decode.engine_sizes(QWEN25_14B)) == [1, 2, 4, 8, 40]


def test_latent_attention_has_no_key_value_rule():
    # the latent is one cache held whole on every GPU: only the 128 attention heads are split
    assert list(decode.engine_sizes(DEEPSEEK_V3)) == [d for d in range(1, 129) if 128 % d == 0]


def test_copies_per_head():
    assert list(decode.kv_copies(QWEN3_235B, np.array([1, 2, 4, 8, 16]))) == [1, 1, 1, 2, 4]
    assert list(decode.kv_copies(DEEPSEEK_V3, np.array([1, 8, 16]))) == [1, 8, 16]


def test_an_engine_past_its_key_value_heads_holds_fewer_sequences():
    budget4 = float(decode.kv_budget(QWEN3_235B, H100, 4.0, 0.9))
    budget8 = float(decode.kv_budget(QWEN3_235B, H100, 8.0, 0.9))
    one = float(decode.kv_bytes(QWEN3_235B, 4096))
    assert float(decode.kv_capacity(QWEN3_235B, H100, 4.0, 4096, 0.9)) == np.floor(budget4 / one)
    # 8 GPUs, 4 heads: each GPU keeps one head whole, so the engine holds every sequence's cache twice
    assert float(decode.kv_capacity(QWEN3_235B, H100, 8.0, 4096, 0.9)) == np.floor(budget8 / (2 * one))
    # latent attention on 8 GPUs: eight copies of every latent
    latent = float(decode.kv_bytes(DEEPSEEK_V3, 4096))
    budget = float(decode.kv_budget(DEEPSEEK_V3, gpu_specs("B200"), 8.0, 0.9))
    assert float(decode.kv_capacity(DEEPSEEK_V3, gpu_specs("B200"), 8.0, 4096, 0.9)) == np.floor(budget / (8 * latent))


def test_recurrent_state_splits_with_its_heads():
    # Qwen3.5-9B at 8 GPUs: its full-attention layers' 4 key/value heads are copied twice, its recurrent state is not
    one = float(decode.kv_bytes(QWEN35_9B, 4096))
    state = float(QWEN35_9B.recurrent_bytes_per_sequence)
    assert state > 0
    assert float(decode.kv_held(QWEN35_9B, one, 8.0)) == pytest.approx(state + 2 * (one - state))
    assert float(decode.kv_held(QWEN35_9B, one, 4.0)) == one


def test_each_gpu_reads_the_heads_it_holds():
    # batch 64 at 4,096 tokens: on 8 GPUs each reads one whole head per layer, twice the cache bytes per GPU of
    # an even split; the weights' bytes are the same either way
    f = decode.decode_features(QWEN3_235B, H100, 8.0, 64, 4096)
    even = decode.decode_features(QWEN3_235B, H100, 8.0, 64, 4096, kv_copies=False)
    cache = 64 * float(decode.kv_bytes(QWEN3_235B, 4096)) / (8 * float(H100.bandwidth_bytes_per_s))
    assert float(f.memory_seconds - even.memory_seconds) == pytest.approx(cache)


def test_cli_names_the_key_value_heads():
    _refused(["predict", "decode", "--model", "Qwen/Qwen2.5-14B", "--gpu", "H100 SXM", "--num-gpus", "10",
              "--tensor-parallel", "10", "--concurrency", "8", "--input-len", "100", "--output-len", "100"],
             "--tensor-parallel (10)", "8 key/value heads")


def test_a_count_no_allowed_engine_fills_is_said_with_the_heads():
    # Phi-3-medium: 40 attention and 10 key/value heads, so engines of 1, 2, 5, 10, 20 or 40 GPUs (vLLM's rule);
    # it needs more than 2 RTX 4090s, and neither 5 nor 10 divides 16
    from test_hostile_counts import _cli
    phi = get_arch("microsoft/Phi-3-medium-4k-instruct")
    assert (phi.num_heads, phi.num_kv_heads) == (40, 10)
    assert list(decode.engine_sizes(phi)) == [1, 2, 5, 10, 20, 40]
    code, out, _ = _cli("predict", "rl-step", "--model", "microsoft/Phi-3-medium-4k-instruct", "--fine-tune", "lora",
                        "--gpu", "RTX 4090", "--num-gpus", "16", "--samples", "256", "--prompt-len", "512",
                        "--response-len", "1024")
    line = out.splitlines()[1]
    assert code == 0 and line.startswith("Does not fit") and "40 attention and 10 key/value heads" in line
