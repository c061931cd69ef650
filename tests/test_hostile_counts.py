"""Counts and sizes a user can mistype, refused in one line, and answers that must not depend on how they were asked.

Found by trying the command line as a hostile user would (2026-12-03): 2.5 GPUs, 1.5 steps or samples, an MFU of
1e-300 or 10^200 prompts a step were costed into bills hundreds of digits long; a tensor-parallel size that cannot
split the GPUs or the heads was planned; a verl log line whose step time is shorter than its generation gave a
negative 'other' and $0; 64 sequences were reported in flight for a step of 16.
"""
from __future__ import annotations

import contextlib
import io

import pytest

import hosted_shapes as hs
from tinker_nomics.faces.cli import main


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _refused(args, *words):
    code, out, err = _cli(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (args, out, err)
    assert all(w in err for w in words), err
    return err


@pytest.mark.parametrize("flag, value, words", [
    ("--num-gpus", "2.5", ["--num-gpus", "whole number", "2.5"]),
    ("--steps", "1.5", ["--steps", "whole number"]),
    ("--group-size", "1.5", ["--group-size", "whole number"]),
    ("--prompts-per-step", "2.5", ["--prompts-per-step", "whole number"]),
    ("--num-gpus", "1e9", ["--num-gpus", "at most"]),
    ("--rollout-efficiency", "1e-300", ["--rollout-efficiency", "0.001"]),
    ("--mfu", "1e-300", ["--mfu", "0.001"]),
    ("--prompts-per-step", "1e200", ["--prompts-per-step", "1e+07"]),
    ("--gpu-hourly-usd", "1e300", ["--gpu-hourly-usd"]),
    ("--sandbox-seconds-per-rollout", "1e300", ["--sandbox-seconds-per-rollout"]),
    ("--completion-tokens", "0", ["--completion-tokens", "more than 0"]),
])
def test_estimate_refuses_a_count_no_run_has(flag, value, words):
    _refused(["estimate", "--workload", "math_rl", flag, value], *words)


def test_a_plausible_estimate_still_runs():
    code, out, err = _cli("estimate", "--workload", "math_rl", "--num-gpus", "16", "--mfu", "0.3")
    assert code == 0 and "Self-hosted" in out, err


RL = ["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--prompt-len", "200", "--response-len", "640"]


def test_rl_step_refuses_fractional_samples_and_an_engine_that_cannot_split():
    _refused([*RL, "--num-gpus", "8", "--samples", "1.5"], "--samples", "whole number")
    _refused([*RL, "--num-gpus", "8", "--samples", "1024", "--rollout-tensor-parallel", "3"],
             "--rollout-tensor-parallel", "divide --num-gpus")


def test_decode_refuses_a_tensor_parallel_size_that_does_not_split_the_heads():
    args = ["predict", "decode", "--model", "Llama-3.1-8B", "--gpu", "H100", "--concurrency", "64", "--input-len",
            "1000", "--output-len", "1000"]
    _refused([*args, "--num-gpus", "6", "--tensor-parallel", "6"], "32 attention heads")
    # without a size, the largest that splits both the GPUs and the heads: 3 GPUs run 3 engines of 1
    code, out, _ = _cli(*args, "--num-gpus", "3")
    assert code == 0 and "(tensor parallel 1)" in out
    code, out, _ = _cli(*args[:3], "Qwen2.5-7B", *args[4:], "--num-gpus", "8")   # 28 heads: two engines of 4
    assert code == 0 and "(tensor parallel 4)" in out


def test_no_more_sequences_in_flight_than_the_step_has():
    code, out, err = _cli(*RL, "--num-gpus", "64", "--samples", "16")
    assert code == 0, err
    assert "(16 sequences at a time" in out, out


def test_a_verl_step_shorter_than_its_generation_is_a_broken_line(tmp_path):
    path = hs.write_verl_console(tmp_path / "run.log")
    text = path.read_text()
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if "timing_s/step:" in line and "step:2 " in line)
    head, _, rest = lines[index].partition("timing_s/step:")
    lines[index] = head + "timing_s/step:0.5" + rest[rest.index(" "):]
    path.write_text("\n".join(lines) + "\n")
    _refused(["validate", str(path), "--gpu", "H100 SXM", "--num-gpus", str(int(hs.GPUS))],
             f"line {index + 1}", "shorter than its generation")


def test_a_step_line_adds_up_where_some_rows_do_not_time_generation(tmp_path):
    """A W&B export whose timing_s/gen is missing on some rows printed 'step 8.36 = generation 5.02 + actor update
    1.02 + other 2.39', each a mean over different rows; the sum is now shown over the rows that time both phases."""
    import re

    rows = hs.verl_wandb_rows("2026")
    trained = [r for r in rows if "timing_s/gen" in r]
    del trained[0]["timing_s/gen"]
    path = hs.write_table(tmp_path / "h.csv", rows, "csv")
    code, out, err = _cli("validate", str(path), "--gpu", "H100 SXM", "--num-gpus", str(int(hs.GPUS)))
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("Measured"))
    assert f"on the {len(trained) - 1} that time both phases" in line, line
    step, gen, update, other = (float(x) for x in re.findall(r"([\d.]+) s", line.split("phases", 1)[1]))
    assert step == pytest.approx(gen + update + other, abs=0.011)


def test_a_config_integer_too_large_for_a_float_is_one_line(tmp_path, monkeypatch):
    """A pasted verl config with a train_batch_size of 400 digits raised OverflowError inside math.isfinite (found by
    the fuzz test of damaged logs)."""
    import copy

    config = copy.deepcopy(hs.CONFIG)
    config["data"]["train_batch_size"] = 10 ** 400
    monkeypatch.setattr(hs, "CONFIG", config)
    path = hs.write_verl_console(tmp_path / "run.log")
    _refused(["validate", str(path), "--gpu", "H100 SXM", "--num-gpus", str(int(hs.GPUS))],
             "data.train_batch_size", "not a whole, non-negative number")


@pytest.mark.parametrize("lengths", [0, [0, 512]])
def test_the_python_api_refuses_a_single_turn_run_with_no_completion_tokens(lengths):
    """The command line refused it; the Python API (and so the widgets) gave a Tinker wall-clock of 0 s for it."""
    import numpy as np
    from tinker_nomics import Scenario, TinkerNomicsError, estimate
    with pytest.raises(TinkerNomicsError, match="completion_tokens must be more than 0 for a single-turn run"):
        estimate(Scenario.from_workload("math_rl", completion_tokens=np.asarray(lengths, dtype=float)))
    # a multi-turn run reads its per-turn lengths, not L: its preset's L of 0 is no error
    assert float(estimate(Scenario.from_workload("swe_rl")).tinker_time.wallclock_hours) > 0


