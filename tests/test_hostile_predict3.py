"""`predict decode` and `predict rl-step` as a hostile user tries them (the third QA sweep, notes/s8/cli_qa3.md):
more requests in flight than --concurrency allows, default layouts the explicit flags are refused for, batch shapes
no trainer runs, a "does not fit" message naming the wrong length, and counts printed or written as floats.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from test_hostile_counts import _cli, _refused
from tinker_nomics.model import predict
from tinker_nomics.sources.architectures import get_arch
from tinker_nomics.sources.hardware import get_gpu


def _json(*args):
    code, out, err = _cli(*args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


DECODE = ["predict", "decode", "--model", "Qwen3-8B", "--gpu", "H100", "--input-len", "100", "--output-len", "100"]


# ------------------------------------------------------------------------------------------------ finding 2

@pytest.mark.parametrize("method", ["calibrated", "exact"])
def test_no_more_requests_in_flight_than_the_concurrency_asked_for(method):
    """One request on eight one-GPU engine copies decodes on one of them: one copy's rate, not eight copies'."""
    arch, gpu = get_arch("Qwen3-8B"), get_gpu("H100")
    spread = predict.predict_decode(arch, gpu, 8, 1, 100, 100, tensor_parallel=1, method=method)
    alone = predict.predict_decode(arch, gpu, 1, 1, 100, 100, tensor_parallel=1, method=method)
    assert float(spread.concurrency) == 1
    if method == "calibrated":
        assert float(spread.output_tokens_per_second) == pytest.approx(float(alone.output_tokens_per_second))
    d = spread.to_dict()
    assert (d["replicas"], d["busy_replicas"]) == (8, 1)


@pytest.mark.parametrize("gpus, concurrency", [("8", "3"), ("24", "1"), ("1000", "1"), ("8", "12")])
def test_the_concurrency_is_the_total_over_the_engine_copies(gpus, concurrency):
    d = _json(*DECODE, "--num-gpus", gpus, "--concurrency", concurrency, "--tensor-parallel", "1")
    assert d["concurrency"] <= float(concurrency)
    assert d["busy_replicas"] == min(int(concurrency), d["replicas"])
    code, out, _ = _cli(*DECODE, "--num-gpus", gpus, "--concurrency", concurrency, "--tensor-parallel", "1")
    assert f"{d['busy_replicas']:,.0f} of {d['replicas']:,.0f} engine copies busy" in out


def test_a_run_of_one_prompt_has_one_request_in_flight():
    """--num-prompts 1 at --concurrency 64 runs one request: neither 64 in flight nor 'throughput batches'."""
    d = _json(*DECODE, "--num-gpus", "8", "--concurrency", "64", "--num-prompts", "1")
    assert d["concurrency"] == 1
    assert not any(row["regime"] == "throughput" for row in d["held_out_error"])
    code, out, err = _cli(*DECODE, "--num-gpus", "8", "--concurrency", "64", "--num-prompts", "1")
    assert "Concurrency   1 of 64 requested" in out


def test_a_run_of_one_prompt_is_not_one_prompts():
    code, out, err = _cli(*DECODE, "--num-gpus", "8", "--concurrency", "64", "--num-prompts", "1")
    assert code == 0 and "Run           1 prompt, " in out, err


# ------------------------------------------------------------------------------------------------ finding 10

def test_does_not_fit_names_the_longest_sequence_and_a_count_that_holds_it():
    """--max-output-len 1e6 on one GPU: the sequence that does not fit is the input and the longest output, and the
    count the message names does hold it (it said 200 tokens, then that 1 GPU holds them)."""
    import re
    args = [*DECODE, "--concurrency", "64", "--max-output-len", "1000000"]
    err = _refused([*args, "--num-gpus", "1"], "does not fit", f"{100 + 1_000_000:,} tokens")
    need = re.search(r"GPU count that does is ([\d,]+)", err).group(1).replace(",", "")
    assert int(need) > 1
    code, out, err = _cli(*args, "--num-gpus", need)
    assert code == 0, err


# ------------------------------------------------------------------------------------------------ finding 9

RL = ["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--prompt-len", "200",
      "--response-len", "1000"]


@pytest.mark.parametrize("extra, words", [
    (["--samples", "4", "--optimizer-steps", "8"], ["--optimizer-steps (8)", "4 samples"]),
    (["--samples", "1024", "--optimizer-steps", "100000"], ["--optimizer-steps (100,000)", "1,024 samples"]),
    (["--samples", "4", "--optimizer-steps", "16", "--ppo-epochs", "2"], ["--optimizer-steps (16)", "--ppo-epochs (2)"]),
    (["--samples", "1024", "--micro-batch-tokens", "1"], ["--micro-batch-tokens (1)", f"{200 + 1000:,} tokens"]),
    (["--samples", "1024", "--max-response-len", "4000", "--logprob-micro-batch-tokens", "2000"],
     ["--logprob-micro-batch-tokens (2,000)", f"{200 + 4000:,} tokens"]),
    (["--samples", "1024", "--critic", "--critic-micro-batch-tokens", "1000"], ["--critic-micro-batch-tokens (1,000)"]),
])
def test_rl_step_refuses_a_batch_shape_no_trainer_runs(extra, words):
    _refused([*RL, *extra], *words)


def test_the_batch_shapes_at_the_edge_still_run():
    for extra in (["--samples", "4", "--optimizer-steps", "4"], ["--samples", "4", "--optimizer-steps", "8",
                                                                 "--ppo-epochs", "2"],
                  ["--samples", "1024", "--micro-batch-tokens", str(200 + 1000)]):
        code, out, err = _cli(*RL, *extra)
        assert code == 0 and "Training" in out, (extra, err)


# ------------------------------------------------------------------------------------------------ finding 13

QWEN_CONFIG = "data/models/configs/Qwen--Qwen2.5-7B.json"


@pytest.mark.parametrize("quant, words", [
    ({"quant_method": "<script>\x1b"}, ["quant_method", "'<script>\\x1b'"]),
    ("fp8", ["'fp8'", "a str where an object belongs"]),
])
def test_an_unread_quantization_is_named_in_the_message(tmp_path, quant, words):
    from pathlib import Path
    data = json.loads((Path(__file__).resolve().parents[1] / QWEN_CONFIG).read_text())
    data["quantization_config"] = quant
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    _refused([*DECODE[:2], "--model-config", str(path), *DECODE[4:], "--num-gpus", "8", "--concurrency", "64"],
             "quantization_config", "--precision", *words)


def test_predict_json_writes_counts_as_whole_numbers():
    """"num_gpus": 8, not 8.0: every count in predict's JSON is an integer where it is whole."""
    d = _json(*DECODE, "--num-gpus", "24", "--concurrency", "1", "--num-prompts", "10", "--max-output-len", "200")
    for key in ("num_gpus", "concurrency", "requested_concurrency", "tensor_parallel", "replicas", "busy_replicas",
                "num_prompts", "max_output_len", "expert_parallel"):
        assert type(d[key]) is int, (key, d[key])
    d = _json(*RL, "--samples", "1024")
    for key in ("num_gpus", "fitting_gpus", "generation_rounds", "rollout_concurrency", "rollout_waves",
                "rollout_tensor_parallel"):
        assert type(d[key]) is int, (key, d[key])
    big = ["predict", "rl-step", "--model", "meta-llama/Llama-3.1-405B", "--gpu", "H100", "--num-gpus", "8",
           "--samples", "1024", "--prompt-len", "200", "--response-len", "1000"]
    d = _json(*big)
    assert not d["feasible"] and type(d["fitting_gpus"]) is int and type(d["on_fitting_gpus"]["num_gpus"]) is int
    assert type(d["on_fitting_gpus"]["rollout_tensor_parallel"]) is int


