"""GLM-5 and GLM-5.1 (model_type glm_moe_dsa) and DeepSeek-V3.2 (deepseek_v32) in the registry, from their
config.json (data/models/configs/sources.csv says where each copy came from). GLM-5 is DeepSeek-V3.2's layout at other
widths: multi-head latent attention (q_lora_rank 2048, kv_lora_rank 512, 64 heads of 192 + 64 for queries and keys, 256
for values), DeepSeek Sparse Attention's lightning indexer in every layer (transformers' GlmMoeDsaIndexer: wq_b, wk,
k_norm with its bias, weights_proj; 32 heads of 128, the top 2,048 tokens), 3 dense and 75 MoE layers of 256 routed and
1 shared expert. The published counts: GLM-5 '744B parameters (40B active)' (zai-org/GLM-5 README, tech report
arXiv 2602.15763 §2.1), the main model with its embedding and head and without its MTP layer; DeepSeek-V3.2's main
model, V3's '671B of the Main Model weights' (DeepSeek-V3 README) and 61 indexers."""
import copy
import json

import pytest

from conftest import REPO
from tinker_nomics import TinkerNomicsError
from tinker_nomics.sources import get_arch
from tinker_nomics.sources.hf_config import load_config

GLM = REPO / "data" / "models" / "configs" / "zai-org--GLM-5.1.json"


def test_glm_5_counts_to_its_published_744b_and_40b_active():
    glm = get_arch("zai-org/GLM-5.1")
    assert glm.total_params / 1e9 == pytest.approx(744, abs=0.5)
    assert glm.active_params_incl_embed / 1e9 == pytest.approx(40, rel=0.05)
    # per layer: the indexer's 2048 × 32 × 128 + 6144 × 128 + 2 × 128 + 6144 × 32 weights, and its FP8 keys (128
    # bytes and one 4-byte scale a token) beside the latent cache's (512 + 64) × 2 bytes
    hidden, layers = 6144, 78
    indexer = 2048 * 32 * 128 + hidden * 128 + 2 * 128 + hidden * 32
    assert indexer == 9_371_904
    assert glm.kv_bytes_per_token == layers * ((512 + 64) * 2 + 128 + 4)
    assert glm.sparse_attention_topk == 2048


def test_deepseek_v32_is_a_registry_name_with_its_indexers():
    v32, v3 = get_arch("deepseek-ai/DeepSeek-V3.2"), get_arch("deepseek-ai/DeepSeek-R1")   # R1: V3's layout
    assert v32.total_params - v3.total_params == 61 * (1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64)
    assert v32.total_params / 1e9 == pytest.approx(671, rel=0.005)


def test_layers_that_share_an_indexer_hold_no_weights_or_keys_of_their_own(tmp_path):
    """GlmMoeDsaConfig's indexer_types (IndexShare): a 'shared' layer reuses the indexer of the layer before."""
    config = json.loads(GLM.read_text())
    shared = copy.deepcopy(config)
    shared["indexer_types"] = ["full" if i % 4 == 0 else "shared" for i in range(78)]
    (tmp_path / "full.json").write_text(json.dumps(config))
    (tmp_path / "shared.json").write_text(json.dumps(shared))
    full, part = load_config(tmp_path / "full.json"), load_config(tmp_path / "shared.json")
    owners = shared["indexer_types"].count("full")
    assert full.total_params - part.total_params == (78 - owners) * 9_371_904
    assert full.kv_bytes_per_token - part.kv_bytes_per_token == (78 - owners) * (128 + 4)
    shared["indexer_types"][5] = "half"
    (tmp_path / "bad.json").write_text(json.dumps(shared))
    with pytest.raises(TinkerNomicsError, match="indexer_types.*'half'"):
        load_config(tmp_path / "bad.json")