HUGE = int("9" * 400)   # a JSON integer no float holds: math.isfinite raised OverflowError on it (QA, 2026-12-05)


def test_a_json_integer_too_long_for_a_float_is_refused_in_one_line(tmp_path):
    import json

    config = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
              "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False}   # Llama-3.1-8B's widths
    config["num_hidden_layers"] = HUGE
    model = tmp_path / "config.json"
    model.write_text(json.dumps(config))
    _refused(["estimate", "--workload", "math_rl", "--model-config", str(model)], "num_hidden_layers", "at most")
    calibration = tmp_path / "calibration.json"
    calibration.write_text(json.dumps({"kind": "tinker-nomics calibration", "version": 1, "mfu": HUGE,
                                       "rollout_efficiency": 0.5, "method": "calibrated", "run": {}}))
    code, out, err = _cli("estimate", "--workload", "math_rl", "--calibration", str(calibration))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err and len(err) < 400, err
    export = tmp_path / "wandb.jsonl"
    rows = [{"_step": s, "timing_s/step": 10.0, "timing_s/gen": 5.0, "response_length/mean": 100.0,
             "prompt_length/mean": 50.0} for s in (1, 2)] + [{"_step": HUGE, "timing_s/step": 10.0}]
    export.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, out, err = _cli("validate", str(export), "--gpu", "H100", "--model", "Qwen2.5-0.5B", "--num-gpus", "8",
                          "--prompts-per-step", "128", "--group-size", "5")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err and "step" in err, err


@pytest.mark.parametrize("extra, words", [
    (["--samples", "1e308"], ["--samples", "at most"]),
    (["--samples", "1024", "--prompt-len", "1e308"], ["--prompt-len", "at most"]),
    (["--samples", "1024", "--max-response-len", "1e308"], ["--max-response-len", "at most"]),
    (["--samples", "1024", "--generation-samples", "10"], ["--generation-samples", "1,024"]),
    (["--samples", "1024", "--rollout-memory-fraction", "0.01"], ["--rollout-memory-fraction", "cannot hold"]),
    (["--samples", "1024", "--off-policy", "2.5"], ["--off-policy", "whole number"]),
])
def test_rl_step_refuses_a_step_no_run_has(extra, words):
    """QA 2026-12-05: 1e308 samples printed 'nan min' with exit 0; 10 generated sequences trained 1,024; a memory
    share too small for the weights was swapped, silently, for a serving engine's."""
    args = ["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--response-len", "640",
            *(["--prompt-len", "200"] if "--prompt-len" not in extra else []), *extra]
    _refused(args, *words)


def test_rl_step_takes_a_share_that_holds_the_model_and_enough_generated_sequences():
    base = ["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--prompt-len", "200",
            "--response-len", "640", "--samples", "1024"]
    for extra in (["--rollout-memory-fraction", "0.3"], ["--generation-samples", "512", "--generation-rounds", "2"]):
        code, out, err = _cli(*base, *extra)
        assert code == 0 and "Step" in out, (extra, err)


@pytest.mark.parametrize("key, value", [("gpu_memory_utilization", -0.5), ("gpu_memory_utilization", HUGE),
                                        ("max_num_seqs", 0), ("max_num_seqs", HUGE)])
def test_a_config_size_no_run_starts_with_is_refused_in_one_line(tmp_path, key, value):
    """QA 2026-12-05: a verl config's gpu_memory_utilization of -0.5 was echoed in validate's JSON and ignored."""
    import copy
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["rollout"][key] = value
    log = hs.write_verl_console(tmp_path / "train.log", config=config)
    _refused(["validate", str(log), "--gpu", "H100"], f"actor_rollout_ref.rollout.{key}", "no run starts with it")


def test_a_bill_that_prints_as_nothing_has_no_factor():
    """QA 2026-12-05: --gpu-hourly-usd 1e-10 printed 'self-hosted (86,809,749,842.4×)' beside a bill of $0.00."""
    for rate in ("1e-10", "1e-320", "0"):
        code, out, err = _cli("estimate", "--workload", "math_rl", "--gpu-hourly-usd", rate)
        line = next(x for x in out.splitlines() if x.startswith("Cheaper"))
        assert code == 0 and "$0.00 against" in line and "×" not in line, (rate, line)


def test_a_verl_step_line_whose_step_is_not_a_count_is_refused(tmp_path):
    """QA 2026-12-05: a 'step:-4 - ...' line was skipped without a word (the reader looked for step:<digits>)."""
    log = hs.write_verl_console(tmp_path / "train.log", ray=False)
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("step:3 - "))
    lines[at] = lines[at].replace("step:3 - ", "step:-3 - ", 1)
    log.write_text("\n".join(lines) + "\n")
    _refused(["validate", str(log), "--gpu", "H100"], "'step:-3' is not a step number", f"line {at + 1}")


def test_validate_takes_a_fine_tunes_name_as_estimate_does():
    """QA 2026-12-05: `validate --model Qwen/Qwen2.5-0.5B-Instruct` was refused as unknown while estimate and predict
    read it with its base model's architecture (and validate did, reading the same name from the log's config)."""
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as folder:
        path = hs.write_verl_console(Path(folder) / "train.log")
        code, out, err = _cli("validate", str(path), "--gpu", "H100", "--model", "Qwen/Qwen2.5-0.5B-Instruct")
    assert code == 0 and "Qwen/Qwen2.5-0.5B-Instruct" in out.splitlines()[0], err


def test_a_control_character_from_a_file_never_reaches_the_terminal(tmp_path):
    """QA 2026-12-05: an escape code in a W&B run name went raw into the one-line error, and a calibration file's
    run fields raw (with Python's None) into estimate's note."""
    import json

    from tinker_nomics.errors import TinkerNomicsError
    assert str(TinkerNomicsError("run \x1b[31mred\nnext")) == "run \\x1b[31mred next"
    calibration = tmp_path / "calibration.json"
    calibration.write_text(json.dumps({"kind": "tinker-nomics calibration", "version": 1, "mfu": 0.04,
                                       "rollout_efficiency": None, "method": "calibrated",
                                       "run": {"gpu": "\x1b[31mH100", "model": None}}))
    code, out, err = _cli("estimate", "--workload", "math_rl", "--calibration", str(calibration))
    note = next(x for x in out.splitlines() if "fitted on" in x)
    assert code == 0 and "\x1b" not in out and "\\x1b[31mH100" in note and "None" not in note, note


def test_a_usage_error_names_the_command_once_and_a_number_past_a_float_as_typed():
    """QA 2026-12-05: 'tinker-nomics: error: tinker-nomics estimate: ...' named the program twice, and 400 digits of
    --num-gpus came back as 'got inf'."""
    code, out, err = _cli("estimate", "--workload", "math_rl", "--turns", "abc")
    assert code == 2 and err.count("tinker-nomics") == 1 and "estimate: argument --turns" in err, err
    code, out, err = _cli("estimate", "--workload", "math_rl", "--num-gpus", "1" + "0" * 400)
    assert code == 2 and "too large" in err and "got inf" not in err and len(err) < 300, err


