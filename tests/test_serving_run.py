"""A serving benchmark timed as a whole run (predict decode --num-prompts, --max-output-len): vLLM's bench serve
reports output tokens over the run's duration, from the first prompt to the last token, so a run of N prompts with
outputs that vary (ShareGPT's) drains its longest requests at a falling batch, the arithmetic an RL step's rollout
uses (decode.drain_steps). Numbers here follow from the arithmetic's definition and the plan's own batch; the
gpt-oss-120b case is GPUStack's published 1,000-prompt ShareGPT run on one H100 (215 tokens in, 196 out on average)."""
import contextlib
import io

import numpy as np
import pytest

from tinker_nomics import TinkerNomicsError
from tinker_nomics.faces.cli import main
from tinker_nomics.model import decode
from tinker_nomics.model import predict as model_predict
from tinker_nomics.sources import get_arch, get_gpu
from tinker_nomics.sources.hardware import gpu_specs

GPT_OSS = get_arch("openai/gpt-oss-120b")
H100 = gpu_specs("H100 SXM")


def _plan(**run):
    return decode.serving_plan(GPT_OSS, H100, 1, 1000, 215, 196, "mxfp4", "bf16", **run)


def test_the_default_is_the_steady_state_and_a_run_that_fits_is_the_same():
    steady = model_predict.predict_decode(GPT_OSS, get_gpu("H100 SXM"), 1, 64, 215, 196)
    run = model_predict.predict_decode(GPT_OSS, get_gpu("H100 SXM"), 1, 64, 215, 196, num_prompts=64,
                                       max_output_tokens=196)
    assert float(run.output_tokens_per_second) == pytest.approx(float(steady.output_tokens_per_second), rel=1e-12)


def test_requests_of_one_length_run_whole_waves():
    plan = _plan(num_prompts=1000)
    batch = float(plan.batch)
    assert batch < 1000                                   # the KV cache holds fewer than the 1,000 requests
    waves = np.ceil(1000 / batch)
    assert float(plan.decode_steps) == waves * 196 and float(plan.prompts) == 1000


def test_outputs_that_vary_drain_the_longest():
    plan = _plan(num_prompts=1000, max_output_tokens=1800)
    batch = float(plan.batch)
    steps = max(1800, 1000 * 196 / batch + 1800 - 196)   # the steady state, then the longest request's drain
    assert float(plan.decode_steps) == pytest.approx(steps)
    assert float(plan.features.batch) == pytest.approx(1000 * 196 / steps)   # the mean active batch
    steady = decode.serving_throughput(_plan(), _params())[0]
    drained = decode.serving_throughput(plan, _params())[0]
    assert float(drained) < float(steady) / 2


def _params():
    from tinker_nomics.sources.calibration import parameters
    return parameters()


@pytest.mark.parametrize("args, words", [
    (["--max-output-len", "100"], "--max-output-len (100) is shorter than the mean output (196)"),
    (["--num-prompts", "2.5"], "--num-prompts must be a whole number"),
    (["--num-prompts", "100", "--method", "exact"], "--num-prompts: a benchmark run is timed by the calibrated"),
])
def test_bad_run_settings_are_one_line(args, words):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["predict", "decode", "--model", "gpt-oss-120b", "--gpu", "H100", "--num-gpus", "1",
                     "--concurrency", "1000", "--input-len", "215", "--output-len", "196", *args])
    assert code == 2 and out.getvalue() == "" and err.getvalue().count("\n") == 1 and words in err.getvalue(), \
        err.getvalue()


def test_the_text_says_what_was_timed():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["predict", "decode", "--model", "gpt-oss-120b", "--gpu", "H100", "--num-gpus", "1",
                     "--concurrency", "1000", "--input-len", "215", "--output-len", "196", "--num-prompts", "1000",
                     "--max-output-len", "1800"])
    assert code == 0 and "1,000 prompts, the longest output 1,800 tokens" in out.getvalue()
    with pytest.raises(TinkerNomicsError):
        model_predict.predict_decode(GPT_OSS, get_gpu("H100 SXM"), 1, 64, 215, 196, max_output_tokens=float("nan"))
