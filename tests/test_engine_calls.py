"""Three settings of an RL run the phase model reads, and the costs they carry.

- An engine without CUDA graphs (vLLM's enforce_eager, the default of older verl releases, which all three real verl
  logs in ../shared/realdata/verl_runs ran with) launches every layer's kernels from the host: the GPU waits on the
  launches wherever they are slower than its own work, so a decode step takes at least the layers × the fitted
  launch time per layer. It binds for a small model at a small batch and not for a large one.
- The log-prob passes may run micro-batches of their own size (verl's rollout.log_prob_micro_batch_size_per_gpu or
  log_prob_max_token_len_per_gpu): the dstack PPO log sets 8 sequences where its update runs 4. The reference's
  pass (ref.log_prob_*) and the critic's values pass (critic.forward_*) have their own settings too: the dstack
  critic's values pass runs 4 sequences a micro-batch, the play-verl PPO critic's dynamic batches 32,768 tokens.
- Each log-prob pass, and each model's update, is one call from the framework's controller to the trainer's workers,
  at a fitted fixed cost per call.
"""
from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

import hosted_shapes as hs
from tinker_nomics.analysis import calibration
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.model import decode, rl_phases
from tinker_nomics.model.predict import predict_rl_step
from tinker_nomics.runs.ledger import check_run
from tinker_nomics.runs.reconcile import run_facts
from tinker_nomics.sources import get_arch, get_gpu, gpu_specs
from tinker_nomics.sources.calibration import parameters


def _step(model, batch, eager, tp=1.0):
    arch, gpus = get_arch(model), gpu_specs("H100 SXM")
    f = decode.decode_features(arch, gpus, tp, batch, 1000.0, eager=eager)
    return arch, decode.step_seconds(f, parameters()).seconds


def test_an_eager_engine_waits_on_its_launches_only_where_they_are_slower_than_the_gpu():
    p = parameters()
    arch, eager = _step("Qwen/Qwen2.5-0.5B", 1.0, True)
    _, graphs = _step("Qwen/Qwen2.5-0.5B", 1.0, False)
    # a 0.5B model reads ~1 GB a step (~0.4 ms on an H100): the 24 layers' launches are longer, and set the step
    assert float(eager) > float(graphs)
    floor = arch.num_layers * p.eager_layer_seconds
    assert float(eager) >= floor
    # a 32B model reads ~65 GB a step (~25 ms): its 64 layers' launches hide behind the GPU's work
    _, big_eager = _step("Qwen/Qwen2.5-32B", 1.0, True)
    _, big_graphs = _step("Qwen/Qwen2.5-32B", 1.0, False)
    assert float(big_eager) == float(big_graphs)


def test_the_real_verl_logs_carry_their_engine_and_log_prob_settings():
    """rl_phase_cases.csv (tools/import_verl_phases.py from the logs' config dumps): all three ran
    enforce_eager True; the dstack PPO run's old-policy pass uses 8 sequences a micro-batch (its update 4), the
    play-verl runs use dynamic batches of log_prob_max_token_len_per_gpu tokens (12,000 and 8,000)."""
    rows = {r["case_id"]: r for r in calibration._phase_rows()}
    assert {rows[c]["enforce_eager"] for c in ("phase-44", "phase-45", "phase-46")} == {"yes"}
    assert (rows["phase-46"]["micro_batch_samples"], rows["phase-46"]["logprob_micro_batch_samples"]) == (4.0, 8.0)
    assert (rows["phase-44"]["logprob_micro_batch_tokens"], rows["phase-45"]["logprob_micro_batch_tokens"]) \
        == (12000.0, 8000.0)
    cases = {c.case_id: c for c in calibration.rl_cases()}
    # 256 sequences over 16 GPUs: 16 each, 2 micro-batches of 8 for the log-probs, 4 of 4 for the update
    assert (float(cases["phase-46"].actor.micro_batches), float(cases["phase-46"].actor.update_micro_batches)) \
        == (2.0, 4.0)
    assert bool(np.all(cases["phase-46"].actor.decode.eager_layers > 0))


