"""The command line: the contract's JSON keys, readable tables, and one-line errors with exit status 2."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tinker_nomics import fmt
from tinker_nomics.faces.cli import main
from tinker_nomics.sources.calibration import parameters

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    """Run the CLI in-process; returns (exit status, stdout, stderr)."""
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


CONTRACT_KEYS = {
    "tokens": ["sample", "train", "prefill"],
    "tinker": ["sample_usd", "train_usd", "prefill_usd", "sandbox_usd", "total_usd"],
    "self_hosted": ["rollout_hours", "train_hours", "wallclock_hours", "gpu_hours", "compute_usd", "sandbox_usd",
                    "total_usd", "min_gpus", "kv_cache_gb", "kv_cache_fits"],
}


def test_estimate_json_has_the_contract_keys_and_the_seed_figures():
    code, out, err = run("estimate", "--workload", "math_rl", "--method", "seed", "--prices", "2026-01-05",
                         "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    for group, keys in CONTRACT_KEYS.items():
        for key in keys:
            assert isinstance(data[group][key], (int, float, bool)), f"{group}.{key}"
    assert data["cheaper"] in ("tinker", "self_hosted")
    assert data["scenario"]["prompts_per_step"] == 64 and data["scenario"]["gpu"] == "H100 SXM"
    # issue 2 "Done when": Tinker ≈ $99 and self-hosted ≈ $28 (seed takeaway table, math_rl)
    assert round(data["tinker"]["total_usd"]) == 99
    assert round(data["self_hosted"]["total_usd"]) == 28


def test_flags_override_the_preset():
    code, out, _ = run("estimate", "--workload", "math_rl", "--steps", "360", "--format", "json")
    assert code == 0 and json.loads(out)["scenario"]["steps"] == 360


def test_python_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "tinker_nomics", "estimate", "--workload", "code_rl"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "Tinker" in proc.stdout and "Self-hosted" in proc.stdout


@pytest.mark.parametrize("args, needle", [
    (["--steps", "-3"], "--steps must be a finite number >= 1 and <= 1e+07, got -3"),
    (["--steps", "0"], "--steps must be a finite number >= 1 and <= 1e+07, got 0"),
    (["--prompts-per-step", "nan"], "--prompts-per-step must be a finite number >= 1 and <= 1e+07, got NaN"),
    (["--mfu", "1.5"], "--mfu must be a finite number >= 0.001 and <= 1, got 1.5"),
    (["--completion-tokens", "abc"], "expects a number, got 'abc'"),
    (["--model", "Qwen3-9B"], "unknown model 'Qwen3-9B'; closest: Qwen/Qwen3.5-9B"),
    (["--gpu", "H900"], "unknown GPU 'H900'; closest: H20, H800 SXM, H200 SXM"),
    (["--prices", "2025-01-01"], "unknown price snapshot '2025-01-01'"),
    (["--sandbox", "docker"], "unknown sandbox 'docker'"),
    (["--method", "magic"], "method must be one of seed, exact, calibrated"),
    (["--model", "Qwen3.8-27B"], "neither side can be computed for Qwen/Qwen3.8-27B"),   # no price, no architecture
    (["--model-config", "/nonexistent/config.json"], "cannot read model config /nonexistent/config.json"),
])
def test_bad_input_is_one_line_and_exit_2(args, needle):
    code, out, err = run("estimate", "--workload", "math_rl", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert needle in err


def test_unknown_workload_and_missing_inputs():
    code, _, err = run("estimate", "--workload", "physics_rl")
    assert code == 2 and "unknown workload 'physics_rl'" in err
    code, _, err = run("estimate", "--model", "Qwen3-8B")
    assert code == 2 and "--prompts-per-step is required" in err


def test_subprocess_has_no_traceback_for_bad_input():
    proc = subprocess.run([sys.executable, "-m", "tinker_nomics", "estimate", "--workload", "math_rl",
                           "--num-gpus", "-1"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["workloads", "models", "gpus", "prices"])
def test_listings_in_table_and_json(command):
    code, table, _ = run(command)
    assert code == 0 and len(table.splitlines()) > 3
    code, out, _ = run(command, "--format", "json")
    assert code == 0 and json.loads(out)


def test_workloads_json_carries_sources():
    data = json.loads(run("workloads", "--format", "json")[1])["workloads"]
    names = {w["name"] for w in data}
    assert names == {"math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl", "exp1a_gsm8k", "exp1b_math"}
    for w in data:
        assert set(w["fields"]) == set(w["sources"]) and all(w["sources"].values())


def test_prices_for_a_snapshot_and_a_model():
    code, out, _ = run("prices", "--snapshot", "2026-01-05", "--format", "json")
    rows = {r["model"]: r for r in json.loads(out)["usd_per_million_tokens"]}
    assert rows["Qwen/Qwen3-8B"]["prefill"] == 0.13          # tinker_prices.csv, 2026-01-05
    code, out, _ = run("prices", "--model", "Qwen3-8B")
    assert code == 0 and "2026-01-05" in out and "2026-10-07" in out


def test_readme_example_is_what_the_cli_prints():
    """The README shows `tinker-nomics estimate ...` and its output; they must agree (the README is tested)."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```console\n\$ (tinker-nomics [^\n]+)\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no ```console example"
    for command, expected in blocks:
        code, out, _ = run(*command.split()[1:])
        assert code == 0
        assert out.strip() == expected.strip(), command


