"""What a run's trainer settings cost: the padding it keeps, and the epochs of its update.

A trainer that keeps the padding computes on it: verl with use_remove_padding off pads every sequence to
max_prompt_length + max_response_length, and its passes multiply every padded position through the weights.

The real logs say which of their models ran so (../shared/realdata/verl_runs, read by tools/import_verl_phases.py):
the play-verl PPO run's critic (its actor removes the padding) and both models of the dstack PPO run. The phase
model charges the padding's weight FLOPs and nothing else: FlashAttention drops the padding, and verl counts a
dynamic micro-batch's budget in real tokens.

An update of several epochs (verl's ppo_epochs) passes over the step's batch that many times: its FLOPs and its
micro-batches repeat (the optimizer steps count every epoch's already). The real logs all run one epoch.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import hosted_shapes as hs
from tinker_nomics.analysis import calibration
from tinker_nomics.model import decode, rl_phases, training
from tinker_nomics.runs.ledger import check_run
from tinker_nomics.runs.reconcile import run_facts
from tinker_nomics.sources import get_arch, gpu_specs, number

ARCH = "Qwen/Qwen2.5-7B"
GPUS = 8.0
SAMPLES, PROMPT, RESPONSE = 512.0, 100.0, 200.0


def _features(critic=False, **padding):
    return rl_phases.rl_features(get_arch(ARCH), gpu_specs("H100 SXM"), GPUS, SAMPLES, PROMPT, RESPONSE,
                                 critic=critic, micro_batch_tokens=8000.0, **padding)


def test_padding_to_the_real_length_changes_nothing():
    plain, padded = _features(critic=True), _features(critic=True, padded_tokens_per_sample=PROMPT + RESPONSE,
                                                     critic_padded_tokens_per_sample=PROMPT + RESPONSE)
    for name in ("forward_gemm_units", "update_gemm_units", "micro_batches", "update_micro_batches"):
        assert np.array_equal(getattr(plain, name), getattr(padded, name)), name


def test_the_padding_adds_its_weight_flops_and_nothing_else():
    """Padded to 1,536 tokens (512 + 1,024, the play-verl caps) from 300 real: the update adds the padding's 8 N
    per position (6 N, and the recomputed forward's 2 N), a log-prob pass its 2 N; attention and micro-batches stay."""
    arch, gpus = get_arch(ARCH), gpu_specs("H100 SXM")
    padded = 1536.0
    plain, pad = _features(), _features(padded_tokens_per_sample=padded)
    n = decode.forward_params(arch)
    per_gpu_peak = GPUS * gpus.peak_flops("exact")
    extra_positions = SAMPLES * (padded - PROMPT - RESPONSE)
    update = (training.flops_per_param_per_token("full") + number("forward_flops_per_param")) * n
    assert float(pad.update_gemm_units - plain.update_gemm_units) == pytest.approx(
        extra_positions * update / per_gpu_peak, rel=1e-12)
    assert float(pad.forward_gemm_units - plain.forward_gemm_units) == pytest.approx(
        extra_positions * number("forward_flops_per_param") * n / per_gpu_peak, rel=1e-12)
    assert np.array_equal(pad.micro_batches, plain.micro_batches)
    params = calibration.fit_all()
    slow, fast = rl_phases.phase_seconds(pad, params), rl_phases.phase_seconds(plain, params)
    assert float(slow.training_seconds) > float(fast.training_seconds)
    assert float(slow.logprob_seconds) > float(fast.logprob_seconds)
    assert float(slow.generation_seconds) == float(fast.generation_seconds)


def test_a_padded_critic_slows_only_the_critic_side():
    """The critic's padding (the play-verl PPO run) counts in its values pass and its update: with the critic's
    padding alone, the log-prob passes' mean over (old policy, reference, values) grows by a third of a padded pass."""
    arch, gpus = get_arch(ARCH), gpu_specs("H100 SXM")
    padded = 1536.0
    plain = _features(critic=True)
    critic_only = _features(critic=True, critic_padded_tokens_per_sample=padded)
    extra = SAMPLES * (padded - PROMPT - RESPONSE) * number("forward_flops_per_param") * decode.forward_params(arch) \
        / (GPUS * gpus.peak_flops("exact"))
    assert float(critic_only.forward_gemm_units - plain.forward_gemm_units) == pytest.approx(extra / 3.0, rel=1e-12)
    # without a critic, its padding has nothing to pad
    assert np.array_equal(_features(critic_padded_tokens_per_sample=padded).update_gemm_units,
                          _features().update_gemm_units)


def test_the_measured_runs_carry_the_padding_their_logs_state():
    """rl_phase_cases.csv (tools/import_verl_phases.py from the logs' config dumps): play-verl's PPO critic
    (`critic.model.use_remove_padding: False`, caps 512 + 1,024), dstack's PPO actor and critic (both False, caps
    512 + 256); play-verl's GRPO run removes it."""
    rows = {r["case_id"]: r for r in calibration._phase_rows()}
    assert (rows["phase-44"]["padded_tokens"], rows["phase-44"]["critic_padded_tokens"]) == (None, 1536.0)
    assert (rows["phase-45"]["padded_tokens"], rows["phase-45"]["critic_padded_tokens"]) == (None, None)
    assert (rows["phase-46"]["padded_tokens"], rows["phase-46"]["critic_padded_tokens"]) == (768.0, 768.0)


def _validated(tmp_path, monkeypatch, remove_padding: bool):
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["model"]["use_remove_padding"] = remove_padding
    monkeypatch.setattr(hs, "CONFIG", config)
    return check_run(hs.write_verl_console(tmp_path / f"{remove_padding}.log", "2025"), gpu="H100 SXM")


def test_validate_reads_the_padding_from_a_verl_log(tmp_path, monkeypatch):
    """A verl log whose actor keeps the padding: `validate` predicts its update and log-prob passes on the padded
    length (max_prompt_length + max_response_length of its config: 512 + 1,024 in tests/hosted_shapes.py), its
    generation as before; the same log with the padding removed is predicted on the real lengths."""
    removed, kept = (_validated(tmp_path, monkeypatch, flag) for flag in (True, False))
    data = hs.CONFIG["data"]
    facts_removed, _ = run_facts(removed.run, removed.run.steps)
    facts_kept, _ = run_facts(kept.run, kept.run.steps)
    assert "padded_tokens_per_sample" not in facts_removed
    assert facts_kept["padded_tokens_per_sample"] == data["max_prompt_length"] + data["max_response_length"] == 1536
    assert "critic_padded_tokens_per_sample" not in facts_kept   # the config's critic states no padding
    r_removed, r_kept = removed.reconciliation, kept.reconciliation
    assert r_kept.predicted_mean("training") > 1.5 * r_removed.predicted_mean("training")
    assert r_kept.predicted_mean("generation") == pytest.approx(r_removed.predicted_mean("generation"), rel=1e-12)


def test_each_epoch_of_the_update_repeats_its_flops_and_micro_batches():
    one, two = _features(optimizer_steps=1.0), _features(optimizer_steps=1.0, update_epochs=2.0)
    assert float(two.update_gemm_units) == pytest.approx(2.0 * float(one.update_gemm_units), rel=1e-12)
    assert float(two.update_micro_batches) == 2.0 * float(one.update_micro_batches)
    assert np.array_equal(two.forward_gemm_units, one.forward_gemm_units)   # the log-prob passes run once
    assert np.array_equal(_features(optimizer_steps=1.0, update_epochs=1.0).update_gemm_units, one.update_gemm_units)


def test_validate_reads_the_update_epochs_from_a_verl_log(tmp_path, monkeypatch):
    """ppo_epochs 2 in the config: two passes of the update (and twice the optimizer steps), generation alone."""
    def validated(epochs):
        config = copy.deepcopy(hs.CONFIG)
        config["actor_rollout_ref"]["actor"]["ppo_epochs"] = epochs
        monkeypatch.setattr(hs, "CONFIG", config)
        return check_run(hs.write_verl_console(tmp_path / f"{epochs}.log", "2025"), gpu="H100 SXM")
    one, two = validated(1), validated(2)
    facts_one, _ = run_facts(one.run, one.run.steps)
    facts_two, _ = run_facts(two.run, two.run.steps)
    assert "update_epochs" not in facts_one and facts_two["update_epochs"] == 2.0
    assert facts_two["optimizer_steps"] == 2.0 * facts_one["optimizer_steps"]
    r_one, r_two = one.reconciliation, two.reconciliation
    assert r_two.predicted_mean("training") > 1.5 * r_one.predicted_mean("training")
    assert r_two.predicted_mean("generation") == pytest.approx(r_one.predicted_mean("generation"), rel=1e-12)


def test_validate_of_a_ppo_run_compares_the_actors_phases(tmp_path, monkeypatch):
    """verl times the critic apart (timing_s/values, update_critic), and `validate` compares the actor's phases
    (old log-probs + reference, update_actor) as the calibration does: under GAE the predicted log-prob passes and
    update are the same as the GRPO run's (the actor's alone), while the predicted step, which holds every phase,
    grows by the critic's passes."""
    def validated(estimator):
        config = copy.deepcopy(hs.CONFIG)
        config["algorithm"]["adv_estimator"] = estimator
        monkeypatch.setattr(hs, "CONFIG", config)
        return check_run(hs.write_verl_console(tmp_path / f"{estimator}.log", "2025"), gpu="H100 SXM")
    grpo, gae = validated("grpo"), validated("gae")
    assert run_facts(gae.run, gae.run.steps)[0]["critic"] and not run_facts(grpo.run, grpo.run.steps)[0]["critic"]
    r_grpo, r_gae = grpo.reconciliation, gae.reconciliation
    for phase in ("training", "logprob", "generation"):
        assert r_gae.predicted_mean(phase) == pytest.approx(r_grpo.predicted_mean(phase), rel=1e-9)
    assert r_gae.predicted_mean("step") > r_grpo.predicted_mean("step") + r_grpo.predicted_mean("training")


def test_validate_of_a_real_ppo_log_predicts_its_phases():
    """The dstack PPO log (../shared/realdata/verl_runs, read in place) names Qwen/Qwen2.5-7B-Instruct: it is
    predicted with Qwen2.5-7B's architecture, and its actor's update is compared with the actor's prediction
    (without the critic the calibration's held-out update error for this run is within 35%; with the critic's
    update counted in, the prediction was more than twice the measured update)."""
    from conftest import realdata
    log = realdata("verl_runs") / "dstack_qwen2.5-7b_ppo_16gpu" / "verl_demo.log"
    checked = check_run(log, gpu="H100 SXM")
    r = checked.reconciliation
    assert checked.setup.arch is not None and "Qwen2.5-7B" in checked.setup.arch.model
    training = r.row("training")
    assert abs(training["signed_error"]) < 0.35
    assert r.predicted_mean("step") > r.predicted_mean("generation") + r.predicted_mean("training") \
        + r.predicted_mean("logprob")


def test_validate_compares_the_refit_where_the_log_times_it(tmp_path):
    """Newer verl times the weight hand-off on its own (timing_s/update_weights, outside timing_s/gen): `validate`
    then compares it with the model's refit, phase against phase, and the predicted generation no longer carries
    the refit. An older log without the timer has no refit row (its generation holds the hand-off)."""
    import re
    older = check_run(hs.write_verl_console(tmp_path / "older.log", "2025"), gpu="H100 SXM")
    text = (tmp_path / "older.log").read_text()
    newer_log = tmp_path / "newer.log"
    newer_log.write_text(re.sub(r" - timing_s/step:", " - timing_s/update_weights:1.5 - timing_s/step:", text))
    newer = check_run(newer_log, gpu="H100 SXM")
    refit, none = newer.reconciliation.row("refit"), older.reconciliation.row("refit")
    assert none["steps"] == 0 and refit["steps"] == 4
    assert refit["measured_seconds_mean"] == pytest.approx(1.5)
    assert 0 < refit["predicted_seconds_mean"] < 1.5   # Qwen3-8B: a few hundred tensors over NVLink
    assert newer.reconciliation.predicted_mean("generation") == pytest.approx(
        older.reconciliation.predicted_mean("generation") - refit["predicted_seconds_mean"], rel=1e-9)
    import contextlib
    import io
    from tinker_nomics.faces.cli import main
    shown = {}
    for name in ("older", "newer"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["validate", str(tmp_path / f"{name}.log"), "--gpu", "H100 SXM"]) == 0
        shown[name] = next(line for line in out.getvalue().splitlines() if line.startswith("Model "))
    assert ", refit " in shown["newer"] and "refit" not in shown["older"]


def test_a_verl_log_without_its_config_runs_at_verl_s_rollout_tensor_parallelism(tmp_path, monkeypatch):
    """verl's FileLogger lines carry no config: the rollout engine's tensor parallelism is verl's default
    (defaults.csv verl_rollout_tensor_parallel, from ppo_trainer.yaml), as the calibration reads the published verl
    runs that do not state it, and the notes say so; a one-GPU run cannot have run it wider than its GPU."""
    log = hs.write_verl_jsonl(tmp_path / "verl.jsonl", "2026")

    def notes_and_tp(gpus):
        checked = check_run(log, gpu="H100 SXM", num_gpus=gpus, model="Qwen/Qwen3-8B")
        said = [n for n in checked.reconciliation.notes if "tensor parallelism" in n]
        facts = dict(run_facts(checked.run, checked.run.steps)[0])
        return said, facts, checked.reconciliation
    said, facts, r8 = notes_and_tp(8)
    assert "rollout_tensor_parallel" not in facts     # not in the log: the default is reconcile's, and said
    assert len(said) == 1 and f"verl's default ({number('verl_rollout_tensor_parallel'):g}" in said[0]
    said_one, _, _ = notes_and_tp(1)
    assert "verl's default (1," in said_one[0]
    # the default reaches the phase model: read as 1 instead, the same run's generation is predicted otherwise
    from tinker_nomics.runs import reconcile
    monkeypatch.setattr(reconcile, "number", lambda key: 1.0 if key == "verl_rollout_tensor_parallel" else number(key))
    _, _, r8_one = notes_and_tp(8)
    assert r8_one.predicted_mean("generation") != pytest.approx(r8.predicted_mean("generation"), rel=1e-3)


def test_a_refit_costs_a_fixed_time_per_weight_tensor():
    """The calibrated refit hands each weight tensor over at a fixed cost: verl's fully-async README measures one
    trainer-to-rollout synchronisation of Qwen3-30B-A3B at 15.76 s (checkpoint-engine off; defaults.csv). Its
    published config (48 layers, 128 experts, untied) gives 48 × (4 projections + q/k norms + 2 layer norms + 128 × 3
    expert matrices + the router) + embedding, final norm and head = 18,867 tensors, 0.84 ms each. A dense model
    holds a few hundred (Qwen3-8B: 36 × 11 + 3), so its refit stays under half a second; gpt-oss keeps each layer's
    experts in two stacked tensors. Checked out of sample against NeMo RL's refit blog, which measures
    DeepSeek-V3's refit at 47.2 s after its optimisations (gather 12.2 + IPC transfer 33.5 + update 1.5 s): the
    model's tensor cost alone (45,337 tensors) is within 25% of it."""
    from tinker_nomics.model import rl_phases
    from tinker_nomics.sources.architectures import get_arch
    moe, dense = get_arch("Qwen/Qwen3-30B-A3B"), get_arch("Qwen/Qwen3-8B")
    assert rl_phases.weight_tensors(moe) == 48 * (4 + 2 + 2 + 128 * 3 + 1) + 3 == 18_867
    assert rl_phases.weight_tensors(dense) == 36 * (4 + 2 + 2 + 3) + 3
    assert rl_phases.refit_seconds_per_tensor() * 18_867 == pytest.approx(15.76)
    assert rl_phases.weight_tensors(dense) * rl_phases.refit_seconds_per_tensor() < 0.5
    assert rl_phases.weight_tensors(get_arch("openai/gpt-oss-120b")) < 1_000
    deepseek = rl_phases.weight_tensors(get_arch("deepseek-ai/DeepSeek-V3")) * rl_phases.refit_seconds_per_tensor()
    assert abs(deepseek / 47.2 - 1) < 0.25


def _predicted(**settings):
    from tinker_nomics.model.predict import predict_rl_step
    from tinker_nomics.sources import get_gpu
    return predict_rl_step(get_arch(ARCH), get_gpu("H100 SXM"), GPUS, SAMPLES, PROMPT, RESPONSE, **settings)


def test_predict_takes_the_epochs_and_micro_batches_a_published_table_states():
    """`predict rl-step --ppo-epochs E --micro-batch-samples S`: the update runs E passes (with E × the default
    optimizer steps), the log-prob passes and generation are untouched; S sequences per GPU a micro-batch set the
    micro-batch count, each paying the fitted fixed cost of a pass."""
    one, two = _predicted(), _predicted(ppo_epochs=2)
    assert float(two.training_seconds) > 1.9 * float(one.training_seconds)
    assert float(two.generation_seconds) == float(one.generation_seconds)
    assert float(two.logprob_seconds) == float(one.logprob_seconds)
    steps = number("rl_optimizer_steps")
    assert float(_predicted(ppo_epochs=2, optimizer_steps=2 * steps).training_seconds) == float(two.training_seconds)
    # 512 sequences over 8 GPUs: 64 each, 2 a micro-batch = 32 passes against 8 of 8 a micro-batch
    fine, coarse = _predicted(micro_batch_samples=2), _predicted(micro_batch_samples=8)
    from tinker_nomics.sources.calibration import parameters
    per_pass = parameters().micro_batch_overhead_seconds
    passes = 2.0                                   # the old policy's and the reference's log-probs
    assert float(fine.logprob_seconds - coarse.logprob_seconds) == pytest.approx(passes * (32 - 8) * per_pass,
                                                                                rel=1e-9)


@pytest.mark.parametrize("args, words", [
    (["--ppo-epochs", "1.5"], "--ppo-epochs must be a whole number from 1 to 1,000,000, got 1.5"),
    (["--micro-batch-samples", "4", "--micro-batch-tokens", "8000"], "not both"),
    (["--micro-batch-samples", "4", "--method", "exact"], "--micro-batch-samples: a setting of the calibrated"),
    (["--micro-batch-samples", "0"], "--micro-batch-samples must be"),
    (["--enforce-eager", "--method", "exact"], "--enforce-eager: a setting of the calibrated"),
    (["--logprob-micro-batch-samples", "4", "--logprob-micro-batch-tokens", "8000"], "not both"),
    (["--logprob-micro-batch-samples", "0"], "--logprob-micro-batch-samples must be"),
    (["--logprob-micro-batch-tokens", "2.5"], "--logprob-micro-batch-tokens must be a whole number"),
    (["--generation-rounds", "1.5"], "--generation-rounds must be a whole number"),
    (["--generation-samples", "0"], "--generation-samples must be"),
    (["--generation-rounds", "2", "--method", "seed"], "--generation-rounds: a setting of the calibrated"),
    (["--max-num-seqs", "0.5"], "--max-num-seqs must be"),
    (["--param-offload", "--method", "exact"], "--param-offload: a setting of the calibrated"),
    (["--optimizer-offload", "--gpu", "H20"], "H20 has no host link"),
    (["--no-gradient-checkpointing", "--method", "seed"], "--no-gradient-checkpointing: a setting of the calibrated"),
])
def test_predict_refuses_a_bad_trainer_setting_in_one_line(args, words):
    import contextlib
    import io
    from tinker_nomics.faces.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8",
                          "--samples", "512", "--prompt-len", "300", "--response-len", "1500", *args])
    assert code == 2 and out.getvalue() == "" and err.getvalue().count("\n") == 1 and words in err.getvalue(), \
        err.getvalue()