def test_prices_of_one_model_at_one_snapshot():
    """QA 2026-12-05: `prices --snapshot 2026-01-05 --model Qwen3-8B` listed every snapshot, ignoring --snapshot."""
    code, out, err = _cli("prices", "--snapshot", "2026-01-05", "--model", "Qwen3-8B")
    rows = [line for line in out.splitlines() if line[:4].isdigit()]
    assert code == 0 and len(rows) == 1 and rows[0].startswith("2026-01-05"), out


def test_a_cached_rate_with_cached_billing_off_is_refused():
    """QA 2026-12-05: --no-tinker-cached-prefill with --tinker-cached-prefill-usd-per-m 5 ran, the rate ignored."""
    _refused(["estimate", "--workload", "swe_rl", "--no-tinker-cached-prefill", "--tinker-cached-prefill-usd-per-m",
              "5"], "--tinker-cached-prefill-usd-per-m", "--no-tinker-cached-prefill")


def test_a_letter_o_for_a_zero_and_full_width_letters_still_find_the_name():
    """QA 2026-12-05: `--gpu H1OO` (letters O) got no suggestion; a full-width model name got none either."""
    code, out, err = _cli("estimate", "--workload", "math_rl", "--gpu", "H1OO")
    assert code == 2 and "closest: H100 SXM" in err, err
    code, out, err = _cli("estimate", "--workload", "math_rl", "--model", "Ｑｗｅｎ３-8B")
    assert code == 0 and out.startswith("math_rl · Qwen/Qwen3-8B"), err


def test_a_log_still_being_written_is_read_up_to_its_cut_last_line(tmp_path):
    """QA 2026-12-05: a running job's log, its last line cut mid-write, was refused as a whole (verl console and a
    tinker-cookbook metrics.jsonl); the steps before that line are read, and a note says the last one was not. A
    broken line with a line ending after it is still an error."""
    from pathlib import Path
    log = hs.write_verl_console(tmp_path / "train.log", ray=False)
    lines = log.read_text().splitlines()
    last = max(i for i, line in enumerate(lines) if line.startswith("step:"))
    cut = "\n".join(lines[:last + 1])
    cut = cut[:cut.rindex(" - ") + 8]           # the last step line, stopped a few characters into a key
    log.write_text(cut)
    code, out, err = _cli("validate", str(log), "--gpu", "H100")
    assert code == 0 and f"last line ({last + 1}) stops mid-step" in out, err
    log.write_text(cut + "\n")                   # ended: a broken line, not one being written
    _refused(["validate", str(log), "--gpu", "H100"], f"line {last + 1}")
    metrics = Path(__file__).resolve().parents[1] / "data" / "runs" / "omnimath" / "gptoss-20b-v2-metrics.jsonl"
    text = metrics.read_text().rstrip("\n")
    running = tmp_path / "metrics.jsonl"
    running.write_text(text[:len(text) - 40])
    code, out, err = _cli("validate", str(running), "--model", "openai/gpt-oss-20b")
    n = text.count("\n") + 1
    assert code == 0 and f"last line ({n}) stops mid-record" in out, err


@pytest.mark.parametrize("command", ["estimate", "plan"])
@pytest.mark.parametrize("args, words", [
    # math_rl is single-turn (data/workloads/): its output is --completion-tokens
    (["--workload", "math_rl", "--turns", "1", "--output-per-turn", "100"], ["--output-per-turn", "single-turn"]),
    (["--workload", "math_rl", "--failure-overhead", "0.2"], ["--failure-overhead", "workload math_rl"]),
    # swe_rl is multi-turn: its output is --output-per-turn each turn
    (["--workload", "swe_rl", "--completion-tokens", "100"], ["--completion-tokens", "workload swe_rl", "turns"]),
    (["--workload", "math_rl", "--turns", "3", "--output-per-turn", "100", "--observation-per-turn", "10",
      "--completion-tokens", "5"], ["--completion-tokens", "this run has 3 turns"]),
])
def test_a_token_flag_the_kind_of_rollout_does_not_read_is_refused(command, args, words):
    _refused([command, *args], *words)


def test_the_token_flags_each_kind_of_rollout_reads_change_the_bill():
    """The flags left accepted are the ones that move the answer (model/tokens.py rollout)."""
    import json

    def tinker_usd(*args):
        code, out, _ = _cli("estimate", *args, "--format", "json")
        assert code == 0
        return json.loads(out)["tinker"]["total_usd"]
    assert tinker_usd("--workload", "math_rl", "--completion-tokens", "100") \
        < tinker_usd("--workload", "math_rl", "--completion-tokens", "1000")
    assert tinker_usd("--workload", "swe_rl", "--output-per-turn", "100") \
        < tinker_usd("--workload", "swe_rl", "--output-per-turn", "1000")
    assert tinker_usd("--workload", "swe_rl", "--turns", "1", "--completion-tokens", "300") \
        < tinker_usd("--workload", "swe_rl")


def _cut_last_record(path):
    """The file as a run still writing it leaves it: the last record stopped partway, no line ending."""
    text = path.read_text().rstrip("\n")
    path.write_text(text[:len(text) - 25])
    return text.count("\n") + 1


