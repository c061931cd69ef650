"""DeepSeek-V3.2 (model_type deepseek_v32): DeepSeek-V3's architecture with DeepSeek Sparse Attention. Its
config.json is V3's with `index_n_heads` 64, `index_head_dim` 128 and `index_topk` 2048 (DeepSeek-V3.2-Exp's
config.json and inference/config_671B_v3.2.json), so the config here is the registry's DeepSeek-R1 config.json (V3's
architecture) with those fields. The indexer's shapes are DeepSeek's reference code's (inference/model.py, class
Indexer): wq_b (q_lora_rank → 64 × 128), wk (hidden → 128), k_norm (LayerNorm(128)), weights_proj (hidden → 64), and
its key cache k_cache (128 FP8 values) with k_scale_cache (one FP32 scale per 128) for every token and layer. The
model card's count: '685B … includes 671B of the Main Model weights and 14B of the Multi-Token Prediction (MTP)
Module weights' (DeepSeek-V3's, which V3.2 keeps), the MTP module left out here as for V3."""
import json

import numpy as np
import pytest

from conftest import REPO
from tinker_nomics.model import decode, roofline
from tinker_nomics.model import predict as model_predict
from tinker_nomics.sources import get_gpu
from tinker_nomics.sources.hf_config import load_config

V3_CONFIG = REPO / "data" / "models" / "configs" / "deepseek-ai--DeepSeek-R1.json"
INDEX = {"index_n_heads": 64, "index_head_dim": 128, "index_topk": 2048}


@pytest.fixture
def v32(tmp_path):
    config = json.loads(V3_CONFIG.read_text())
    config.update(model_type="deepseek_v32", architectures=["DeepseekV32ForCausalLM"], **INDEX)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return load_config(path)


def test_the_indexer_is_counted_in_every_layer(v32):
    v3 = load_config(V3_CONFIG)
    hidden, layers, q_rank = 7168, 61, 1536
    indexer = q_rank * 64 * 128 + hidden * 128 + 2 * 128 + hidden * 64
    assert v32.total_params - v3.total_params == layers * indexer
    assert v32.total_params / 1e9 == pytest.approx(671, rel=0.005)      # the main model's 671B
    assert v32.kv_bytes_per_token - v3.kv_bytes_per_token == layers * (128 + 4)
    assert v32.sparse_attention_topk == 2048


def test_a_step_reads_the_picked_latents_and_every_indexer_key(v32):
    latent = v32.kv_bytes_per_token - v32.indexer_bytes_per_token
    short, long = decode.kv_read_bytes(v32, np.array([1500.0, 32000.0]))
    assert short == pytest.approx(1500 * v32.kv_bytes_per_token)            # within the top-k: everything
    assert long == pytest.approx(2048 * latent + 32000 * v32.indexer_bytes_per_token)
    assert long < 0.2 * decode.kv_bytes(v32, 32000.0)                       # against a dense read of the cache
    # attention FLOPs: the heads over the picked tokens, the indexer over all of them
    per_layer = 2.0 * 128 * (128 + 64 + 128)
    assert float(roofline.attention_flops_per_token(v32, 32000.0)) == pytest.approx(
        per_layer * 2048 * 61 + 2.0 * 64 * 128 * 61 * 32000)


def test_long_contexts_decode_faster_than_dense_attention_would(v32):
    v3 = load_config(V3_CONFIG)
    h200 = get_gpu("H200 SXM")

    def rate(arch, prompt):
        return float(model_predict.predict_decode(arch, h200, 8, 64, prompt, 1000).output_tokens_per_second)
    assert rate(v32, 1000) == pytest.approx(rate(v3, 1000), rel=0.02)   # short: the same model, a slightly larger cache
    assert rate(v32, 32000) > 1.1 * rate(v3, 32000)


def test_a_deepseek_v32_config_without_its_query_lora_is_one_line(tmp_path):
    from tinker_nomics import TinkerNomicsError
    config = json.loads(V3_CONFIG.read_text())
    config.update(model_type="deepseek_v32", q_lora_rank=None, **INDEX)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    with pytest.raises(TinkerNomicsError, match="needs q_lora_rank"):
        load_config(path)