RL_STEP = ["predict", "rl-step", "--model", ARCH, "--gpu", "H100 SXM", "--num-gpus", "8", "--samples", "512",
           "--prompt-len", "100", "--response-len", "200", "--critic", "--format", "json"]


def test_predict_takes_the_padding_a_run_keeps():
    """`predict rl-step --padded-len` (verl's use_remove_padding off) is the phase model's padded_tokens_per_sample:
    the same seconds as rl_features with it, and more training and log-prob time than without; generation stays.
    External check (notes/s6/verl_ext, TinyZero on one RTX 4090, verl 0.1 without remove_padding): the update
    measured flat in tokens, predicted 30-37% short without the padding."""
    import json

    from test_hostile_counts import _cli
    plain = json.loads(_cli(*RL_STEP)[1])
    code, out, err = _cli(*RL_STEP, "--padded-len", "1536", "--critic-padded-len", "1536")
    assert code == 0, err
    pad = json.loads(out)
    assert pad["training_seconds"] > plain["training_seconds"] and pad["logprob_seconds"] > plain["logprob_seconds"]
    assert pad["generation_seconds"] == plain["generation_seconds"]
    from tinker_nomics.model.predict import parameters
    params = parameters()   # the committed fit (data/calibration/parameters.csv), as predict reads it
    f = rl_phases.rl_features(get_arch(ARCH), gpu_specs("H100 SXM"), GPUS, SAMPLES, PROMPT, RESPONSE, critic=True,
                              response_max_over_mean=params.response_max_over_mean,
                              padded_tokens_per_sample=1536.0, critic_padded_tokens_per_sample=1536.0)
    ph = rl_phases.phase_seconds(f, params)
    assert pad["training_seconds"] == pytest.approx(float(ph.training_seconds), rel=1e-12)


@pytest.mark.parametrize("extra, words", [
    (["--padded-len", "250"], ["--padded-len (250)", "shorter than the mean sequence", "300"]),
    (["--padded-len", "0"], ["--padded-len", ">= 1"]),
    (["--method", "exact", "--padded-len", "1536"], ["--padded-len", "calibrated"]),
])
def test_a_padding_shorter_than_the_sequence_or_for_another_method_is_refused(extra, words):
    from test_hostile_counts import _refused
    _refused([*RL_STEP, *extra], *words)


def test_a_critic_padding_without_a_critic_is_refused():
    from test_hostile_counts import _refused
    _refused([a for a in RL_STEP if a != "--critic"] + ["--critic-padded-len", "1536"], "--critic-padded-len",
             "no critic")