def test_the_real_verl_ppo_logs_size_the_critic_s_values_pass_their_own_way():
    """The dstack PPO log: critic.forward_micro_batch_size_per_gpu 4 (use_dynamic_bsz off), no reference pass (no KL
    term), so its ref.log_prob_micro_batch_size_per_gpu (4) is not read; the play-verl PPO log:
    critic.forward_max_token_len_per_gpu 32,768 with the critic's dynamic batches, ref.log_prob_max_token_len_per_gpu
    12,000 with the reference's. In the features, the mean over the passes: dstack 16 sequences a GPU, 2
    micro-batches of 8 for the old policy, 4 of 4 for the values, (2 + 4) / 2 = 3."""
    rows = {r["case_id"]: r for r in calibration._phase_rows()}
    assert (rows["phase-46"]["values_micro_batch_samples"], rows["phase-46"]["reference_micro_batch_samples"]) \
        == (4.0, None)
    assert (rows["phase-44"]["values_micro_batch_tokens"], rows["phase-44"]["reference_micro_batch_tokens"]) \
        == (32768.0, 12000.0)
    # the critics' updates: critic.ppo_micro_batch_size_per_gpu 4 (dstack), critic.ppo_max_token_len_per_gpu 32,768
    assert (rows["phase-46"]["critic_micro_batch_samples"], rows["phase-44"]["critic_micro_batch_tokens"]) \
        == (4.0, 32768.0)
    whole = {c.case_id: c for c in calibration.rl_cases()}["phase-46"].whole
    assert float(whole.micro_batches) == 3.0


def _validated(tmp_path, monkeypatch, name, **rollout):
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["rollout"].update(rollout)
    config["actor_rollout_ref"]["actor"]["use_dynamic_bsz"] = False
    config["actor_rollout_ref"]["actor"]["ppo_micro_batch_size_per_gpu"] = 2
    monkeypatch.setattr(hs, "CONFIG", config)
    return check_run(hs.write_verl_console(tmp_path / f"{name}.log", "2025"), gpu="H100 SXM")


def test_validate_reads_enforce_eager_and_the_log_prob_micro_batches_from_a_verl_log(tmp_path, monkeypatch):
    plain = _validated(tmp_path, monkeypatch, "plain")
    eager = _validated(tmp_path, monkeypatch, "eager", enforce_eager=True)
    coarse = _validated(tmp_path, monkeypatch, "coarse", log_prob_micro_batch_size_per_gpu=64)
    facts = {name: run_facts(r.run, r.run.steps)[0] for name, r in
             (("plain", plain), ("eager", eager), ("coarse", coarse))}
    assert "rollout_eager" not in facts["plain"] and facts["eager"]["rollout_eager"] is True
    assert facts["coarse"]["logprob_micro_batch_samples"] == 64.0
    assert "logprob_micro_batch_samples" not in facts["plain"]
    r_plain, r_eager, r_coarse = plain.reconciliation, eager.reconciliation, coarse.reconciliation
    assert r_eager.predicted_mean("generation") > r_plain.predicted_mean("generation")
    assert any("without CUDA graphs" in n for n in r_eager.notes)
    assert not any("without CUDA graphs" in n for n in r_plain.notes)
    assert r_eager.predicted_mean("training") == pytest.approx(r_plain.predicted_mean("training"), rel=1e-12)
    assert r_coarse.predicted_mean("logprob") < r_plain.predicted_mean("logprob")
    assert r_coarse.predicted_mean("training") == pytest.approx(r_plain.predicted_mean("training"), rel=1e-12)


def test_validate_reads_the_reference_pass_s_own_micro_batches_from_a_verl_log(tmp_path, monkeypatch):
    """ref.log_prob_micro_batch_size_per_gpu with ref.log_prob_use_dynamic_bsz off sizes the reference's pass (the
    run has one: use_kl_loss): one sequence a micro-batch costs the log-prob phase more than the old policy's size."""
    plain = _validated(tmp_path, monkeypatch, "plain")
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["ref"] = {"log_prob_micro_batch_size_per_gpu": 1, "log_prob_use_dynamic_bsz": False}
    monkeypatch.setattr(hs, "CONFIG", config)
    fine = _validated(tmp_path, monkeypatch, "fine")
    facts = run_facts(fine.run, fine.run.steps)[0]
    assert facts["reference"] is True and facts["reference_micro_batch_samples"] == 1.0
    assert "reference_micro_batch_samples" not in run_facts(plain.run, plain.run.steps)[0]
    assert fine.reconciliation.predicted_mean("logprob") > plain.reconciliation.predicted_mean("logprob")
    assert fine.reconciliation.predicted_mean("training") == pytest.approx(
        plain.reconciliation.predicted_mean("training"), rel=1e-12)


