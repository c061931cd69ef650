"""OpenRLHF's logs (W&B export, console, TensorBoard): detected, read phase by phase, and validated like a verl run.

The metric names are OpenRLHF's own (OpenRLHF/OpenRLHF openrlhf/trainer/ppo_trainer.py `train_step` and `fit`,
openrlhf/utils/logging_utils.py; see tinker_nomics/runs/openrlhf.py). Every expected number below comes from the
small run this file builds:

    64 prompts × 8 samples = 512 sequences a step, steps 1-4, synchronous (step_total = the sum of the timers):

    step                          1      2      3      4      | mean
    timing/generation             40     42     44     46     | 43
    timing/make_experience        9      9      9      9      | 9     (old-policy and reference log-probs, reward)
    timing/ppo_train              20     21     22     23     | 21.5
    timing/broadcast              1.5 each                    | 1.5
    timing/step_total             70.5   73.5   76.5   79.5   | 75
    response_length (and rollout/response_length_mean)  600  610  620  630
    total_length = 150 (prompt) + response_length
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import hosted_shapes as hs
from test_nemo_rl import run
from tinker_nomics.runs import detect, openrlhf

SAMPLES, PROMPT, GPUS = 512, 150.0, 8
RESPONSE = (600.0, 610.0, 620.0, 630.0)
GENERATION = (40.0, 42.0, 44.0, 46.0)
MAKE_EXPERIENCE = 9.0
UPDATE = (20.0, 21.0, 22.0, 23.0)
BROADCAST = 1.5


def status(i: int, era: str = "2026") -> dict:
    """The status dict `fit` logs at step i + 1: `2026` (rollout stats and step_total), `early` (neither: the
    phase timers and the actor's own status only), `async` (a step total below the sum: generation beside
    training), `critic` (PPO: the critic's loss and values in the status)."""
    out = {"policy_loss": 0.01, "actor_lr": 1e-6, "kl": 0.001, "reward": 0.4, "response_length": RESPONSE[i],
           "total_length": PROMPT + RESPONSE[i], "timing/make_experience": MAKE_EXPERIENCE,
           "timing/ppo_train": UPDATE[i], "timing/broadcast": BROADCAST}
    if era != "early":
        out.update({"rollout/reward_mean": 0.4, "rollout/reward_std": 0.2,
                    "rollout/response_length_mean": RESPONSE[i], "rollout/truncated_rate": 0.01,
                    "rollout/num_samples": float(SAMPLES)})
    if era == "critic":
        out.update({"critic_loss": 0.2, "values": 0.1, "critic_lr": 5e-6})
    out["timing/generation"] = GENERATION[i]
    if era != "early":
        total = sum(v for k, v in out.items() if k.startswith("timing/"))
        out["timing/step_total"] = total - 20.0 if era == "async" else total
    return out


def wandb_rows(era: str = "2026") -> list[dict]:
    """W&B history rows as WandbLogger logs them: the sample table in a call of its own, then every key under
    train/ with train/global_step; an evaluation at step 4 under eval/."""
    rows, clock = [], 0
    for i in range(4):
        rows.append({"_step": clock, "train/generated_samples": "table-file"})
        rows.append({"_step": clock + 1, **{f"train/{k}": v for k, v in status(i, era).items()},
                     "train/global_step": i + 1})
        clock += 2
    rows.append({"_step": clock, "eval/eval_math_pass1": 0.5, "eval/global_step": 4})
    return rows


def console(era: str = "2026") -> str:
    """The trainer's stdout: the `openrlhf` logger's format (`%(levelname)s %(asctime)s %(filename)s:%(lineno)d]
    %(message)s`) with the status dict as fit prints it, amid other output."""
    lines = ["INFO 12-04 09:59:58 train_ppo_ray.py:310] loading Qwen/Qwen3-8B", "Episode [1/1]:   0%|"]
    for i in range(4):
        lines.append(f"INFO 12-04 10:0{i}:00 ppo_trainer.py:402] ✨ Global step {i + 1}: {status(i, era)!r}")
    return "\n".join(lines) + "\n"


write = hs.write_table   # a W&B history export of the rows: csv, parquet, records or lines


def check_steps(t) -> None:
    assert list(t["step"]) == [1, 2, 3, 4]
    assert list(t["step_seconds"]) == pytest.approx([70.5, 73.5, 76.5, 79.5])   # the sums in the docstring
    assert list(t["generation_seconds"]) == list(GENERATION) and list(t["training_seconds"]) == list(UPDATE)
    assert list(t["phase/make_experience"]) == [MAKE_EXPERIENCE] * 4 and list(t["phase/broadcast"]) == [BROADCAST] * 4
    assert list(t["samples"]) == [SAMPLES] * 4
    assert list(t["response_tokens"]) == [SAMPLES * r for r in RESPONSE]
    assert list(t["prompt_tokens"]) == pytest.approx([SAMPLES * PROMPT] * 4)   # total_length - response_length


@pytest.mark.parametrize("layout", ["csv", "parquet", "lines"])
def test_an_openrlhf_export_is_detected_and_read_phase_by_phase(tmp_path, layout):
    name = {"csv": "h.csv", "parquet": "h.parquet", "lines": "h.jsonl"}[layout]
    path = write(tmp_path / name, wandb_rows(), layout)
    found = detect.detect(path)
    assert (found.framework, found.side) == (openrlhf.FRAMEWORK, detect.SELF_HOSTED)
    hosted = detect.read_hosted(path, found)
    check_steps(hosted.steps)
    assert any("without phase timers" in n for n in hosted.notes)   # the sample-table and eval rows


def test_an_openrlhf_console_log_reads_as_its_wandb_export(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(console())
    found = detect.detect(log)
    assert (found.framework, found.shape) == (openrlhf.FRAMEWORK, "console")
    check_steps(detect.read_hosted(log, found).steps)
    folder_found = detect.detect(tmp_path)                           # a folder holding it: that log
    assert folder_found.framework == openrlhf.FRAMEWORK and folder_found.file == log


def test_validate_compares_each_phase_of_an_openrlhf_run(tmp_path):
    """make_experience is the log-prob phase, broadcast the refit and ppo_train the update, measured against the
    model phase by phase."""
    path = write(tmp_path / "h.csv", wandb_rows())
    code, out, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", str(GPUS),
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["framework"] == "OpenRLHF"
    m = data["measured"]
    assert m["steps"] == 4 and m["step_seconds_mean"] == pytest.approx(75.0)
    assert m["generation_seconds_mean"] == pytest.approx(sum(GENERATION) / 4)
    phases = {r["phase"]: r for r in data["predicted"]["by_method"] if r["method"] == "calibrated"}
    assert phases["logprob"]["measured_seconds_mean"] == pytest.approx(MAKE_EXPERIENCE)
    assert phases["refit"]["measured_seconds_mean"] == pytest.approx(BROADCAST)
    assert phases["training"]["measured_seconds_mean"] == pytest.approx(sum(UPDATE) / 4)
    assert all(r["predicted_seconds_mean"] > 0 for r in phases.values())
    code, table, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8")
    assert code == 0, err
    assert "OpenRLHF" in table and "log-probs" in table and "refit" in table


def test_an_early_openrlhf_log_sums_its_phases_and_asks_for_its_batch(tmp_path):
    """Before the rollout stats and the step total: each step is the sum of its timers, and the sample count
    comes from --prompts-per-step (rollout_batch_size) × --group-size (n_samples_per_prompt)."""
    path = write(tmp_path / "early.csv", wandb_rows("early"))
    hosted = detect.read_hosted(path)
    assert list(hosted.steps["step_seconds"]) == pytest.approx([70.5, 73.5, 76.5, 79.5])
    assert any("timing/step_total" in n for n in hosted.notes) and any("--group-size" in n for n in hosted.notes)
    given = detect.read_hosted(path, facts={"prompts_per_step": 64.0, "group_size": 8.0})
    check_steps(given.steps)
    code, out, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8",
                         "--prompts-per-step", "64", "--group-size", "8")
    assert code == 0, err


def test_an_async_openrlhf_log_says_its_phases_overlap(tmp_path):
    """The asynchronous trainer's step total is the wall-clock between steps, 20 s below its phases' sum here:
    validate says the phases overlap by the mean 9.5 s (75 - 20 - 43 - 21.5 = -9.5), never an 'other' of -9.5 s."""
    path = write(tmp_path / "async.csv", wandb_rows("async"))
    hosted = detect.read_hosted(path)
    assert list(hosted.steps["step_seconds"]) == pytest.approx([50.5, 53.5, 56.5, 59.5])
    assert any("asynchronous" in n and "4 step(s)" in n for n in hosted.notes)
    code, out, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8")
    assert code == 0, err
    measured = next(line for line in out.splitlines() if line.startswith("Measured"))
    assert "− 9.50 s (the phases overlap" in measured and "other" not in measured and "-9.5" not in measured


def test_a_critic_in_the_status_marks_ppo_and_its_passes_are_in_the_phases(tmp_path):
    """PPO: make_experience holds the critic's values pass and ppo_train its update, so the phases are compared
    with the model's whole step (actor and critic), not the actor's alone as for verl."""
    plain = detect.read_hosted(write(tmp_path / "grpo.csv", wandb_rows()))
    ppo = detect.read_hosted(write(tmp_path / "ppo.csv", wandb_rows("critic")))
    assert "critic" not in plain.config and ppo.config["critic"] is True
    args = ("--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8", "--format", "json")
    trained = {}
    for name in ("grpo", "ppo"):
        code, out, err = run("validate", str(tmp_path / f"{name}.csv"), *args)
        assert code == 0, err
        rows = json.loads(out)["predicted"]["by_method"]
        trained[name] = next(r for r in rows if r["method"] == "calibrated" and r["phase"] == "training")
    assert trained["ppo"]["predicted_seconds_mean"] > 1.5 * trained["grpo"]["predicted_seconds_mean"]
    code, text, err = run("validate", str(tmp_path / "ppo.csv"), *args[:-2])
    assert code == 0 and "make_experience holds the critic's values pass" in text, err


def test_a_wandb_export_without_the_global_step_is_refused_not_numbered_by_wandb_s_own_step(tmp_path):
    """W&B's `_step` counts log calls (two a step here: the sample table, then the metrics), so an export that left
    out train/global_step cannot be read as steps 1, 3, 5, 7: one line names the missing column."""
    rows = [{k: v for k, v in r.items() if k != "train/global_step"} for r in wandb_rows()]
    code, out, err = run("validate", str(write(tmp_path / "no_step.csv", rows)), "--model", "Qwen3-8B", "--gpu",
                         "H100 SXM", "--num-gpus", "8")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "train/global_step" in err, err


@pytest.mark.parametrize("change, words", [
    ({"train/timing/ppo_train": "fast"}, ("timing/ppo_train", "'fast'")),
    ({"train/timing/generation": -3.0}, ("timing/generation", "negative")),
    ({"train/total_length": 100.0}, ("total_length", "shorter than response_length")),
])
def test_a_bad_openrlhf_value_is_one_line_naming_its_key(tmp_path, change, words):
    rows = wandb_rows()
    rows[3].update(change)
    path = write(tmp_path / "bad.csv", rows)
    code, out, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert all(w in err for w in words), err


def test_an_openrlhf_tensorboard_log_reads_as_its_wandb_export():
    """tests/tensorboard_events/openrlhf: this run written by tensorboardX's SummaryWriter as OpenRLHF's
    TensorboardLogger writes it (make_events.py), the generated sample as a text summary beside the scalars."""
    folder = Path(__file__).parent / "tensorboard_events" / "openrlhf"
    found = detect.detect(folder / "logs" / "qwen3_grpo")
    assert (found.framework, found.shape) == (openrlhf.FRAMEWORK, "tensorboard")
    check_steps(detect.read_hosted(found.file, found).steps)


def launch_args(**changes) -> dict:
    """The launch arguments of this file's run (64 prompts × 8 samples on 8 colocated GPUs, Qwen3-8B), the defaults
    of openrlhf/cli/train_ppo_ray.py for the rest (train_batch_size 128, micro_train_batch_size 4,
    micro_rollout_batch_size 8, vllm_gpu_memory_utilization 0.95, init_kl_coef 0.01, max_epochs 1)."""
    args = dict(ref_num_nodes=1, ref_num_gpus_per_node=GPUS, actor_num_nodes=1, actor_num_gpus_per_node=GPUS,
                colocate_all_models=True, vllm_num_engines=GPUS, vllm_tensor_parallel_size=1, enforce_eager=False,
                vllm_gpu_memory_utilization=0.95, async_train=False, lora_rank=0, rollout_batch_size=64,
                n_samples_per_prompt=8, micro_rollout_batch_size=8, micro_train_batch_size=4, train_batch_size=128,
                max_epochs=1, init_kl_coef=0.01, use_kl_loss=False, use_dynamic_batch=False,
                train_max_tokens_per_gpu=16192, rollout_max_tokens_per_gpu=None, critic_pretrain=None,
                pretrain="Qwen/Qwen3-8B", target_modules="all-linear")
    args.update(changes)
    return args


def namespace_line(**changes) -> str:
    """`strategy.print(args)` as train() prints it before Ray starts: the argparse Namespace's repr on one line (a
    path object among the values, which is no literal)."""
    import argparse
    return repr(argparse.Namespace(**launch_args(**changes), save_path=Path("./ckpt")))


def test_the_console_log_s_launch_arguments_give_the_model_gpus_and_batch(tmp_path):
    """With the Namespace line, an OpenRLHF console log needs only --gpu: the model, the 8 GPUs (colocated), the
    512 samples (64 × 8), the optimizer steps (512 / 128 = 4) and the micro-batches come from the arguments."""
    log = tmp_path / "train.log"
    log.write_text(namespace_line() + "\n" + console("early"))   # no rollout/num_samples in the status
    hosted = detect.read_hosted(log)
    c = hosted.config
    assert hosted.model == "Qwen/Qwen3-8B" and c["num_gpus"] == GPUS and c["samples_per_step"] == SAMPLES
    assert (c["mini_batch_prompts"], c["ppo_epochs"]) == (128 / 8, 1.0)
    assert (c["micro_batch_samples"], c["logprob_micro_batch_samples"], c["dynamic_batch"]) == (4.0, 8.0, False)
    assert (c["rollout_tp"], c["rollout_memory_fraction"], c["enforce_eager"]) == (1.0, 0.95, False)
    assert (c["use_kl_in_reward"], c["use_kl_loss"], c["fine_tune"]) == (True, False, "full")
    assert list(hosted.steps["samples"]) == [SAMPLES] * 4
    code, out, err = run("validate", str(log), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["model"], data["num_gpus"]) == ("Qwen/Qwen3-8B", GPUS) and "Namespace" in data["setup_sources"]["num_gpus"]
    assert not any("--prompts-per-step" in n for n in data["notes"] + data["caveats"])


def test_launch_arguments_that_do_not_give_a_count_leave_it_to_the_flags(tmp_path):
    """Models on GPUs of their own (no colocate_all_models, or async_train): the run's GPU count is not derived."""
    for changes in ({"colocate_all_models": False}, {"async_train": True}):
        log = tmp_path / "train.log"
        log.write_text(namespace_line(**changes) + "\n" + console())
        assert "num_gpus" not in detect.read_hosted(log).config, changes
    log.write_text(namespace_line(lora_rank=64, critic_pretrain="Qwen/Qwen3-8B", init_kl_coef=0.0,
                                  use_dynamic_batch=True, rollout_max_tokens_per_gpu=32768) + "\n" + console())
    c = detect.read_hosted(log).config
    assert (c["fine_tune"], c["critic"], c["use_kl_loss"], c["use_kl_in_reward"]) == ("lora", True, False, False)
    assert (c["micro_batch_tokens"], c["logprob_micro_batch_tokens"], c["dynamic_batch"]) == (16192.0, 32768.0, True)


def test_two_runs_launch_arguments_in_one_log_are_refused(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(namespace_line() + "\n" + console() + namespace_line(pretrain="Qwen/Qwen3-4B") + "\n")
    code, _, err = run("validate", str(log), "--gpu", "H100 SXM")
    assert code == 2 and "pretrain" in err and err.count("\n") == 1
    log.write_text(namespace_line() + "\n" + console() + namespace_line() + "\n")   # a restart: the same run
    assert detect.read_hosted(log).config["num_gpus"] == GPUS


def test_a_namespace_line_that_is_not_literal_is_read_as_far_as_it_is():
    assert openrlhf.namespace_args("Namespace(pretrain='m', save_path=PosixPath('ckpt'), n=3)") \
        == {"pretrain": "m", "n": 3}
    for line in ("Namespace(", "Namespace(1, 2)", "Namespace(a=)", "no namespace here", "Namespace(**x)"):
        assert not openrlhf.namespace_args(line), line


def test_launch_arguments_out_of_any_range_are_left_out_not_a_crash(tmp_path):
    huge = 10 ** 400   # an integer no float holds
    log = tmp_path / "train.log"
    log.write_text(namespace_line(rollout_batch_size=huge, init_kl_coef=huge, actor_num_gpus_per_node=float("nan"),
                                  vllm_gpu_memory_utilization=-1.0) + "\n" + console())
    c = detect.read_hosted(log).config
    assert "prompts_per_step" not in c and "num_gpus" not in c and "rollout_memory_fraction" not in c
    assert "use_kl_loss" not in c


def test_gradient_checkpointing_and_cpu_adam_come_from_the_launch_arguments(tmp_path):
    """OpenRLHF's --gradient_checkpointing is store_true (openrlhf/cli/train_ppo_ray.py): a launch without it keeps
    the activations, so the update has no recomputed forward pass; --adam_offload steps DeepSpeed's CPU Adam on the
    host, which the model does not price and validate says so."""
    from tinker_nomics.runs.reconcile import run_facts
    log = tmp_path / "train.log"
    log.write_text(namespace_line(gradient_checkpointing=False, adam_offload=True) + "\n" + console("early"))
    hosted = detect.read_hosted(log)
    assert hosted.config["gradient_checkpointing"] is False and hosted.config["adam_offload"] is True
    assert run_facts(hosted, hosted.steps)[0]["recompute"] is False
    code, out, err = run("validate", str(log), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    assert any("--adam_offload" in c for c in json.loads(out)["caveats"])
    on = tmp_path / "on.log"
    on.write_text(namespace_line(gradient_checkpointing=True) + "\n" + console("early"))
    hosted = detect.read_hosted(on)
    assert "recompute" not in run_facts(hosted, hosted.steps)[0]