# ------------------------------------------------------------------------------------------------ finding 3

def _prime7(tmp_path):
    """A config with 7 attention heads (QA s8 #3): only engines of 1 or 7 GPUs split them."""
    from pathlib import Path
    data = json.loads((Path(__file__).resolve().parents[1] / QWEN_CONFIG).read_text())
    data.update(num_attention_heads=7, num_key_value_heads=7, hidden_size=3584, num_hidden_layers=200,
                _name_or_path="prime7")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return ["--model-config", str(path)]


@pytest.mark.parametrize("model, gpus", [(["--model", "meta-llama/Llama-3.1-405B"], "8"),
                                         (["--model", "meta-llama/Llama-3.1-405B"], "55"),
                                         (["--model", "Qwen2.5-72B"], "10"), (None, "8")])
def test_rl_step_default_layout_is_one_the_flags_accept(tmp_path, model, gpus):
    """The default engine and the 'smallest count that can' keep the rule a given --rollout-tensor-parallel is
    refused for: on that count, that size is accepted, and the count asked for holds the job only where it too
    has such a layout (405B was 'feasible' on 55 GPUs with engines of 32)."""
    model = model or _prime7(tmp_path)
    base = ["predict", "rl-step", *model, "--gpu", "H100", "--samples", "1024", "--prompt-len", "200",
            "--response-len", "1000"]
    d = _json(*base, "--num-gpus", gpus)
    times = d if d["feasible"] else d["on_fitting_gpus"]
    count, tp = (int(gpus) if d["feasible"] else d["fitting_gpus"]), times["rollout_tensor_parallel"]
    assert count % tp == 0
    code, out, err = _cli(*base, "--num-gpus", str(count), "--rollout-tensor-parallel", str(tp))
    assert code == 0, err
    again = _json(*base, "--num-gpus", str(count))
    assert again["feasible"] and again["rollout_tensor_parallel"] == tp
    if not d["feasible"]:
        _refused([*base, "--num-gpus", gpus, "--rollout-tensor-parallel", str(tp)], "--rollout-tensor-parallel")


