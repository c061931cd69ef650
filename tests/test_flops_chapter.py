"""Functions the FLOP accounting chapter calls (tinker_nomics.model.flops and .memory)."""
import math

import numpy as np
import pytest

from tinker_nomics.model import decode, flops, lora, memory, roofline, training
from tinker_nomics.sources import data_dir, get_arch, get_gpu, models, number
from tinker_nomics.sources.hf_config import load_config

QWEN8B = get_arch("Qwen3-8B")
H100 = get_gpu("H100 SXM")


def test_flop_page_lengths_are_the_seed_rows():
    assert flops.flop_page_lengths() == [512, 1024, 2048, 4096, 8192, 16384]


def test_step_components_match_step_flops_and_the_seed_formulas():
    rows = {c.name: c for c in flops.step_components(QWEN8B, 64, 16, 4096)}
    tokens = 64 * 16 * 4096
    assert rows["rollout (sampling)"].flops == tokens * 2 * 8e9 == rows["reference log-probs"].flops
    assert rows["training, full fine-tune"].flops == tokens * 6 * 8e9
    assert rows["training, LoRA"].flops == tokens * 4 * 8e9
    # printed on the FLOP page: 67.1 and 201.3 PFLOP at 4,096 tokens
    assert round(rows["rollout (sampling)"].flops / 1e15, 1) == 67.1
    assert round(rows["training, full fine-tune"].flops / 1e15, 1) == 201.3
    assert math.isnan(rows["optimizer step, LoRA"].flops)
    assert rows["optimizer step, full fine-tune"].per_token_flops_per_param == 8e9
    assert rows["optimizer step, LoRA"].per_token_flops_per_param == float(lora.lora_params(QWEN8B, 32, "seed"))


def test_achieved_mfu_inverts_compute_hours():
    seconds = training.compute_hours(1e18, 8, 990e12, 0.35) * 3600
    assert flops.achieved_mfu(1e18, seconds, 8, 990e12) == pytest.approx(0.35)


def test_step_table_mfu_shows_the_seed_table_trains_at_52_5_percent():
    # 6N FLOP column over a train time computed at 4N and 35%: 35% × 6/4
    table = flops.per_step_table(QWEN8B, H100, 8, 64, 16, flops.flop_page_lengths())
    rollout, train = flops.step_table_mfu(table, H100, 8)
    assert np.allclose(train, 0.35 * 6 / 4)
    assert np.all(np.diff(rollout) < 0)        # decode utilization falls as the KV cache grows
    assert 0.01 < rollout[-1] < 0.03 < rollout[3] < 0.1   # the seed's "~3%" sits between 4K and 16K tokens


def test_gpu_time_per_token_reproduces_67n_and_17n():
    rollout, train, ratio = flops.gpu_time_per_token(number("flop_page_rollout_mfu"), number("flop_page_train_mfu"))
    assert (round(float(rollout)), round(float(train)), round(float(ratio))) == (67, 17, 4)
    assert float(ratio) == pytest.approx(flops.utilization_adjusted_flops_per_param()[2])


def test_throughput_seed_defaults_reproduce_the_flop_page():
    t = flops.throughput(QWEN8B, H100, 8, 64, 16, 512, method="seed")
    assert round(t.single_stream_tps) == 209
    assert t.seed_effective_tps == pytest.approx(209.375 * 8 * 0.70)       # at the label's 70%
    assert round(flops.throughput(QWEN8B, H100, 8, 64, 16, 512, efficiency=0.5).seed_effective_tps) == 838
    assert flops.throughput(QWEN8B, H100, 8, 64, 16, 512, fine_tune="lora").train_tps == pytest.approx(86_625)
    assert t.tokens_per_sequence == 640
    assert round(t.kv_cache_bytes / 1e9, 1) == 83.9
    assert t.max_sequences == 7343 and round(100 * t.memory_utilization) == 19
    assert round(t.critical_batch) == 296
    # per GPU: 128 sequences, below B_crit: bandwidth-bound (the seed compared 1,024 with it)
    assert t.sequences_per_replica == 128 and t.arithmetic_intensity == 128 and not t.compute_bound


def test_throughput_exact_adds_kv_bytes_to_the_intensity():
    seed = flops.throughput(QWEN8B, H100, 8, 64, 16, 512, method="seed")
    exact = flops.throughput(QWEN8B, H100, 8, 64, 16, 512, method="exact")
    assert exact.arithmetic_intensity < seed.arithmetic_intensity
    step_bytes = roofline.weight_bytes_read(QWEN8B, 128, "exact") + 128 * QWEN8B.kv_bytes_per_token * 640
    assert exact.arithmetic_intensity == pytest.approx(128 * 2 * QWEN8B.active_params / step_bytes)
    assert exact.kv_cache_bytes == pytest.approx(1024 * 640 * QWEN8B.kv_bytes_per_token)
    assert exact.decode_mfu == pytest.approx(exact.batched_tps * 2 * QWEN8B.active_params / (8 * 989e12))


def test_throughput_of_a_model_too_big_for_the_cluster():
    kimi = get_arch("Kimi-K2-Thinking")
    small = flops.throughput(kimi, H100, 8, 64, 16, 512, method="exact")
    assert small.min_gpus > 8 and not small.kv_fits and small.max_sequences == 0
    big = flops.throughput(kimi, H100, 96, 64, 16, 512, method="exact")
    assert big.replica_gpus > 1 and big.replicas == math.floor(96 / big.replica_gpus) and big.kv_fits


