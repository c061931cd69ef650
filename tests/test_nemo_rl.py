"""NeMo RL's W&B exports: detected, read into the tidy step table phase by phase, and validated like a verl run.

The metric names are NeMo RL's own (NVIDIA-NeMo/RL nemo_rl/algorithms/grpo.py, utils/logger.py, rollouts.py; see
tinker_nomics/runs/nemo_rl.py). Every expected number below comes from the small run this file builds:

    32 prompts × 16 generations = 512 samples a step on 8 GPUs, steps 1-4 (+ a step-0 row of setup timings and a
    validation before training), validation and a checkpoint at step 4:

    step                                  1      2      3      4      | mean
    timing/train/total_step_time          60     62     64     106    | 73   (step 4 holds 38 s of validation)
    timing/train/generation               30     31     32     33     | 31.5
    timing/train/prepare_for_generation/total 2  2      2      2      | 2    (its transfer_and_update_weights
                                                                              sub-label, 1.5 s, is nested: not added)
    timing/train/logprob_inference_prep   0.5 each, policy_and_reference_logprobs 8 each   | log-probs 8.5
    timing/train/policy_training          15     15.5   16     16.5   | 15.75
    train/mean_gen_tokens_per_sample      800    810    820    830
    train/mean_prompt_length              120 each
    train/total_num_tokens = 512 × (120 + gen): 471,040  476,160  481,280  486,400 | 1,914,880
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest

import run_shapes
from tinker_nomics.faces.cli import main
from tinker_nomics.runs import detect, nemo_rl

SAMPLES, PROMPT, GPUS = 512, 120.0, 8
GEN = (800.0, 810.0, 820.0, 830.0)
GENERATION = (30.0, 31.0, 32.0, 33.0)
TRAINING = (15.0, 15.5, 16.0, 16.5)
STEP = (60.0, 62.0, 64.0, 106.0)


def nemo_rows(era: str = "2026") -> list[dict]:
    """W&B history rows of the run above as NeMo RL logs it: `2026` (main), `early` (early 2025: refit under
    `prepare_for_generation`, no prompt length and no token total), `async` (exposed_generation, weight_sync)."""
    rows = [{"_step": 0, "_runtime": 50.0, "timing/setup/total_setup_time_s": 120.5, "validation/accuracy": 0.3,
             "timing/validation/total_validation_time": 40.0}]
    for i, step in enumerate(range(1, 5)):
        row = {"_step": step, "_runtime": 50.0 + sum(STEP[:i + 1]),
               "timing/train/total_step_time": STEP[i], "timing/train/logprob_inference_prep": 0.5,
               "timing/train/policy_and_reference_logprobs": 8.0, "timing/train/training_prep": 1.0,
               "timing/train/policy_training": TRAINING[i], "timing/train/data_processing": 0.3,
               "timing/train/reward_calculation": 0.2, "train/mean_gen_tokens_per_sample": GEN[i],
               "train/max_gen_tokens_per_sample": 2048.0, "train/reward": 0.4, "train/loss": 0.01}
        if era == "async":
            row.update({"timing/train/exposed_generation": GENERATION[i], "timing/train/weight_sync": 2.0})
        else:
            row["timing/train/generation"] = GENERATION[i]
            if era == "early":
                row["timing/train/prepare_for_generation"] = 2.0
            else:
                row.update({"timing/train/prepare_for_generation/total": 2.0,
                            "timing/train/prepare_for_generation/transfer_and_update_weights": 1.5,
                            "timing/train/advantage_calculation": 0.1})
        if era != "early":
            total = SAMPLES * (PROMPT + GEN[i])
            row.update({"train/mean_prompt_length": PROMPT, "train/total_num_tokens": total,
                        "performance/tokens_per_sec_per_gpu": total / STEP[i] / GPUS,
                        "performance/train_fp_utilization": 0.31})
        if step == 4:
            row.update({"timing/validation/total_validation_time": 38.0, "validation/accuracy": 0.5,
                        "timing/train/checkpointing": 2.0})
        rows.append(row)
    return rows


def write(path, rows, layout="csv"):
    if layout == "csv":
        return run_shapes.write_wandb_csv(path, rows)
    if layout == "parquet":
        return run_shapes.write_parquet(path, rows)
    return run_shapes.write_wandb_json(path, rows, layout)


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("layout", ["csv", "parquet", "records"])
def test_a_nemo_rl_export_is_detected_and_read_phase_by_phase(tmp_path, layout):
    path = write(tmp_path / f"nemo.{'parquet' if layout == 'parquet' else layout if layout == 'csv' else 'json'}",
                 nemo_rows(), layout)
    found = detect.detect(path)
    assert (found.framework, found.side) == (nemo_rl.FRAMEWORK, detect.SELF_HOSTED)
    hosted = detect.read_hosted(path, found)
    t = hosted.steps
    assert list(t["step"]) == [1, 2, 3, 4]                      # the step-0 row (setup, validation) is skipped
    assert list(t["step_seconds"]) == list(STEP) and list(t["generation_seconds"]) == list(GENERATION)
    assert list(t["training_seconds"]) == list(TRAINING)
    assert list(t["samples"]) == [SAMPLES] * 4                  # derived: total tokens / (prompt + generated)
    assert list(t["response_tokens"]) == [SAMPLES * g for g in GEN]
    assert list(t["prompt_tokens"]) == [SAMPLES * PROMPT] * 4
    assert list(t["phase/refit"]) == [2.0] * 4                  # /total only, never its nested sub-label
    assert list(t["phase/logprob_inference_prep"] + t["phase/policy_and_reference_logprobs"]) == [8.5] * 4
    assert hosted.validation_inside is True and t["validation_seconds"].iloc[-1] == 38.0
    assert any("step 0" in n for n in hosted.notes)


def test_validate_compares_each_phase_of_a_nemo_rl_run(tmp_path):
    path = write(tmp_path / "nemo.csv", nemo_rows())
    code, out, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", str(GPUS),
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["framework"] == "NeMo RL"
    m = data["measured"]
    assert m["steps"] == 4 and m["samples_per_step"] == SAMPLES
    assert m["step_seconds_mean"] == pytest.approx(sum(STEP) / 4)
    assert m["generation_seconds_mean"] == pytest.approx(sum(GENERATION) / 4)
    assert m["generated_tokens"] == pytest.approx(SAMPLES * sum(GEN))
    assert "timing/train/total_step_time" in m["basis"]["step_seconds"]
    phases = {r["phase"]: r for r in data["predicted"]["by_method"] if r["method"] == "calibrated"}
    assert phases["logprob"]["measured_seconds_mean"] == pytest.approx(8.5)
    assert phases["refit"]["measured_seconds_mean"] == pytest.approx(2.0)
    assert phases["training"]["measured_seconds_mean"] == pytest.approx(sum(TRAINING) / 4)
    assert all(r["predicted_seconds_mean"] > 0 for r in phases.values())
    code, table, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8")
    assert code == 0, err
    assert "NeMo RL" in table and "refit" in table and "log-probs" in table


def test_an_early_nemo_rl_log_needs_its_batch_and_reads_the_old_refit_label(tmp_path):
    """Early 2025 logged no prompt length and no token total: the samples per step cannot be derived, so validate
    times the run, leaves every token figure unknown (an MFU of n/a, not 0.00%) and asks for the batch; given, the
    run reads, its refit from `prepare_for_generation`."""
    path = write(tmp_path / "early.csv", nemo_rows("early"))
    code, out, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8")
    assert code == 0, err
    assert "pass --prompts-per-step and --group-size" in out
    assert "training MFU n/a" in out and "0.00%" not in out
    hosted = detect.read_hosted(path, facts={"prompts_per_step": 32.0, "group_size": 16.0})
    assert list(hosted.steps["samples"]) == [SAMPLES] * 4 and list(hosted.steps["phase/refit"]) == [2.0] * 4


def test_an_async_nemo_rl_log_reads_its_exposed_generation_and_weight_sync(tmp_path):
    path = write(tmp_path / "async.jsonl", nemo_rows("async"), "lines")
    hosted = detect.read_hosted(path)
    assert hosted.framework == "NeMo RL"
    assert list(hosted.steps["generation_seconds"]) == list(GENERATION)
    assert list(hosted.steps["phase/refit"]) == [2.0] * 4
    assert any("exposed_generation" in n for n in hosted.notes)


def test_a_nemo_rl_row_with_a_bad_time_is_one_line_naming_its_key(tmp_path):
    rows = nemo_rows()
    rows[2]["timing/train/policy_training"] = "fast"
    path = write(tmp_path / "bad.csv", rows)
    code, out, err = run("validate", str(path), "--model", "Qwen3-8B", "--gpu", "H100 SXM", "--num-gpus", "8")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "timing/train/policy_training" in err and "'fast'" in err


# ------------------------------------------------------------------------------------------ the console

def nemo_console(rows: list[dict], performance: bool = True, epochs: bool = True) -> str:
    """The run's stdout as grpo_train prints it (nemo_rl/algorithms/grpo.py and utils.print_performance_metrics, the
    f-strings quoted in tinker_nomics/runs/nemo_rl.py): set-up, a validation before training, then per step its
    header, progress lines, Training Results, the Timing block (every timer, nested ones too, largest first) and
    the Performance Metrics block. With `epochs`, steps 3-4 are a second epoch whose headers count from 1 again."""
    out = ["Loaded configuration from: examples/configs/grpo_math_8B.yaml", "Final config:",
           "{'grpo': {'num_prompts_per_step': 32, 'num_generations_per_prompt': 16}}",
           "📊 Using log directory: logs/exp_001", "", "📊 Validation Results:", "    • Accuracy: 0.3000",
           "  ⏱️  Validation Timing:", "    • Total validation time: 40.00s"]
    for row in rows[1:]:
        step = row["_step"]
        if epochs and step in (1, 3):
            out += ["", f"{'=' * 25} Epoch {1 if step == 1 else 2}/2 {'=' * 25}"]
        shown = step - 2 if epochs and step > 2 else step
        out += ["", f"{'=' * 25} Step {shown}/{2 if epochs else 4} {'=' * 25}", "▶ Preparing batch...",
                f"▶ Generating responses for batch of size {SAMPLES}...", "▶ Processing rewards...,",
                "▶ Computing advantages...", "▶ Preparing for logprob inference...", "▶ Computing logprobs...",
                "▶ Preparing for training...", "▶ Training policy..."]
        if "timing/validation/total_validation_time" in row:
            out += ["", "📊 Validation Results:", "    • Accuracy: 0.5000", "    • Average response length: 790.0 tokens",
                    "    • Samples processed: 500", "", "  ⏱️  Validation Timing:",
                    f"    • Total validation time: {row['timing/validation/total_validation_time']:.2f}s"]
        if "timing/train/checkpointing" in row:
            out.append(f"Saving checkpoint for step {step}...")
        out += ["", "📊 Training Results:", f"  • Loss: {row['train/loss']:.4f}",
                f"  • Avg Reward: {row['train/reward']:.4f}",
                f"  • Mean Generation Length: {row['train/mean_gen_tokens_per_sample']:.4f}", "", "⏱️  Timing:"]
        total = row["timing/train/total_step_time"]
        out.append(f"  • Total step time: {total:.2f}s")
        timers = {k.removeprefix("timing/train/"): v for k, v in row.items()
                  if k.startswith("timing/train/") and k != "timing/train/total_step_time"}
        for label, seconds in sorted(timers.items(), key=lambda kv: kv[1], reverse=True):
            out.append(f"  • {label}: {seconds:.2f}s ({seconds / total * 100:.1f}%)")
        if performance:
            tokens = row["train/total_num_tokens"]
            out += ["", "🔍 Performance Metrics:", f"  • Mean Total Tokens per Sample: {GEN[step - 1]:.2f}",
                    "  • Throughputs (per GPU):", f"    - E2E (Samples/sec/gpu): {SAMPLES / total / GPUS:.2f}",
                    f"    - E2E (Tokens/sec/gpu): {tokens / total / GPUS:.2f}",
                    "  • Throughputs (per Group):", f"    - E2E (Samples/sec): {SAMPLES / total:.2f}",
                    f"    - E2E (Tokens/sec): {tokens / total:.2f}",
                    "  • Training FLOPS: 2480.00 TFLOPS (310.00 TFLOPS per rank)",
                    "  • Training Model Floating Point Utilization: 31.00%"]
    return "\n".join(out) + "\n"


def test_a_nemo_rl_console_log_reads_as_its_wandb_export(tmp_path):
    """Steps numbered on across the epoch (headers restart at 1), samples from the batch size, the token total from
    E2E (Tokens/sec) × the step time (printed to 2 decimals: equal to a cent of a token per second), the GPU count
    from the two throughputs, and nested timers left out."""
    console = tmp_path / "nemo_stdout.log"
    console.write_text(nemo_console(nemo_rows()))
    found = detect.detect(console)
    assert (found.framework, found.shape) == (nemo_rl.FRAMEWORK, "console")
    hosted = detect.read_hosted(console, found)
    wandb = detect.read_hosted(write(tmp_path / "nemo.csv", nemo_rows()))
    t, w = hosted.steps, wandb.steps
    assert list(t["step"]) == [1, 2, 3, 4]
    for column in ("step_seconds", "generation_seconds", "training_seconds", "samples", "response_tokens",
                   "phase/refit", "phase/policy_and_reference_logprobs"):
        assert list(t[column]) == pytest.approx(list(w[column])), column
    assert list(t["trained_tokens"]) == pytest.approx(list(w["trained_tokens"]), rel=1e-5)
    assert t["validation_seconds"].iloc[-1] == 38.0 and hosted.validation_inside is True
    assert hosted.config["num_gpus"] == GPUS and "Tokens/sec" in hosted.config_sources["num_gpus"]
    code, out, err = run("validate", str(console), "--model", "Qwen3-8B", "--gpu", "H100 SXM")
    assert code == 0, err
    assert "NeMo RL console log" in out and f"{GPUS} × H100 SXM" in out


def test_a_folder_holding_a_nemo_rl_console_log_is_read_as_that_log(tmp_path):
    """`validate FOLDER` finds a NeMo RL console log among other files, though its first step header comes after a
    set-up longer than the bytes a format is first judged on; beside a verl console log it names both."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    setup = "\n".join(f"(pid=1) loading shard {i} of the checkpoint ..." for i in range(400))
    (run_dir / "stdout.log").write_text(setup + "\n" + nemo_console(nemo_rows()))
    (run_dir / "config.yaml").write_text("grpo:\n  num_prompts_per_step: 32\n")
    (run_dir / "notes.txt").write_text("nothing to read here\n")
    assert len(setup.encode()) > 8192
    found = detect.detect(run_dir)
    assert (found.framework, found.shape, found.file) == (nemo_rl.FRAMEWORK, "console", run_dir / "stdout.log")
    whole = detect.read_hosted(run_dir / "stdout.log")
    assert list(detect.read_hosted(run_dir, found).steps["step_seconds"]) == list(whole.steps["step_seconds"])
    code, out, err = run("validate", str(run_dir), "--model", "Qwen3-8B", "--gpu", "H100 SXM")
    assert code == 0, err
    assert "NeMo RL console log" in out
    (run_dir / "verl.log").write_text("step:1 - timing_s/step:10.0 - timing_s/gen:4.0\n")
    code, out, err = run("validate", str(run_dir))
    assert code == 2 and err.count("\n") == 1
    assert "holds 2 console logs (stdout.log, verl.log)" in err


