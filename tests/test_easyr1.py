"""EasyR1 (hiyouga/EasyR1, verl's fork for vision-language RL) read as the run it is: its console (`Step N`, then the
step's metrics as block YAML, keys sorted, two spaces a level, floats to three decimals, behind Ray's `(Runner
pid=N)` prefix; the config printed before as indented JSON), its file logger (experiment_log.jsonl, one nested
`{"step": N, …}` a step, experiment_config.json beside it) and W&B exports of its flat names. Its metrics are verl's,
three renamed: `timing_s/old` (verl's old_log_prob), `timing_s/validation` (testing), `perf/mfu_actor`
(perf/mfu/actor); /work/notes/s5/easyr1.md has the EasyR1 commits read.

The run is hosted_shapes' verl run under those names (its docstring gives the arithmetic): 8 prompts × 4 samples on
2 nodes of 4 GPUs, steps 1-4, validation inside step 2's time (EasyR1 times validation inside its step), so the sums
are VERL_EXPECTED and VERL_2025's."""
from __future__ import annotations

import json

import pytest

import hosted_shapes as hs
import run_shapes
from test_nemo_rl import run as cli
from tinker_nomics.runs import detect, easyr1

EASY_CONFIG = {"data": {"rollout_batch_size": hs.PROMPTS, "max_prompt_length": 512, "max_response_length": 1024},
               "worker": {"actor": {"global_batch_size": 4, "micro_batch_size_per_device_for_update": 2,
                                    "micro_batch_size_per_device_for_experience": 8, "padding_free": True,
                                    "model": {"model_path": hs.VERL_MODEL, "lora": {"rank": 0}},
                                    "offload": {"offload_params": True, "offload_optimizer": True}},
                          "rollout": {"n": hs.N, "tensor_parallel_size": 2, "gpu_memory_utilization": 0.6}},
               "algorithm": {"adv_estimator": "grpo", "disable_kl": False, "use_kl_loss": True, "kl_coef": 0.01},
               "trainer": {"n_gpus_per_node": 4, "nnodes": 2, "val_freq": 2, "save_freq": 4,
                           "experiment_name": "qwen3_geo3k_grpo", "logger": ["console", "wandb"]}}
RENAMED = {"timing_s/old_log_prob": "timing_s/old", "timing_s/testing": "timing_s/validation",
           "perf/mfu/actor": "perf/mfu_actor"}


def metrics(i: int) -> dict:
    """Step i+1's metrics under EasyR1's names (its step times hold the validation: verl's 2025 shape)."""
    out = {}
    for key, value in hs.verl_metrics(i, "2025").items():
        if key.startswith(("training/", "val-core/")):
            continue
        out[RENAMED.get(key, key)] = value
    if i + 1 in hs.TESTING:
        out["val/reward_score"] = 0.56
    return out


def nested(flat: dict) -> dict:
    out: dict = {}
    for key, value in flat.items():
        node = out
        parts = key.split("/")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


def yaml_lines(tree: dict, depth: int = 0) -> list[str]:
    """yaml.dump(tree, indent=2) as EasyR1's convert_dict_to_str writes it: keys sorted, floats rounded to 3."""
    lines = []
    for key in sorted(tree):
        value = tree[key]
        if isinstance(value, dict):
            lines.append("  " * depth + f"{key}:")
            lines += yaml_lines(value, depth + 1)
        elif isinstance(value, bool):
            shown = str(value).lower()
        elif isinstance(value, (str, list)):
            shown = value if isinstance(value, str) else "[" + ", ".join(value) + "]"
        else:
            shown = value if isinstance(value, int) else (repr(value) if "e" in repr(value) else round(value, 3))
            lines.append("  " * depth + f"{key}: {shown}")
    return lines


def write_console(path, config=True):
    ray = "\x1b[36m(Runner pid=4242)\x1b[0m "
    lines = ["2026-02-01 10:00:00,000\tINFO worker.py:1879 -- Started a local Ray instance."]
    if config:
        lines += [ray + line for line in json.dumps(EASY_CONFIG, indent=2).splitlines()]
        lines += [ray + "Config"] + [ray + line for line in yaml_lines(EASY_CONFIG)]
    lines += [ray + "Start validation...", ray + "Step 0", ray + "val:", ray + "  reward_score: 0.41", ray]
    for i in range(4):
        lines += [ray + "Start generating batch...", ray + f"Step {i + 1}"]
        lines += [ray + line for line in yaml_lines(nested(metrics(i)))]
        lines += [ray, "Training Progress: 25%"]
    path.write_text("\n".join(lines) + "\n")
    return path