# ------------------------------------------------------------------ what produced an output (issue 14, item 6)
V3B_LOG = "data/runs/omnimath/gptoss-20b-v3b-metrics.jsonl"   # a bundled run (data/runs/omnimath/runs.csv)
JSON_COMMANDS = {   # one invocation of every command that prints JSON; a new command must be added here
    "estimate": ["estimate", "--workload", "math_rl"],
    "workloads": ["workloads"],
    "models": ["models"],
    "gpus": ["gpus"],
    "prices": ["prices"],
    "prices --snapshot": ["prices", "--snapshot", "2026-01-05"],
    "prices --model": ["prices", "--model", "Qwen3-8B"],
    "validate": ["validate", str(ROOT / V3B_LOG), "--model", "gpt-oss-20b"],
    "predict": ["predict", "decode", "--model", "Llama-3.1-8B", "--gpu", "H100", "--num-gpus", "1", "--concurrency", "64",
                "--input-len", "1000", "--output-len", "1000"],
    "predict rl-step": ["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples",
                        "1024", "--prompt-len", "200", "--response-len", "1000"],
    "plan": ["plan", "--workload", "math_rl", "--deadline", "1d", "--max-gpus", "8", "--draws", "50"],
}


def test_every_command_with_json_output_is_checked_for_produced_by():
    from tinker_nomics.faces.cli import build_parser
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    covered = {invocation[0] for invocation in JSON_COMMANDS.values()}
    assert set(subparsers.choices) == covered, "add the new command to JSON_COMMANDS"