def test_an_older_nemo_rl_console_has_no_prompt_tokens_and_says_so(tmp_path):
    console = tmp_path / "stdout.txt"
    console.write_text(nemo_console(nemo_rows(), performance=False, epochs=False))
    hosted = detect.read_hosted(console, facts={"num_gpus": 8.0})
    assert list(hosted.steps["samples"]) == [SAMPLES] * 4 and hosted.steps["prompt_tokens"].isna().all()
    assert any("prompt tokens are unknown" in n for n in hosted.notes)


def test_a_console_cut_mid_step_keeps_the_whole_steps(tmp_path):
    text = nemo_console(nemo_rows())
    console = tmp_path / "cut.log"
    console.write_text(text[:text.rindex("⏱️  Timing:")])            # the last step never printed its time
    hosted = detect.read_hosted(console)
    assert list(hosted.steps["step"]) == [1, 2, 3]
    assert any("stopped mid-step" in n for n in hosted.notes)


def test_a_nemo_rl_console_reads_the_config_its_run_script_prints(tmp_path):
    """examples/run_grpo_math.py prints `Final config:` and pprint's the resolved config before training: the
    console reader takes the model, the GPUs, the batch, the engine (tensor parallelism, memory share,
    enforce_eager) and the trainer's micro-batches from it, each said where, as from the TensorBoard
    hyperparameters; `validate` then needs no --model."""
    import pprint
    config = {"grpo": {"num_prompts_per_step": 32, "num_generations_per_prompt": 16},
              "loss_fn": {"reference_policy_kl_penalty": 0.01},
              "policy": {"model_name": "Qwen/Qwen3-8B", "train_global_batch_size": 512, "train_micro_batch_size": 2,
                         "logprob_batch_size": 4, "sequence_packing": {"enabled": False},
                         "generation": {"vllm_cfg": {"tensor_parallel_size": 2, "gpu_memory_utilization": 0.6,
                                                     "enforce_eager": False}}},
              "cluster": {"gpus_per_node": 8, "num_nodes": 1}}
    lines = nemo_console(nemo_rows()).splitlines()
    at = lines.index("Final config:")
    lines[at + 1] = pprint.pformat(config, width=60)            # several lines, as pprint breaks a long dict
    console = tmp_path / "stdout.log"
    console.write_text("\n".join(lines) + "\n")
    hosted = detect.read_hosted(console)
    assert hosted.model == "Qwen/Qwen3-8B"
    c = hosted.config
    assert (c["num_gpus"], c["samples_per_step"], c["rollout_tp"], c["enforce_eager"]) == (8.0, 512.0, 2.0, False)
    assert (c["micro_batch_samples"], c["logprob_micro_batch_samples"]) == (2.0, 4.0)
    assert f"line {at + 2}" in hosted.config_sources["rollout_tp"]   # the dump's first line, counted from 1
    code, out, err = run("validate", str(console), "--gpu", "H100 SXM")
    assert code == 0, err
    assert "Qwen/Qwen3-8B · 8 × H100 SXM" in out