def test_throughput_scales_with_gpus_and_efficiency():
    one = flops.throughput(QWEN8B, H100, 4, 64, 16, 512, efficiency=0.5, mfu=0.2)
    two = flops.throughput(QWEN8B, H100, 8, 64, 16, 512, efficiency=0.5, mfu=0.2)
    assert two.train_tps == pytest.approx(2 * one.train_tps)
    assert two.seed_effective_tps == pytest.approx(2 * one.seed_effective_tps)
    assert two.sequences_per_replica == one.sequences_per_replica / 2


def test_registry_dates():
    dates = flops.registry_dates()
    assert set(dates) == {"GPUs", "model architectures"}
    assert all(len(d) == 10 and d[4] == "-" for values in dates.values() for d in values)


@pytest.mark.parametrize("name,kind", [("Qwen3-8B", "GQA"), ("DeepSeek-V3", "MLA (latent KV)"),
                                       ("gpt-oss-20b", "GQA, alternating sliding window"),
                                       ("Qwen3.5-9B", "hybrid: Gated DeltaNet + GQA"),
                                       ("NVIDIA-Nemotron-3-Nano-30B-A3B", "hybrid: Mamba-2 + GQA")])
def test_attention_kind(name, kind):
    assert memory.attention_kind(get_arch(name)) == kind


def test_every_registry_architecture_has_an_attention_kind():
    assert all(arch.arch_type in memory.ATTENTION_KINDS for arch in models().values())


def test_kv_per_sequence_and_budget():
    q = QWEN8B
    assert memory.kv_bytes_per_sequence(q, 4096, "exact") == q.kv_bytes_per_token * 4096
    assert memory.kv_bytes_per_sequence(q, 4096, "seed") == 8 * 16_000 * 4096
    assert memory.sequences_in_budget(q, 4096, 80e9) == math.floor(80e9 / (q.kv_bytes_per_token * 4096))
    hybrid = get_arch("Qwen3.5-9B")     # constant state: a sequence costs something at zero tokens
    assert memory.kv_bytes_per_sequence(hybrid, 0) == hybrid.recurrent_bytes_per_sequence > 0
    gpt = get_arch("gpt-oss-20b")        # sliding layers hold the last 128 tokens of a sequence, no more
    full_only = gpt.kv_bytes_per_token * 4096
    assert memory.kv_bytes_per_sequence(gpt, 0) == 0
    assert memory.kv_bytes_per_sequence(gpt, 4096) == full_only + memory.recurrent_bytes_per_sequence(gpt) \
        > full_only
    assert memory.kv_bytes_per_sequence(gpt, 64) == gpt.kv_bytes_per_token * 64 * 2   # as many sliding as full


def test_a_sliding_window_holds_the_tokens_up_to_its_length():
    # Mistral-7B-v0.1 (its published config.json): 32 layers, 8 KV heads of 128, every layer a 4,096-token window;
    # bf16 keys and values, 2 bytes each
    mistral = load_config(data_dir() / "models" / "configs" / "mistralai--Mistral-7B-v0.1.json")
    per_token = 32 * 2 * 8 * 128 * 2
    assert memory.kv_bytes_per_sequence(mistral, 1000) == per_token * 1000
    assert memory.kv_bytes_per_sequence(mistral, 10_000) == per_token * 4096
    assert decode.kv_bytes(mistral, 1000) == per_token * 1000


def test_kv_table_rows():
    rows = {r.model: r for r in memory.kv_table(["Qwen3-8B", "DeepSeek-V3", "Qwen3.5-9B"], 4096, 80e9)}
    assert rows["Qwen3-8B"].per_sequence_exact == QWEN8B.kv_bytes_per_token * 4096
    # MLA: the seed's 16 KB per billion active parameters overstates DeepSeek-V3's latent cache many times over
    assert rows["DeepSeek-V3"].heuristic_over_exact > 5
    assert rows["DeepSeek-V3"].sequences_exact > rows["Qwen3-8B"].sequences_exact
    assert rows["Qwen3.5-9B"].state_per_sequence > 0
    for r in rows.values():
        assert r.sequences_exact == math.floor(80e9 / r.per_sequence_exact)


def test_step_table_ratios():
    table = flops.per_step_table(QWEN8B, H100, 8, 64, 16, [4096])
    assert float(table.flop_ratio[0]) == pytest.approx(3.0)
    assert round(float(table.time_ratio[0]), 1) == 3.0          # the seed's "3.0x longer"


def test_lora_adapter_share_and_growth_lengths():
    assert flops.lora_adapter_share(QWEN8B) == pytest.approx(float(lora.lora_params(QWEN8B, 32, "seed")) / 8e9)
    assert flops.lora_adapter_share(QWEN8B) < 0.02
    start, end, average = flops.growth_lengths(512)
    assert (start, end, average) == (512, 768, 640)


def test_attention_layers_and_state_in_tokens():
    assert memory.attention_layers(get_arch("gpt-oss-120b")) == {"total": 36, "full": 18, "sliding": 18, "linear": 0}
    assert memory.attention_layers(get_arch("Qwen3.5-9B"))["linear"] == 24
    assert memory.attention_layers(QWEN8B) == {"total": 36, "full": 36, "sliding": 0, "linear": 0}
    row = memory.kv_table(["Qwen3.5-9B"], 1024, 80e9)[0]
    assert row.state_in_tokens == pytest.approx(row.state_per_sequence / row.kv_per_token_exact)