@pytest.mark.parametrize("shape", ["verl file logger", "W&B history jsonl", "EasyR1 file logger"])
def test_every_json_lines_reader_reads_a_growing_log_up_to_its_cut_last_line(tmp_path, shape):
    """QA 2026-12-05 (the first round fixed the verl console and the cookbook reader only): the other JSON-lines
    readers refused a log whose last line a running job had not finished. Each now reads the steps before it and
    names the line; with a line ending after it, the broken line is still refused."""
    import json

    import run_shapes
    from test_easyr1 import EASY_CONFIG, metrics, nested
    from tinker_nomics.runs import easyr1
    if shape == "verl file logger":
        log = hs.write_verl_jsonl(tmp_path / "metrics.jsonl")
    elif shape == "W&B history jsonl":
        log = run_shapes.write_wandb_json(tmp_path / "history.jsonl", hs.verl_wandb_rows(), "lines")
    else:
        (tmp_path / easyr1.CONFIG_FILE).write_text(json.dumps(EASY_CONFIG))
        log = tmp_path / easyr1.LOG_FILE
        log.write_text("".join(json.dumps({"step": i + 1, **nested(metrics(i))}) + "\n" for i in range(4)))
    whole = _cli("validate", str(log), "--gpu", "H100 SXM", "--format", "json")
    assert whole[0] == 0, whole[2]
    last = _cut_last_record(log)
    code, out, err = _cli("validate", str(log), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert any(f"last line ({last}) stops mid-record" in n for n in data["notes"] + data["caveats"]), data["notes"]
    assert data["steps"] == json.loads(whole[1])["steps"] - 1   # every step but the one being written
    log.write_text(log.read_text() + "\n")   # ended: a broken line, not one being written
    _refused(["validate", str(log), "--gpu", "H100 SXM"], f"line {last}")


@pytest.mark.parametrize("args, words", [
    (["estimate", "--workload", "math_rl", "--method", "magic"], ["--method must be one of", "calibrated"]),
    (["estimate", "--workload", "math_rl", "--method", "exact", "--decode-model", "x"], ["--decode-model must be"]),
    (["plan", "--workload", "math_rl", "--fine-tune", "qlora"], ["--fine-tune must be one of"]),
    # no provider is close to 'nosuch': the 21 names are listed rather than nothing (analysis/plan.py)
    (["plan", "--workload", "math_rl", "--providers", "nosuch"], ["unknown provider 'nosuch'", "known:", "runpod",
                                                                  "tinker"]),
])
def test_a_bad_choice_names_the_flag_and_the_choices(args, words):
    _refused(args, *words)


@pytest.mark.parametrize("key, value, words", [
    ("timing_s/gen", True, ["timing_s/gen is true, not a number"]),        # read as 1 s before
    ("perf/mfu/actor", True, ["perf/mfu/actor is true"]),                   # read as 100% MFU before
    ("response_length/mean", False, ["response_length/mean is false"]),
    ("timing_s/step", "1_000", ["timing_s/step is the text '1_000'"]),      # read as 1,000 s before
    ("timing_s/step", "32.25", ["timing_s/step is the text '32.25'"]),     # JSON writes numbers as numbers
])
def test_a_flag_or_a_text_where_a_json_log_has_a_number_is_refused(tmp_path, key, value, words):
    """QA 2026-12-05 (second sweep): verl's file logger with a JSON true, or a number written as text, in a metric
    the reader uses was read as 1 (or as Python reads '1_000') without a word; the tinker-cookbook reader already
    refused both."""
    import json
    records = hs.file_logger_records()
    records[2]["data"][key] = value
    log = tmp_path / "metrics.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    _refused(["validate", str(log), "--gpu", "H100 SXM"], "line 3", *words)


def test_a_python_digit_separator_in_a_text_log_is_refused(tmp_path):
    """In a CSV export (text cells) '1_000' was read as 1000 by Python's float()."""
    import run_shapes
    rows = hs.verl_wandb_rows()
    rows[2]["timing_s/step"] = "1_000"
    log = run_shapes.write_wandb_csv(tmp_path / "history.csv", rows)
    _refused(["validate", str(log), "--gpu", "H100 SXM"], "timing_s/step is '1_000', not a number")


def test_a_symbolic_link_loop_is_one_line(tmp_path):
    """QA 2026-12-05: a link loop as LOG raised OSError ('Too many levels of symbolic links') as an internal error."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    _refused(["validate", str(tmp_path / "a"), "--gpu", "H100 SXM"], "cannot read it",
             "too many levels of symbolic links")


def test_a_provider_that_offers_nothing_for_the_run_is_one_line():
    """QA 2026-12-05: `plan --providers aws` (a provider known by name that offers this run no option) crashed on
    an empty table."""
    _refused(["plan", "--workload", "math_rl", "--draws", "20", "--providers", "aws"], "--providers aws",
             "no option to plan")


@pytest.mark.parametrize("encoding", ["cp1252", "cp437", "ascii"])
def test_a_terminal_that_is_not_utf8_gets_every_command_printed(encoding):
    """QA 2026-12-05: on a console of another code page (Windows' cp1252, PYTHONIOENCODING) '≈', '×' or 'Σ' ended
    every command with UnicodeEncodeError and nothing printed. Prose gets '?' for what the page lacks; JSON escapes
    it and stays exact."""
    import json
    import os
    import subprocess
    import sys
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    text = subprocess.run([sys.executable, "-m", "tinker_nomics", "estimate", "--workload", "math_rl"],
                          capture_output=True, env=env)
    assert text.returncode == 0 and b"Cheaper" in text.stdout, text.stderr[-300:]
    data = subprocess.run([sys.executable, "-m", "tinker_nomics", "estimate", "--workload", "math_rl",
                           "--format", "json"], capture_output=True, env=env)
    assert data.returncode == 0, data.stderr[-300:]
    assert "×" in json.loads(data.stdout.decode(encoding))["uncertainty"]["verdict"]


@pytest.mark.parametrize("change, words", [
    # 16 or 3 engines' GPUs on 8: predict refuses both; validate planned on 16 GPUs and said the model needed them
    (lambda c: c["actor_rollout_ref"]["rollout"].update(tensor_model_parallel_size=16),
     ["tensor_model_parallel_size", "16", "does not split the 8 GPUs"]),
    (lambda c: c["actor_rollout_ref"]["rollout"].update(tensor_model_parallel_size=3), ["does not split the 8 GPUs"]),
    # 4.5 GPUs a node was used as 9 GPUs; 0 was reported as "not in the log"
    (lambda c: c["trainer"].update(n_gpus_per_node=4.5), ["trainer.n_gpus_per_node is 4.5", "whole"]),
    (lambda c: c["trainer"].update(n_gpus_per_node=0), ["trainer.n_gpus_per_node is 0", "no GPUs"]),
    (lambda c: c["trainer"].update(n_gpus_per_node="8"), ["trainer.n_gpus_per_node is '8'"]),   # quoted: text
])
def test_a_config_whose_engines_or_gpu_counts_no_run_has_is_refused(tmp_path, change, words):
    """QA 2026-12-05 (second sweep, findings 9 and 10)."""
    import copy
    config = copy.deepcopy(hs.CONFIG)
    change(config)
    log = hs.write_verl_console(tmp_path / "train.log", "2025", config=config)
    _refused(["validate", str(log), "--gpu", "H100 SXM"], *words)


def test_a_split_that_leaves_the_trainer_too_few_gpus_is_refused():
    """QA 2026-12-05 (second sweep, finding 6): --rollout-gpus 7 of 8 put a full fine-tune of Qwen3-32B (weights,
    gradients and Adam's moments: model/memory.py's rule) on one 80 GB H100 and timed it. A split that leaves enough
    is still planned."""
    base = ["predict", "rl-step", "--gpu", "H100", "--num-gpus", "8", "--samples", "1024", "--prompt-len", "200",
            "--response-len", "1000", "--off-policy", "1"]
    _refused([*base, "--model", "Qwen3-32B", "--rollout-gpus", "7"], "--rollout-gpus (7) leaves 1 GPU to train on",
             "Qwen3-32B")
    code, out, err = _cli(*base, "--model", "Qwen3-8B", "--rollout-gpus", "4")
    assert code == 0 and "4 GPUs generate, 4 train" in out, err


@pytest.mark.parametrize("command", ["estimate", "plan"])
@pytest.mark.parametrize("args, words", [
    # math_rl (data/workloads/): no sandbox, no cache hits, no evaluations; each flag changed nothing before
    (["--sandbox-cpu-cores", "64"], ["--sandbox-cpu-cores", "has none"]),
    (["--sandbox-memory-gib", "512"], ["--sandbox-memory-gib", "has none"]),
    (["--tinker-cached-prefill-usd-per-m", "100"], ["--tinker-cached-prefill-usd-per-m", "cache-hit rate is 0"]),
    (["--eval-prompts", "500"], ["--eval-prompts", "--eval-every 0"]),
])
def test_a_flag_that_sizes_what_the_run_has_not_is_refused(command, args, words):
    """QA 2026-12-05 (second sweep, finding 13)."""
    _refused([command, "--workload", "math_rl", *args], *words)


def test_the_same_flags_where_the_run_has_it_move_the_bill():
    import json

    def bill(*args):
        code, out, err = _cli("estimate", *args, "--format", "json")
        assert code == 0, err
        return json.loads(out)["tinker"]["total_usd"]
    # swe_rl runs a modal sandbox and hits the prefix cache (data/workloads/)
    assert bill("--workload", "swe_rl", "--sandbox-cpu-cores", "8") > bill("--workload", "swe_rl")
    assert bill("--workload", "math_rl", "--cache-hit-rate", "0.5", "--tinker-cached-prefill-usd-per-m", "0.01") \
        < bill("--workload", "math_rl")
    assert bill("--workload", "math_rl", "--eval-every", "10", "--eval-prompts", "500") \
        > bill("--workload", "math_rl", "--eval-every", "10", "--eval-prompts", "50")


def test_an_escape_code_in_a_logs_file_name_never_reaches_the_terminal(tmp_path):
    """QA 2026-12-05 (second sweep, finding 15): the headline of validate's text printed the log's file name raw
    (an ESC[31m recoloured the terminal); errors and report.html escaped it already."""
    log = hs.write_verl_console(tmp_path / "train\x1b[31mred.log", "2025")
    code, out, err = _cli("validate", str(log), "--gpu", "H100 SXM")
    assert code == 0, err
    assert "\x1b" not in out and "train\\x1b[31mred.log" in out.splitlines()[0]


def test_a_multi_turn_run_that_samples_nothing_is_refused_as_a_single_turn_one_is():
    """QA 2026-12-05 (second sweep, finding 16): 5 turns of 0 output tokens billed $52.20 for a run that samples
    nothing; --completion-tokens 0 was already refused."""
    _refused(["estimate", "--workload", "math_rl", "--turns", "5", "--output-per-turn", "0", "--observation-per-turn",
              "0"], "--output-per-turn must be more than 0 for a multi-turn run")


@pytest.mark.parametrize("args, words", [
    (["plan", "--workload", "math_rl", "--deadline", "1e400"], ["--deadline is too large"]),   # not "more than 0"
    (["plan", "--workload", "math_rl", "--draws", "1e7"], ["--draws must be"]),
    # the registry's H100 with 94 GB is the NVL (data/hardware/gpus.csv): the message names it
    (["predict", "decode", "--model", "Qwen3-8B", "--gpu", "H100 94GB", "--num-gpus", "1", "--concurrency", "8",
      "--input-len", "100", "--output-len", "100"], ["not 94 GB", "the 94 GB part is H100 NVL"]),
])
def test_messages_say_what_is_wrong_in_the_users_words(args, words):
    """QA 2026-12-05 (second sweep, finding 18)."""
    _refused(args, *words)


@pytest.mark.parametrize("record, words", [
    ({"method": None}, ["method is null"]),                                   # not Python's None
    ({"method": "calibrated", "mfu": True}, ["mfu is true"]),
    ({"method": "calibrated", "mfu": "0.3"}, ['mfu is "0.3"']),
])
def test_a_calibration_files_values_are_quoted_as_json_writes_them(tmp_path, record, words):
    import json
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"kind": "tinker-nomics calibration", "version": 1, **record}))
    _refused(["estimate", "--workload", "math_rl", "--calibration", str(path)], *words)


@pytest.mark.parametrize("name", ["history.csv", "train.log"])
def test_a_utf16_log_asks_for_utf8(tmp_path, name):
    """QA 2026-12-05 (second sweep): a UTF-16 CSV (a spreadsheet's 'Unicode text' export) got 'no keys of a known
    log'; a Latin-1 file already got 'not UTF-8 text'."""
    import run_shapes
    plain = tmp_path / f"plain-{name}"
    if name.endswith(".csv"):
        run_shapes.write_wandb_csv(plain, hs.verl_wandb_rows())
    else:
        hs.write_verl_console(plain, "2025")
    wide = tmp_path / name
    wide.write_bytes(plain.read_text().encode("utf-16"))
    _refused(["validate", str(wide), "--gpu", "H100 SXM"], "UTF-16 text", "save it as UTF-8")


def test_a_batch_flag_the_logs_config_contradicts_is_said_beside_the_answer(tmp_path):
    """QA 2026-12-05 (second sweep, finding 11): --group-size 5 on a verl log whose config says rollout.n 4 moved the
    prompt/response split with only the generic token-mismatch caveat."""
    import json
    log = hs.write_verl_console(tmp_path / "train.log", "2025")
    code, out, err = _cli("validate", str(log), "--gpu", "H100 SXM", "--group-size", "5", "--format", "json")
    assert code == 0, err
    said = " ".join(json.loads(out)["caveats"] + json.loads(out)["notes"])
    assert "--group-size 5 given; the log's config says 4 (actor_rollout_ref.rollout.n)" in said
    code, out, err = _cli("validate", str(log), "--gpu", "H100 SXM", "--group-size", "4", "--format", "json")
    assert "--group-size 4 given" not in " ".join(json.loads(out)["caveats"] + json.loads(out)["notes"])


@pytest.mark.parametrize("args, words", [
    (["--workload", "math_rl", "--eval-every", "10", "--eval-prompts", "0.5"], ["--eval-prompts", "whole number"]),
    # Modal bills a sandbox's cores and memory (data/assumptions/defaults.csv: a minimum of 0.125 cores)
    (["--workload", "swe_rl", "--sandbox-cpu-cores", "0"], ["--sandbox-cpu-cores", "> 0"]),
    (["--workload", "swe_rl", "--sandbox-memory-gib", "0"], ["--sandbox-memory-gib", "> 0"]),
])
def test_half_an_evaluation_prompt_or_a_sandbox_of_nothing_is_refused(args, words):
    """QA 2026-12-05 (second sweep, finding 17): each was billed (a sandbox of 0 cores and 0 GiB for $0.00)."""
    _refused(["estimate", *args], *words)


def test_a_sequence_past_the_models_configured_context_is_said():
    """QA 2026-12-05 (second sweep, finding 14): 1.5M-token rollouts of Qwen3-8B were costed without a word; its
    config.json's max_position_embeddings is 40,960 (data/models/model_archs.csv). The cost is still given (a context
    can be extended), with the note; a run inside the context gets none."""
    import json
    from tinker_nomics.sources import get_arch
    context = get_arch("Qwen/Qwen3-8B").max_context
    assert context == 40960
    code, out, err = _cli("estimate", "--workload", "math_rl", "--completion-tokens", str(context), "--format", "json")
    assert code == 0, err
    note = [n for n in json.loads(out)["notes"] if "configured for" in n]
    assert note and f"past the {context:,}-token context Qwen3-8B is configured for" in note[0]
    code, out, err = _cli("estimate", "--workload", "math_rl", "--format", "json")
    assert not [n for n in json.loads(out)["notes"] if "configured for" in n]
    code, out, err = _cli("predict", "decode", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "1",
                          "--concurrency", "8", "--input-len", str(context), "--output-len", "1")
    assert code == 0 and f"a request reaches {context + 1:,} tokens" in out, err


def test_a_config_names_its_context_as_its_family_does():
    """GPT-J's config.json says n_positions (2,048), OPT's max_position_embeddings (2,048), ChatGLM's seq_length
    (8,192): data/models/configs."""
    from tinker_nomics.sources import get_arch
    assert get_arch("EleutherAI/gpt-j-6b").max_context == 2048
    assert get_arch("facebook/opt-1.3b").max_context == 2048
    assert get_arch("THUDM/chatglm3-6b").max_context == 8192


def test_a_folder_read_by_its_console_log_names_the_logs_it_did_not_read(tmp_path):
    """QA 2026-12-05 (second sweep): a verl folder with a console log and a file-logger .jsonl read the console log
    without a word about the other."""
    import json
    hs.write_verl_console(tmp_path / "train.log", "2025")
    hs.write_verl_jsonl(tmp_path / "verl_metrics.jsonl")   # (metrics.jsonl would make it a tinker-cookbook folder)
    code, out, err = _cli("validate", str(tmp_path), "--gpu", "H100 SXM", "--format", "json")
    assert code == 0, err
    said = " ".join(json.loads(out)["notes"] + json.loads(out)["caveats"])
    assert "read train.log, the folder's console log; also in the folder, not read: verl_metrics.jsonl" in said


def test_a_digit_separator_in_a_cookbook_export_is_refused(tmp_path):
    """The tinker-cookbook reader's text cells (a W&B CSV) went through Python's float(), which reads '1_000'."""
    import run_shapes
    rows = run_shapes.sync_records()
    rows[1]["env/all/total_ac_tokens"] = "1_100"
    log = run_shapes.write_wandb_csv(tmp_path / "history.csv", rows)
    _refused(["validate", str(log), "--model", "Qwen3-8B"], "'1_100', not a number")


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 8, 13, 64])
def test_a_json_list_of_records_reads_the_same_one_window_at_a_time(tmp_path, chunk):
    """QA 2026-12-05 (second sweep, finding 12): a W&B history saved as one JSON list was loaded whole (a 272 MB
    export peaked at 1.19 GB); stream.json_array reads it a record at a time. Whatever the window, the records are
    json.loads's: numbers cut at the window's edge, a multi-byte character split, NaN, nesting, a byte-order mark."""
    import json

    from tinker_nomics.runs import stream
    records = [{"_step": i, "timing_s/step": 12.5 + i, "name": "régime ✓ 𝔸", "nested": {"a": [1, 2.5e-3, None]},
                "loss": float("nan") if i == 2 else 1234567890123 * i, "flag": i % 2 == 0} for i in range(1, 6)]
    text = "\ufeff [\n" + ",\n ".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n]\n"
    path = tmp_path / "history.json"
    path.write_bytes(text.encode("utf-8"))
    read = [r for _, r in stream.json_array(path, "h", chunk=chunk)]
    expected = json.loads(text.lstrip("\ufeff"))
    assert json.dumps(read) == json.dumps(expected)   # NaN compares unequal; its JSON text does not
    path.write_bytes(text.replace(",\n {", ",\n {{", 1).encode("utf-8"))
    from tinker_nomics.errors import TinkerNomicsError
    with pytest.raises(TinkerNomicsError, match=r"line 3: not JSON"):
        list(stream.json_array(path, "h", chunk=chunk))


@pytest.mark.parametrize("chunk, whole", [(1, 0), (3, 0), (8, 0), (64, 0), (1 << 20, 0), (3, 1 << 20), (64, 40)])
def test_a_json_object_reads_the_same_one_member_at_a_time(tmp_path, monkeypatch, chunk, whole):
    """QA 2026-12-05 (second sweep, finding 12): a trainer_state.json (1M log entries: 342 MB peaked at 1.69 GB) and
    pandas' "split" and "columns" layouts of a W&B history were loaded whole. stream.json_members walks the object a
    member at a time, and stream.json_records gives json_table's records from it, whatever the window and whether a
    member is decoded whole or item by item (`whole`)."""
    import json

    from tinker_nomics.runs import stream
    monkeypatch.setattr(stream, "WHOLE_MEMBER_CHARS", whole)
    monkeypatch.setattr(stream, "ARRAY_CHUNK", chunk)
    from tinker_nomics.runs.files import json_table
    history = [{"_step": i, "timing_s/step": 12.5 + i, "name": "régime ✓ 𝔸", "loss": None if i == 3 else 1e-3 * i,
                "big": 2 ** 60 + i, "flag": i % 2 == 0} for i in range(1, 6)]
    columns = sorted({k for r in history for k in r})
    layouts = {
        "split": {"columns": columns, "index": list(range(5)), "data": [[r.get(c) for c in columns] for r in history]},
        "columns": {c: {str(i): r.get(c) for i, r in enumerate(history)} for c in columns},
        "one record": history[0],
    }
    for name, obj in layouts.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(obj, indent=1, ensure_ascii=False), encoding="utf-8")
        expected = [(w, {k: v for k, v in r.items()}) for w, r in json_table(json.loads(path.read_text()), "h")]
        assert json.dumps(list(stream.json_records(path, "h"))) == json.dumps(expected), name
    state = {"best_metric": None, "epoch": 1.0, "global_step": 5, "log_history": history, "logging_steps": 1,
             "trial_params": {"a": [1, {"b": 2}]}}
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps(state, indent=2, sort_keys=True), encoding="utf-8")
    read = {}
    for key, value in stream.json_members(path, "h", streamed=lambda k: k == "log_history"):
        read[key] = [item for _, item in value] if isinstance(value, stream.Streamed) else value
    assert json.dumps(read) == json.dumps(json.loads(path.read_text()))
    path.write_text(json.dumps(state, indent=2).replace('"epoch": 1.0,', '"epoch": 1.0', 1), encoding="utf-8")
    from tinker_nomics.errors import TinkerNomicsError
    with pytest.raises(json.JSONDecodeError) as whole:
        json.loads(path.read_text())
    with pytest.raises(TinkerNomicsError, match=rf"line {whole.value.lineno}: not JSON \(expected ','"):
        list(stream.json_members(path, "h"))