def test_a_nemo_rl_console_config_that_never_closes_is_named_and_left_unread(tmp_path):
    lines = nemo_console(nemo_rows()).splitlines()
    at = lines.index("Final config:")
    lines[at + 1] = "{'grpo': {'num_prompts_per_step': 32,"      # cut off: the next line is no dict
    console = tmp_path / "stdout.log"
    console.write_text("\n".join(lines) + "\n")
    hosted = detect.read_hosted(console)
    assert hosted.model is None
    assert any("never closes" in n or "not read" in n for n in hosted.notes), hosted.notes


def test_a_gpu_count_no_run_could_have_is_one_line_until_given(tmp_path):
    """A config saying 10^9 GPUs (a typo, a hostile file) is refused in one line naming where it was read; with
    --num-gpus the run is read as given."""
    import pprint
    config = {"grpo": {"num_prompts_per_step": 32, "num_generations_per_prompt": 16},
              "policy": {"model_name": "Qwen/Qwen3-8B"}, "cluster": {"gpus_per_node": 10 ** 9, "num_nodes": 1}}
    lines = nemo_console(nemo_rows()).splitlines()
    lines[lines.index("Final config:") + 1] = pprint.pformat(config)
    console = tmp_path / "stdout.log"
    console.write_text("\n".join(lines) + "\n")
    code, out, err = run("validate", str(console), "--gpu", "H100 SXM")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "GPU count" in err and "cluster.gpus_per_node" in err and "1e+09" in err and "--num-gpus" in err
    code, out, err = run("validate", str(console), "--gpu", "H100 SXM", "--num-gpus", "8")
    assert code == 0, err
    assert "8 × H100 SXM" in out


def test_a_nemo_rl_run_without_its_config_takes_nemo_rls_rollout_share():
    """NeMo RL's base config gives vLLM gpu_memory_utilization 0.6 (examples/configs/grpo_math_1B.yaml, which every
    performance recipe inherits), not verl's 0.5: an export without the config is re-predicted at NeMo RL's."""
    import tempfile
    from pathlib import Path
    from tinker_nomics.runs.reconcile import run_facts
    with tempfile.TemporaryDirectory() as tmp:
        hosted = detect.read_hosted(write(Path(tmp) / "nemo.csv", nemo_rows()))
    assert "rollout_memory_fraction" not in hosted.config
    assert run_facts(hosted, hosted.steps)[0]["rollout_memory_fraction"] == 0.6