def check(hosted) -> None:
    t = hosted.steps
    assert hosted.framework == easyr1.FRAMEWORK
    assert list(t["step"]) == [1, 2, 3, 4]
    assert float(t["step_seconds"].sum()) == pytest.approx(hs.VERL_2025["step_seconds_total"], abs=0.002)
    assert float(t["response_tokens"].sum()) == pytest.approx(hs.VERL_EXPECTED["generated_tokens"], rel=1e-4)
    assert float(t["prompt_tokens"].sum()) == pytest.approx(hs.VERL_EXPECTED["prompt_tokens"], rel=1e-4)
    assert "old_log_prob" in hosted.phase_names      # timing_s/old, renamed
    assert hosted.validation_inside is True


def test_an_easyr1_console_log_reads_its_yaml_steps_and_json_config(tmp_path):
    path = write_console(tmp_path / "train.log")
    found = detect.detect(path)
    assert (found.framework, found.shape) == (easyr1.FRAMEWORK, "console")
    hosted = detect.read_hosted(path, found)
    check(hosted)
    c = hosted.config
    assert hosted.model == hs.VERL_MODEL and c["num_gpus"] == 8 and c["samples_per_step"] == hs.SAMPLES
    assert (c["rollout_tp"], c["rollout_memory_fraction"], c["param_offload"]) == (2, 0.6, True)
    assert "worker.rollout.n" in hosted.config_sources["samples_per_step"]
    assert any("1 validation-only record" in n for n in hosted.notes)   # step 0's validation before training
    code, out, err = cli("validate", str(path), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["framework"], data["num_gpus"], data["model"]) == ("EasyR1", 8, hs.VERL_MODEL)
    notes = " ".join(data["notes"] + data["caveats"])
    assert "recomputed the old policy's log-probs" not in notes      # EasyR1 times its old-policy pass: `old`
    assert "its generation time holds it" in notes                    # its `gen` holds vLLM's weight sync


def test_an_easyr1_checkpoint_folder_reads_its_file_logger_and_config(tmp_path):
    folder = tmp_path / "checkpoints" / "easy_r1" / "qwen3_geo3k_grpo"
    folder.mkdir(parents=True)
    (folder / easyr1.CONFIG_FILE).write_text(json.dumps(EASY_CONFIG, indent=2))
    lines = [json.dumps({"step": 0, "val": {"reward_score": 0.41}})]
    lines += [json.dumps({"step": i + 1, **nested(metrics(i))}) for i in range(4)]
    (folder / easyr1.LOG_FILE).write_text("\n".join(lines) + "\n")
    found = detect.detect(folder)
    assert (found.framework, found.shape) == (easyr1.FRAMEWORK, "file-logger")
    hosted = detect.read_hosted(folder)
    check(hosted)
    assert hosted.config["num_gpus"] == 8 and hosted.model == hs.VERL_MODEL
    found = detect.detect(folder / easyr1.LOG_FILE)       # the log alone, by its nested records
    assert found.framework == easyr1.FRAMEWORK


def test_an_easyr1_wandb_export_is_easyr1_not_verl(tmp_path):
    """Read as verl, its `timing_s/old` would be unknown and its generation taken to hold the old policy's pass."""
    rows = [{"_step": i + 1, "_runtime": 30.0 * (i + 1), **metrics(i)} for i in range(4)]
    path = run_shapes.write_wandb_csv(tmp_path / "history.csv", rows)
    found = detect.detect(path)
    assert found.framework == easyr1.FRAMEWORK
    check(detect.read_hosted(path, found))


def test_a_damaged_easyr1_step_is_one_line_naming_its_line(tmp_path):
    path = write_console(tmp_path / "train.log")
    text = path.read_text().replace("  step: 31.0", "  step: fast", 1)
    path.write_text(text)
    code, _, err = cli("validate", str(path), "--gpu", "H100 SXM")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "timing_s/step" in err
