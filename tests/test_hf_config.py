"""sources.hf_config: a Hugging Face config.json read into ModelArch.

The registry's 36 architecture rows (data/models/model_archs.csv, built from the models' config.json files;
shared/reference/model_archs.md explains every count) are the reference: each row's config is rebuilt from
its own columns, read back with load_config, and must reproduce the row's parameter counts (total, active
with and without the input embedding) and KV bytes (per token, and the recurrent state per sequence) exactly.
"""
import csv
import json
import re

import pytest

from tinker_nomics import TinkerNomicsError
from tinker_nomics.sources import data_dir, get_arch
from tinker_nomics.sources.hf_config import from_dict, load_config

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


@pytest.mark.parametrize("text, field", [
    ("{}", "hidden_size"),
    ('{"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32}', "vocab_size"),
    ('{"hidden_size": 4096, "num_hidden_layers": -1, "num_attention_heads": 32, "vocab_size": 100}',
     "num_hidden_layers"),
    ('{"hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "vocab_size": 100, '
     '"num_experts": 8, "num_experts_per_tok": 9, "moe_intermediate_size": 64}', "num_experts_per_tok"),
    ('{"hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "vocab_size": 100, '
     '"tie_word_embeddings": "yes", "intermediate_size": 10}', "tie_word_embeddings"),
])
def test_bad_config_one_line_naming_the_field(tmp_path, text, field):
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(TinkerNomicsError) as info:
        load_config(path)
    assert field in str(info.value) and "\n" not in str(info.value)


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