def test_a_trainer_state_read_a_member_at_a_time_gives_the_same_run(tmp_path):
    """The streamed trainer_state.json (log_history entries read one at a time, a training entry kept as its few
    read numbers) gives each training entry's step, time and tokens as the log has them; global_step is read
    wherever it sits, after the log too (the run before step_time is timed by train_runtime / global_step). A
    log_history that is not a list, and JSON lines, are refused in one line."""
    import json

    import hosted_shapes as H
    from tinker_nomics.errors import TinkerNomicsError
    from tinker_nomics.runs.trl import read_state
    file = H.write_trainer_state(tmp_path / "out") / "checkpoint-6" / "trainer_state.json"
    state = json.loads(file.read_text())
    training = [e for e in state["log_history"] if "num_tokens" in e]
    run = read_state(file, "h")
    assert run.steps["step"].tolist() == [e["step"] for e in training]
    assert run.steps["step_seconds"].tolist() == [e["step_time"] for e in training]
    assert run.steps["trained_tokens"].sum() == training[-1]["num_tokens"]

    old = H.write_trainer_state(tmp_path / "old", with_step_time=False) / "checkpoint-6" / "trainer_state.json"
    state = json.loads(old.read_text())
    runtime = next(e["train_runtime"] for e in state["log_history"] if "train_runtime" in e)
    members = dict(sorted(state.items(), key=lambda kv: kv[0] == "global_step"))   # global_step last
    members["global_step"] = 5
    late = tmp_path / "late.json"
    late.write_text(json.dumps(members), encoding="utf-8")
    assert read_state(late, "h").steps["step_seconds"].tolist() == [runtime / 5]

    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**state, "log_history": {"0": 1}}), encoding="utf-8")
    with pytest.raises(TinkerNomicsError, match="no log_history list"):
        read_state(broken, "h")
    lines = tmp_path / "lines.json"
    lines.write_text(json.dumps(state) + "\n" + json.dumps(state) + "\n", encoding="utf-8")
    with pytest.raises(TinkerNomicsError, match="JSON lines, not a trainer_state.json"):
        read_state(lines, "h")


