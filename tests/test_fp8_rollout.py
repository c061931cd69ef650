"""FP8 rollout (predict rl-step --rollout-precision, --rollout-kv-precision; verl's rollout.quantization, NeMo RL's
vllm_cfg.precision): the rollout engine decodes FP8 weights while the trainer, its log-prob passes and the hand-off
stay BF16. verl's own measurements ('FP8 RL in verl', docs/advance/fp8.md): Qwen3-8B-Base on 8 × H100 with 20K-token
responses, 'around ~12% rollout speedup' (CUDA 12.6) 'up to ~18%' (CUDA 12.9); Qwen3-30B-A3B-Base on 16 × H100,
'over 35% rollout speedup'. The rollout batch is theirs (32 prompts × 3 × 16 = 1,536 sequences); the mean response
is not stated, 6,000 tokens is assumed, and the engine gets 0.9 of memory (the doc does not state verl's
gpu_memory_utilization either): the check is the direction and size of the effect, not a match to a figure."""
import copy

import pytest

import hosted_shapes as hs
from tinker_nomics import TinkerNomicsError
from tinker_nomics.model import predict as model_predict
from tinker_nomics.runs.ledger import check_run
from tinker_nomics.runs.reconcile import run_facts
from tinker_nomics.sources import get_arch, get_gpu

H100 = get_gpu("H100 SXM")


def _generation(model, gpus, **rollout):
    return float(model_predict.predict_rl_step(get_arch(model), H100, gpus, 1536, 200, 6000,
                                               response_max_tokens=20000, rollout_memory_fraction=0.9,
                                               **rollout).generation_seconds)


def test_fp8_rollout_speeds_a_mixture_of_experts_more_than_a_dense_model():
    dense = _generation("Qwen/Qwen3-8B", 8) / _generation("Qwen/Qwen3-8B", 8, rollout_precision="fp8")
    moe = _generation("Qwen/Qwen3-30B-A3B", 16) / _generation("Qwen/Qwen3-30B-A3B", 16, rollout_precision="fp8")
    assert 1.05 < dense < 1.35          # verl: ~12% to ~18% faster
    assert moe > 1.35 and moe > dense   # verl: over 35% faster


def test_the_trainer_and_the_hand_off_stay_bf16():
    arch = get_arch("Qwen/Qwen3-8B")
    bf16 = model_predict.predict_rl_step(arch, H100, 8, 1536, 200, 6000, rollout_tensor_parallel=1)
    fp8 = model_predict.predict_rl_step(arch, H100, 8, 1536, 200, 6000, rollout_tensor_parallel=1,
                                        rollout_precision="fp8_e4m3", rollout_kv_precision="fp8")
    for phase in ("logprob_seconds", "training_seconds", "refit_seconds"):
        assert float(getattr(fp8, phase)) == pytest.approx(float(getattr(bf16, phase)), rel=1e-12), phase
    assert float(fp8.generation_seconds) < float(bf16.generation_seconds)


@pytest.mark.parametrize("kwargs,words", [
    ({"rollout_precision": "fp7"}, "rollout_precision must be one of"),
    ({"rollout_kv_precision": "int4"}, "rollout_kv_precision must be one of"),
    ({"rollout_precision": "fp8", "method": "exact"}, "rollout_precision: a setting of the calibrated method"),
])
def test_bad_rollout_precisions_are_one_line(kwargs, words):
    with pytest.raises(TinkerNomicsError, match=words):
        model_predict.predict_rl_step(get_arch("Qwen/Qwen3-8B"), H100, 8, 64, 200, 500, **kwargs)


def test_fp8_weights_on_a_gpu_that_cannot_run_them_are_refused():
    with pytest.raises(TinkerNomicsError, match=r"no FP8 tensor cores.*\(rollout_precision\)"):
        model_predict.predict_rl_step(get_arch("Qwen/Qwen3-8B"), get_gpu("V100 32GB SXM"), 8, 64, 200, 500,
                                      rollout_precision="fp8")


def test_a_verl_log_with_fp8_rollout_is_read_and_said(tmp_path):
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["rollout"]["quantization"] = "fp8"
    v = check_run(hs.write_verl_console(tmp_path / "fp8.log", "2025", config=config), gpu="H100 SXM")
    facts, _ = run_facts(v.run, v.run.steps)
    assert facts["rollout_precision"] == "fp8"
    plain = check_run(hs.write_verl_console(tmp_path / "bf16.log", "2025"), gpu="H100 SXM")
    assert v.reconciliation.predicted_mean("generation") < plain.reconciliation.predicted_mean("generation")
    assert any("rollout engine ran fp8 weights" in n for n in v.reconciliation.notes)
    config["actor_rollout_ref"]["rollout"]["quantization"] = "nf3"
    odd = check_run(hs.write_verl_console(tmp_path / "odd.log", "2025", config=config), gpu="H100 SXM")
    assert any("'nf3' is not a precision read here" in n for n in odd.reconciliation.notes)


def test_a_nemo_rl_fp8_rollout_recipe_is_read():
    """NeMo RL's FP8-rollout recipes (examples/configs/recipes/llm/performance/*-mxfp8-rollout.yaml) set
    policy.generation.vllm_cfg.precision: "fp8"; the base config's is the policy's own (bfloat16)."""
    from tinker_nomics.runs import nemo_rl
    from tinker_nomics.runs.reconcile import rollout_precision
    facts, where = nemo_rl.config_facts(nemo_rl.flattened(
        {"policy": {"generation": {"vllm_cfg": {"precision": "fp8", "tensor_parallel_size": 1}}}}))
    assert rollout_precision(facts) == "fp8" and "vllm_cfg.precision" in where["rollout_quantization"]
    facts, _ = nemo_rl.config_facts({"policy.generation.vllm_cfg.precision": "bfloat16"})
    assert rollout_precision(facts) == "bf16"


def test_the_answer_says_which_precisions_it_timed():
    import contextlib
    import io
    import json as _json
    from tinker_nomics.faces.cli import main
    args = ["predict", "rl-step", "--model", "Qwen/Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples", "512",
            "--prompt-len", "200", "--response-len", "1000", "--rollout-precision", "fp8", "--train-precision", "fp8"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    assert "Precision     rollout fp8 weights, training fp8 GEMMs; the rest in bf16" in out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args + ["--format", "json"]) == 0
    data = _json.loads(out.getvalue())
    assert (data["rollout_precision"], data["rollout_kv_precision"], data["train_precision"]) == ("fp8", "bf16", "fp8")
