"""SkyRL's logs (a W&B export or W&B's run file): detected, read phase by phase, validated like the other frameworks.

The metric names are SkyRL's own (NovaSky-AI/SkyRL skyrl-train/skyrl_train/trainer.py, `RayPPOTrainer.train`;
generators' `get_rollout_metrics`; see tinker_nomics/runs/skyrl.py). Every expected number comes from the small run
this file builds:

    32 prompts × 8 samples = 256 sequences a step (trainer.train_batch_size 32, generator.n_samples_per_prompt 8),
    steps 1-4 on 8 colocated GPUs; an evaluation before training logged at step 0 (no step time):

    step                               1      2      3      4      | mean
    timing/generate                    30     31     32     33     | 31.5
    timing/fwd_logprobs_values_reward  6      6      6      6      | 6
    timing/train_critic_and_policy     12     12.5   13     13.5   | 12.75
    timing/step                        50     51     52     53     | 51.5   (the rest: postprocessing, advantages,
                                                                              the weight hand-off)
    generate/avg_num_tokens            500    510    520    530    | × 256 = 128,000 + … = 527,360 tokens

SkyRL logs no prompt length: `--prompt-len 200` gives 200 × 256 × 4 = 204,800 prompt tokens.
"""
from __future__ import annotations

import json

import pytest

import hosted_shapes as hs
from test_nemo_rl import run
from test_wandb_file import config, history, write_file
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.runs import detect, skyrl

PROMPTS, GROUP, GPUS = 32, 8, 8
SAMPLES = PROMPTS * GROUP
PROMPT_LEN = 200
GENERATE = (30.0, 31.0, 32.0, 33.0)
LOGPROB = 6.0
UPDATE = (12.0, 12.5, 13.0, 13.5)
STEP = (50.0, 51.0, 52.0, 53.0)
RESPONSE = (500.0, 510.0, 520.0, 530.0)
CONFIG = {"trainer": {"train_batch_size": PROMPTS, "policy_mini_batch_size": 8, "update_epochs_per_batch": 1,
                      "micro_train_batch_size_per_gpu": 4, "micro_forward_batch_size_per_gpu": 8,
                      "policy": {"model": {"path": "Qwen/Qwen3-8B"}},
                      "critic": {"model": {"path": None}},
                      "algorithm": {"use_kl_loss": True, "use_kl_in_reward": False},
                      "placement": {"colocate_all": True, "policy_num_gpus_per_node": GPUS, "policy_num_nodes": 1}},
          "generator": {"n_samples_per_prompt": GROUP, "inference_engine_tensor_parallel_size": 1,
                        "gpu_memory_utilization": 0.8, "enforce_eager": False}}


def rows() -> list[dict]:
    """W&B history as SkyRL's tracker logs it: the metrics and, in a call of their own at the same step, the
    timers; W&B keeps one row per step."""
    out = [{"_step": 0, "eval/all/avg_score": 0.4}]
    for i in range(4):
        out.append({"_step": i + 1, "generate/avg_num_tokens": RESPONSE[i], "generate/max_num_tokens": 1800,
                    "reward/avg_raw_reward": 0.5, "trainer/global_step": i + 1, "timing/step": STEP[i],
                    "timing/generate": GENERATE[i], "timing/fwd_logprobs_values_reward": LOGPROB,
                    "timing/train_critic_and_policy": UPDATE[i], "timing/compute_advantages_and_returns": 0.2})
    return out


def test_a_skyrl_export_is_detected_and_read_phase_by_phase(tmp_path):
    path = hs.write_table(tmp_path / "h.csv", rows(), "csv")
    found = detect.detect(path)
    assert (found.framework, found.side) == (skyrl.FRAMEWORK, detect.SELF_HOSTED)
    hosted = detect.read_hosted(path, found, facts={"prompts_per_step": float(PROMPTS),
                                                     "group_size": float(GROUP)})
    t = hosted.steps
    assert list(t["step"]) == [1, 2, 3, 4] and list(t["step_seconds"]) == list(STEP)
    assert list(t["generation_seconds"]) == list(GENERATE) and list(t["training_seconds"]) == list(UPDATE)
    assert list(t["phase/fwd_logprobs_values_reward"]) == [LOGPROB] * 4
    assert float(t["response_tokens"].sum()) == pytest.approx(SAMPLES * sum(RESPONSE))
    assert t["prompt_tokens"].isna().all() and any("--prompt-len" in n for n in hosted.notes)
    given = detect.read_hosted(path, facts={"prompts_per_step": float(PROMPTS), "group_size": float(GROUP),
                                            "prompt_tokens_per_sample": float(PROMPT_LEN)})
    assert float(given.steps["prompt_tokens"].sum()) == pytest.approx(PROMPT_LEN * SAMPLES * 4)


