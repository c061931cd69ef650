"""sources.hf_config: a Hugging Face config.json read into ModelArch.

The registry's 36 architecture rows (data/models/model_archs.csv, built from the models' config.json files;
shared/reference/model_archs.md explains every count) are the reference: each row's config is rebuilt from
its own columns, read back with load_config, and must reproduce the row's parameter counts (total, active
with and without the input embedding) and KV bytes (per token, and the recurrent state per sequence) exactly.
"""
import contextlib
import csv
import io
import json
import re

import pytest

from tinker_nomics import Scenario, TinkerNomicsError, estimate
from tinker_nomics.faces.cli import main
from tinker_nomics.model import lora
from tinker_nomics.model.predict import predict_decode, predict_rl_step
from tinker_nomics.sources import data_dir, get_arch, get_gpu, models
from tinker_nomics.sources.hf_config import from_dict, load_config, supported_model_types

ROWS = list(csv.DictReader(open(data_dir() / "models" / "model_archs.csv", encoding="utf-8")))


def _int(text):
    return int(text) if text not in ("", None) else None


def config_from_row(r: dict) -> dict:
    """The config.json fields a registry row records, under their Hugging Face names."""
    t = r["arch_type"]
    cfg = {"hidden_size": _int(r["hidden_size"]), "num_hidden_layers": _int(r["num_hidden_layers"]),
           "num_attention_heads": _int(r["num_attention_heads"]), "num_key_value_heads": _int(r["num_key_value_heads"]),
           "vocab_size": _int(r["vocab_size"]), "tie_word_embeddings": r["tie_word_embeddings"] == "True",
           "_name_or_path": r["hf_id"]}
    if r["head_dim"]:
        cfg["head_dim"] = _int(r["head_dim"])
    if r["intermediate_size"]:
        cfg["intermediate_size"] = _int(r["intermediate_size"])
    if t in ("qwen3_dense", "qwen3_moe"):
        cfg["model_type"] = "qwen3_moe" if t == "qwen3_moe" else "qwen3"
    elif t == "llama":
        cfg["model_type"] = "llama"
    if t == "qwen3_moe":
        cfg.update(num_experts=_int(r["num_experts"]), num_experts_per_tok=_int(r["num_experts_per_tok"]),
                   moe_intermediate_size=_int(r["moe_intermediate_size"]), decoder_sparse_step=1, mlp_only_layers=[])
    if t == "mla_moe":
        cfg.update(model_type="deepseek_v3", n_routed_experts=_int(r["num_experts"]),
                   num_experts_per_tok=_int(r["num_experts_per_tok"]),
                   moe_intermediate_size=_int(r["moe_intermediate_size"]), n_shared_experts=_int(r["n_shared_experts"]),
                   first_k_dense_replace=_int(r["first_k_dense_replace"]), q_lora_rank=_int(r["q_lora_rank"]),
                   kv_lora_rank=_int(r["kv_lora_rank"]), qk_nope_head_dim=_int(r["qk_nope_head_dim"]),
                   qk_rope_head_dim=_int(r["qk_rope_head_dim"]), v_head_dim=_int(r["v_head_dim"]))
    if t == "gpt_oss":
        layers = cfg["num_hidden_layers"]
        cfg.update(model_type="gpt_oss", num_local_experts=_int(r["num_experts"]),
                   num_experts_per_tok=_int(r["num_experts_per_tok"]), sliding_window=_int(r["sliding_window"]),
                   attention_bias=True,
                   layer_types=["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)])
    if t in ("qwen35_dense", "qwen35_moe"):
        heads = [int(x) for x in r["linear_attn_heads_qk_v"].split("/")]
        dims = [int(x) for x in r["linear_attn_head_dim"].split("/")]
        text = {k: v for k, v in cfg.items() if k != "tie_word_embeddings"}
        text.update(model_type="qwen3_5_moe_text" if t == "qwen35_moe" else "qwen3_5_text", full_attention_interval=4,
                    linear_num_key_heads=heads[0], linear_num_value_heads=heads[1], linear_key_head_dim=dims[0],
                    linear_value_head_dim=dims[1], linear_conv_kernel_dim=4, attn_output_gate=True)
        if t == "qwen35_moe":
            text.update(num_experts=_int(r["num_experts"]), num_experts_per_tok=_int(r["num_experts_per_tok"]),
                        moe_intermediate_size=_int(r["moe_intermediate_size"]),
                        shared_expert_intermediate_size=_int(r["shared_expert_intermediate_size"]), mlp_only_layers=[])
        cfg = {"model_type": "qwen3_5_moe" if t == "qwen35_moe" else "qwen3_5", "text_config": text,
               "tie_word_embeddings": r["tie_word_embeddings"] == "True", "_name_or_path": r["hf_id"]}
    if t == "nemotron_h":
        pattern = re.search(r"hybrid_override_pattern (\S+)", r["attention_pattern"]).group(1)
        mamba = dict(re.findall(r"(\w+)=(\d+)", r["linear_attn_heads_qk_v"] + " " + r["linear_attn_head_dim"]))
        cfg.update(model_type="nemotron_h", hybrid_override_pattern=pattern, n_routed_experts=_int(r["num_experts"]),
                   num_experts_per_tok=_int(r["num_experts_per_tok"]),
                   moe_intermediate_size=_int(r["moe_intermediate_size"]),
                   moe_shared_expert_intermediate_size=_int(r["shared_expert_intermediate_size"]),
                   mamba_num_heads=int(mamba["mamba_num_heads"]), n_groups=int(mamba["n_groups"]),
                   mamba_head_dim=int(mamba["mamba_head_dim"]), ssm_state_size=int(mamba["ssm_state"]),
                   conv_kernel=4)
        if r["moe_latent_size"]:
            cfg["moe_latent_size"] = _int(r["moe_latent_size"])
    return cfg


@pytest.mark.parametrize("row", ROWS, ids=[r["model"] for r in ROWS])
def test_rebuilt_config_reproduces_the_registry_counts(row, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config_from_row(row)))
    arch = load_config(path)
    assert arch.total_params == int(row["computed_total_params_text"])
    assert arch.active_params_incl_embed == int(row["computed_active_params_incl_embed"])
    assert arch.active_params == int(row["computed_active_params_excl_input_embed"])
    assert arch.kv_bytes_per_token == int(row["kv_bytes_per_token_bf16"])
    assert arch.recurrent_bytes_per_sequence == int(row["recurrent_state_bytes_per_seq"] or 0)
    assert arch.full_attention_layers == int(row["n_full_attention_layers"])
    registry = get_arch(row["hf_id"])
    assert arch.is_moe == registry.is_moe and arch.is_mla == registry.is_mla
    assert arch.sliding_window == registry.sliding_window


def test_the_36_rows_are_all_checked():
    assert len(ROWS) == 36


def test_unreadable_and_non_json_config(tmp_path):
    with pytest.raises(TinkerNomicsError, match="cannot read"):
        load_config(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(TinkerNomicsError, match="not JSON"):
        load_config(bad)


def test_qwen2_biases_and_checkpoint_precision():
    # Qwen2.5-7B: 7.62B parameters with q/k/v biases (model card: "Number of Parameters: 7.61B"; the
    # computed count of its config, data/models/configs/, is 7,615,616,512).
    cfg = {"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
           "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064, "tie_word_embeddings": False}
    arch = from_dict(cfg)
    assert arch.total_params == 7_615_616_512
    assert arch.kv_bytes_per_token == 2 * 28 * 4 * 128 * 2
    assert from_dict({**cfg, "quantization_config": {"quant_method": "fp8"}}).checkpoint_precision == "fp8"
    assert arch.checkpoint_precision == "bf16"


# ------------------------------------------------------------------------------------ every family, by its own formula

CONFIGS = data_dir() / "models" / "configs"


def bundled(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text(encoding="utf-8"))


def registry_config(model: str) -> dict:
    """A registry row's config.json rebuilt from its columns (the row was computed from the published file)."""
    return config_from_row(next(r for r in ROWS if r["model"] == model))


def measure(arch, what: str) -> int:
    embedding = arch.vocab_size * arch.hidden_size
    return {"total": arch.total_params, "active_incl": arch.active_params_incl_embed,
            "active": arch.active_params,   # the N of 2N FLOPs a token: no input-embedding lookup, the head kept
            "non_embedding": arch.total_params - embedding - (0 if arch.tied_embeddings else arch.output_head_params),
            "embedding": embedding,
            # Falcon's safetensors store the LM head a second time although the config ties it (FalconConfig's
            # tie_word_embeddings defaults to true, and transformers and vLLM load it tied)
            "stored_with_head_twice": arch.total_params + arch.output_head_params}[what]


# (config, model_type it exercises, quantity, published figure, tolerance, where the figure comes from). Tolerance 0:
# the source publishes the exact count; otherwise half a unit of the published figure's last digit.
PUBLISHED = [
    ("microsoft--phi-2.json", "phi", "total", 2_779_683_840, 0,
     "Hub safetensors count by HfApi.model_info, quoted in index file id 70842753411 (the Llama formula gave 3.62B)"),
    ("EleutherAI--pythia-1.4b.json", "gpt_neox", "total", 1_414_647_808, 0,
     "Pythia README / model card table 'total params' (index id 11932470304; the Llama formula gave 1.82B)"),
    ("EleutherAI--pythia-1.4b.json", "gpt_neox", "non_embedding", 1_208_602_624, 0,
     "Pythia README / model card table 'non-embedding params'"),
    ("bigcode--starcoder2-3b.json", "starcoder2", "total", 3_000_000_000, 500_000_000,
     "StarCoder2 model card: 'a 3B parameter model' (the Llama formula gave 4.31B)"),
    ("google--gemma-3-1b-pt.json", "gemma3", "non_embedding", 698_000_000, 500_000,
     "Gemma 3 technical report, Table 1: 1B has 698M non-embedding parameters (the Llama formula gave 1.30B)"),
    ("google--gemma-3-1b-pt.json", "gemma3", "embedding", 302_000_000, 500_000,
     "Gemma 3 technical report, Table 1: 302M embedding parameters"),
    ("google--gemma-3-4b-it.json", "gemma3", "non_embedding", 3_209_000_000, 500_000,
     "Gemma 3 technical report (arXiv 2503.19786), Table 1: 4B has 3,209M non-embedding parameters; the published "
     "config leaves vocab_size, heads, KV heads and head_dim to transformers' Gemma3TextConfig defaults (quoted in "
     "index ids 54360040290 and 69298359582)"),
    ("google--gemma-3-27b-it.json", "gemma3", "non_embedding", 25_600_000_000, 500_000,
     "Gemma 3 technical report, Table 1: 27B has 25,600M non-embedding parameters (the config names its heads and "
     "head_dim, and leaves vocab_size to the default)"),
    ("google--gemma-2-27b-it.json", "gemma2", "total", 27_227_128_320, 0,
     "safetensors metadata of google/gemma-2-27b (the -it release has the same shapes), index id 66152973011"),
    ("facebook--opt-1.3b.json", "opt", "total", 1_315_758_080, 0,
     "OPTForCausalLM parameters printed in index ids 52627038889, 30620646641 and 16236423578"),
    ("facebook--opt-2.7b.json", "opt", "total", 2_700_000_000, 50_000_000,
     "metaseq projects/OPT/README.md @022ce350, 'Pretrained Model Weights': OPT-2.7B, 2.7B"),
    ("facebook--opt-13b.json", "opt", "total", 13_000_000_000, 500_000_000, "metaseq OPT README: OPT-13B, 13B"),
    ("facebook--opt-30b.json", "opt", "total", 30_000_000_000, 500_000_000, "metaseq OPT README: OPT-30B, 30B"),
    ("mistralai--Mistral-7B-Instruct-v0.3.json", "mistral", "total", 7_248_023_552, 0,
     "HF API safetensors total for mistralai/Mistral-7B-Instruct-v0.3 @c170c708, index id 70414651038"),
    ("mistral-community--Mixtral-8x22B-v0.1.json", "mixtral", "total", 140_620_634_112, 0,
     "safetensors count of mistral-community/Mixtral-8x22B-v0.1, index ids 69468411049 and 61708970133"),
    ("01-ai--Yi-6B.json", "llama", "total", 6_061_035_520, 0, "safetensors metadata of 01-ai/Yi-6B, index id 65856395171"),
    ("01-ai--Yi-34B.json", "llama", "total", 34_388_917_248, 0,
     "safetensors metadata of the same-architecture 01-ai/Yi-34B-Chat, index id 66269883783"),
    ("codellama--CodeLlama-7b-hf.json", "llama", "total", 6_738_546_688, 0,
     "together-python's parameter table (index id 4120541175) and llama.cpp's server test n_params (index id "
     "56966414607)"),
    ("codellama--CodeLlama-34b-hf.json", "llama", "total", 33_743_970_304, 0,
     "num_parameters of the same-architecture Phind-CodeLlama-34B in Together's model list, index id 36031785305"),
    ("EleutherAI--pythia-12b.json", "gpt_neox", "total", 11_846_072_320, 0,
     "GPTNeoXForCausalLM.from_pretrained('EleutherAI/pythia-12b').num_parameters(), printed in index id 38434618118"),
    ("EleutherAI--gpt-neox-20b.json", "gpt_neox", "total", 20_554_567_680, 0,
     "GPT-NeoX-20B model card, n_parameters (index id 11962735843)"),
    ("google--gemma-2b.json", "gemma", "total", 2_506_172_416, 0,
     "safetensors metadata of google/gemma-2b (index id 65794641846); model.parameters() of gemma-1.1-2b-it "
     "(index id 16955826675)"),
    ("google--gemma-2-2b.json", "gemma2", "total", 2_614_341_888, 0,
     "weight files of gemma-2-2b-it, index id 37645551182"),
    ("google--gemma-2-2b.json", "gemma2", "non_embedding", 2_024_517_888, 0,
     "Gemma 2 technical report, Table 2: 2B non-embedding parameters"),
    ("openai-community--gpt2.json", "gpt2", "total", 124_439_808, 0, "index id 70113386272 (OpenAI: '124M')"),
    ("facebook--opt-125m.json", "opt", "total", 125_239_296, 0, "index id 66556076574 (OPT paper Table 1: 125M)"),
    ("facebook--opt-350m.json", "opt", "total", 331_196_416, 0,
     "pytorch_model.bin of facebook/opt-350m: 388 tensors, 331,196,416 parameters (index id 69288332089)"),
    ("EleutherAI--gpt-j-6b.json", "gptj", "total", 6_050_882_784, 0,
     "weight files summed tensor by tensor, index id 67424675888"),
    ("tiiuae--falcon-7b.json", "falcon", "stored_with_head_twice", 7_217_189_760, 0,
     "safetensors metadata of tiiuae/falcon-7b, index id 66004594245"),
    ("tiiuae--falcon-40b.json", "falcon", "stored_with_head_twice", 41_835_970_560, 0,
     "safetensors metadata of tiiuae/falcon-40b, index id 66007164521"),
    ("allenai--OLMo-7B-hf.json", "olmo", "total", 6_888_095_744, 0, "OLMoForCausalLM loaded, index id 24012452805"),
    ("allenai--OLMo-2-1124-7B.json", "olmo2", "total", 7_298_617_344, 0,
     "safetensors metadata, index ids 63529026595 and 68415208792"),
    ("bigscience--bloom-560m.json", "bloom", "total", 559_214_592, 0, "index ids 66556076574 and 56211907130"),
    ("mistralai--Mistral-7B-v0.1.json", "mistral", "total", 7_241_732_096, 0, "index id 16826233981"),
    ("mistralai--Mistral-Small-24B-Base-2501.json", "mistral", "total", 23_572_403_200, 0,
     "Fireworks training catalog paramCount (index id 66729435508)"),
    ("mistralai--Mixtral-8x7B-v0.1.json", "mixtral", "total", 46_702_792_704, 0,
     "index ids 69159330017, 61687804697 (HF card 46.7B)"),
    ("mistralai--Mixtral-8x7B-v0.1.json", "mixtral", "active_incl", 12_879_925_248, 0,
     "index ids 69159330017, 61687804697 (HF card 12.9B active)"),
    ("Qwen--Qwen1.5-MoE-A2.7B.json", "qwen2_moe", "total", 14_315_784_192, 0,
     "safetensors metadata, index ids 65925489788 and 58413280785"),
    ("Qwen--Qwen1.5-MoE-A2.7B.json", "qwen2_moe", "active_incl", 2_700_000_000, 50_000_000,
     "Qwen1.5-MoE-A2.7B model card: '2.7B activated parameters'"),
    ("Qwen--Qwen2.5-7B.json", "qwen2", "total", 7_615_000_000, 5_000_000,
     "Qwen2.5-7B model card: 'Number of Parameters: 7.61B' (two decimals, cut off: [7.61B, 7.62B))"),
    ("deepseek-ai--DeepSeek-V2-Lite.json", "deepseek_v2", "total", 15_706_484_224, 0,
     "BF16 parameters of the upstream checkpoint, index ids 57362008828 and 67496046741"),
    ("microsoft--phi-4.json", "phi3", "total", 14_659_507_200, 0,
     "safetensors metadata, index ids 65932354046 and 61708970133"),
    ("meta-llama--Llama-4-Scout-17B-16E.json", "llama4", "total", 107_769_861_120, 0,
     "text backbone of the 108,641,793,536-parameter checkpoint, index id 56747956596"),
    ("meta-llama--Llama-4-Scout-17B-16E.json", "llama4", "active_incl", 17_000_000_000, 500_000_000,
     "Llama 4 model card: 17B active parameters"),
    ("meta-llama--Llama-2-7b-hf.json", "llama", "total", 7_000_000_000, 500_000_000, "Llama 2 paper, Table 1: 7B"),
    ("Qwen--Qwen2.5-VL-7B-Instruct.json", "qwen2_5_vl", "total", 7_615_616_512, 0,
     "Qwen2_5_VLForConditionalGeneration of Qwen2.5-VL-7B-Instruct loaded: 8,292,166,656 parameters, 676,550,144 "
     "of them in model.visual, 7,615,616,512 outside it (index id 49095663873; total also index id 66958499806)"),
    ("allenai--OLMoE-1B-7B-0125.json", "olmoe", "total", 6_919_161_856, 0,
     "Hub API parameter count of allenai/OLMoE-1B-7B-0125 (index id 68298970743); safetensors headers, index id "
     "65753564317; OLMoE-1B-7B-0924-Instruct the same (index id 71333551460)"),
    ("allenai--OLMoE-1B-7B-0125.json", "olmoe", "active_incl", 1_300_000_000, 50_000_000,
     "declared active parameters 1.3B (index id 68298970743; OLMoE paper: 1.3B active of 6.9B)"),
    ("zai-org--GLM-4.6.json", "glm4_moe", "total", 352_797_829_024, 0,
     "Fireworks training catalog paramCount of GLM-4.6 (GLM-4.5 and GLM-4.7 the same), index id 66729435508; "
     "the MTP layer is not in it"),
    ("ibm-granite--granite-3.3-8b-instruct.json", "granite", "total", 8_170_864_640, 0,
     "HF Hub API safetensors.total of ibm-granite/granite-3.3-8b-instruct, index id 71142266638"),
    ("HuggingFaceTB--SmolLM3-3B-Base.json", "smollm3", "total", 3_075_098_624, 0,
     "HF Hub API safetensors.total of HuggingFaceTB/SmolLM3-3B (post-trained from SmolLM3-3B-Base, the same "
     "architecture), index id 71142266638"),
    ("bigcode--gpt_bigcode-santacoder.json", "gpt_bigcode", "total", 1_100_000_000, 50_000_000,
     "SantaCoder model card and paper: '1.1B parameter' (a Llama-style count with one KV head per query head and "
     "no learned positions would be 1.40B)"),
    ("EleutherAI--gpt-neo-125m.json", "gpt_neo", "total", 125_198_592, 0,
     "GPTNeoForCausalLM of EleutherAI/gpt-neo-125M loaded, index ids 66556076574, 53219948649, 4719043918"),
    ("stabilityai--stablelm-2-zephyr-1_6b.json", "stablelm", "total", 1_644_515_328, 0,
     "Stable LM 2 1.6B (the zephyr model's base, the same architecture): 1,644,515,328 parameters, index id "
     "35661935992"),
    ("CohereForAI--c4ai-command-r-v01.json", "cohere", "total", 35_000_000_000, 500_000_000,
     "c4ai-command-r-v01 model card: 'Model Size: 35 billion parameters' (pages corpus, the card's README.md)"),
    ("internlm--internlm2-chat-1_8b.json", "internlm2", "total", 1_889_110_016, 0,
     "HfApi safetensors parameter count of internlm/internlm2_5-1_8b-chat (the same architecture as "
     "internlm2-chat-1_8b), index id 12439498600; the safetensors-metadata card of index id 65844763239"),
    ("THUDM--chatglm3-6b.json", "chatglm", "total", 6_243_584_000, 0,
     "model.num_parameters() of THUDM/chatglm3-6b, index ids 29193968977 and 29459375355 (ChatGLM2-6B the same, "
     "index id 5812671115)"),
    # configs bundled 2026-12-03 (sources.csv says where each copy was read)
    ("Qwen--Qwen2.5-72B-Instruct.json", "qwen2", "total", 72_750_000_000, 50_000_000,
     "Qwen2.5-72B-Instruct model card: 'Number of Parameters: 72.7B' (one decimal, cut off: [72.7B, 72.8B))"),
    ("Qwen--Qwen2.5-1.5B-Instruct.json", "qwen2", "total", 1_545_000_000, 5_000_000,
     "Qwen2.5-1.5B-Instruct model card: 'Number of Parameters: 1.54B'"),
    ("Qwen--Qwen2.5-1.5B-Instruct.json", "qwen2", "non_embedding", 1_310_000_000, 5_000_000,
     "the same card: 'Number of Paramaters (Non-Embedding): 1.31B' (the tied embedding counted once)"),
    ("Qwen--Qwen2.5-Coder-7B-Instruct.json", "qwen2", "total", 7_615_000_000, 5_000_000,
     "Qwen2.5-Coder-7B-Instruct model card: 'Number of Parameters: 7.61B'"),
    ("Qwen--Qwen2.5-Coder-7B-Instruct.json", "qwen2", "non_embedding", 6_530_000_000, 5_000_000,
     "the same card: 'Number of Paramaters (Non-Embedding): 6.53B' (rounded: the cards round this figure and cut "
     "off the total; input embedding and head both left out)"),
    ("ibm-granite--granite-3.1-8b-instruct.json", "granite", "total", 8_150_000_000, 50_000_000,
     "Granite 3.0 card table '# Parameters ... 8.1B' for the 8B model of the same dimensions"),
    ("upstage--SOLAR-10.7B-Instruct-v1.0.json", "llama", "total", 10_750_000_000, 50_000_000,
     "SOLAR-10.7B card: '10.7 billion parameters'"),
    ("google--gemma-7b.json", "gemma", "total", 8_537_680_896, 0,
     "keras-hub gemma_7b_en preset 'params': 8537680896 (keras_hub/src/models/gemma/gemma_presets.py @02aeee5)"),
    ("tiiuae--falcon-180B.json", "falcon", "total", 180_000_000_000, 5_000_000_000,
     "Falcon-180B model card: 'a 180B parameters causal decoder-only model' (two significant digits)"),
    ("bigscience--bloom.json", "bloom", "total", 176_247_271_424, 0,
     "bigscience/bloom commit 0f24f91 'Add exact param counts': '176,247,271,424 parameters'"),
    ("bigscience--bloom.json", "bloom", "embedding", 3_596_615_680, 0,
     "the same commit: '3,596,615,680 embedding parameters'"),
    ("google--gemma-3-12b-it.json", "gemma3", "non_embedding", 10_759_000_000, 500_000,
     "Gemma 3 technical report, Table 1: 12B has 10,759M non-embedding parameters"),
    # more model types, bundled 2026-12-03 (sources.csv says where each copy was read and what it lacks)
    ("databricks--dbrx-instruct.json", "dbrx", "total", 131_597_000_000, 500_000,
     "Open LLM Leaderboard request of databricks/dbrx-instruct: \"params\": 131.597 (the card: '132B total')"),
    ("databricks--dbrx-instruct.json", "dbrx", "active_incl", 36_000_000_000, 500_000_000,
     "DBRX card: '36B parameters are active on any input'"),
    ("mosaicml--mpt-30b-chat.json", "mpt", "total", 29_955_000_000, 5_000_000,
     "MPT-30B-Chat card table: 'n_parameters | 29.95B' (two decimals, cut off: [29.95B, 29.96B))"),
    ("microsoft--Phi-3.5-MoE-instruct.json", "phimoe", "total", 41_900_000_000, 50_000_000,
     "'microsoft/Phi-3.5-MoE-instruct: 41.9B params' (GitHub index id 6017024208; the Hub: 42B)"),
    ("microsoft--Phi-3.5-MoE-instruct.json", "phimoe", "active_incl", 6_600_000_000, 50_000_000,
     "Phi-3.5-MoE card: '6.6B active parameters when using 2 experts'"),
    ("ibm-granite--granite-3.0-1b-a400m-base.json", "granitemoe", "total", 1_300_000_000, 50_000_000,
     "Granite 3.0 card table: '# Parameters ... 1.3B'"),
    ("ibm-granite--granite-3.0-1b-a400m-base.json", "granitemoe", "active_incl", 400_000_000, 50_000_000,
     "the same table: '# Active Parameters ... 400M'"),
    ("nvidia--Minitron-8B-Base.json", "nemotron", "total", 8_000_000_000, 500_000_000,
     "the nominal 8B of Minitron-8B's name (no exact count found)"),
    ("ai21labs--Jamba-v0.1.json", "jamba", "total", 52_000_000_000, 500_000_000,
     "Jamba card: 'a total of 52B parameters across all experts'"),
    ("ai21labs--Jamba-v0.1.json", "jamba", "active_incl", 12_000_000_000, 500_000_000,
     "Jamba card: '12B active parameters'"),
    ("deepseek-ai--deepseek-moe-16b-base.json", "deepseek", "total", 16_400_000_000, 50_000_000,
     "deepseek-ai/DeepSeek-MoE README: 'DeepSeekMoE 16B ... with 16.4B parameters' (index id 27499900052)"),
    ("CohereForAI--c4ai-command-r7b-12-2024.json", "cohere2", "non_embedding", 7_000_000_000, 500_000_000,
     "Command R7B card: 'Model Size: 7 billion parameters' (the 8.03B with the tied embedding is 6.98B without)"),
    ("THUDM--glm-4-9b-chat-hf.json", "glm", "total", 9_000_000_000, 500_000_000, "the nominal 9B of GLM-4-9B"),
    ("THUDM--GLM-4-9B-0414.json", "glm4", "total", 9_000_000_000, 500_000_000, "the nominal 9B of GLM-4-9B-0414"),
    ("LGAI-EXAONE--EXAONE-3.0-7.8B-Instruct.json", "exaone", "total", 7_800_000_000, 50_000_000,
     "EXAONE 3.5 technical report (arXiv 2412.04862): EXAONE 3.0 with 7.8B parameters"),
    ("ByteDance-Seed--Seed-OSS-36B-Instruct.json", "seed_oss", "total", 36_000_000_000, 500_000_000,
     "transformers docs model_doc/seed_oss.md: 'ByteDance Seed's 36B-parameter dense language model'"),
    ("baidu--ERNIE-4.5-0.3B-PT.json", "ernie4_5", "total", 350_000_000, 50_000_000,
     "transformers docs model_doc/ernie4_5: 'with 0.3B parameters in total' (one decimal, cut off as the name is: "
     "[0.3B, 0.4B))"),
    ("baidu--ERNIE-4.5-21B-A3B-PT.json", "ernie4_5_moe", "total", 21_000_000_000, 1_000_000_000,
     "transformers docs model_doc/ernie4_5_moe: '21B total, 3B active parameters' (the reader's 21.83B: whole "
     "billions, cut off)"),
    ("baidu--ERNIE-4.5-21B-A3B-PT.json", "ernie4_5_moe", "active_incl", 3_000_000_000, 500_000_000,
     "the same page: '3B active' (3.35B with the embedding)"),
    ("tencent--Hy-MT2-7B.json", "hunyuan_v1_dense", "total", 8_000_000_000, 500_000_000,
     "the Hub's '8B' for Hunyuan-7B-Pretrain, of the same shape (whole billions)"),
    ("openbmb--MiniCPM-2B-sft-bf16.json", "minicpm", "non_embedding", 2_400_000_000, 50_000_000,
     "MiniCPM-2B card: '2.4B parameters excluding embeddings'"),
    ("EleutherAI--pythia-410m.json", "gpt_neox", "non_embedding", 302_311_424, 0,
     "Pythia card table, non-embedding params of pythia-410m"),
    ("deepseek-ai--deepseek-llm-7b-base.json", "llama", "total", 7_000_000_000, 500_000_000,
     "deepseek-llm-7b card: '7 billion parameters'"),
    ("tiiuae--Falcon3-7B-Instruct.json", "llama", "total", 7_000_000_000, 500_000_000, "the nominal 7B of Falcon3-7B"),
    ("allenai--OLMo-2-0325-32B.json", "olmo2", "total", 32_000_000_000, 500_000_000, "the nominal 32B of OLMo 2 32B"),
    ("LGAI-EXAONE--EXAONE-4.0-32B.json", "exaone4", "total", 32_000_000_000, 500_000_000,
     "EXAONE 4.0 technical report (arXiv 2507.11407, pages corpus): 'a mid-size 32B model' (whole billions)"),
    ("MiniMaxAI--MiniMax-M2.json", "minimax_m2", "total", 229_500_000_000, 1_000_000_000,
     "MiniMax-M2: '230 billion total parameters' (MiniMax's card) and '229B' (the Hub's count, quoted by "
     "apxml.com/models/minimax-m2, pages corpus): between the two"),
    ("nvidia--Llama-3_3-Nemotron-Super-49B-v1.json", "nemotron-nas", "total", 49_900_000_000, 50_000_000,
     "the Hub's 'Model size 49.9B params' for the model (huggingface.co/mmnga/Llama-3_3-Nemotron-Super-49B-v1-gguf; "
     "NVIDIA's NeMo AutoModel docs: '49B'); a Llama formula over 80 full layers gives about 70B"),
    ("MiniMaxAI--MiniMax-M2.json", "minimax_m2", "active", 10_000_000_000, 500_000_000,
     "the same card: '10 billion active parameters' (whole billions; the reader's 10.42B leaves out the input "
     "embedding lookup, as the FLOPs a token does)"),
    # model types added 2026-12-04 (sources.csv says where each config's fields were read)
    ("allenai--Olmo-3-7B-Instruct.json", "olmo3", "total", 7_298_011_136, 0,
     "allenai/Olmo-3-7B-Instruct's three safetensors files: 355 tensors, 7,298,011,136 parameters, checked against "
     "the Hub's LFS metadata (index id 60424842778); the safetensors index's total_parameters (index id 70603421118)"),
    ("ibm-granite--granite-4.0-h-tiny.json", "granitemoehybrid", "total", 6_939_037_248, 0,
     "safetensors metadata of ibm-granite/granite-4.0-h-tiny-base @f95c8e83 (the instruct model's base, the same "
     "architecture): 6,939,037,248 (index ids 68997933905 and 70196246186)"),
    ("tencent--Hunyuan-A13B-Instruct.json", "hunyuan_v1_moe", "total", 80_393_183_232, 0,
     "the safetensors headers of Hunyuan-A13B: 80,393,183,232 parameters (index id 69713764538)"),
    ("tencent--Hunyuan-A13B-Instruct.json", "hunyuan_v1_moe", "active_incl", 13_000_000_000, 500_000_000,
     "Hunyuan-A13B README (README_CN.md of the tianyu1412/Hunyuan-A13B copy): '800亿总参数和130亿激活参数', 80 "
     "billion total and 13 billion active (whole billions; the reader's 12.75B)"),
    ("zai-org--GLM-4.7-Flash.json", "glm4_moe_lite", "total", 29_943_393_920, 0,
     "llama.cpp n_params of GLM-4.7-Flash's GGUF (index id 60005726306) and Ollama's parameter count of "
     "glm-4.7-flash:q4_K_M (index id 59304774749); the MTP layer is not in it"),
    ("LiquidAI--LFM2-2.6B.json", "lfm2", "total", 2_569_272_320, 0,
     "parameters_raw 2569272320 of LiquidAI/LFM2-2.6B ('2.6B') in two model catalogs (index ids 52555998385, "
     "55778153074); with block_auto_adjust_ff_dim left to its default (true) the count would be 1.91B"),
    ("tiiuae--Falcon-H1-7B-Instruct.json", "falcon_h1", "total", 7_585_654_880, 0,
     "a census of tiiuae/Falcon-H1-7B-Instruct's checkpoint @41e72f27: 'layers=44 total_params=7585654880' (index "
     "id 62411905097); '7.59' billion in a model catalog (index id 69872841183)"),
    # the tensor census of each checkpoint (model-info reports, index ids 62736905881 and 62604838642) less what the
    # reader leaves out as transformers does: the multi-token-prediction layer (DeepSeek's with the copy of the
    # embedding and head it stores: 13,477,385,728; GLM-5.1's: 9,952,920,576 = its attention, indexer and MoE block,
    # eh_proj and four norms) and DeepSeek's FP8 block scales (41,591,584 = one per 128 × 128 of each FP8 weight)
    ("deepseek-ai--DeepSeek-V3.2.json", "deepseek_v32", "total", 685_396_921_376 - 13_477_385_728 - 41_591_584, 0,
     "DeepSeek-V3.2's checkpoint census 685,396,921,376 less its MTP layer and FP8 scales; '671B of the Main Model "
     "weights' (DeepSeek-V3 README)"),
    ("zai-org--GLM-5.1.json", "glm_moe_dsa", "total", 753_864_139_008 - 9_952_920_576, 0,
     "GLM-5.1's checkpoint census 753,864,139,008 ('754B') less its MTP layer; '744B parameters (40B active)' "
     "(zai-org/GLM-5 README)"),
]


@pytest.mark.parametrize("name, model_type, what, expected, tolerance, source", PUBLISHED,
                         ids=[f"{p[0][:-5]}-{p[2]}" for p in PUBLISHED])
def test_published_config_gives_the_published_count(name, model_type, what, expected, tolerance, source):
    config = bundled(name)
    arch = load_config(CONFIGS / name)
    assert arch.arch_type == model_type or \
        (config.get("text_config") or config)["model_type"].removesuffix("_text") == model_type
    assert abs(measure(arch, what) - expected) <= tolerance, source


# Families whose reference configs are the registry's rows (rebuilt from the columns the published config.json
# filled), against the Fireworks training catalog's exact paramCount (index id 66729435508; shared/reference/
# model_archs.md §4) unless noted.
REGISTRY_PUBLISHED = [("Qwen3-8B", "qwen3", 8_190_735_360), ("Qwen3-30B-A3B", "qwen3_moe", 30_532_122_624),
                      ("Llama-3.1-8B", "llama", 8_030_261_248), ("DeepSeek-V3", "deepseek_v3", 671_026_419_200),
                      ("Kimi-K2-Instruct", "deepseek_v3", 1_026_408_232_448), ("gpt-oss-20b", "gpt_oss", 20_914_757_184),
                      ("Qwen3.5-9B", "qwen3_5", None),
                      # llama.cpp n_params of the GGUF (shared/reference/model_archs.md §4, index ids 36988296767,
                      # 58091926432)
                      ("NVIDIA-Nemotron-3-Nano-30B-A3B", "nemotron_h", 31_577_940_288)]


@pytest.mark.parametrize("model, model_type, expected", REGISTRY_PUBLISHED, ids=[r[0] for r in REGISTRY_PUBLISHED])
def test_registry_families_give_the_published_count(model, model_type, expected):
    cfg = registry_config(model)
    arch = from_dict(cfg)
    assert (cfg.get("text_config") or cfg)["model_type"].removesuffix("_text") == model_type
    if expected is not None:
        assert arch.total_params == expected
    else:   # Qwen3.5-9B: Fireworks counts text + vision tower (9,409,813,744); the reader counts the text model
        row = next(r for r in ROWS if r["model"] == model)
        assert arch.total_params + int(row["computed_vision_params"]) == 9_409_813_744


def test_every_supported_model_type_has_a_published_check():
    checked = {p[1] for p in PUBLISHED} | {r[1] for r in REGISTRY_PUBLISHED}
    # aliases counted by a checked family's formula: multimodal wrappers and the other hybrid/next names
    aliases = {"qwen3_vl": "qwen3", "qwen3_vl_moe": "qwen3_moe", "kimi_k2": "deepseek_v3", "qwen3_5_moe": "qwen3_5",
               "qwen3_next": "qwen3_5",
               # Qwen2-VL's language model is Qwen2's, as Qwen2.5-VL's is: q/k/v biased, o_proj not, Qwen2MLP
               # (module prints of Qwen2VLForConditionalGeneration in zhenhua32/Qwen2-VL READ.md and
               # acproject/duorou docs/new_feat.md); no Qwen2-VL config.json copy was found to check it alone
               "qwen2_vl": "qwen2_5_vl",
               # checked by test_baichuan2_is_llama2_7b_with_a_larger_vocabulary (no exact published count)
               "baichuan": "llama"}
    for model_type in supported_model_types():
        assert model_type in checked or model_type in aliases, model_type


def test_the_layouts_each_family_declares():
    """Attention layouts read from the configs: sliding windows, KV heads, the output head, tied heads in N."""
    gemma3, gemma2 = load_config(CONFIGS / "google--gemma-3-1b-pt.json"), load_config(CONFIGS / "google--gemma-2-2b.json")
    assert (gemma3.full_attention_layers, gemma3.sliding_window) == (4, 512)        # layers 5, 11, 17, 23 global
    assert (gemma2.full_attention_layers, gemma2.sliding_window) == (13, 4096)      # every other layer
    mistral = load_config(CONFIGS / "mistralai--Mistral-7B-v0.1.json")
    assert (mistral.full_attention_layers, mistral.sliding_window, mistral.kv_bytes_per_token) == (0, 4096, 0)
    scout = load_config(CONFIGS / "meta-llama--Llama-4-Scout-17B-16E.json")
    assert (scout.full_attention_layers, scout.sliding_window, scout.moe_layers) == (12, 8192, 48)
    assert load_config(CONFIGS / "tiiuae--falcon-7b.json").num_kv_heads == 1
    assert load_config(CONFIGS / "tiiuae--falcon-40b.json").num_kv_heads == 8
    opt = load_config(CONFIGS / "facebook--opt-350m.json")
    assert opt.output_head_params == 50272 * 512 and opt.tied_embeddings
    phi2 = load_config(CONFIGS / "microsoft--phi-2.json")
    assert phi2.mlp_matrices == 2 and not phi2.tied_embeddings
    # tied models: N (2N FLOPs per token) keeps the LM head, only the lookup is left out
    assert gemma3.active_params == gemma3.total_params
    gpt2 = load_config(CONFIGS / "openai-community--gpt2.json")
    assert gpt2.active_params == gpt2.total_params - 1024 * 768          # learned positions are a lookup too
    # multi-query attention: one KV head, learned positions (no rotary), the head tied
    santacoder = load_config(CONFIGS / "bigcode--gpt_bigcode-santacoder.json")
    assert (santacoder.num_kv_heads, santacoder.kv_bytes_per_token) == (1, 2 * 24 * 1 * 128 * 2)
    assert santacoder.tied_embeddings and santacoder.fused_qkv and santacoder.mlp_matrices == 2
    assert santacoder.active_params == santacoder.total_params - 2048 * 2048
    # GPT-Neo: global layers keep the whole history, local ones the last window_size (256) tokens
    neo = load_config(CONFIGS / "EleutherAI--gpt-neo-125m.json")
    assert (neo.full_attention_layers, neo.sliding_window) == (6, 256)
    assert neo.kv_bytes_per_token == 2 * 6 * 768 * 2
    chatglm = load_config(CONFIGS / "THUDM--chatglm3-6b.json")
    assert (chatglm.num_kv_heads, chatglm.head_dim, chatglm.vocab_size) == (2, 128, 65024)
    assert chatglm.kv_bytes_per_token == 2 * 28 * 2 * 128 * 2 and not chatglm.tied_embeddings
    internlm2 = load_config(CONFIGS / "internlm--internlm2-chat-1_8b.json")
    assert internlm2.fused_qkv and internlm2.kv_bytes_per_token == 2 * 24 * 8 * 128 * 2
    command_r = load_config(CONFIGS / "CohereForAI--c4ai-command-r-v01.json")
    assert command_r.tied_embeddings and command_r.active_params == command_r.total_params
    assert (command_r.full_attention_layers, command_r.sliding_window) == (40, None)
    stablelm = load_config(CONFIGS / "stabilityai--stablelm-2-zephyr-1_6b.json")
    assert stablelm.mlp_matrices == 3 and not stablelm.tied_embeddings


def test_the_layouts_of_the_families_added_on_2026_12_03():
    """What each added family's config says about its layers, beyond the counts PUBLISHED checks."""
    jamba = load_config(CONFIGS / "ai21labs--Jamba-v0.1.json")
    # attention on layers 4, 12, 20, 28 (i % 8 == 4), Mamba on the other 28, experts on the 16 odd layers
    assert (jamba.full_attention_layers, jamba.linear_or_mamba_layers, jamba.moe_layers) == (4, 28, 16)
    assert jamba.kv_bytes_per_token == 2 * 4 * 8 * 128 * 2
    # each Mamba layer keeps d_inner × d_state FP32 states and d_inner × (d_conv - 1) convolution inputs
    assert jamba.recurrent_bytes_per_sequence == 28 * (8192 * 16 * 4 + 8192 * 3 * 2)
    command_r7b = load_config(CONFIGS / "CohereForAI--c4ai-command-r7b-12-2024.json")
    assert (command_r7b.full_attention_layers, command_r7b.sliding_window) == (8, 4096)   # every 4th layer global
    assert command_r7b.tied_embeddings                    # no tie_word_embeddings key: Cohere2Config's default
    mpt = load_config(CONFIGS / "mosaicml--mpt-30b-chat.json")
    assert mpt.tied_embeddings and mpt.fused_qkv and mpt.mlp_matrices == 2
    assert mpt.active_params == mpt.total_params          # ALiBi: no learned positions to leave out of N
    dbrx = load_config(CONFIGS / "databricks--dbrx-instruct.json")
    assert (dbrx.num_kv_heads, dbrx.num_experts, dbrx.experts_per_token, dbrx.moe_layers) == (8, 16, 4, 40)
    phimoe = load_config(CONFIGS / "microsoft--Phi-3.5-MoE-instruct.json")
    assert (phimoe.full_attention_layers, phimoe.sliding_window) == (32, None)   # window = context: none
    deepseek = load_config(CONFIGS / "deepseek-ai--deepseek-moe-16b-base.json")
    assert (deepseek.moe_layers, deepseek.shared_expert_intermediate_size) == (27, 2 * 1408)
    ernie = load_config(CONFIGS / "baidu--ERNIE-4.5-21B-A3B-PT.json")
    assert ernie.moe_layers == 27 and ernie.tied_embeddings
    # MiniCPM-2B's published config has no model_type: its architectures entry names the family
    assert "model_type" not in bundled("openbmb--MiniCPM-2B-sft-bf16.json")
    assert load_config(CONFIGS / "openbmb--MiniCPM-2B-sft-bf16.json").arch_type == "minicpm"


def test_the_layouts_of_the_families_added_on_2026_12_04(tmp_path):
    """What each family added on 2026-12-04 says about its layers, beyond the counts PUBLISHED checks."""
    olmo = load_config(CONFIGS / "allenai--Olmo-3-7B-Instruct.json")
    # three sliding layers (window 4096) then a global one, eight times: only 8 layers cache the whole context
    assert (olmo.full_attention_layers, olmo.sliding_window) == (8, 4096)
    assert olmo.kv_bytes_per_token == 2 * 8 * 32 * 128 * 2
    # without layer_types or sliding_window, Olmo3Config's defaults: every fourth layer global, a 4096 window
    bare = load_config(_bad_config(tmp_path, "allenai--Olmo-3-7B-Instruct.json",
                                   {"layer_types": None, "sliding_window": None}))
    assert (bare.full_attention_layers, bare.sliding_window, bare.total_params) == (8, 4096, olmo.total_params)
    # OLMo 2's weights: the same widths as OLMo-2-1124-7B, with Olmo 3's 100,278-token vocabulary
    olmo2 = load_config(CONFIGS / "allenai--OLMo-2-1124-7B.json")
    assert olmo2.total_params - olmo.total_params == (olmo2.vocab_size - 100278) * 4096 * 2

    granite = load_config(CONFIGS / "ibm-granite--granite-4.0-h-tiny.json")
    # attention on 4 of 40 layers, Mamba-2 on 36; experts and the shared MLP on every layer
    assert (granite.full_attention_layers, granite.linear_or_mamba_layers, granite.moe_layers) == (4, 36, 40)
    assert granite.kv_bytes_per_token == 2 * 4 * 4 * 128 * 2
    # each Mamba-2 layer keeps 48 heads × 64 × state 128 in FP32 and 3 conv inputs of x, B and C (3072 + 2 × 128)
    assert granite.recurrent_bytes_per_sequence == 36 * (3072 * 128 * 4 + (3072 + 256) * 3 * 2)
    assert granite.shared_expert_intermediate_size == 1024 and granite.tied_embeddings
    # num_local_experts 0 (Granite 4.0 H 1B, Micro): the shared MLP alone, dense
    dense = load_config(_bad_config(tmp_path, "ibm-granite--granite-4.0-h-tiny.json",
                                    {"num_local_experts": 0, "num_experts_per_tok": 0}))
    assert not dense.is_moe and dense.intermediate_size == 1024
    assert granite.total_params - dense.total_params == 40 * (64 * 1536 + 64 * 3 * 1536 * 512)

    hunyuan = load_config(CONFIGS / "tencent--Hunyuan-A13B-Instruct.json")
    assert (hunyuan.num_experts, hunyuan.experts_per_token, hunyuan.moe_layers) == (64, 8, 32)
    assert hunyuan.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2 and hunyuan.tied_embeddings
    as_numbers = load_config(_bad_config(tmp_path, "tencent--Hunyuan-A13B-Instruct.json",
                                         {"moe_topk": 8, "moe_intermediate_size": 3072, "num_shared_expert": 1}))
    assert as_numbers.total_params == hunyuan.total_params   # per-layer lists of one value read as the value

    flash = load_config(CONFIGS / "zai-org--GLM-4.7-Flash.json")
    # latent attention: one 512 + 64 latent a token a layer, 47 layers
    assert flash.is_mla and flash.kv_bytes_per_token == 47 * (512 + 64) * 2
    assert (flash.first_k_dense, flash.moe_layers) == (1, 46)
    lfm2 = load_config(CONFIGS / "LiquidAI--LFM2-2.6B.json")
    # attention on 8 of 30 layers; the 22 short-convolution layers keep the last 2 inputs of 2048 channels
    assert (lfm2.full_attention_layers, lfm2.linear_or_mamba_layers) == (8, 22)
    assert lfm2.kv_bytes_per_token == 2 * 8 * 8 * 64 * 2
    assert lfm2.recurrent_bytes_per_sequence == 22 * 2048 * 2 * 2
    assert lfm2.tied_embeddings and lfm2.active_params == lfm2.total_params
    # block_auto_adjust_ff_dim (Lfm2Config's default): 2/3 of 10752, rounded up to a multiple of 256
    adjusted = load_config(_bad_config(tmp_path, "LiquidAI--LFM2-2.6B.json", {"block_auto_adjust_ff_dim": True}))
    assert adjusted.intermediate_size == 7168
    assert lfm2.total_params - adjusted.total_params == 30 * 3 * 2048 * (10752 - 7168)

    falcon = load_config(CONFIGS / "tiiuae--Falcon-H1-7B-Instruct.json")
    # attention and Mamba-2 side by side in all 44 layers: every layer caches K and V and keeps a Mamba state of 24
    # heads × 128 × state 256 in FP32 and 3 conv inputs of x, B and C (3072 + 2 × 256)
    assert (falcon.full_attention_layers, falcon.linear_or_mamba_layers, falcon.num_layers) == (44, 44, 44)
    assert falcon.kv_bytes_per_token == 2 * 44 * 2 * 128 * 2
    assert falcon.recurrent_bytes_per_sequence == 44 * (3072 * 256 * 4 + (3072 + 512) * 3 * 2)
    assert not falcon.tied_embeddings and not falcon.is_moe
    # mamba_rms_norm (FalconH1Config's default false; the 7B sets it) adds the gated norm's 3072 weights a layer
    no_norm = load_config(_bad_config(tmp_path, "tiiuae--Falcon-H1-7B-Instruct.json", {"mamba_rms_norm": None}))
    assert falcon.total_params - no_norm.total_params == 44 * 3072
    # without mamba_d_ssm the mixer is mamba_expand × hidden_size wide: 6144 channels of 48 heads of 128
    wide = load_config(_bad_config(tmp_path, "tiiuae--Falcon-H1-7B-Instruct.json",
                                   {"mamba_d_ssm": None, "mamba_n_heads": 48}))
    assert wide.mamba_shape == (6144, 512, 48)
    # projectors_bias biases the mixer's out_proj, mamba_proj_bias its in_proj (3072 + 3584 + 24 outputs)
    biased = load_config(_bad_config(tmp_path, "tiiuae--Falcon-H1-7B-Instruct.json",
                                     {"projectors_bias": True, "mamba_proj_bias": True}))
    assert biased.total_params - falcon.total_params == 44 * (3072 + 6680)
    # the muP multipliers scale activations only
    plain = load_config(_bad_config(tmp_path, "tiiuae--Falcon-H1-7B-Instruct.json",
                                    {"ssm_multipliers": None, "mlp_multipliers": None, "key_multiplier": None}))
    assert plain.total_params == falcon.total_params

    listed = load_config(_bad_config(tmp_path, "zai-org--GLM-4.7-Flash.json",
                                     {"mlp_layer_types": ["dense"] * 2 + ["sparse"] * 45}))
    # a layer made dense trades 64 experts, their router and its bias, and the shared expert for one 10240 MLP
    assert listed.moe_layers == 45
    assert flash.total_params - listed.total_params == 64 * 2048 + 64 + 65 * 3 * 2048 * 1536 - 3 * 2048 * 10240


def test_glm4_is_glm_with_two_more_norms_a_layer():
    """GLM-4-0414 (glm4) keeps glm-4-9b-chat-hf's (glm) weights and norms after attention and after the MLP as well:
    the same widths give glm's count plus 2 × layers × hidden_size."""
    glm, glm4 = load_config(CONFIGS / "THUDM--glm-4-9b-chat-hf.json"), load_config(CONFIGS / "THUDM--GLM-4-9B-0414.json")
    assert (glm.hidden_size, glm.num_layers, glm.intermediate_size) == (glm4.hidden_size, glm4.num_layers,
                                                                        glm4.intermediate_size)
    assert glm4.total_params - glm.total_params == 2 * 40 * 4096


def test_baichuan2_is_llama2_7b_with_a_larger_vocabulary():
    """Baichuan 2 7B's published count is only '7B' (its paper); its fused W_pack holds Llama 2 7B's q, k and v:
    the same widths and depth give Llama-2-7b-hf's count (6,738,415,616: the Llama 2 paper's 7B) plus the larger
    vocabulary's embedding and head rows, (125,696 - 32,000) × 4,096 × 2."""
    baichuan = load_config(CONFIGS / "baichuan-inc--Baichuan2-7B-Base.json")
    llama2 = load_config(CONFIGS / "meta-llama--Llama-2-7b-hf.json")
    assert baichuan.fused_qkv and baichuan.num_kv_heads == baichuan.num_heads
    assert baichuan.total_params - llama2.total_params == (125_696 - 32_000) * 4096 * 2


def test_cohere_aya_shape_gives_the_hub_count():
    """Aya's 8B shape (a Cohere config dict of an 8B Aya model in an mlc-llm script, index id 3743143116: 32 layers,
    hidden 4096, 32/8 heads, FFN 14336, vocab 256000, no tie flag so tied by CohereConfig's default) against the
    HfApi safetensors count of CohereForAI/aya-expanse-8b, 8,028,033,024 (index id 12439498600)."""
    cfg = {"architectures": ["CohereForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 5, "eos_token_id": 255001,
           "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
           "layer_norm_eps": 1e-05, "logit_scale": 0.0625, "max_position_embeddings": 8192, "model_type": "cohere",
           "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pad_token_id": 0,
           "rope_theta": 10000, "vocab_size": 256000}
    arch = from_dict(cfg)
    assert arch.total_params == 8_028_033_024
    assert arch.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2


def test_multimodal_wrappers_count_their_language_model():
    """Mistral Small 3.1 (a mistral3 wrapper, text_config of model_type mistral) is Mistral Small 3's language
    model, whose published count PUBLISHED checks; Qwen2.5-VL's newer layout (text fields in a text_config of
    model_type qwen2_5_vl_text, as transformers >= 4.54 writes it) counts as the older top-level one."""
    small31 = load_config(CONFIGS / "mistralai--Mistral-Small-3.1-24B-Instruct-2503.json")
    small3 = load_config(CONFIGS / "mistralai--Mistral-Small-24B-Base-2501.json")
    assert small31.arch_type == "mistral" and small31.total_params == small3.total_params
    assert small31.kv_bytes_per_token == small3.kv_bytes_per_token
    old = bundled("Qwen--Qwen2.5-VL-7B-Instruct.json")
    text = {k: v for k, v in old.items() if k not in ("architectures", "vision_config", "tie_word_embeddings")}
    new = {"model_type": "qwen2_5_vl", "tie_word_embeddings": False, "vision_config": old["vision_config"],
           "text_config": {**text, "model_type": "qwen2_5_vl_text", "sliding_window": None,
                           "layer_types": ["full_attention"] * 28}}
    a, b = from_dict(old), from_dict(new)
    assert (a.total_params, a.kv_bytes_per_token, a.full_attention_layers) == \
        (b.total_params, b.kv_bytes_per_token, b.full_attention_layers)
    assert a.sliding_window is None and a.arch_type == "qwen2"


def test_qwen2_7b_has_qwen25_7bs_shape():
    """Qwen2-7B-Instruct (the play-verl PPO log's model) has Qwen2.5-7B's architecture, whose published count
    PUBLISHED checks: the same fields give the same counts."""
    qwen2, qwen25 = load_config(CONFIGS / "Qwen--Qwen2-7B-Instruct.json"), load_config(CONFIGS / "Qwen--Qwen2.5-7B.json")
    assert (qwen2.total_params, qwen2.active_params, qwen2.kv_bytes_per_token) == \
        (qwen25.total_params, qwen25.active_params, qwen25.kv_bytes_per_token)


@pytest.mark.parametrize("hf_id", sorted(models()))
def test_output_head_is_counted_in_n_for_tied_and_untied_models(hf_id):
    """Decode reads the LM head every token: active_params = active (with embeddings) − lookup + tied head."""
    arch = models()[hf_id]
    assert arch.output_head_params >= arch.vocab_size * min(arch.hidden_size, 512)
    lookup = arch.active_params_incl_embed - arch.active_params + (arch.output_head_params if arch.tied_embeddings else 0)
    # the lookup is the token embedding (= the head's shape), plus learned positions where the family has them
    assert arch.output_head_params <= lookup <= arch.output_head_params + 4 * 2 ** 20 * arch.hidden_size


def test_tied_registry_rows_keep_the_head_in_n():
    # Qwen3-0.6B, tied: the reference's "non-embedding" 440,467,456 left the head out; N is the whole model
    for name in ("Qwen3-0.6B", "Qwen3-1.7B", "Qwen3-4B", "Llama-3.2-1B", "Llama-3.2-3B"):
        arch = get_arch(name)
        assert arch.tied_embeddings and arch.active_params == arch.total_params
    assert get_arch("Qwen3-8B").active_params == get_arch("Qwen3-8B").total_params - 151936 * 4096


# ------------------------------------------------------------------------------------ DeepSeek-V2-Lite (issue 22 item 4)

def test_mla_without_a_query_lora_estimates_with_every_method():
    """`"q_lora_rank": null` ended estimate in a TypeError in model/lora.py (issue 22, defect 4)."""
    path = CONFIGS / "deepseek-ai--DeepSeek-V2-Lite.json"
    arch = load_config(path)
    assert arch.q_lora_rank is None and arch.is_mla
    per_rank = lora.exact_lora_params_per_rank(arch)
    assert per_rank["attn"] == 27 * ((2048 + 16 * 192) + (2048 + 512 + 64) + (16 * 128 + 2048))
    for method in ("calibrated", "exact", "seed"):
        est = estimate(Scenario.from_workload("math_rl", model="Qwen/Qwen3-8B", model_config=str(path),
                                              method=method))
        assert float(est.self_hosted.total_usd) > 0


# ------------------------------------------------------------------------------------ refusals, one line each

def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


MOE = "Qwen--Qwen1.5-MoE-A2.7B.json"
GLM = "zai-org--GLM-4.6.json"
MLA = "deepseek-ai--DeepSeek-V2-Lite.json"
GEMMA = "google--gemma-3-1b-pt.json"

# (base config, changes, words the one-line error must hold). Issue 22 items 3 and 10, and the cross-field rules.
BAD = [
    (MOE, {"shared_expert_intermediate_size": -5632}, ["shared_expert_intermediate_size", "-5632"]),
    (MOE, {"decoder_sparse_step": "1"}, ["decoder_sparse_step", "'1'"]),
    (MOE, {"decoder_sparse_step": 0}, ["decoder_sparse_step", "0"]),
    (MOE, {"mlp_only_layers": 5}, ["mlp_only_layers", "5"]),
    (MOE, {"mlp_only_layers": [24]}, ["mlp_only_layers", "24"]),
    (MOE, {"num_experts_per_tok": 61}, ["num_experts_per_tok", "61", "60"]),
    (MOE, {"num_experts_per_tok": 60}, ["num_experts_per_tok", "60"]),
    (MOE, {"num_experts": "60"}, ["num_experts", "'60'"]),
    (MOE, {"hidden_size": 1e200}, ["hidden_size", "1e+200", "sanity bound"]),
    (MOE, {"hidden_size": -2048}, ["hidden_size", "-2048"]),
    (MOE, {"hidden_size": 2047}, ["num_attention_heads", "2047"]),
    (MOE, {"num_key_value_heads": 32}, ["num_key_value_heads", "32"]),
    (MOE, {"num_key_value_heads": 3}, ["num_key_value_heads", "3"]),
    (MOE, {"num_hidden_layers": 200000000}, ["num_hidden_layers", "200000000", "sanity bound"]),
    (MOE, {"vocab_size": None}, ["qwen2_moe", "vocab_size"]),
    (MOE, {"tie_word_embeddings": "yes"}, ["tie_word_embeddings", "'yes'"]),
    (MLA, {"q_lora_rank": "1536"}, ["q_lora_rank", "'1536'"]),
    (MLA, {"n_shared_experts": "2"}, ["n_shared_experts", "'2'"]),
    (MLA, {"first_k_dense_replace": 28}, ["first_k_dense_replace", "28", "27"]),
    (MLA, {"kv_lora_rank": None}, ["deepseek_v2", "kv_lora_rank"]),
    (MLA, {"topk_method": 3}, ["topk_method", "3"]),
    (GEMMA, {"sliding_window_pattern": "6"}, ["sliding_window_pattern", "'6'"]),
    (GEMMA, {"layer_types": ["full_attention"] * 3}, ["layer_types", "26"]),
    (GEMMA, {"head_dim": 0}, ["head_dim", "0"]),
    ("facebook--opt-350m.json", {"ffn_dim": None}, ["opt", "ffn_dim"]),
    ("facebook--opt-350m.json", {"word_embed_proj_dim": 512.5}, ["word_embed_proj_dim", "512.5"]),
    ("openai-community--gpt2.json", {"n_positions": None}, ["gpt2", "n_positions"]),
    ("tiiuae--falcon-40b.json", {"num_kv_heads": 256}, ["num_key_value_heads", "256"]),
    ("meta-llama--Llama-4-Scout-17B-16E.json", {"text_config": {**bundled("meta-llama--Llama-4-Scout-17B-16E.json")[
        "text_config"], "moe_layers": [48]}}, ["moe_layers", "48"]),
    (GLM, {"first_k_dense_replace": 93}, ["first_k_dense_replace", "93", "92"]),
    (GLM, {"n_shared_experts": None}, ["glm4_moe", "n_shared_experts"]),
    (GLM, {"n_routed_experts": "160"}, ["n_routed_experts", "'160'"]),
    (GLM, {"kv_lora_rank": 512}, ["kv_lora_rank", "glm4_moe_lite"]),
    ("allenai--OLMoE-1B-7B-0125.json", {"num_experts_per_tok": 64}, ["num_experts_per_tok", "64"]),
    ("bigcode--gpt_bigcode-santacoder.json", {"n_head": 15}, ["num_attention_heads", "15"]),
    ("bigcode--gpt_bigcode-santacoder.json", {"multi_query": "yes"}, ["multi_query", "'yes'"]),
    ("bigcode--gpt_bigcode-santacoder.json", {"n_positions": None}, ["gpt_bigcode", "n_positions"]),
    ("EleutherAI--gpt-neo-125m.json", {"attention_types": [[["global", "local"], 5]]}, ["attention_types", "12"]),
    ("EleutherAI--gpt-neo-125m.json", {"attention_types": [[["global", "dense"], 6]]}, ["attention_types"]),
    ("EleutherAI--gpt-neo-125m.json", {"window_size": 0}, ["window_size", "0"]),
    ("THUDM--chatglm3-6b.json", {"multi_query_group_num": 3}, ["multi_query_group_num", "3"]),
    ("THUDM--chatglm3-6b.json", {"ffn_hidden_size": None}, ["chatglm", "ffn_hidden_size"]),
    ("THUDM--chatglm3-6b.json", {"kv_channels": -128}, ["kv_channels", "-128"]),
    ("internlm--internlm2-chat-1_8b.json", {"bias": "false"}, ["bias", "'false'"]),
    ("stabilityai--stablelm-2-zephyr-1_6b.json", {"num_key_value_heads": 5}, ["num_key_value_heads", "5"]),
    ("CohereForAI--c4ai-command-r-v01.json", {"intermediate_size": None}, ["cohere", "intermediate_size"]),
    (MOE, {"model_type": "rwkv"}, ["'rwkv'"]),
    ("databricks--dbrx-instruct.json", {"tie_word_embeddings": True}, ["tie_word_embeddings", "DBRX"]),
    ("databricks--dbrx-instruct.json", {"ffn_config": {"moe_num_experts": 4, "moe_top_k": 8}}, ["moe_top_k", "8"]),
    ("databricks--dbrx-instruct.json", {"attn_config": [8]}, ["attn_config", "[8]"]),
    ("mosaicml--mpt-30b-chat.json", {"attn_config": {"attn_type": "sparse"}}, ["attn_type", "'sparse'"]),
    ("mosaicml--mpt-30b-chat.json", {"expansion_ratio": -4}, ["expansion_ratio", "-4"]),
    ("mosaicml--mpt-30b-chat.json", {"ffn_config": {"ffn_type": "te_ln_mlp"}}, ["ffn_type", "'te_ln_mlp'"]),
    ("ai21labs--Jamba-v0.1.json", {"attn_layer_offset": 8}, ["attn_layer_offset", "8", "attn_layer_period"]),
    ("ai21labs--Jamba-v0.1.json", {"mamba_d_state": 0}, ["mamba_d_state", "0"]),
    ("baidu--ERNIE-4.5-21B-A3B-PT.json", {"moe_k": 64}, ["moe_k", "64"]),
    ("deepseek-ai--deepseek-moe-16b-base.json", {"moe_layer_freq": 0}, ["moe_layer_freq", "0"]),
    (MOE, {"model_type": "t5"}, ["model_type", "'t5'", "llama"]),
    (MOE, {"model_type": "mamba"}, ["'mamba'"]),
    (MOE, {"model_type": "gemma3n"}, ["'gemma3n'"]),   # per-layer embeddings, AltUp, LAuReL: no exact count checked
    (MOE, {"model_type": None}, ["model_type"]),
    (MOE, {"model_type": ["qwen2_moe"]}, ["model_type"]),
    (MOE, {"_name_or_path": "org/model\nSelf-hosted $0"}, ["_name_or_path"]),
    (MOE, {"_name_or_path": 7}, ["_name_or_path", "7"]),
    ("MiniMaxAI--MiniMax-M2.json", {"qk_norm_type": "per_token"}, ["qk_norm_type", "'per_token'"]),
    ("LGAI-EXAONE--EXAONE-4.0-32B.json", {"sliding_window_pattern": "LLXG"}, ["sliding_window_pattern", "LLXG"]),
    ("LGAI-EXAONE--EXAONE-4.0-32B.json", {"sliding_window_pattern": 0}, ["sliding_window_pattern", "0"]),
    ("MiniMaxAI--MiniMax-M2.json", {"num_experts_per_tok": 256}, ["num_experts_per_tok", "256"]),
    ("allenai--Olmo-3-7B-Instruct.json", {"sliding_window": 0}, ["sliding_window", "0"]),
    ("allenai--Olmo-3-7B-Instruct.json", {"layer_types": ["full_attention"] * 31}, ["layer_types", "32"]),
    ("ibm-granite--granite-4.0-h-tiny.json", {"layer_types": ["mamba"] * 39 + ["moe"]}, ["layer_types", "'moe'"]),
    ("ibm-granite--granite-4.0-h-tiny.json", {"mamba_n_heads": 47}, ["mamba_n_heads", "47", "3072"]),
    ("ibm-granite--granite-4.0-h-tiny.json", {"num_experts_per_tok": 64}, ["num_experts_per_tok", "64"]),
    ("tencent--Hunyuan-A13B-Instruct.json", {"moe_topk": [8] * 31 + [4]}, ["moe_topk", "32"]),
    ("tencent--Hunyuan-A13B-Instruct.json", {"num_experts": "64"}, ["num_experts", "'64'"]),
    ("tencent--Hunyuan-A13B-Instruct.json", {"moe_topk": 65}, ["moe_topk", "65", "64"]),
    ("zai-org--GLM-4.7-Flash.json", {"mlp_layer_types": ["dense"] + ["moe"] * 46}, ["mlp_layer_types", "'moe'"]),
    ("zai-org--GLM-4.7-Flash.json", {"v_head_dim": None}, ["glm4_moe_lite", "v_head_dim"]),
    ("LiquidAI--LFM2-2.6B.json", {"layer_types": ["conv"] * 29 + ["mamba"]}, ["layer_types", "'mamba'"]),
    ("LiquidAI--LFM2-2.6B.json", {"block_auto_adjust_ff_dim": True, "block_ffn_dim_multiplier": "1"},
     ["block_ffn_dim_multiplier", "'1'"]),
    ("LiquidAI--LFM2-2.6B.json", {"conv_L_cache": 0}, ["conv_L_cache", "0"]),
    ("tiiuae--Falcon-H1-7B-Instruct.json", {"mamba_n_heads": 25}, ["mamba_n_heads", "25", "3072"]),
    ("tiiuae--Falcon-H1-7B-Instruct.json", {"mamba_rms_norm": "yes"}, ["mamba_rms_norm", "'yes'"]),
    ("tiiuae--Falcon-H1-7B-Instruct.json", {"mamba_d_ssm": 0}, ["mamba_d_ssm", "0"]),
    ("tiiuae--Falcon-H1-7B-Instruct.json", {"intermediate_size": None}, ["falcon_h1", "intermediate_size"]),
]


def test_exaone4_slides_on_three_layers_in_four_as_its_pattern_says(tmp_path):
    """EXAONE 4.0 32B: local attention on three layers in four (sliding_window_pattern 4, or the string 'LLLG'),
    so only a quarter of its 64 layers cache the whole context; without a window (the 1.2B) every layer does."""
    name = "LGAI-EXAONE--EXAONE-4.0-32B.json"
    released = load_config(CONFIGS / name)
    as_string = load_config(_bad_config(tmp_path, name, {"sliding_window_pattern": "LLLG"}))
    no_window = load_config(_bad_config(tmp_path, name, {"sliding_window": None}))
    per_layer = 2 * 8 * 128 * 2                                  # K and V, 8 KV heads of 128, two bytes
    assert released.kv_bytes_per_token == as_string.kv_bytes_per_token == 64 // 4 * per_layer
    assert released.sliding_window == 4096 and no_window.sliding_window is None
    assert no_window.kv_bytes_per_token == 64 * per_layer
    assert no_window.total_params == released.total_params


def test_minimax_m2_norms_and_router_bias_are_counted_as_its_config_says(tmp_path):
    """MiniMax-M2's q/k norms span the whole projection ('per_layer': 48 x 128 + 8 x 128 a layer) or one head
    ('per_head': 2 x 128); its sigmoid router keeps a score-correction bias of one value per expert."""
    released = load_config(CONFIGS / "MiniMaxAI--MiniMax-M2.json")
    per_head = load_config(_bad_config(tmp_path, "MiniMaxAI--MiniMax-M2.json", {"qk_norm_type": "per_head"}))
    no_bias = load_config(_bad_config(tmp_path, "MiniMaxAI--MiniMax-M2.json", {"use_routing_bias": False}))
    layers, heads, kv_heads, head_dim, experts = 62, 48, 8, 128, 256
    assert released.total_params - per_head.total_params == layers * ((heads + kv_heads) * head_dim - 2 * head_dim)
    assert released.total_params - no_bias.total_params == layers * experts


NAS = "nvidia--Llama-3_3-Nemotron-Super-49B-v1.json"


def test_nemotron_nas_counts_each_layer_as_its_block_config_says():
    """Llama-3.3-Nemotron-Super-49B: 49 of its 80 layers keep attention (8 KV heads, num_attention_heads 64 /
    n_heads_in_group 8), 31 drop it; every layer keeps a gated MLP of width int(2 · ffn_mult · 8192 / 3) rounded up
    to a multiple of 256 (vLLM's nemotron_nas.py): ffn_mult 5.25 gives 28,672, 1.3125 gives 7,168."""
    arch = load_config(CONFIGS / NAS)
    plan = arch.layer_plan
    assert len(plan) == 80 and sum(a is not None for a, _ in plan) == 49 and {a for a, _ in plan} == {8, None}
    assert plan[0] == (8, 14336) and plan[6] == (None, 14336) and plan[1] == (8, 28672)
    assert {w for _, w in plan} == {28672, 17920, 14336, 7168, 5632, 2816}
    assert (arch.full_attention_layers, arch.sliding_window) == (49, None)
    assert arch.kv_bytes_per_token == 2 * 49 * 8 * 128 * 2          # KV only where attention is
    H, V = 8192, 128256
    attention = 2 * H * 64 * 128 + 2 * H * 8 * 128 + H
    mlp = sum(3 * H * w + H for _, w in plan)
    assert arch.total_params == 49 * attention + mlp + H + 2 * V * H    # untied head
    assert arch.active_params == arch.total_params - V * H
    from tinker_nomics.model import lora, rl_phases
    assert rl_phases.weight_tensors(arch) == 49 * 5 + 80 * 4 + 3
    per_rank = lora.exact_lora_params_per_rank(arch)
    assert per_rank["attn"] == 49 * ((H + 64 * 128) * 2 + 2 * (H + 8 * 128))
    assert per_rank["mlp"] == sum(3 * (H + w) for _, w in plan)


def test_nemotron_nas_linear_blocks_and_bad_blocks(tmp_path):
    """replace_with_linear keeps one hidden × hidden matrix and its norm; a bad block is one line naming it."""
    cfg = bundled(NAS)
    blocks = json.loads(json.dumps(cfg["block_configs"]))
    blocks[6]["attention"] = {"replace_with_linear": True}
    blocks[7]["ffn"] = {"no_op": True}
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**cfg, "block_configs": blocks}))
    base, changed = load_config(CONFIGS / NAS), load_config(path)
    H = 8192
    assert changed.total_params - base.total_params == (H * H + H) - (3 * H * 14336 + H)
    assert changed.layer_plan[6] == ("linear", 14336) and changed.layer_plan[7] == (None, None)
    for bad, words in ((lambda b: b[3]["attention"].update(n_heads_in_group=7), "block_configs[3].attention"),
                       (lambda b: b[5]["ffn"].update(ffn_mult="big"), "block_configs[5].ffn.ffn_mult"),
                       (lambda b: b[9]["attention"].update(window_length=4096), "window_length"),
                       (lambda b: b.pop(), "must list 80 layers")):
        broken = json.loads(json.dumps(cfg["block_configs"]))
        bad(broken)
        path.write_text(json.dumps({**cfg, "block_configs": broken}))
        with pytest.raises(TinkerNomicsError) as info:
            load_config(path)
        assert words in str(info.value) and "\n" not in str(info.value), str(info.value)


def _bad_config(tmp_path, base, changes):
    cfg = {**bundled(base), **changes}
    cfg = {k: v for k, v in cfg.items() if v is not None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return path


@pytest.mark.parametrize("base, changes, words", BAD, ids=[f"{b[:12]}-{'-'.join(c)}" for b, c, _ in BAD])
def test_bad_field_one_line_naming_it(tmp_path, base, changes, words):
    path = _bad_config(tmp_path, base, changes)
    with pytest.raises(TinkerNomicsError) as info:   # 2·10^8 layers: refused by the bound, before any counting
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_a_known_family_missing_a_field_names_both(tmp_path):
    path = _bad_config(tmp_path, "microsoft--phi-2.json", {"intermediate_size": None})
    with pytest.raises(TinkerNomicsError, match="phi config lacks field 'intermediate_size'"):
        load_config(path)


@pytest.mark.parametrize("base, changes", [
    (MOE, {"shared_expert_intermediate_size": -5632}),    # printed "Output -187 tokens/s" and negative dollars
    (MLA, {"first_k_dense_replace": 40}),                  # printed "Generation -756.6 s"
    (MOE, {"model_type": "t5"}),
    (MOE, {"num_hidden_layers": 200000000}),
])
def test_cli_refuses_a_bad_config_in_one_line(tmp_path, base, changes):
    path = str(_bad_config(tmp_path, base, changes))
    for args in (["estimate", "--model", "Qwen3-8B", "--model-config", path],
                 ["predict", "decode", "--model-config", path, "--gpu", "H100", "--num-gpus", "8", "--concurrency",
                  "16", "--input-len", "100", "--output-len", "100"],
                 ["predict", "rl-step", "--model-config", path, "--gpu", "H100", "--num-gpus", "8", "--samples",
                  "64", "--prompt-len", "100", "--response-len", "100"]):
        code, out, err = _cli(*args)
        assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (args, err)


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.json")))
def test_every_bundled_config_predicts_positive_finite_figures(name):
    arch = load_config(CONFIGS / name)
    gpu = get_gpu("H100")
    decode = predict_decode(arch, gpu, 32, 16, 512, 512)
    step = predict_rl_step(arch, gpu, 32, 64, 256, 256, fine_tune="lora")
    assert float(decode.output_tokens_per_second) > 0 and float(step.step_seconds) > 0
    assert sum(lora.exact_lora_params_per_rank(arch).values()) > 0


def test_gemma3_text_defaults_fill_only_what_the_published_config_leaves_out():
    """google/gemma-3-4b-it's text_config names width, depth and windows only; transformers' Gemma3TextConfig
    supplies vocabulary, heads, KV heads and head_dim (hf_config.TEXT_CONFIG_DEFAULTS). A value the config gives
    wins over the default, and a config without its width is still refused, naming the field."""
    config = bundled("google--gemma-3-4b-it.json")
    assert not {"vocab_size", "num_attention_heads", "num_key_value_heads", "head_dim"} & set(config["text_config"])
    arch = from_dict(config)
    assert (arch.vocab_size, arch.hidden_size) == (262208, 2560)
    given = {**config, "text_config": {**config["text_config"], "num_key_value_heads": 8}}
    assert from_dict(given).kv_bytes_per_token == 2 * arch.kv_bytes_per_token     # 8 KV heads given, not the 4
    without_width = {**config, "text_config": {k: v for k, v in config["text_config"].items() if k != "hidden_size"}}
    with pytest.raises(TinkerNomicsError, match="hidden_size"):
        from_dict(without_width)


def test_a_config_without_its_name_is_named_by_where_it_lies(tmp_path):
    """Gemma 3's config.json has no _name_or_path: a file is named by its stem, a config.json by its folder, one in
    the Hugging Face cache by the repository its cache folder names (never 'configs' or a commit hash)."""
    text = (CONFIGS / "google--gemma-3-4b-it.json").read_text()
    assert "_name_or_path" not in text
    places = {tmp_path / "google--gemma-3-4b-it.json": ("google--gemma-3-4b-it", None),
              tmp_path / "gemma-3-4b-it" / "config.json": ("gemma-3-4b-it", None),
              tmp_path / "hub" / "models--google--gemma-3-4b-it" / "snapshots" / ("0" * 40) / "config.json":
                  ("gemma-3-4b-it", "google/gemma-3-4b-it")}
    for path, (model, hf_id) in places.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        arch = load_config(path)
        assert arch.model == model and (hf_id is None or arch.hf_id == hf_id), (path, arch.model, arch.hf_id)


def test_a_config_naming_a_local_path_is_named_by_the_model_the_path_holds(tmp_path):
    """A fine-tune saved from a local copy records that path as its _name_or_path (the bundled
    Qwen2.5-Coder-7B-Instruct copy names a Hugging Face cache snapshot; a Nemotron quant './fp16/Llama-3.1-
    Nemotron-70B-Instruct-HF'): the model is named by the repository the cache folder names, or the path's last
    folder, never a commit hash; a Hub id stays as it is, and a path naming nothing falls back to the file's place."""
    coder = load_config(CONFIGS / "Qwen--Qwen2.5-Coder-7B-Instruct.json")
    assert "snapshots" in bundled("Qwen--Qwen2.5-Coder-7B-Instruct.json")["_name_or_path"]
    assert (coder.model, coder.hf_id) == ("Qwen2.5-Coder-7B-Instruct", "Qwen/Qwen2.5-Coder-7B-Instruct")
    base = bundled("mistralai--Mistral-7B-v0.1.json")
    for recorded, (model, hf_id) in {
            "./fp16/Llama-3.1-Nemotron-70B-Instruct-HF": ("Llama-3.1-Nemotron-70B-Instruct-HF",) * 2,
            "../../../open_models/Qwen2-7B-Instruct/": ("Qwen2-7B-Instruct",) * 2,
            "C:\\models\\zephyr-7b-beta": ("zephyr-7b-beta",) * 2,
            "HuggingFaceH4/zephyr-7b-beta": ("zephyr-7b-beta", "HuggingFaceH4/zephyr-7b-beta"),
            "/": ("my-tune", "my-tune"), "  ": ("my-tune", "my-tune")}.items():
        path = tmp_path / "my-tune" / "config.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({**base, "_name_or_path": recorded}))
        arch = load_config(path)
        assert (arch.model, arch.hf_id) == (model, hf_id), recorded


def test_a_model_folder_is_read_through_its_config_json(tmp_path):
    """`--model-config ~/models/Qwen2.5-7B` (a download or a Hub cache snapshot) reads the folder's config.json;
    a folder without one is one line saying so."""
    folder = tmp_path / "my-finetune"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({k: v for k, v in bundled("Qwen--Qwen2.5-7B.json").items()
                                                    if k != "_name_or_path"}))
    arch = load_config(folder)
    assert arch.total_params == load_config(CONFIGS / "Qwen--Qwen2.5-7B.json").total_params
    assert arch.model == "my-finetune"
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = _cli("predict", "decode", "--model-config", str(empty), "--gpu", "H100", "--num-gpus", "1",
                          "--concurrency", "8", "--input-len", "100", "--output-len", "100")
    assert code == 2 and out == "" and err.count("\n") == 1 and "a folder without a config.json" in err