@pytest.mark.parametrize("line, key, value", [
    (1, "env/all/total_ac_tokens", 1000.5),           # the first line: read as a dict
    (2, "env/all/total_ac_tokens", 1100.5),           # a later line: the typed decoder's, read as tokens.sample 5700.5
    (3, "env/all/total_ob_tokens", 120.25),
    (4, "env/all/total_episodes", 7.5),
    (1, "test/env/all/total_ob_tokens", 50.5),         # an eval's count
])
def test_a_fractional_count_in_a_cookbook_log_is_refused(tmp_path, line, key, value):
    """QA 2026-12-06: a tinker-cookbook log's token total of 1100.5 was summed into the bill (tokens.sample 5700.5).
    Its counts are sums of whole tokens and episodes (tinker-cookbook-facts.md §1)."""
    import run_shapes
    records = run_shapes.sync_records()
    records[line - 1][key] = value
    log = run_shapes.write_jsonl(tmp_path / "metrics.jsonl", records)
    _refused(["validate", str(log), "--model", "Qwen3-8B"], f"line {line}", key, repr(value), "not a whole number")
    rows = run_shapes.wandb_rows(records)   # the same value in a W&B CSV export (text cells)
    export = run_shapes.write_wandb_csv(tmp_path / "history.csv", rows)
    _refused(["validate", str(export), "--model", "Qwen3-8B"], f"row {line + 1}", key, "not a whole number")