def test_a_default_engine_no_tensor_parallel_size_can_run_says_so(tmp_path):
    """QA s8 #3, predict decode: where no size that splits the heads both holds the model and divides the GPUs, the
    default engine is spread over every GPU (as pipeline or expert parallelism would spread it; the bundled
    Llama-4-Maverick on 32 H100s is timed that way); the output now says so instead of printing a tensor-parallel
    size --tensor-parallel refuses."""
    config = json.loads((Path(__file__).resolve().parent.parent / "data" / "models" / "configs" / "Qwen--Qwen2.5-7B.json").read_text())
    config.update(num_attention_heads=7, num_key_value_heads=7, hidden_size=3584, num_hidden_layers=200,
                  _name_or_path="prime7")   # the QA repro: 7 heads, too large for one H100
    path = tmp_path / "prime7.json"
    path.write_text(json.dumps(config))
    args = ["predict", "decode", "--model-config", str(path), "--gpu", "H100", "--num-gpus", "8", "--concurrency",
            "64", "--input-len", "100", "--output-len", "100"]
    code, out, err = _cli(*args, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["tensor_parallel"] == 8
    assert any("no tensor-parallel size that splits prime7's 7 attention heads" in n for n in data["notes"])
    code, out, err = _cli(*args, "--tensor-parallel", "8")
    assert code == 2 and "7 attention heads" in err   # the size the note names is one the flag refuses
    code, out, err = _cli("predict", "decode", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8",
                          "--concurrency", "64", "--input-len", "100", "--output-len", "100", "--format", "json")
    assert code == 0 and not json.loads(out)["notes"]


def test_a_fractional_concurrency_is_refused():
    """QA s8 (left by the predict fixes): --concurrency 1.5 was accepted; requests in flight are whole."""
    _refused(["predict", "decode", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "1", "--concurrency", "1.5",
              "--input-len", "10", "--output-len", "10"], "--concurrency", "whole number", "1.5")


def test_the_default_mini_batches_are_no_more_than_the_samples():
    """QA s8 (left by the predict fixes): with fewer samples than the default mini-batches (4), each was timed as a
    fraction of a sample; the default now takes one mini-batch per sample at most, as --optimizer-steps given that
    number does."""
    args = ["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H100", "--num-gpus", "8", "--samples", "2",
            "--prompt-len", "100", "--response-len", "200", "--format", "json"]
    code, out, err = _cli(*args)
    assert code == 0, err
    code, given, err = _cli(*args, "--optimizer-steps", "2")
    assert code == 0, err
    default, two = json.loads(out)["training_seconds"], json.loads(given)["training_seconds"]
    assert default is not None and default == two
    code, four, err = _cli(*args[:-2], "--samples", "4", "--format", "json")   # 4 samples: the default's 4 stand
    assert code == 0, err
    code, given, err = _cli(*args[:-2], "--samples", "4", "--optimizer-steps", "4", "--format", "json")
    assert json.loads(four)["training_seconds"] == json.loads(given)["training_seconds"]