def _split_rows(critic: bool) -> list[dict]:
    """Late-2025 releases time the update as timing/policy_train and, under PPO, timing/critic_train: the same run
    with each step's update split 2/3 policy, 1/3 critic (or, under GRPO, the policy's timer alone)."""
    out = []
    for r in rows():
        r = dict(r)
        update = r.pop("timing/train_critic_and_policy", None)
        if update is not None:
            r["timing/policy_train"] = update * 2 / 3 if critic else update
            if critic:
                r["timing/critic_train"] = update / 3
        out.append(r)
    return out


@pytest.mark.parametrize("critic", [True, False])
def test_late_2025_s_split_update_timers_are_the_update_together(tmp_path, critic):
    path = hs.write_table(tmp_path / "h.csv", _split_rows(critic), "csv")
    hosted = detect.read_hosted(path, facts={"prompts_per_step": float(PROMPTS), "group_size": float(GROUP)})
    assert list(hosted.steps["training_seconds"]) == pytest.approx(UPDATE)
    assert bool(hosted.config.get("critic")) is critic
    if critic:   # the critic's values pass is in fwd_logprobs_values_reward: the log-prob row holds it
        assert hosted.config["critic_in_phases"] is True


def test_an_export_without_the_batch_asks_for_it(tmp_path):
    path = hs.write_table(tmp_path / "h.csv", rows(), "csv")
    hosted = detect.read_hosted(path)
    assert any("--prompts-per-step" in n for n in hosted.notes)


def test_skyrl_s_run_file_gives_model_gpus_batch_and_engine_from_its_config(tmp_path):
    recs = [config(CONFIG)] + [history(r["_step"], {k: v for k, v in r.items() if k != "_step"}) for r in rows()]
    path = write_file(tmp_path / "run-sky.wandb", recs)
    hosted = detect.read_hosted(path)
    c = hosted.config
    assert hosted.framework == skyrl.FRAMEWORK and hosted.model == "Qwen/Qwen3-8B"
    assert (c["num_gpus"], c["samples_per_step"], c["rollout_tp"], c["rollout_memory_fraction"]) == (8, 256, 1, 0.8)
    assert (c["micro_batch_samples"], c["logprob_micro_batch_samples"], c["mini_batch_prompts"]) == (4, 8, 8)
    assert c["use_kl_loss"] is True and c["fine_tune"] == "full" and "critic" not in c
    code, out, err = run("validate", str(path), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    unknown = json.loads(out)   # no prompt length: measured, but neither predicted nor priced
    assert unknown["tinker"] is None and any("--prompt-len" in n for n in unknown["caveats"])
    code, out, err = run("validate", str(path), "--gpu", "H100 SXM", "--prompt-len", str(PROMPT_LEN),
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    m = data["measured"]
    assert m["prompt_tokens"] == pytest.approx(PROMPT_LEN * SAMPLES * 4)
    assert (data["framework"], data["num_gpus"], m["steps"]) == ("SkyRL", GPUS, 4)
    assert m["step_seconds_mean"] == pytest.approx(sum(STEP) / 4)
    assert m["generation_seconds_mean"] == pytest.approx(sum(GENERATE) / 4)
    phases = {r["phase"]: r for r in data["predicted"]["by_method"] if r["method"] == "calibrated"}
    assert phases["logprob"]["measured_seconds_mean"] == pytest.approx(LOGPROB)
    assert phases["training"]["measured_seconds_mean"] == pytest.approx(sum(UPDATE) / 4)
    assert all(r["predicted_seconds_mean"] > 0 for p, r in phases.items() if p != "refit")
    assert data["tinker"] is not None
    code, text, err = run("validate", str(path), "--gpu", "H100 SXM", "--prompt-len", str(PROMPT_LEN))
    assert code == 0 and "SkyRL" in text, err


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "1e9", "lots"])
def test_a_bad_prompt_len_is_one_line(tmp_path, value):
    path = hs.write_table(tmp_path / "h.csv", rows(), "csv")
    code, out, err = run("validate", str(path), "--gpu", "H100 SXM", "--prompt-len", value)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--prompt-len" in err


def test_prompt_len_cannot_apply_to_a_tinker_run():
    from pathlib import Path
    log = Path(__file__).resolve().parents[1] / "data" / "runs" / "omnimath" / "gptoss-20b-v3b-metrics.jsonl"
    code, _, err = run("validate", str(log), "--prompt-len", "100")
    assert code == 2 and "--prompt-len cannot apply" in err