def _predicted(**settings):
    return predict_rl_step(get_arch("Qwen/Qwen2.5-0.5B"), get_gpu("H100 SXM"), 8, 512, 100, 200, **settings)


def test_predict_takes_enforce_eager_and_the_log_prob_micro_batches():
    graphs, eager = _predicted(), _predicted(rollout_eager=True)
    assert float(eager.generation_seconds) > float(graphs.generation_seconds)
    assert float(eager.training_seconds) == float(graphs.training_seconds)
    # 512 sequences over 8 GPUs: 64 each; 2 a micro-batch = 32 log-prob micro-batches per pass against 8 of 8
    fine, coarse = _predicted(logprob_micro_batch_samples=2), _predicted(logprob_micro_batch_samples=8)
    passes = 2.0                                   # the old policy's and the reference's log-probs
    assert float(fine.logprob_seconds - coarse.logprob_seconds) == pytest.approx(
        passes * (32 - 8) * parameters().micro_batch_overhead_seconds, rel=1e-9)
    assert float(fine.training_seconds) == float(coarse.training_seconds)


def test_the_reference_and_values_passes_take_their_own_micro_batches():
    """512 sequences over 8 GPUs: 64 each. The reference's pass at 2 a micro-batch runs 32 against the old policy's
    8 of 8, the critic's values pass at 32 runs 2: each adds (its count − the old policy's) × the fixed cost of a
    micro-batch to the log-prob phase, and a pass the step does not run cannot be sized."""
    per = parameters().micro_batch_overhead_seconds
    base = _predicted(logprob_micro_batch_samples=8, critic=True)
    reference = _predicted(logprob_micro_batch_samples=8, critic=True, reference_micro_batch_samples=2)
    values = _predicted(logprob_micro_batch_samples=8, critic=True, values_micro_batch_samples=32)
    assert float(reference.logprob_seconds - base.logprob_seconds) == pytest.approx((32 - 8) * per, rel=1e-9)
    assert float(values.logprob_seconds - base.logprob_seconds) == pytest.approx((2 - 8) * per, rel=1e-9)
    assert float(reference.training_seconds) == float(base.training_seconds)
    with pytest.raises(TinkerNomicsError, match="values_micro_batch_samples sizes the critic's values pass"):
        _predicted(values_micro_batch_samples=4)
    with pytest.raises(TinkerNomicsError, match="reference_micro_batch_tokens sizes the reference model's pass"):
        _predicted(reference=False, reference_micro_batch_tokens=4096)
    with pytest.raises(TinkerNomicsError, match="critic_micro_batch_samples sizes the critic's update"):
        _predicted(critic_micro_batch_samples=4)


def test_the_critic_s_update_takes_its_own_micro_batches():
    """64 sequences a GPU: the actor's update at 2 a micro-batch runs 32, the critic's at 8 runs 8 (verl's
    critic.ppo_micro_batch_size_per_gpu). Each micro-batch of the critic's update runs its forward, backward and
    recomputed forward (3 passes), each paying the fixed cost: 3 × (32 − 8) fewer than at the actor's size."""
    per = parameters().micro_batch_overhead_seconds
    same = _predicted(critic=True, micro_batch_samples=2)
    own = _predicted(critic=True, micro_batch_samples=2, critic_micro_batch_samples=8)
    assert float(same.training_seconds - own.training_seconds) == pytest.approx(3 * (32 - 8) * per, rel=1e-9)
    assert float(own.logprob_seconds) == float(same.logprob_seconds)


