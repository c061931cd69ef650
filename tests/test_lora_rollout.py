"""A LoRA adapter in an RL step (model/rl_phases.py, sources/lora_serving.py): the rollout engine serves it unmerged
at the measured share of the base model's speed unless it is merged, and the trainer's passes move the adapter's
activations on top of the base model's work."""
import json

import numpy as np
import pytest

from tinker_nomics import Scenario, TinkerNomicsError, estimate
from tinker_nomics.model import lora, rl_phases
from tinker_nomics.runs import verl
from tinker_nomics.sources.architectures import get_arch
from tinker_nomics.sources.calibration import parameters
from tinker_nomics.sources.defaults import number
from tinker_nomics.sources.hardware import gpu_specs
from tinker_nomics.sources.lora_serving import lora_decode_speed_share

from test_hostile_counts import _cli, _refused

QWEN25_7B = get_arch("Qwen/Qwen2.5-7B")
H100 = gpu_specs("H100 SXM")


def test_the_share_is_the_median_of_the_sources_medians():
    # decode tokens/s with an adapter over without, as each source prints them (data/measurements/lora_decode.csv):
    # vLLM PR #11267 (1787.78 / 2693.62), unsloth PR #5123 (806.5 / 1449.5, 2778.8 / 4721.3, 4076.4 / 6794.1 at batch
    # 8, 32, 48: one source), SGLang PR #22809 (17,549 / 31,445), vLLM issue #2829 (1.37 / 2.40 prompts/s); the eager
    # and the NPU rows are left out with their reasons
    per_source = [1787.78 / 2693.62, float(np.median([806.5 / 1449.5, 2778.8 / 4721.3, 4076.4 / 6794.1])),
                  17549 / 31445, 1.37 / 2.40]
    assert lora_decode_speed_share() == pytest.approx(float(np.median(per_source)), rel=1e-12)
    assert 0.5 < lora_decode_speed_share() < 0.7


def test_adapter_width_from_the_config():
    # Qwen2.5-7B's config.json: hidden 3,584, 28 query heads and 4 key/value heads of 128, MLP 18,944, 28 layers;
    # every projection's input plus output width (q, k, v, o, gate, up, down)
    h, q, kv, ffn, layers = 3584, 28 * 128, 4 * 128, 18944, 28
    per_layer = (h + q) + 2 * (h + kv) + (q + h) + 3 * (h + ffn)
    assert lora.adapter_width_per_token(QWEN25_7B) == layers * per_layer
    # Qwen3-30B-A3B: 8 of its 128 experts of 768 per token, their hidden side shared (the cookbook's counting)
    moe = get_arch("Qwen/Qwen3-30B-A3B")
    h, q, kv, ffn, layers = 2048, 32 * 128, 4 * 128, 768, 48
    per_layer = (h + q) + 2 * (h + kv) + (q + h) + (8 * 3 * ffn + 3 * h)
    assert lora.adapter_width_per_token(moe) == layers * per_layer


def features(**options):
    return rl_phases.rl_features(QWEN25_7B, H100, 1, 64, 256, 512, 1024, fine_tune="lora",
                                 response_max_over_mean=parameters().response_max_over_mean,
                                 rollout_tensor_parallel=1, **options)


def test_an_unmerged_adapter_decodes_at_the_share():
    p = parameters()
    unmerged = rl_phases.phase_seconds(features(), p)
    merged = rl_phases.phase_seconds(features(lora_merged=True), p)
    # one GPU, one engine: no prompts' all-reduce; only the fixed cost per generation call is not the engine's
    fixed = p.generation_overhead_seconds
    assert float(unmerged.generation_seconds - fixed) == \
        pytest.approx(float(merged.generation_seconds - fixed) / lora_decode_speed_share(), rel=1e-12)
    assert float(unmerged.training_seconds) == float(merged.training_seconds)


def test_the_adapters_activation_bytes():
    # 64 samples of 256 + 512 tokens on one GPU: each token through the adapter's layers reads and writes
    # lora_forward_activation_passes elements per element of their width in the old policy's pass, and twice that
    # (the recomputed forward) plus lora_backward_activation_passes in the update, 2 bytes each at the HBM bandwidth
    f = features()
    tokens = 64 * (256 + 512)
    width = lora.adapter_width_per_token(QWEN25_7B)
    seconds = tokens * width * 2 / float(H100.bandwidth_bytes_per_s)
    assert float(f.adapter_logprob_seconds) == pytest.approx(seconds * number("lora_forward_activation_passes"))
    assert float(f.adapter_update_seconds) == pytest.approx(
        seconds * (2 * number("lora_forward_activation_passes") + number("lora_backward_activation_passes")))
    # the seed and exact methods keep the plain 4 N update
    exact = rl_phases.rl_features(QWEN25_7B, H100, 1, 64, 256, 512, 1024, fine_tune="lora",
                                  terms=rl_phases.EXACT)
    assert float(exact.adapter_update_seconds) == 0.0 and float(exact.lora_generation_scale) == 1.0