@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_json_output_says_what_produced_it(name):
    import tinker_nomics
    from tinker_nomics.sources.provenance import data_recorded
    code, out, err = run(*JSON_COMMANDS[name], "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    assert data["produced_by"] == {"tinker_nomics": tinker_nomics.__version__, "data_recorded": data_recorded()}


def test_version_flag_prints_the_package_version():
    import tinker_nomics
    proc = subprocess.run([sys.executable, "-m", "tinker_nomics", "--version"], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.strip() == f"tinker-nomics {tinker_nomics.__version__}"


def test_package_version_is_the_distribution_version():
    """pyproject.toml reads the version from tinker_nomics/version.py: the installed metadata must agree."""
    from importlib.metadata import version
    import tinker_nomics
    assert version("tinker-nomics") == tinker_nomics.__version__


def test_missing_registry_folder_is_one_line(monkeypatch):
    """A package installed without its data/ (issue 14: `pip install .` used to end in a traceback)."""
    from tinker_nomics import sources
    from tinker_nomics.sources import tables
    monkeypatch.delenv("TINKER_NOMICS_DATA", raising=False)
    monkeypatch.setattr(tables, "shipped", lambda name: None)
    sources.clear_caches()
    try:
        code, out, err = run("estimate", "--workload", "math_rl")
    finally:
        monkeypatch.undo()
        sources.clear_caches()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("tinker-nomics: error: registry folder not found: neither tinker_nomics/data")
# ----------------------------------------------------------------------------- the calibrated default


def estimate_json(*args):
    code, out, err = run("estimate", *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_calibrated_is_the_default_at_the_newest_prices():
    from tinker_nomics.sources import newest_snapshot

    data = estimate_json("--workload", "math_rl")
    assert data["scenario"]["method"] == "calibrated" and data["scenario"]["prices"] == newest_snapshot()
    for key in ("rollout_concurrency", "rollout_waves", "feasible", "gpu_hourly_usd_source"):
        assert key in data["self_hosted"]
    # the calibrated method models its phases: no single efficiency or MFU is an input (the seed's 70% MBU and 10%
    # MFU are not taken); the update's achieved MFU is an output
    assert data["scenario"]["mfu"] is None and data["scenario"]["rollout_efficiency"] is None
    for key in ("logprob_hours", "refit_hours", "other_hours", "train_mfu"):
        assert key in data["self_hosted"]
    assert 0 < data["self_hosted"]["train_mfu"] < 1


def test_gpu_rate_follows_the_gpu():
    """The preset's $2.69/h is the H100's (seed takeaway page); a B200 takes the B200's registry default,
    RunPod Community Cloud $5.98 (data/hardware/gpu_prices.csv), and says where the rate came from."""
    h100 = estimate_json("--workload", "math_rl")["self_hosted"]
    assert h100["gpu_hourly_usd"] == 2.69 and h100["gpu_hourly_usd_source"].startswith("preset math_rl")
    b200 = estimate_json("--workload", "math_rl", "--gpu", "B200")["self_hosted"]
    assert b200["gpu_hourly_usd"] == 5.98 and "registry default for B200" in b200["gpu_hourly_usd_source"]
    given = estimate_json("--workload", "math_rl", "--gpu", "B200", "--gpu-hourly-usd", "4")["self_hosted"]
    assert given["gpu_hourly_usd"] == 4 and given["gpu_hourly_usd_source"] == "given"
    assert estimate_json("--workload", "math_rl", "--gpu", "H100")["self_hosted"]["gpu_hourly_usd"] == 2.69


@pytest.mark.parametrize("workload", ["swe_rl", "code_rl", "osworld_rl"])
def test_long_rollouts_run_at_the_concurrency_that_fits(workload):
    """The issue's three workloads whose rollout KV cache exceeds 8 H100s' memory: the calibrated estimate
    decodes fewer sequences at a time than the step's B × G and runs in waves, and says so."""
    data = estimate_json("--workload", workload)
    sh, sc = data["self_hosted"], data["scenario"]
    assert not sh["kv_cache_fits"] and sh["feasible"]
    assert sh["rollout_concurrency"] < sc["prompts_per_step"] * sc["group_size"]
    assert sh["rollout_waves"] > 1
    assert any("waves per step" in note for note in data["notes"])


def test_infeasible_configuration_names_the_smallest_gpu_count():
    data = estimate_json("--workload", "harbor_rl")
    sh = data["self_hosted"]
    assert sh["feasible"] is False and sh["fitting_gpus"] > 8 and sh["num_gpus"] == sh["fitting_gpus"]
    assert any("smallest GPU count" in note and f"{sh['fitting_gpus']:g}" in note for note in data["notes"])


def test_retired_model_is_billed_on_its_successor():
    data = estimate_json("--workload", "swe_rl")
    assert data["tinker"]["billed_model"] == "Qwen/Qwen3.6-27B" and data["tinker"]["successor_of"] == "Qwen/Qwen3-32B"
    assert data["scenario"]["model"] == "Qwen/Qwen3-32B"
    assert any("named successor" in note for note in data["notes"])
    seed = estimate_json("--workload", "swe_rl", "--method", "seed")
    assert seed["tinker"]["billed_model"] == "Qwen/Qwen3-32B" and seed["scenario"]["prices"] == "2026-01-05"


def test_model_config_instead_of_model(tmp_path):
    """--model-config: the architecture from a config.json (here Qwen3-8B's, rebuilt from its registry row)
    gives the same self-hosted side as the registry row."""
    cfg = {"model_type": "qwen3", "hidden_size": 4096, "num_hidden_layers": 36, "num_attention_heads": 32,
           "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288, "vocab_size": 151936,
           "tie_word_embeddings": False, "_name_or_path": "Qwen/Qwen3-8B"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    by_config = estimate_json("--workload", "math_rl", "--model-config", str(path))
    by_name = estimate_json("--workload", "math_rl")
    assert by_config["self_hosted"]["total_usd"] == pytest.approx(by_name["self_hosted"]["total_usd"])
    cfg["_name_or_path"] = "someone/unpriced-model"     # no registry knows it: the self-hosted side only
    path.write_text(json.dumps(cfg))
    unpriced = estimate_json("--workload", "math_rl", "--model", "someone/unpriced-model", "--model-config", str(path))
    assert unpriced["self_hosted"] == by_config["self_hosted"] and unpriced["tinker"]["total_usd"] is None


# ----------------------------------------------------------------------------- predict

def predict_json(*args):
    code, out, err = run("predict", *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_predict_decode_json_keys():
    data = predict_json("decode", "--model", "Llama-3.1-8B", "--gpu", "H100", "--num-gpus", "1", "--concurrency",
                        "64", "--input-len", "1000", "--output-len", "1000")
    assert {"output_tokens_per_second", "concurrency", "bound"} <= set(data)
    assert data["bound"] in ("bandwidth", "compute", "memory") and data["output_tokens_per_second"] > 0
    assert data["output_tokens_per_second_per_gpu"] == data["output_tokens_per_second"]


def test_predict_rl_step_json_keys():
    data = predict_json("rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples", "1024",
                        "--prompt-len", "200", "--response-len", "1000")
    phases = ("generation_seconds", "logprob_seconds", "training_seconds", "refit_seconds", "other_seconds")
    assert {*phases, "step_seconds", "feasible", "fitting_gpus"} <= set(data)
    assert all(data[p] > 0 for p in phases[:4]) and data["feasible"] is True
    # the rest of a step: the calibrated per-step cost, at its prior of none where the fit holds it there
    assert data["other_seconds"] == pytest.approx(parameters().step_overhead_seconds) and data["other_seconds"] >= 0
    # on-policy the phases follow each other
    assert data["step_seconds"] == pytest.approx(sum(data[p] for p in phases))
    assert data["layout"] == "colocated"


def test_predict_rl_step_off_policy_keeps_the_faster_layout():
    """k >= 1: generation may run on half the GPUs beside the trainer on the other half (NeMo RL's async recipes,
    data/assumptions/defaults.csv off_policy_rollout_share), the step then the longer of the two plus the refit and
    the rest; where taking turns on all the GPUs is faster, the step stays colocated. Either way it is never slower
    than on-policy, and the JSON names the layout."""
    def step(response, k):
        return predict_json("rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples",
                            "1024", "--prompt-len", "200", "--response-len", response, "--off-policy", k)

    layouts = set()
    for response in ("50", "4000"):
        on, off = step(response, "0"), step(response, "1")
        assert off["step_seconds"] <= on["step_seconds"]
        trainer = off["logprob_seconds"] + off["training_seconds"]
        rest = off["refit_seconds"] + off["other_seconds"]
        if off["layout"] == "separate":   # generation beside the trainer, each on half the GPUs: the longer
            assert off["step_seconds"] == pytest.approx(max(off["generation_seconds"], trainer) + rest)
            assert off["training_seconds"] > on["training_seconds"]      # the trainer has half the GPUs
        else:
            assert off["step_seconds"] == pytest.approx(off["generation_seconds"] + trainer + rest)
        layouts.add(off["layout"])
    # the short responses' step is trainer-heavy (colocated wins), the long ones' generation-heavy (the split wins)
    assert layouts == {"colocated", "separate"}


def test_predict_rl_step_says_when_the_gpus_cannot_hold_the_job():
    """Issue 22 item 6: the text and the JSON say the same thing. Qwen3-235B-A22B (470 GB of BF16 weights) cannot
    train on 8 × H100: the JSON has no times and says so; the text says it before any time, and the times it
    prints are the ones the JSON gives for the smallest count that fits."""
    args = ("rl-step", "--model", "Qwen3-235B-A22B", "--gpu", "H100", "--num-gpus", "8", "--samples", "1024",
            "--prompt-len", "200", "--response-len", "1000")
    data = predict_json(*args)
    assert data["feasible"] is False and data["step_seconds"] is None and data["fitting_gpus"] > 8
    on = data["on_fitting_gpus"]
    assert on["num_gpus"] == data["fitting_gpus"] and on["step_seconds"] > 0
    code, out, _ = run("predict", *args)
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("Does not fit") and f"{data['fitting_gpus']:g}" in lines[1]
    assert fmt.seconds(on["step_seconds"]) in next(line for line in lines if line.startswith("Step "))


def test_predict_rl_step_takes_the_runs_engine_and_trainer_settings():
    """--rollout-memory-fraction and --micro-batch-tokens reach the phase model as the calibration's cases pass
    them (analysis/calibration.py: a run's gpu_memory_utilization and ppo_max_token_len_per_gpu): the CLI's phases
    are the package's for the same settings, and smaller micro-batches cost more fixed per-micro-batch time."""
    from tinker_nomics.model import rl_phases
    from tinker_nomics.sources import get_arch, gpu_specs
    base = ("rl-step", "--model", "Qwen2.5-7B", "--gpu", "H100", "--num-gpus", "8", "--samples", "1024",
            "--prompt-len", "200", "--response-len", "500")
    default = predict_json(*base)
    small = predict_json(*base, "--micro-batch-tokens", "4000", "--rollout-memory-fraction", "0.3")
    p = parameters()
    f = rl_phases.rl_features(get_arch("Qwen2.5-7B"), gpu_specs("H100"), 8, 1024, 200, 500,
                              response_max_over_mean=p.response_max_over_mean, micro_batch_tokens=4000,
                              rollout_memory_fraction=0.3)
    phases = rl_phases.phase_seconds(f, p)
    assert small["logprob_seconds"] == pytest.approx(float(phases.logprob_seconds))
    assert small["generation_seconds"] == pytest.approx(float(phases.generation_seconds))
    assert small["logprob_seconds"] > default["logprob_seconds"]
    assert small["training_seconds"] > default["training_seconds"]


@pytest.mark.parametrize("extra, needle", [
    (["--rollout-memory-fraction", "1.5"], "--rollout-memory-fraction is a share of GPU memory, at most 1, got 1.5"),
    (["--rollout-memory-fraction", "0"], "--rollout-memory-fraction must be a finite number > 0"),
    (["--micro-batch-tokens", "100.5"], "--micro-batch-tokens must be a whole number"),
    (["--micro-batch-tokens", "4000", "--method", "seed"], "the seed method has none"),
    (["--rollout-tensor-parallel", "2", "--method", "exact"], "--rollout-tensor-parallel: a setting"),
])
def test_predict_rl_step_refuses_a_bad_engine_setting_in_one_line(extra, needle):
    code, out, err = run("predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8",
                         "--samples", "64", "--prompt-len", "100", "--response-len", "100", *extra)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err


@pytest.mark.parametrize("gpu", ["A100 40GB", "H20", "L40S", "RTX 4090", "GB200", "MI300X"])
def test_predict_answers_on_the_added_gpus(gpu):
    for method in ("calibrated", "exact", "seed"):
        data = predict_json("decode", "--model", "Qwen3-0.6B", "--gpu", gpu, "--num-gpus", "1", "--concurrency",
                            "32", "--input-len", "500", "--output-len", "500", "--method", method)
        assert data["output_tokens_per_second"] > 0 and data["method"] == method


@pytest.mark.parametrize("args, needle", [
    (["decode", "--gpu", "H100", "--num-gpus", "1", "--concurrency", "1", "--input-len", "1", "--output-len", "1"],
     "give --model or --model-config"),
    (["decode", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "1", "--concurrency", "0", "--input-len", "1",
      "--output-len", "1"], "concurrency must be a finite number >= 1"),
    (["decode", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "1", "--concurrency", "8", "--input-len", "1",
      "--output-len", "1", "--precision", "fp7"], "precision must be one of bf16, fp16, fp8, int8, w8a8, int4"),
    (["decode", "--model", "Llama-3.1-70B", "--gpu", "RTX 4090", "--num-gpus", "1", "--concurrency", "8",
      "--input-len", "100", "--output-len", "100"], "does not fit"),
    (["rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples", "64", "--prompt-len", "1",
      "--response-len", "10", "--fine-tune", "qlora"], "--fine-tune must be one of full, lora"),
    (["rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples", "64", "--prompt-len", "1",
      "--response-len", "10", "--method", "magic"], "method must be one of seed, exact, calibrated"),
    (["decode", "--model", "Qwen3-8B"], "the following arguments are required"),
])
def test_predict_bad_input_is_one_line_and_exit_2(args, needle):
    code, out, err = run("predict", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err


def test_predict_with_a_model_config(tmp_path):
    """A config for a model the registry lacks (Mistral-7B-v0.1's published shape) on an added GPU."""
    cfg = {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "tie_word_embeddings": False,
           "sliding_window": 4096}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    data = predict_json("decode", "--model-config", str(path), "--gpu", "L40S", "--num-gpus", "1",
                        "--concurrency", "16", "--input-len", "512", "--output-len", "512")
    assert data["output_tokens_per_second"] > 0
    data = predict_json("rl-step", "--model-config", str(path), "--gpu", "H20", "--num-gpus", "8",
                        "--samples", "256", "--prompt-len", "256", "--response-len", "512", "--fine-tune", "lora")
    assert data["step_seconds"] > 0 and data["fine_tune"] == "lora"


def test_tables_fit_the_terminal_by_cutting_their_text_columns(monkeypatch):
    """Printed to a terminal of 90 columns (COLUMNS, as a shell exports it), `workloads` cuts its description column
    at a word so that no line wraps; piped (no terminal, no COLUMNS) it keeps every cell as wide as before."""
    monkeypatch.delenv("COLUMNS", raising=False)
    code, piped, _ = run("workloads")
    assert code == 0
    monkeypatch.setenv("COLUMNS", "90")
    code, still_piped, _ = run("workloads")        # COLUMNS without a terminal (readline exports one): whole lines
    assert still_piped == piped
    monkeypatch.setattr("tinker_nomics.faces.cli.common.on_terminal", lambda: True)
    code, fitted, _ = run("workloads")
    assert code == 0
    assert max(len(line) for line in piped.splitlines()) > 90
    assert max(len(line) for line in fitted.splitlines()) <= 90
    assert [line.split()[0] for line in fitted.splitlines()] == [line.split()[0] for line in piped.splitlines()]
    assert "…" in fitted


def test_a_table_narrows_only_its_cuttable_columns_and_never_below_their_floor():
    from tinker_nomics.faces.cli.common import MIN_CUT_WIDTH, table
    rows = [["alpha", "a long note that goes on and on about the option"], ["beta", "short"]]
    full = table(rows, ["name", "note"], cuttable=("note",), width=0)      # 0: no terminal, full width
    assert "goes on and on about the option" in full
    narrow = table(rows, ["name", "note"], cuttable=("note",), width=30)
    assert max(len(line) for line in narrow.splitlines()) <= 30 and "alpha" in narrow and "beta" in narrow
    floor = table(rows, ["name", "note"], cuttable=("note",), width=len("alpha") + 2 + MIN_CUT_WIDTH)
    assert max(len(line) for line in floor.splitlines()) == len("alpha") + 2 + MIN_CUT_WIDTH   # cut to its floor
    assert table(rows, ["name", "note"], width=0) == full                    # nothing cuttable, no terminal: whole


def test_a_table_that_cannot_fit_becomes_one_record_per_row_with_every_cell_whole():
    """Below what cutting can reach, each row is a record: its first two cells, then `header value` pairs filled to
    the width under an indent, empty cells left out; no line is longer than the width and no cell is cut."""
    from tinker_nomics.faces.cli.common import STACK_INDENT, table
    header = ["rank", "where", "GPUs", "cost", "note"]
    rows = [[1, "mithril a100-80gb.sxm.2x × 1", "2 × A100", "$14.27 ($10.10–$21.81)", "best, frontier"],
            [2, "Tinker (2026-10-07 list)", "—", "$146.13 ($135.31–$174.67)", ""]]
    text = table(rows, header, cuttable=("note",), width=40)
    records = text.split("\n\n")
    assert len(records) == 2 and all(len(line) <= 40 for line in text.splitlines())
    assert records[0].splitlines()[0] == "1  mithril a100-80gb.sxm.2x × 1"
    assert all(line.startswith(STACK_INDENT) for r in records for line in r.splitlines()[1:])
    assert "cost $14.27 ($10.10–$21.81)" in records[0] and "note best, frontier" in records[0]
    assert "GPUs" not in records[1] and "note" not in records[1] and "…" not in text
    # a table with nothing to cut that is wider than the terminal is stacked too, not wrapped by the terminal
    assert table([["alpha", "x" * 50]], ["name", "value"], width=30).startswith("alpha")


def test_prose_lines_fill_the_terminal_under_their_label():
    from tinker_nomics.faces.cli.common import wrapped
    line = "Spot          interruptions per instance-month uniform(low 0.1, high 0.2), restart triangular minutes"
    out = wrapped([line, "", "short"], width=50)
    assert all(len(x) <= 50 for x in out) and out[-2:] == ["", "short"]
    assert out[0].startswith("Spot          interruptions")
    assert all(x.startswith(" " * 14) and not x.startswith(" " * 15) for x in out[1:-2])
    assert " ".join(" ".join(out[:-2]).split()) == " ".join(line.split())     # every word kept, in order
    assert wrapped([line], width=0) == [line]                              # piped: untouched


def test_plan_fits_an_80_column_terminal(monkeypatch):
    """`plan` printed to an 80-column terminal: no line longer than 80 (the table as records, the prose filled);
    piped, the table keeps its columns though COLUMNS is set."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("tinker_nomics.faces.cli.common.on_terminal", lambda: True)
    code, out, _ = run("plan", "--workload", "math_rl", "--deadline", "24h", "--draws", "200", "--top", "3")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
    assert "Tinker (" in out and "\n1  " in out
    monkeypatch.setattr("tinker_nomics.faces.cli.common.on_terminal", lambda: False)
    code, piped, _ = run("plan", "--workload", "math_rl", "--deadline", "24h", "--draws", "200", "--top", "3")
    assert code == 0 and re.search(r"^rank +where +GPUs", piped, flags=re.M)


def test_predict_messages_name_the_flags_a_user_typed():
    """model.predict names its Python arguments; the command says the flags (--enforce-eager sets rollout_eager),
    a one-word name only where it opens the message, so prose ("the 512 samples") stays as it is."""
    from tinker_nomics.faces.cli.predict import as_flags
    assert as_flags("rollout_tensor_parallel (3) must divide num_gpus (8)") \
        == "--rollout-tensor-parallel (3) must divide --num-gpus (8)"
    assert as_flags("rollout_eager: a setting of the calibrated method") \
        == "--enforce-eager: a setting of the calibrated method"
    assert as_flags("samples must be a whole number, got 2.5") == "--samples must be a whole number, got 2.5"
    assert as_flags("the 512 samples fit; config.json lacks intermediate_size; use --method calibrated") \
        == "the 512 samples fit; config.json lacks intermediate_size; use --method calibrated"