def test_each_trainer_call_pays_the_fixed_cost_once():
    """Two log-prob passes (old policy, reference) and one update; under PPO the critic adds its values pass and
    its own update."""
    arch, gpus = get_arch("Qwen/Qwen2.5-7B"), gpu_specs("H100 SXM")
    p = parameters()
    none = dataclasses.replace(p, pass_overhead_seconds=0.0)
    for critic, calls in ((False, (2, 1)), (True, (3, 2))):
        f = rl_phases.rl_features(arch, gpus, 8.0, 512.0, 100.0, 200.0, critic=critic)
        with_calls, without = rl_phases.phase_seconds(f, p), rl_phases.phase_seconds(f, none)
        assert float(with_calls.logprob_seconds - without.logprob_seconds) == pytest.approx(
            calls[0] * p.pass_overhead_seconds, rel=1e-9)
        assert float(with_calls.training_seconds - without.training_seconds) == pytest.approx(
            calls[1] * p.pass_overhead_seconds, rel=1e-9)


def test_rollout_eager_must_be_a_truth_value():
    with pytest.raises(TinkerNomicsError, match="rollout_eager must be True or False, got 'no'"):
        _predicted(rollout_eager="no")


def test_nemo_rl_hyperparameters_give_the_engine_and_trainer_settings():
    """NeMo RL's flattened config (examples/configs/grpo_math_1B.yaml names each key): the engine's tensor
    parallelism, memory share and enforce_eager; the optimizer steps (samples / policy.train_global_batch_size);
    the micro-batches of the update and of the log-prob passes, in tokens under sequence packing, else sequences."""
    from tinker_nomics.runs.nemo_rl import config_facts
    hparams = {"grpo.num_prompts_per_step": 32, "grpo.num_generations_per_prompt": 16,
               "policy.train_global_batch_size": 128, "policy.train_micro_batch_size": 4,
               "policy.logprob_batch_size": 8, "policy.generation.vllm_cfg.tensor_parallel_size": 2,
               "policy.generation.vllm_cfg.gpu_memory_utilization": 0.6,
               "policy.generation.vllm_cfg.enforce_eager": True, "policy.sequence_packing.enabled": False}
    facts, where = config_facts(hparams)
    assert (facts["rollout_tp"], facts["rollout_memory_fraction"], facts["enforce_eager"]) == (2.0, 0.6, True)
    assert facts["prompts_per_step"] / facts["mini_batch_prompts"] == 512 / 128       # four optimizer steps
    assert (facts["dynamic_batch"], facts["micro_batch_samples"], facts["logprob_micro_batch_samples"]) \
        == (False, 4.0, 8.0)
    assert "policy.logprob_batch_size" in where["logprob_micro_batch_samples"]
    packed, _ = config_facts({**hparams, "policy.sequence_packing.enabled": True,
                              "policy.sequence_packing.train_mb_tokens": 2048,
                              "policy.sequence_packing.logprob_mb_tokens": 4096})
    assert (packed["dynamic_batch"], packed["micro_batch_tokens"], packed["logprob_dynamic_batch"],
            packed["logprob_micro_batch_tokens"]) == (True, 2048.0, True, 4096.0)
    # an unresolved interpolation is no number: nothing is read from it
    unresolved, _ = config_facts({**hparams, "policy.sequence_packing.enabled": True,
                                  "policy.sequence_packing.train_mb_tokens": "${mul:512,4}"})
    assert "micro_batch_tokens" not in unresolved and "micro_batch_samples" not in unresolved


def test_nemo_rl_s_log_prob_timer_holds_the_reference_pass_too():
    """grpo_train times `policy.get_logprobs` and `get_reference_policy_logprobs` in one block,
    policy_and_reference_logprobs: a run whose hyperparameters say nothing of a KL term still ran both passes."""
    from tinker_nomics.runs import detect
    from pathlib import Path
    hosted = detect.read_hosted(Path(__file__).resolve().parent / "tensorboard_events" / "nemo_rl")
    assert hosted.config                                      # read with its hyperparameters
    facts, _ = run_facts(hosted, hosted.steps)
    assert facts["reference"] is True