def test_predict_says_how_the_engine_serves_the_adapter():
    args = ["predict", "rl-step", "--model", "Qwen2.5-7B", "--gpu", "H100 SXM", "--num-gpus", "8", "--samples", "256",
            "--prompt-len", "256", "--response-len", "512", "--fine-tune", "lora", "--format", "json"]
    code, out, _ = _cli(*args)
    assert code == 0 and any("unmerged" in n and "--lora-merge" in n for n in json.loads(out)["notes"])
    code, merged, _ = _cli(*args, "--lora-merge")
    assert code == 0 and json.loads(merged)["generation_seconds"] < json.loads(out)["generation_seconds"]
    _refused(args[:-4] + ["--lora-merge"], "--lora-merge", "full fine-tune")
    _refused(args + ["--lora-merge", "--method", "seed"], "--lora-merge", "calibrated")


def test_estimate_takes_the_merge_and_refuses_it_without_an_adapter():
    unmerged = estimate(Scenario.from_workload("math_rl"))
    merged = estimate(Scenario.from_workload("math_rl", lora_merge=True))
    assert float(merged.self_hosted.total_usd) < float(unmerged.self_hosted.total_usd)
    assert any("unmerged" in n for n in unmerged.notes) and any("merged into" in n for n in merged.notes)
    with pytest.raises(TinkerNomicsError, match="full fine-tune"):
        estimate(Scenario.from_workload("math_rl", fine_tune="full", lora_merge=True))
    _refused(["estimate", "--workload", "math_rl", "--lora-merge", "--method", "seed"], "--lora-merge",
             "--method calibrated")
    _refused(["plan", "--workload", "math_rl", "--deadline", "48", "--lora-merge", "--fine-tune", "full"],
             "--lora-merge", "--fine-tune lora")


def test_verl_config_names_the_adapter_and_its_merge():
    facts, where = verl.config_facts({"actor_rollout_ref": {"model": {"lora": {"rank": 16, "merge": True}}}})
    assert facts["fine_tune"] == "lora" and facts["lora_merge"] is True
    assert where["fine_tune"] == "actor_rollout_ref.model.lora.rank > 0"
    facts, _ = verl.config_facts({"actor_rollout_ref": {"model": {"lora_rank": 0}}})
    assert facts["fine_tune"] == "full"


def test_a_trl_lora_run_is_validated_with_merged_weights(tmp_path):
    # TRL's GRPOTrainer._move_model_to_vllm calls merge_adapter() before it hands vLLM the weights: the engine
    # decodes the merged model, at the base model's speed, and the reconciliation says why
    import hosted_shapes as hs
    from tinker_nomics.runs.ledger import check_run
    from tinker_nomics.runs.reconcile import run_facts
    folder = hs.write_trainer_state(tmp_path / "out")
    v = check_run(folder, gpu="H100 SXM", num_gpus=1, group_size=8, prompts_per_step=1, fine_tune="lora")
    facts, _ = run_facts(v.run, v.run.steps)
    assert facts["lora_merged"] is True
    assert any("merged into the weights" in n and "TRL's GRPOTrainer" in n for n in v.reconciliation.notes)


@pytest.mark.parametrize("merge, merged", [(True, True), ("yes", True), (1, True), (False, False), (0, False)])
def test_verls_merge_switch_is_read_as_verl_reads_it(tmp_path, merge, merged):
    # verl tests the value's truth (lora.get("merge", False)): a 'yes' or a 1 merges as True does
    import copy
    import hosted_shapes as hs
    from tinker_nomics.runs.ledger import check_run
    from tinker_nomics.runs.reconcile import run_facts
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["model"]["lora"] = {"rank": 16, "merge": merge}
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025", config=config), gpu="H100 SXM")
    facts, _ = run_facts(v.run, v.run.steps)
    assert bool(facts.get("lora_merged")) is merged
    assert any(("merged into the weights" if merged else "unmerged") in n for n in v.reconciliation.notes)


def test_a_rollout_size_fills_the_rollouts_own_gpus():
    args = ["predict", "rl-step", "--model", "Qwen2.5-7B", "--gpu", "H100 SXM", "--num-gpus", "8", "--samples", "256",
            "--prompt-len", "256", "--response-len", "512", "--off-policy", "1"]
    _refused(args + ["--rollout-gpus", "2", "--rollout-tensor-parallel", "4"], "--rollout-tensor-parallel (4)",
             "--rollout-gpus (2)")
    code, out, _ = _cli(*args, "--rollout-gpus", "4", "--rollout-tensor-parallel", "4", "--format", "json")
    assert code == 0 and json.loads(out)["rollout_tensor_parallel"] == 4
