"""verl's asynchronous recipes and the other frameworks' asynchronous runs, read and predicted as they ran: the rollout
engine on GPUs of its own, a batch ahead of the trainer, each step the longer of generation and the trainer's passes
(model/rl_phases.py `rollout_gpus`: the run's own split instead of the model's).

Where the formats come from (stored copies of verl's recipes, /work/notes/s5/verl_async.md has the commits read):
recipe/one_step_off_policy/ray_trainer.py times `gen` as the wait for the batch the previous step launched (its first
version `wait_prev_gen`, with the batch's whole `generate_sequences` beside it; later `generate_async`) and
`sync_rollout_weights`; its config gives the rollout pool as a top-level `rollout.nnodes × rollout.n_gpus_per_node`
beside `trainer.*`, which counts the trainer's pool only. recipe/fully_async_policy logs one record per weight sync,
each summing the timers of the `async_training.trigger_parameter_sync_step` trainer steps it covers
(MetricsAggregator, detach_utils.py). The step figures used below are the recipes' own READMEs': one-step-off on
12 trainer + 4 rollout GPUs, step 520 s = wait_prev_gen 45 + old_log_prob 108 + update_actor 337 (+ the rest), its
generate_sequences 458 s overlapping the step before; fully-async 64:64 GPUs, a record of step 150.63 s, gen
33.14 s, update_actor 113.16 s over 4 trainer steps."""
from __future__ import annotations

import contextlib
import copy
import io
import json

import numpy as np
import pytest

import hosted_shapes as hs
from tinker_nomics import TinkerNomicsError
from tinker_nomics.faces.cli import main
from tinker_nomics.model import predict as model_predict
from tinker_nomics.model import rl_phases
from tinker_nomics.runs import detect, nemo_rl, openrlhf
from tinker_nomics.sources import get_arch, get_gpu
from tinker_nomics.sources.calibration import parameters
from tinker_nomics.sources.hardware import gpu_specs

QWEN = get_arch("Qwen/Qwen3-8B")
H100 = get_gpu("H100 SXM")

# the one-step-off README's row (one-step-overlap async, vLLM + FSDP2, 12 trainer and 4 rollout GPUs)
ONE_STEP = {"timing_s/step": 520.0, "timing_s/wait_prev_gen": 45.0, "timing_s/generate_sequences": 458.0,
            "timing_s/old_log_prob": 108.0, "timing_s/update_actor": 337.0, "timing_s/sync_rollout_weights": 6.0}
TRAINER_GPUS, ROLLOUT_GPUS = 12, 4
# the fully-async README's 64:64 record: 4 trainer steps of 32 × 4 prompts' groups each
FULLY = {"timing_s/step": 150.63, "timing_s/gen": 33.14, "timing_s/update_actor": 113.16}
SYNC_STEPS = 4


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def one_step_config() -> dict:
    config = copy.deepcopy(hs.CONFIG)
    config["trainer"].update(n_gpus_per_node=TRAINER_GPUS, nnodes=1)
    config["rollout"] = {"nnodes": 1, "n_gpus_per_node": ROLLOUT_GPUS}
    config["actor_rollout_ref"]["hybrid_engine"] = False
    return config


def one_step_extra(i: int) -> dict:
    """The README's timers in place of the synthetic run's (its wait is the `gen`-less first version's)."""
    return {**ONE_STEP, "timing_s/step": ONE_STEP["timing_s/step"] + i, "perf/time_per_step": 520.0 + i}


def one_step_console(tmp_path, config=True):
    path = tmp_path / "one_step.log"
    hs.write_verl_console(path, "2026", config=one_step_config() if config else None, extra=one_step_extra)
    text = path.read_text().replace("timing_s/gen:", "timing_s/gen_unused:")   # the first version has no `gen`
    path.write_text(text)
    return path


