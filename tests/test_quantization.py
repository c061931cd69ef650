"""Precisions under the names users copy from vLLM and from their checkpoint's config.json (sources/quantization.py).

The quantization_config blocks below are the shapes these publishers' config.json files carry: AutoAWQ
(Qwen/Qwen2.5-7B-Instruct-AWQ), AutoGPTQ (Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8), llm-compressor's compressed-tensors
(RedHatAI/…-FP8-dynamic, …-quantized.w8a8, …-quantized.w4a16, …-NVFP4), bitsandbytes (unsloth/…-bnb-4bit), FP8
(Qwen/Qwen3-8B-FP8), NVIDIA ModelOpt (nvidia/…-FP4) and gpt-oss's MXFP4 (openai/gpt-oss-20b).
"""
import json

import pytest

from tinker_nomics.faces.cli import main
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.model import decode
from tinker_nomics.model.predict import predict_decode
from tinker_nomics.sources import get_arch, get_gpu, quantization

ct_group = lambda bits, kind, fmt=None, act=None: {  # noqa: E731
    "group_0": {"targets": ["Linear"], "weights": {"num_bits": bits, "type": kind, "strategy": "channel"},
                "input_activations": act, **({"format": fmt} if fmt else {})}}

CONFIGS = [
    ({"bits": 4, "group_size": 128, "quant_method": "awq", "version": "gemm", "zero_point": True}, "int4"),
    ({"bits": 8, "group_size": 128, "quant_method": "gptq", "desc_act": False}, "int8"),
    ({"bits": 4, "group_size": 128, "quant_method": "gptq"}, "int4"),
    ({"quant_method": "awq"}, "int4"),
    ({"quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": ct_group(8, "float", act={"num_bits": 8, "type": "float", "dynamic": True})}, "fp8"),
    ({"quant_method": "compressed-tensors", "format": "int-quantized",
      "config_groups": ct_group(8, "int", act={"num_bits": 8, "type": "int"})}, "w8a8"),
    ({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": ct_group(8, "int")}, "int8"),
    ({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": ct_group(4, "int")}, "int4"),
    ({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
      "config_groups": ct_group(4, "float")}, "fp4"),
    ({"quant_method": "compressed-tensors", "format": "mxfp4-pack-quantized",
      "config_groups": ct_group(4, "float")}, "mxfp4"),
    ({"quant_method": "compressed-tensors", "format": "mixed-precision",
      "config_groups": {**ct_group(8, "float"), "group_1": {"weights": {"num_bits": 4, "type": "float"},
                                                            "format": "nvfp4-pack-quantized"}}}, "fp4"),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}, "int4"),
    ({"quant_method": "bitsandbytes", "load_in_8bit": True}, "int8"),
    ({"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}, "fp8"),
    ({"quant_method": "fbgemm_fp8"}, "fp8"),
    ({"quant_method": "modelopt", "quant_algo": "FP8"}, "fp8"),
    ({"quant_method": "modelopt", "quant_algo": "NVFP4"}, "fp4"),
    ({"quant_method": "modelopt", "quant_algo": "W4A16_AWQ"}, "int4"),
    ({"quant_method": "modelopt", "quant_algo": "W8A8_SQ_PER_CHANNEL"}, "w8a8"),
    ({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]}, "mxfp4"),
]


@pytest.mark.parametrize("quant, expected", CONFIGS, ids=[f"{q.get('quant_method')}-{e}-{i}"
                                                         for i, (q, e) in enumerate(CONFIGS)])
def test_config_states_the_weight_precision(quant, expected):
    assert quantization.of_config({"model_type": "llama", "quantization_config": quant}) == expected
    # multimodal wrappers keep it with the language model
    assert quantization.of_config({"text_config": {"quantization_config": quant}}) == expected


def test_unquantized_and_unreadable_configs():
    assert quantization.of_config({"model_type": "llama"}) == "bf16"
    assert quantization.of_config({"quantization_config": {"quant_method": "hqq"}}) is None
    assert quantization.of_config({"quantization_config": "awq"}) is None
    assert quantization.of_config({"quantization_config": {"quant_method": "compressed-tensors"}}) is None


VLLM_NAMES = [("bfloat16", "bf16"), ("float16", "fp16"), ("half", "fp16"), ("BF16", "bf16"), ("fp8_e4m3", "fp8"),
              ("fp8-e5m2", "fp8"), ("awq", "int4"), ("gptq_marlin", "int4"), ("W4A16", "int4"), ("w8a8", "w8a8"),
              ("w8a16", "int8"), ("nvfp4", "fp4"), ("mxfp4", "mxfp4"), ("int4", "int4")]


@pytest.mark.parametrize("typed, expected", VLLM_NAMES)
def test_vllm_names_are_the_models_precisions(typed, expected):
    assert decode.precision_name(typed) == expected


def test_typed_names_predict_exactly_as_the_models_names():
    arch, gpu = get_arch("Qwen/Qwen2.5-7B-Instruct"), get_gpu("H100 SXM")
    run = lambda **kw: predict_decode(arch, gpu, 1, 16, 512, 256, **kw).output_tokens_per_second.item()  # noqa: E731
    assert run(precision="awq") == run(precision="int4") != run(precision="bf16")
    assert run(precision="auto") == run(precision="bfloat16") == run(precision="bf16")
    assert run(kv_precision="fp8_e5m2") == run(kv_precision="fp8")
    assert run(kv_precision="auto") == run(kv_precision="bf16")


@pytest.mark.parametrize("what, value", [("precision", "fp32"), ("precision", "q4_k_m"), ("kv_precision", "int8"),
                                         ("kv_precision", "awq")])
def test_unknown_names_are_refused_naming_the_value(what, value):
    arch, gpu = get_arch("Qwen/Qwen2.5-7B-Instruct"), get_gpu("H100 SXM")
    with pytest.raises(TinkerNomicsError, match=f"{what} must be one of .*got '{value}'"):
        predict_decode(arch, gpu, 1, 16, 512, 256, **{what: value})


def test_a_config_with_an_unread_quantization_asks_for_the_precision(tmp_path, capsys):
    config = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
              "quantization_config": {"quant_method": "hqq", "nbits": 4}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    args = ["predict", "decode", "--model-config", str(path), "--gpu", "H100", "--num-gpus", "1", "--concurrency",
            "1", "--input-len", "128", "--output-len", "128"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--precision" in err[0] and "quantization_config" in err[0]
    assert main(args + ["--precision", "int4"]) == 0


def test_the_rl_step_of_a_quantized_release_says_it_is_timed_in_bf16(capsys):
    """RL trains the full-precision model (verl, NeMo RL, TRL load bf16 weights for the update and the rollout), so
    the step of `…-AWQ` is timed with bf16 weights; its label still names the checkpoint's int4, so the output says
    which weights were timed. A bf16 model gets no such note."""
    args = ["predict", "rl-step", "--gpu", "H100 SXM", "--num-gpus", "8", "--samples", "256", "--prompt-len", "200",
            "--response-len", "400"]
    assert main(args + ["--model", "Qwen/Qwen2.5-7B-Instruct-AWQ", "--format", "json"]) == 0
    quantized = json.loads(capsys.readouterr().out)
    assert (quantized["weights"], quantized["checkpoint_precision"]) == ("bf16", "int4")
    assert main(args + ["--model", "Qwen/Qwen2.5-7B", "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["checkpoint_precision"] == "bf16" and plain["step_seconds"] == quantized["step_seconds"]
    assert main(args + ["--model", "Qwen/Qwen2.5-7B-Instruct-AWQ"]) == 0
    assert "the checkpoint holds int4 weights; RL trains and samples the bf16 model" in capsys.readouterr().out
    assert main(args + ["--model", "Qwen/Qwen2.5-7B"]) == 0
    assert "Note" not in capsys.readouterr().out


def test_registry_models_published_quantized_are_served_at_their_published_precision(capsys):
    """models/checkpoint_precisions.csv: gpt-oss's experts are MXFP4, so gpt-oss-120b (116.8B parameters) is served
    from one 80 GB GPU, as its model card says; DeepSeek-V3 is published in FP8. --precision still overrides."""
    assert get_arch("openai/gpt-oss-120b").checkpoint_precision == "mxfp4"
    assert get_arch("deepseek-ai/DeepSeek-V3").checkpoint_precision == "fp8"
    assert get_arch("Qwen/Qwen3-8B").checkpoint_precision == "bf16"
    args = ["predict", "decode", "--model", "openai/gpt-oss-120b", "--gpu", "H100 SXM", "--num-gpus", "1",
            "--concurrency", "8", "--input-len", "1024", "--output-len", "1024", "--format", "json"]
    assert main(args) == 0
    served = json.loads(capsys.readouterr().out)
    assert served["precision"] == "mxfp4" and served["output_tokens_per_second"] > 0
    assert main(args + ["--precision", "bf16"]) == 2          # 234 GB of BF16 weights: not on one H100
    assert "does not fit" in capsys.readouterr().err
    assert decode.precision_bytes("mxfp4") == 0.5 + 1 / 32   # 4 bits and one 8-bit scale per 32 weights


def test_the_published_precisions_table_names_known_models_and_precisions(tmp_path, monkeypatch):
    from tinker_nomics.sources import architectures, tables
    for row, needle in (("nobody/Model,fp8", "unknown model 'nobody/Model'"),
                        ("openai/gpt-oss-20b,fp3", "fp3")):
        data = tmp_path / row.split(",")[1]
        (data / "models").mkdir(parents=True)
        for name in ("model_archs.csv", "seed_model_sizes.csv", "successors.csv", "cookbook_lora_params.csv"):
            (data / "models" / name).write_bytes((tables.data_dir() / "models" / name).read_bytes())
        (data / "models" / "configs").mkdir()
        (data / "models" / "configs" / "sources.csv").write_text("file,hf_id,source_url,verified_copy,recorded\n")
        (data / "models" / "checkpoint_precisions.csv").write_text(
            f"hf_id,precision,recorded,source_url,note\n{row},2026-12-03,https://a.example,\n")
        monkeypatch.setattr(tables, "data_dir", lambda d=data: d)
        architectures.models.cache_clear()
        architectures.bundled_configs.cache_clear()
        with pytest.raises(TinkerNomicsError, match=needle):
            architectures.models()
    architectures.models.cache_clear()
    architectures.bundled_configs.cache_clear()


def test_w8a8_multiplies_at_the_int8_tensor_core_peak_and_weight_only_where_there_is_none():
    """W8A8 (SmoothQuant) runs INT8 GEMMs: the A100's datasheet gives 624 dense INT8 TOPS, twice its 312 BF16
    (data/hardware/int8_peaks.csv); the V100 has no INT8 tensor cores, so there its int8 weights run weight-only."""
    from tinker_nomics.sources.hardware import gpu_specs
    a100, v100 = gpu_specs("A100 80GB SXM"), gpu_specs("V100 32GB SXM")
    assert float(decode.gemm_peak(a100, "w8a8")) == 624e12 == 2 * float(decode.gemm_peak(a100, "int8"))
    assert not decode.weight_only("w8a8", a100) and decode.weight_only("w8a8", v100)
    assert float(decode.gemm_peak(v100, "w8a8")) == float(decode.gemm_peak(v100, "bf16"))


def test_w8a8_serving_against_qserve_s_tensorrt_llm_baseline():
    """QServe's README (mit-han-lab/qserve @172741fe, Efficiency Benchmarks: max achievable throughput, input 1,024 /
    output 512) measures TensorRT-LLM W8A8 serving Llama-3-8B on one L40S at 2,634 tok/s. Read as int8 weight-only
    (what the model did before w8a8), its prediction is a third short; at the INT8 peak it is within a quarter."""
    def served(precision):
        return float(predict_decode(get_arch("meta-llama/Meta-Llama-3-8B"), get_gpu("L40S"), 1, 256, 1024, 512,
                                    precision=precision).output_tokens_per_second)
    measured = 2634.0
    assert abs(served("w8a8") / measured - 1) < 0.25 < abs(served("int8") / measured - 1)
