"""weight_tensors of the hybrid and new families against published tensor lists of real checkpoints.

Each expected count is the published list's count mapped back to the Hugging Face checkpoint's names, never the
function's own output. olmo3, hunyuan_v1_moe and falcon_h1 have no test: no published tensor list was found for them.
"""
import pytest

from tinker_nomics.model.rl_phases import weight_tensors
from tinker_nomics.sources.hf_config import load_config

CASES = [
    # zai-org/GLM-4.7-Flash: llama.cpp's loader reports "844 tensors" for GLM-4.7-Flash-Q8_0.gguf
    # (github.com/ggml-org/llama.cpp/issues/19613) and GLM-4.7-Flash-64x2.6B-BF16-00001-of-00002.gguf
    # (github.com/ikawrakow/ik_llama.cpp/issues/1167), deepseek2.block_count 47. The converter drops the
    # multi-token-prediction layer 47 (eh_proj, enorm, hnorm, shared_head.*, its attention and experts), which
    # transformers does not load either, so it is left out here. Back to HF names: the GGUF splits each kv_b_proj into
    # attn_k_b and attn_v_b (-47) and stacks each MoE layer's 64 x 3 expert matrices into 3 (+46 * 189):
    # 844 - 47 + 46 * 189 = 9491 (each MoE layer keeps mlp.gate.weight and mlp.gate.e_score_correction_bias).
    ("zai-org--GLM-4.7-Flash", 844 - 47 + 46 * (64 * 3 - 3)),
    # ibm-granite Granite 4.0-H: llama.cpp's loader reports "666 tensors" for Granite 4.0 H Small (granitehybrid,
    # block_count 40, attention at layer 5 of each ten, head_count_kv [0,0,0,0,0,8,...], tied: no output.weight)
    # in github.com/ollama/ollama/issues/12982. H-Tiny has the same 40-layer plan (attention at 5/15/25/35) and tied
    # embeddings; its experts are stacked (input_linear, output_linear), so 64 rather than 72 experts do not change
    # the count. Back to HF names: the GGUF splits each layer's block_sparse_moe.input_linear and
    # shared_mlp.input_linear into gate and up (+2 a layer): 666 - 2 * 40 = 586. A sibling checkpoint, not H-Tiny's.
    ("ibm-granite--granite-4.0-h-tiny", 666 - 2 * 40),
    # LiquidAI LFM2: mlx-vlm's load error for mlx-community/LFM2.5-VL-3B-OptiQ-4bit (revision 12c5ae49) lists the
    # language model's "600 parameters" by name (a public check_models diagnostics report; the listing's layer 13
    # holds self_attn.{q,k,v,out}_proj and q/k_layernorm, the others conv.{conv,in_proj,out_proj}): 30 layers, 8 of
    # them attention, the same plan as LFM2-2.6B's layer_types. 4-bit MLX stores weight, scales and biases for each
    # quantised matrix (embed_tokens, in/out_proj, q/k/v/out_proj, w1/w2/w3) and one tensor for the rest:
    # HF = 600 - 2 * (1 + 22 * 5 + 8 * 7) = 266 (embed_tokens, embedding_norm, no lm_head: tied).
    # A sibling checkpoint (LFM2.5-VL-3B's text backbone), not LFM2-2.6B's own index.
    ("LiquidAI--LFM2-2.6B", 600 - 2 * (1 + 22 * 5 + 8 * 7)),
]


@pytest.mark.parametrize("config, published", CASES, ids=[c for c, _ in CASES])
def test_weight_tensors_matches_published_checkpoint(config, published):
    assert weight_tensors(load_config(f"data/models/configs/{config}.json")) == published
