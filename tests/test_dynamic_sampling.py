"""DAPO's dynamic sampling in verl (algorithm.filter_groups): a step generates data.gen_batch_size prompts' groups a
round, drops the groups whose rewards all agree and generates again until train_batch_size prompts' groups are kept
(recipe/dapo/dapo_ray_trainer.py: timing_raw accumulates over the rounds, `train/num_gen_batches` counts them, the
data metrics describe the kept batch). Every round is generation time, decode throughput and Tinker sampling; only the
kept batch is trained.

The log is the synthetic verl console of tests/hosted_shapes.py with DAPO's settings; expected values are computed
from its own figures (hs.RESPONSE, hs.PROMPT, hs.GEN) and from the model's one-round prediction."""
import numpy as np
import pytest

import hosted_shapes as hs
from tinker_nomics.model.rl_step import rl_steps
from tinker_nomics.runs.detect import read_hosted
from tinker_nomics.runs.ledger import check_run
from tinker_nomics.runs.reconcile import run_facts
from tinker_nomics.sources import get_arch, get_gpu

ROUNDS, GEN_PROMPTS = hs.DAPO_ROUNDS, hs.DAPO_GEN_PROMPTS


def _dapo_log(tmp_path, filter_groups=True):
    return hs.write_verl_dapo_console(tmp_path / "dapo.log", filter_groups)


def test_rounds_and_generated_sequences_are_read(tmp_path):
    run = read_hosted(_dapo_log(tmp_path))
    assert list(run.steps["generation_rounds"]) == ROUNDS
    assert list(run.steps["samples"]) == [hs.SAMPLES] * 4                  # the kept batch is trained
    assert list(run.steps["generated_samples"]) == [k * GEN_PROMPTS * hs.N for k in ROUNDS]
    assert run.config_sources["rollout_samples"].startswith("data.gen_batch_size")


def test_without_the_filter_the_generation_batch_is_the_trained_batch(tmp_path):
    """verl's dataloader loads data.gen_batch_size prompts a step (ray_trainer._create_dataloader); without the
    filter every generated sequence is trained."""
    run = read_hosted(_dapo_log(tmp_path, filter_groups=False))
    assert run.config["samples_per_step"] == GEN_PROMPTS * hs.N
    assert run.config_sources["samples_per_step"].startswith("data.gen_batch_size")
    assert list(run.steps["generation_rounds"]) == [1] * 4
    assert (run.steps["generated_samples"] == run.steps["samples"]).all()


def test_each_round_is_a_generation_call_and_training_sees_the_kept_batch(tmp_path):
    v = check_run(_dapo_log(tmp_path), gpu="H100 SXM")
    facts, _ = run_facts(v.run, v.run.steps)
    assert list(facts["rollout_rounds"]) == ROUNDS and facts["rollout_samples"] == GEN_PROMPTS * hs.N
    common = dict(arch=get_arch(hs.VERL_MODEL), gpu=get_gpu("H100 SXM"), num_gpus=hs.GPUS,
                  prompt_tokens=np.array(hs.PROMPT), response_tokens=np.array(hs.RESPONSE), method="calibrated",
                  fine_tune="full")
    plain = {k: v for k, v in facts.items() if k not in ("rollout_rounds", "rollout_samples")}
    dapo = rl_steps(samples=np.full(4, float(hs.SAMPLES)), run_facts=facts, **common)
    one_round = rl_steps(samples=np.full(4, float(GEN_PROMPTS * hs.N)), run_facts=plain, **common)
    kept_only = rl_steps(samples=np.full(4, float(hs.SAMPLES)), run_facts=plain, **common)
    assert np.asarray(dapo.rollout_hours) == pytest.approx(np.array(ROUNDS) * np.asarray(one_round.rollout_hours),
                                                           rel=1e-12)
    assert np.asarray(dapo.train_hours) == pytest.approx(np.asarray(kept_only.train_hours), rel=1e-12)
    assert np.asarray(dapo.logprob_hours) == pytest.approx(np.asarray(kept_only.logprob_hours), rel=1e-12)
    # the reconciliation's step is that prediction's
    r = v.reconciliation
    assert r.predicted_mean("step") == pytest.approx(float(np.mean(dapo.wallclock_hours)) * 3600, rel=1e-12)
    assert any("dynamic sampling" in c for c in v.caveats)


def test_decode_throughput_and_the_tinker_bill_count_every_round(tmp_path):
    v = check_run(_dapo_log(tmp_path), gpu="H100 SXM", prices="2026-01-05")
    generated = [k * GEN_PROMPTS * hs.N for k in ROUNDS]
    sampled = sum(r * g for r, g in zip(hs.RESPONSE, generated))
    assert v.measured.totals["decode_tokens_per_second_per_gpu"] == pytest.approx(sampled / (sum(hs.GEN) * hs.GPUS))
    tokens = v.to_dict()["tinker"]["tokens"]
    assert tokens["sample"] == pytest.approx(sampled)
    assert tokens["train"] == pytest.approx(hs.VERL_EXPECTED["trained_tokens"])   # only the kept batch trains
    kept_prompt = hs.VERL_EXPECTED["prompt_tokens"]
    assert tokens["prefill"] == pytest.approx(kept_prompt * sum(generated) / (4 * hs.SAMPLES), rel=0.02)


def test_a_fractional_round_count_is_one_line(tmp_path):
    path = hs.write_verl_console(tmp_path / "bad.log", "2025", config=hs.dapo_config(True),
                                 extra=lambda i: {"train/num_gen_batches": 1.5})
    from tinker_nomics import TinkerNomicsError
    with pytest.raises(TinkerNomicsError, match="generation rounds"):
        read_hosted(path)


def test_zero_rounds_is_one_line_that_says_so(tmp_path):
    """A step ran at least one generation round: 0 is a broken line, named as such (not 'negative')."""
    from tinker_nomics import TinkerNomicsError
    path = hs.write_verl_console(tmp_path / "zero.log", "2025", config=hs.dapo_config(True),
                                 extra=lambda i: {"train/num_gen_batches": 0})
    with pytest.raises(TinkerNomicsError, match="train/num_gen_batches is 0, less than 1"):
        read_hosted(path)