def test_a_one_step_off_log_counts_both_pools_and_reads_the_whole_generation(tmp_path):
    hosted = detect.read_hosted(one_step_console(tmp_path))
    c = hosted.config
    assert (c["num_gpus"], c["rollout_gpus"], c["off_policy"]) == (TRAINER_GPUS + ROLLOUT_GPUS, ROLLOUT_GPUS, 1.0)
    assert "rollout.n_gpus_per_node" in hosted.config_sources["num_gpus"]
    # the batch's generation (458 s, beside the step before), not the 45 s the step waited for it
    assert list(hosted.steps["generation_seconds"]) == [ONE_STEP["timing_s/generate_sequences"]] * 4
    assert list(hosted.steps["phase/sync_rollout_weights"]) == [ONE_STEP["timing_s/sync_rollout_weights"]] * 4
    assert not c.get("generation_exposed")
    assert any("one-step-off" in n and "more than the step" in n for n in hosted.notes)


def test_validate_predicts_a_one_step_off_run_on_its_own_split(tmp_path):
    path = one_step_console(tmp_path)
    code, out, err = run("validate", str(path), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["num_gpus"] == TRAINER_GPUS + ROLLOUT_GPUS
    notes = " ".join(data["notes"] + data["caveats"])
    assert "an asynchronous run" in notes and f"{ROLLOUT_GPUS} of the {TRAINER_GPUS + ROLLOUT_GPUS} GPUs" in notes
    assert "predicts a synchronous step" not in notes
    # the same log read as a synchronous run on all 16 GPUs predicts a longer step: the async step overlaps
    sync = one_step_config()
    del sync["rollout"]
    sync["trainer"]["n_gpus_per_node"] = TRAINER_GPUS + ROLLOUT_GPUS
    plain = tmp_path / "plain.log"
    hs.write_verl_console(plain, "2026", config=sync, extra=lambda i: {
        k: v for k, v in one_step_extra(i).items() if k not in ("timing_s/wait_prev_gen", "timing_s/sync_rollout_weights")})
    code, out2, err = run("validate", str(plain), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    step = lambda d: d["predicted"]["step_seconds_mean"]   # noqa: E731
    assert step(data) < step(json.loads(out2))


def test_a_one_step_off_log_with_only_the_wait_compares_the_wait(tmp_path):
    """A later one-step-off log whose records carry `gen` (the wait) and no whole generation: the generation compared
    is the part the trainer did not hide, and no rollout efficiency is fitted from a wait."""
    path = tmp_path / "wait.jsonl"
    rows = []
    for i in range(4):
        data = hs.verl_metrics(i, "2026")
        data.update({"timing_s/gen": 45.0, "timing_s/sync_rollout_weights": 6.0, "timing_s/step": 520.0})
        rows.append(json.dumps({"step": i + 1, "data": data}))
    path.write_text("\n".join(rows) + "\n")
    hosted = detect.read_hosted(path)
    assert hosted.config["generation_exposed"] and hosted.config["off_policy"] == 1.0
    code, out, err = run("validate", str(path), "--gpu", "H100 SXM", "--num-gpus", "16", "--rollout-gpus", "4",
                         "--model", hs.VERL_MODEL, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    notes = " ".join(data["notes"] + data["caveats"])
    assert "the wait for the next batch" in notes and "4 of the 16 GPUs" in notes and "--rollout-gpus" in notes
    assert data["fitted"]["rollout_efficiency"] is None and data["fitted"]["step_mfu"] is None


def fully_async_records(with_local_step: bool = True) -> list[dict]:
    """Three fully-async records (W&B step = the weight version), each the README's 4-step sums; 128 prompts × 4
    responses a trainer step, so perf/total_num_tokens sums 4 × 512 sequences."""
    out = []
    for version in range(1, 4):
        data = {**FULLY, "perf/time_per_step": FULLY["timing_s/step"], "response_length/mean": 2000.0,
                "prompt_length/mean": 100.0, "perf/total_num_tokens": SYNC_STEPS * 512 * 2100.0,
                "trainer/idle_ratio": FULLY["timing_s/gen"] / FULLY["timing_s/step"],
                "fully_async/count/current_param_version": version}
        if with_local_step:
            data["training/global_step"] = SYNC_STEPS * version
        out.append({"step": version, "data": data})
    return out


def test_a_fully_async_record_stands_for_the_trainer_steps_it_sums(tmp_path):
    path = tmp_path / "fully.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in fully_async_records()))
    hosted = detect.read_hosted(path)
    t = hosted.steps
    assert hosted.n_steps == 3 * SYNC_STEPS
    assert list(t["steps_covered"]) == [SYNC_STEPS] * 3
    assert t["step_seconds"].tolist() == pytest.approx([FULLY["timing_s/step"] / SYNC_STEPS] * 3)
    assert t["training_seconds"].tolist() == pytest.approx([FULLY["timing_s/update_actor"] / SYNC_STEPS] * 3)
    assert list(t["samples"]) == [512.0] * 3          # one trainer step's sequences, not the record's 2,048
    assert hosted.config["off_policy"] == 1.0 and hosted.config["generation_exposed"]
    assert any("fully-async records each sum" in n for n in hosted.notes)


def test_a_fully_async_record_without_its_step_count_says_so(tmp_path):
    path = tmp_path / "fully.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in fully_async_records(with_local_step=False)))
    hosted = detect.read_hosted(path)
    assert hosted.n_steps == 3 and any("unknown number of trainer steps" in n for n in hosted.notes)
    bad = fully_async_records()
    bad[2]["data"]["training/global_step"] = 2    # goes back
    path.write_text("".join(json.dumps(r) + "\n" for r in bad))
    with pytest.raises(TinkerNomicsError, match="training/global_step is '2'|training/global_step is 2"):
        detect.read_hosted(path)


def test_a_fully_async_config_gives_the_steps_per_record_and_the_trainer_batch(tmp_path):
    config = one_step_config()
    config["async_training"] = {"trigger_parameter_sync_step": SYNC_STEPS, "require_batches": 4,
                                "staleness_threshold": 0.5, "partial_rollout": True}
    config["actor_rollout_ref"]["actor"]["ppo_mini_batch_size"] = 32
    config["data"]["train_batch_size"] = 0
    from tinker_nomics.runs import verl
    facts, where = verl.config_facts(config)
    assert facts["steps_per_record"] == SYNC_STEPS and facts["async_recipe"] == "fully-async"
    assert facts["prompts_per_step"] == 32 * 4 and facts["samples_per_step"] == 32 * 4 * hs.N
    records = verl.read_records([(("line", i + 1), r) for i, r in enumerate(fully_async_records(False))],
                                "fully", "file logger", False, config=config)
    assert list(records.steps["steps_covered"]) == [SYNC_STEPS] * 3


def test_the_run_s_own_split_is_its_layout():
    p = parameters()
    own = rl_phases.rl_features(QWEN, gpu_specs(H100), 16, 1024, 200, 2000, off_policy=1, rollout_gpus=4,
                                response_max_over_mean=p.response_max_over_mean)
    assert bool(own.separate) and own.colocated is None
    assert float(own.trainer_gpus) == 12 and float(own.replicas * own.tensor_parallel) <= 4
    ph = rl_phases.phase_seconds(own, p)
    assert float(ph.step_seconds) == pytest.approx(float(np.maximum(ph.generation_seconds, ph.logprob_seconds
                                                                    + ph.training_seconds)
                                                         + ph.refit_seconds + ph.other_seconds))
    # fewer rollout GPUs: longer generation, a faster trainer
    wide = rl_phases.phase_seconds(rl_phases.rl_features(QWEN, gpu_specs(H100), 16, 1024, 200, 2000, off_policy=1,
                                                         rollout_gpus=12,
                                                         response_max_over_mean=p.response_max_over_mean), p)
    assert float(wide.generation_seconds) < float(ph.generation_seconds)
    assert float(wide.training_seconds) > float(ph.training_seconds)


def test_predict_rl_step_takes_the_split():
    r = model_predict.predict_rl_step(QWEN, H100, 16, 1024, 200, 2000, off_policy=1, rollout_gpus=4).to_dict()
    assert (r["layout"], r["rollout_gpus"]) == ("separate", 4.0)
    code, out, err = run("predict", "rl-step", "--model", "Qwen/Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "16",
                         "--samples", "1024", "--prompt-len", "200", "--response-len", "2000", "--off-policy", "1",
                         "--rollout-gpus", "4")
    assert code == 0, err
    assert "4 GPUs generate, 12 train" in out


@pytest.mark.parametrize("args, words", [
    (("--off-policy", "1", "--rollout-gpus", "16"), "--rollout-gpus (16) must leave GPUs to train on"),
    (("--off-policy", "1", "--rollout-gpus", "2.5"), "--rollout-gpus must be a whole number"),
    (("--off-policy", "1", "--rollout-gpus", "4", "--method", "seed"), "rollout_gpus"),
])
def test_a_split_no_run_could_have_is_one_line(args, words):
    code, out, err = run("predict", "rl-step", "--model", "Qwen/Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "16",
                         "--samples", "1024", "--prompt-len", "200", "--response-len", "2000", *args)
    assert code == 2 and words.replace("rollout_gpus", "--rollout-gpus") in err and len(err.strip().splitlines()) == 1


def test_validate_refuses_a_split_with_no_gpu_to_train_on(tmp_path):
    path = hs.write_verl_jsonl(tmp_path / "run.jsonl")
    code, _, err = run("validate", str(path), "--gpu", "H100 SXM", "--num-gpus", "8", "--off-policy", "1",
                       "--rollout-gpus", "8")
    assert code == 2 and "--rollout-gpus (8) must leave GPUs to train on" in err
    from pathlib import Path
    with_config = Path(__file__).parent / "wandb_runs" / "verl" / "run.wandb"   # the same run, 8 GPUs by its config
    code, _, err = run("validate", str(with_config), "--gpu", "H100 SXM", "--off-policy", "1", "--rollout-gpus", "8")
    assert code == 2 and "--rollout-gpus (8) must leave GPUs to train on: fewer than the run's 8" in err, err
    code, out, err = run("validate", str(path), "--gpu", "H100 SXM", "--num-gpus", "8", "--off-policy", "1",
                         "--rollout-gpus", "2", "--model", hs.VERL_MODEL, "--format", "json")
    assert code == 0, err
    assert "2 of the 8 GPUs generate" in " ".join(json.loads(out)["notes"])


def test_nemo_rl_async_grpo_hyperparameters_give_the_age_and_the_generation_gpus():
    """NeMo RL's async GRPO (its async recipes: grpo.async_grpo.enabled, max_trajectory_age_steps, and
    policy.generation.colocated.enabled false with resources for generation; on one node gpus_per_node of it, on
    several whole nodes)."""
    base = {"cluster.gpus_per_node": 8, "cluster.num_nodes": 2, "grpo.async_grpo.enabled": True,
            "grpo.async_grpo.max_trajectory_age_steps": 2, "policy.generation.colocated.enabled": False,
            "policy.generation.colocated.resources.num_nodes": 1,
            "policy.generation.colocated.resources.gpus_per_node": None}
    facts, where = nemo_rl.config_facts(base)
    assert (facts["num_gpus"], facts["off_policy"], facts["rollout_gpus"]) == (16.0, 2.0, 8.0)
    one = {**base, "cluster.num_nodes": 1, "policy.generation.colocated.resources.gpus_per_node": 2,
           "grpo.async_grpo.max_trajectory_age_steps": None}
    facts, _ = nemo_rl.config_facts(one)
    assert (facts["num_gpus"], facts["off_policy"], facts["rollout_gpus"]) == (8.0, 1.0, 2.0)
    facts, _ = nemo_rl.config_facts({**base, "grpo.async_grpo.enabled": False,
                                     "policy.generation.colocated.enabled": True})
    assert "off_policy" not in facts and "rollout_gpus" not in facts


def test_openrlhf_async_train_gives_the_engines_gpus():
    args = dict(actor_num_nodes=1, actor_num_gpus_per_node=4, vllm_num_engines=2, vllm_tensor_parallel_size=2,
                async_train=True, colocate_actor_ref=True, init_kl_coef=0.01, pretrain="Qwen/Qwen3-8B")
    facts, where = openrlhf.launch_facts(args)
    assert (facts["off_policy"], facts["rollout_gpus"], facts["num_gpus"]) == (1.0, 4.0, 8.0)
    facts, _ = openrlhf.launch_facts({**args, "colocate_actor_ref": False})   # the reference on GPUs of its own
    assert "num_gpus" not in facts and facts["rollout_gpus"] == 4.0


def test_an_async_recipe_that_takes_the_engine_s_log_probs_runs_no_old_policy_pass(tmp_path):
    """The fully-async record above times no old_log_prob (its README's table: '\\', rollout log-probs used): the
    predicted log-prob passes are the reference's alone, and its generation is not taken to hold the old policy's
    pass, as verl's first releases' was (reconcile.generation_holds_old_logprob)."""
    p = parameters()
    with_old = rl_phases.rl_features(QWEN, gpu_specs(H100), 8, 512, 100, 2000, off_policy=1, rollout_gpus=4,
                                     response_max_over_mean=p.response_max_over_mean)
    without = rl_phases.rl_features(QWEN, gpu_specs(H100), 8, 512, 100, 2000, off_policy=1, rollout_gpus=4,
                                    response_max_over_mean=p.response_max_over_mean, old_logprob_pass=False)
    assert float(with_old.logprob_passes) == 2.0 and float(without.logprob_passes) == 1.0   # old + reference; ref
    path = tmp_path / "fully.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in fully_async_records()))
    code, out, err = run("validate", str(path), "--gpu", "H100 SXM", "--num-gpus", "16", "--rollout-gpus", "8",
                         "--model", hs.VERL_MODEL, "--format", "json")
    assert code == 0, err
    notes = " ".join(json.loads(out)["notes"])
    assert "old policy's log-probs from the rollout engine" in notes
    assert "recomputed the old policy's log-probs inside generate_sequences" not in notes
    assert "its generation time holds it" not in notes   # the wait holds no refit either


@pytest.mark.parametrize("where, value", [("nnodes", -1), ("n_gpus_per_node", "four"), ("n_gpus_per_node", 2.5),
                                          ("sync", 0), ("sync", "x")])
def test_an_async_config_no_run_could_have_is_one_line_naming_it(tmp_path, where, value):
    config = one_step_config()
    if where == "sync":
        config["async_training"] = {"trigger_parameter_sync_step": value}
    else:
        config["rollout"][where] = value
    path = tmp_path / "bad.log"
    hs.write_verl_console(path, "2026", config=config, extra=one_step_extra)
    code, _, err = run("validate", str(path), "--gpu", "H100 SXM")
    name = "trigger_parameter_sync_step" if where == "sync" else f"rollout.{where}"
    assert code == 2 and name in err and len(err.strip().splitlines()) == 1, err


def test_a_rollout_pool_of_no_gpus_is_no_pool(tmp_path):
    """verl writes an unused resource pool as 0 nodes of 0 GPUs (its reward_model pool): a run with such a rollout
    block is colocated, its GPUs the trainer's."""
    config = one_step_config()
    config["rollout"] = {"nnodes": 0, "n_gpus_per_node": 0}
    path = tmp_path / "colocated.log"
    hs.write_verl_console(path, "2026", config=config)
    hosted = detect.read_hosted(path)
    assert hosted.config["num_gpus"] == TRAINER_GPUS and "rollout_gpus" not in hosted.config
    assert "off_policy" not in hosted.config


def test_a_synchronous_run_whose_engine_has_gpus_of_its_own_takes_turns():
    """NeMo RL with colocated inference off and async GRPO off: generation on its GPUs, then training on the rest,
    one after the other (the step is the sum of the phases), each side slower than the same phase on all 16."""
    p = parameters()
    own = model_predict.predict_rl_step(QWEN, H100, 16, 1024, 200, 2000, rollout_gpus=4)
    together = model_predict.predict_rl_step(QWEN, H100, 16, 1024, 200, 2000)
    d = own.to_dict()
    assert (d["layout"], d["rollout_gpus"]) == ("split", 4.0) and together.to_dict()["layout"] == "colocated"
    assert float(own.step_seconds) == pytest.approx(float(own.generation_seconds + own.logprob_seconds
                                                          + own.training_seconds + own.refit_seconds
                                                          + own.other_seconds))
    assert float(own.generation_seconds) > float(together.generation_seconds)
    assert float(own.training_seconds) > float(together.training_seconds)
    code, out, err = run("predict", "rl-step", "--model", "Qwen/Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "16",
                         "--samples", "1024", "--prompt-len", "200", "--response-len", "2000", "--rollout-gpus", "4")
    assert code == 0, err
    assert "then training on the rest" in out and "4 GPUs generate, 12 train" in out
    facts, _ = nemo_rl.config_facts({"cluster.gpus_per_node": 8, "cluster.num_nodes": 1,
                                     "policy.generation.colocated.enabled": False,
                                     "policy.generation.colocated.resources.gpus_per_node": 2})
    assert facts["rollout_gpus"] == 2.0 and "off_policy" not in facts


def test_a_count_too_long_for_a_float_is_no_count():
    """A config pasted with an integer of hundreds of digits (JSON holds any length; a float holds none so long):
    the count is not read, never an OverflowError."""
    huge = 10 ** 400
    base = {"cluster.gpus_per_node": 8, "cluster.num_nodes": 1, "grpo.async_grpo.enabled": True,
            "policy.generation.colocated.enabled": False, "policy.generation.colocated.resources.gpus_per_node": 2}
    for key in base:
        if key.endswith("enabled"):
            continue
        facts, _ = nemo_rl.config_facts({**base, key: huge})
        assert all(v != huge for v in facts.values())
    from tinker_nomics.runs.reconcile import _positive
    assert not _positive(huge) and _positive(8)


def test_the_log_s_own_step_count_wins_over_the_config_s_and_the_double_prefix_is_read():
    """verl's later fully-async trainer (verl/experimental/fully_async_policy, by the code read) closes its first
    window a step short (local steps 1-3, then 4 a window) and times its weight sync under 'timing_s/param_sync',
    which compute_timing_metrics prefixes again."""
    records = fully_async_records()
    for version, record in enumerate(records):
        record["data"]["training/global_step"] = SYNC_STEPS * (version + 1) - 1
        record["data"]["timing_s/timing_s/param_sync"] = 4.38
    from tinker_nomics.runs import verl
    config = one_step_config()
    config["async_training"] = {"trigger_parameter_sync_step": SYNC_STEPS}
    hosted = verl.read_records([(("line", i + 1), r) for i, r in enumerate(records)], "exp", "file logger", False,
                               config=config)
    assert list(hosted.steps["steps_covered"]) == [SYNC_STEPS - 1, SYNC_STEPS, SYNC_STEPS]
    assert list(hosted.steps["step"]) == [3, 7, 11]
    assert hosted.steps["phase/param_sync"].tolist() == pytest.approx([4.38 / 3, 4.38 / 4, 4.38 / 4])
    assert any("the rise of training/global_step" in n for n in hosted.notes)