def test_a_skyrl_config_value_out_of_range_is_left_out(tmp_path):
    bad = json.loads(json.dumps(CONFIG))
    bad["trainer"]["train_batch_size"] = -3
    bad["generator"]["gpu_memory_utilization"] = "lots"
    facts, _ = skyrl.config_facts(bad)
    assert "samples_per_step" not in facts and "rollout_memory_fraction" not in facts


def _stringified(obj):
    """skyrl_train/utils/tracking.py ConsoleLogger.stringify_floats: every float as text with four decimals."""
    if isinstance(obj, float):
        return f"{obj:.4f}"
    return {k: _stringified(v) for k, v in obj.items()} if isinstance(obj, dict) else obj


def write_console(path, ray_prefix: str = "") -> str:
    """The run as SkyRL's console tracker prints it under loguru's default format: each tracker.log call a
    `Step N:` header and pprint.pformat of its (stringified) data on the lines below; the timers are a call of
    their own at the same step as the metrics (RayPPOTrainer.train)."""
    import pprint
    lines = ["(skyrl_entrypoint pid=7) INFO 12-04 10:00:00 Loading model Qwen/Qwen3-8B"]
    for row in rows():
        step = row["_step"]
        timers = {k: v for k, v in row.items() if k.startswith("timing/")}
        metrics = {k: v for k, v in row.items() if k != "_step" and k not in timers}
        for data in (metrics, timers):
            if not data:
                continue
            lines.append(f"2026-12-04 10:00:{step:02d}.000 | INFO     | skyrl_train.utils.tracking:log:108 - Step "
                         f"{step}: ")
            lines += pprint.pformat(_stringified(data)).splitlines()
    text = "\n".join(ray_prefix + line for line in lines) + "\n"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("ray_prefix", ["", "(skyrl_entrypoint pid=4242) "])
def test_skyrl_s_console_tracker_reads_as_its_wandb_export(tmp_path, ray_prefix):
    log = write_console(tmp_path / "train.log", ray_prefix)
    found = detect.detect(log)
    assert (found.framework, found.shape) == (skyrl.FRAMEWORK, "console")
    batch = {"prompts_per_step": float(PROMPTS), "group_size": float(GROUP)}
    console = detect.read_hosted(log, found, facts=batch).steps
    export = detect.read_hosted(hs.write_table(tmp_path / "h.csv", rows(), "csv"), facts=batch).steps
    columns = ["step", "step_seconds", "generation_seconds", "training_seconds", "response_tokens"]
    assert console[columns].reset_index(drop=True).equals(export[columns].reset_index(drop=True))
    assert list(console["training_seconds"]) == list(UPDATE)
    assert detect.detect(tmp_path).framework == skyrl.FRAMEWORK        # the log's folder finds it too


def test_a_broken_skyrl_console_block_is_one_line(tmp_path):
    path = tmp_path / "train.log"
    header = "2026-12-04 10:00:01.000 | INFO     | skyrl_train.utils.tracking:log:108 - Step 1: "
    path.write_text(f"{header}\n{{'timing/step': '50.0000',\n 'timing/generate': oops}}\n")
    with pytest.raises(TinkerNomicsError, match=r"lines 1-3: SkyRL's step metrics are not a Python dict"):
        detect.read_hosted(str(path), facts={"prompts_per_step": 32.0, "group_size": 8.0})
    path.write_text(f"{header}\n{{'timing/step': '50.0000',\n{header}\n")
    with pytest.raises(TinkerNomicsError, match=r"line 3: SkyRL's step 1 metrics from line 1 are cut off"):
        detect.read_hosted(str(path), facts={"prompts_per_step": 32.0, "group_size": 8.0})


def test_the_engines_batch_cap_and_gradient_checkpointing_come_from_the_config():
    """generator.max_num_seqs and trainer.gradient_checkpointing (skyrl_train/config/ppo_base_config.yaml: 1024 and
    true) reach the model as verl's do."""
    import copy
    config = copy.deepcopy(CONFIG)
    config["generator"]["max_num_seqs"] = 64
    config["trainer"]["gradient_checkpointing"] = False
    facts, where = skyrl.config_facts(config)
    assert facts["rollout_max_num_seqs"] == 64 and where["rollout_max_num_seqs"].endswith("generator.max_num_seqs")
    assert facts["gradient_checkpointing"] is False
    config["generator"]["max_num_seqs"] = "lots"
    config["trainer"]["gradient_checkpointing"] = "yes"
    facts, _ = skyrl.config_facts(config)
    assert "rollout_max_num_seqs" not in facts and "gradient_checkpointing" not in facts