def test_a_fractional_cached_count_in_a_cookbook_log_is_refused(tmp_path):
    import run_shapes
    records = run_shapes.v061_records()
    records[2]["tokens/prefill_cached"] = records[2]["env/all/total_cached_ob_tokens"] = 80.5
    log = run_shapes.write_jsonl(tmp_path / "metrics.jsonl", records)
    _refused(["validate", str(log), "--model", "Qwen3-8B"], "line 3", "env/all/total_cached_ob_tokens", "80.5")


def test_a_chart_panel_count_is_whole_unless_wandb_averaged_it(tmp_path):
    """A downsampled chart-panel export's values are bucket averages (its __MIN and __MAX differ): read, with the
    note that says so. A value W&B did not average is the logged count, and a fraction there is refused."""
    import run_shapes
    rows = run_shapes.wandb_rows(run_shapes.sync_records())
    rows[3]["env/all/total_ac_tokens"] += 0.5
    exact = run_shapes.write_chart_csv(tmp_path / "exact.csv", {"run": rows})
    _refused(["validate", str(exact), "--model", "Qwen3-8B"], "row 5", "env/all/total_ac_tokens", "not a whole number")
    averaged = run_shapes.write_chart_csv(tmp_path / "averaged.csv", {"run": rows}, spread=True)
    code, out, err = _cli("validate", str(averaged), "--model", "Qwen3-8B")
    assert code == 0 and "downsampled" in out, err


@pytest.mark.parametrize("records, key", [("sync_records", "time/total"),
                                          ("async_records", "time/training_loop/total")])
def test_a_cookbook_step_of_0_s_is_refused(tmp_path, records, key):
    """QA 2026-12-06: a tinker-cookbook log whose time/total is 0 at every step gave measured.step_seconds_mean 0.0."""
    import run_shapes
    rows = getattr(run_shapes, records)()
    timed = [i for i, rec in enumerate(rows) if key in rec]
    for i in timed:
        rows[i][key] = 0
    log = run_shapes.write_jsonl(tmp_path / "metrics.jsonl", rows)
    _refused(["validate", str(log), "--model", "Qwen3-8B"], f"line {timed[0] + 1}", f"{key} is 0 s", "not a step time")
    rows = getattr(run_shapes, records)()   # 0 s on the last timed line only: the typed decoder's lines check alike
    rows[timed[-1]][key] = 0.0
    log = run_shapes.write_jsonl(tmp_path / "metrics.jsonl", rows)
    _refused(["validate", str(log), "--model", "Qwen3-8B"], f"line {timed[-1] + 1}", f"{key} is 0 s")


def test_a_verl_step_of_0_s_is_refused_where_no_phase_is_longer(tmp_path):
    """QA 2026-12-06: the verl reader refused a 0 s step only when its generation was longer; with every timer 0 it
    reported a step time and GPU-hours of 0."""
    import json
    records = hs.file_logger_records()
    for rec in records:
        for key in rec["data"]:
            if key.startswith("timing_s/"):
                rec["data"][key] = 0
    log = tmp_path / "metrics.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    first = next(i for i, r in enumerate(records) if "timing_s/step" in r["data"]) + 1
    _refused(["validate", str(log), "--gpu", "H100 SXM"], f"line {first}", "timing_s/step is 0 s", "not a step time")


@pytest.mark.parametrize("write, where", [("json", "data record 1"), ("csv", "row 2")])
def test_a_fractional_token_count_in_a_usage_export_is_refused(tmp_path, write, where):
    """QA 2026-12-06: a `tinker billing usage` row's token_count of 200.5 was billed as 200.5 tokens."""
    records = hs.usage_records()
    records[0]["event_info"]["token_count"] = 200.5
    export = getattr(hs, f"write_usage_{write}")(tmp_path / f"usage.{write}", records)
    _refused(["validate", str(export)], where, "token_count is 200.5", "not a whole number")


@pytest.mark.parametrize("args, flag", [
    (["plan", "--workload", "math_rl", "--draws", "20"], "--spot"),
    (["estimate", "--workload", "swe_rl"], "--tinker-cached-prefill"),
])
def test_an_on_off_flag_given_both_ways_is_refused(args, flag):
    """QA 2026-12-06: `plan --spot --no-spot` ran, the last one winning. Each alone (or repeated) still runs."""
    no = "--no-" + flag[2:]
    _refused([*args, flag, no], flag, no, "give one")
    _refused([*args, no, flag], flag, no, "give one")
    for alone in ([flag], [no], [flag, flag]):
        code, out, err = _cli(*args, *alone)
        assert code == 0 and out, (alone, err)


LLAMA_8B_WIDTHS = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
                   "tie_word_embeddings": False}   # Llama-3.1-8B's config.json, widths only


@pytest.mark.parametrize("field, stored, said", [("torch_dtype", "float64", "float64"), ("dtype", "float32", "float32"),
                                                 ("torch_dtype", "torch.float32", "float32"),
                                                 ("torch_dtype", "bfloat16", None), ("dtype", "float16", None)])
def test_a_checkpoint_stored_wider_than_bf16_is_said_to_be_costed_in_bf16(tmp_path, field, stored, said):
    """QA 2026-12-06: a --model-config whose torch_dtype is float64 was reported as `weights bf16` without a word.
    Every command that reads --model-config now says the checkpoint's stored dtype and that bf16 is costed; a bf16
    or fp16 checkpoint gets no note. Newer configs write `dtype` for `torch_dtype`."""
    import json
    config = tmp_path / "config.json"
    config.write_text(json.dumps({**LLAMA_8B_WIDTHS, field: stored}))
    log = hs.write_verl_console(tmp_path / "train.log")
    commands = [["estimate", "--workload", "math_rl"], ["plan", "--workload", "math_rl", "--draws", "20"],
                ["predict", "decode", "--gpu", "H100", "--num-gpus", "1", "--concurrency", "8", "--input-len", "100",
                 "--output-len", "100"],
                ["predict", "rl-step", "--gpu", "H100", "--num-gpus", "8", "--samples", "64", "--prompt-len", "100",
                 "--response-len", "100"],
                ["validate", str(log), "--gpu", "H100"]]
    for command in commands:
        code, out, err = _cli(*command, "--model-config", str(config))
        assert code == 0, (command, err)
        noted = [line for line in out.splitlines() if "stores its weights in" in line]
        if said is None:
            assert not noted, (command, noted)
        else:
            assert len(noted) == 1 and f"in {said};" in noted[0] and "costed with bf16 weights" in noted[0], \
                (command, out)


def test_a_key_written_twice_in_a_config_a_user_gives_is_refused(tmp_path):
    """QA 2026-12-06: a --model-config with num_hidden_layers twice was read with the last value, without a word
    (Python's json keeps the last). The same for a tinker-cookbook run folder's config.json."""
    import json

    import run_shapes
    text = json.dumps(LLAMA_8B_WIDTHS)
    model = tmp_path / "model" / "config.json"
    model.parent.mkdir()
    model.write_text(text[:-1] + ', "num_hidden_layers": 64}')
    _refused(["estimate", "--workload", "math_rl", "--model-config", str(model)], str(model), "'num_hidden_layers'",
             "twice")
    folder = run_shapes.write_cookbook_dir(tmp_path / "run", run_shapes.sync_records(), run_shapes.NESTED_CONFIG)
    config = folder / "config.json"
    text = config.read_text()
    config.write_text(text.replace('"group_size": 4', '"group_size": 4, "group_size": 8'))
    _refused(["validate", str(folder)], str(config), "'group_size'", "twice")


@pytest.mark.parametrize("whole", [0, 1 << 20])
def test_a_key_written_twice_in_a_json_document_is_refused(tmp_path, monkeypatch, whole):
    """QA s8 (left by the readers' fixes): the streamed JSON documents kept the last of two keys without a word, as
    the json module does: a W&B list of records, a trainer_state.json's entries, a top-level member. A text value
    holding a quote and a space (which the cheap count takes for a key end) still reads."""
    import json

    from tinker_nomics.errors import TinkerNomicsError
    from tinker_nomics.runs import stream
    monkeypatch.setattr(stream, "WHOLE_MEMBER_CHARS", whole)
    records = tmp_path / "history.json"
    records.write_text('[{"_step": 1, "timing_s/step": 3.5},\n {"_step": 2, "timing_s/step": 9.0, "timing_s/step": 1}]')
    with pytest.raises(TinkerNomicsError, match=r"line 2: the key 'timing_s/step' appears twice"):
        list(stream.json_array(records, "h"))
    state = tmp_path / "trainer_state.json"
    state.write_text('{"global_step": 2, "log_history": [{"step": 1, "step_time": 4.0, "step_time": 0.5}]}')
    with pytest.raises(TinkerNomicsError, match=r"the key 'step_time' appears twice"):
        for _, value in stream.json_members(state, "h"):
            list(value) if isinstance(value, stream.Streamed) else None
    state.write_text('{"log_history": [], "log_history": [{"step": 1}]}')
    with pytest.raises(TinkerNomicsError, match=r"the member 'log_history' appears twice"):
        list(stream.json_members(state, "h"))
    quoted = tmp_path / "quoted.json"
    quoted.write_text(json.dumps([{"_step": 1, "note": 'a "quoted" word', "nested": {"a": 1}}]))
    assert [r for _, r in stream.json_array(quoted, "h")] == json.loads(quoted.read_text())
