"""Expert parallelism in a decode step (predict decode --expert-parallel): the routed experts of a mixture of
experts split whole over the GPUs of a replica, so the GPU whose experts the batch touches most sets the step's
reads (decode.expert_imbalance). The imbalance is checked against its definition, E[max of ep binomial counts] over
their mean, enumerated by hand for small cases; the GLM-4.7 rows are TensorRT-LLM's published recipe
(TensorRT-LLM PR #11559, 'GLM-4.7 FP8 … on 8xH100 SXM (TP=8, EP=8)', data/measurements/outside_decode.csv)."""
import contextlib
import csv
import io
import itertools
import math

import numpy as np
import pytest

from conftest import REPO
from tinker_nomics.faces.cli import main
from tinker_nomics.model import decode
from tinker_nomics.model import predict as model_predict
from tinker_nomics.sources import get_arch, get_gpu

GLM = get_arch("zai-org/GLM-4.6")
QWEN_MOE = get_arch("Qwen/Qwen3-30B-A3B")
DENSE = get_arch("meta-llama/Llama-3.1-8B")


def _expected_max_by_enumeration(m, q, groups):
    """E[max] of `groups` independent binomial(m, q) counts, summed over every joint outcome."""
    pmf = [math.comb(m, j) * q ** j * (1 - q) ** (m - j) for j in range(m + 1)]
    return sum(max(js) * math.prod(pmf[j] for j in js) for js in itertools.product(range(m + 1), repeat=groups))


@pytest.mark.parametrize("m,q,groups", [(2, 0.3, 2), (3, 0.5, 3), (4, 0.1, 2), (5, 0.9, 3)])
def test_the_busiest_gpu_is_the_expected_maximum_of_binomial_counts(m, q, groups):
    assert decode._busiest_over_mean(m, q, groups) == pytest.approx(
        _expected_max_by_enumeration(m, q, groups) / (m * q), rel=1e-12)


def test_the_imbalance_falls_with_the_batch_to_none_once_every_expert_is_touched():
    batches = np.array([1.0, 4, 16, 64, 256, 4096])
    factor = decode.expert_imbalance(GLM, batches, 8)
    assert np.all(np.diff(factor) < 0) and factor[0] > 2 and factor[-1] == pytest.approx(1.0, abs=1e-9)
    assert np.all(decode.expert_imbalance(GLM, batches, 1) == 1.0)        # every expert sliced: no imbalance
    assert np.all(decode.expert_imbalance(DENSE, batches, 8) == 1.0)      # no routed experts
    # more GPUs to split over, fewer experts each: the busiest is further from the mean
    assert np.all(decode.expert_imbalance(GLM, batches[:4], 8) > decode.expert_imbalance(GLM, batches[:4], 4))


def test_expert_parallelism_reads_more_at_small_batches_and_as_much_at_large_ones():
    gpus = get_gpu("H100 SXM")
    small = [model_predict.predict_decode(GLM, gpus, 8, 4, 1024, 1024, "fp8", "fp8", expert_parallel=ep)
             for ep in (None, 8)]
    large = [model_predict.predict_decode(GLM, gpus, 8, 2048, 1024, 1024, "fp8", "fp8", expert_parallel=ep)
             for ep in (None, 8)]
    assert float(small[1].output_tokens_per_second) < 0.95 * float(small[0].output_tokens_per_second)
    assert float(large[1].output_tokens_per_second) == pytest.approx(float(large[0].output_tokens_per_second),
                                                                     rel=1e-3)
    assert small[1].to_dict()["expert_parallel"] == 8 and small[0].to_dict()["expert_parallel"] == 1


def test_the_published_expert_parallel_recipe_is_closer_with_its_experts_split():
    """TensorRT-LLM's GLM-4.7 recipe at concurrency 4 to 32 (1k in, 1k out): each row predicted with the EP8 its
    source states is nearer its measurement than with every expert sliced."""
    rows = [r for r in csv.DictReader((REPO / "data" / "measurements" / "outside_decode.csv").open(encoding="utf-8"))
            if r["expert_parallel"] == "8" and r["output_tokens"] == "1024" and float(r["concurrency"]) <= 32]
    assert len(rows) == 4
    for r in rows:
        measured = float(r["measured_output_tok_s"])
        error = {ep: abs(math.log(float(model_predict.predict_decode(
            get_arch(r["model"]), get_gpu(r["gpu"]), float(r["num_gpus"]), float(r["concurrency"]),
            float(r["input_tokens"]), float(r["output_tokens"]), r["precision"], r["kv_precision"],
            expert_parallel=ep).output_tokens_per_second) / measured)) for ep in (1, 8)}
        assert error[8] < error[1], (r["case_id"], error)


@pytest.mark.parametrize("args,words", [
    (["--expert-parallel", "3"], "--expert-parallel (3) must divide --tensor-parallel (8)"),
    (["--expert-parallel", "1.5"], "--expert-parallel must be a whole number"),
    (["--expert-parallel", "0"], "--expert-parallel"),
    (["--expert-parallel", "nan"], "--expert-parallel"),
    (["--expert-parallel", "8", "--method", "exact"], "--expert-parallel: the busiest GPU's experts are timed by"),
    (["--model", "meta-llama/Llama-3.1-8B", "--expert-parallel", "8"], "Llama-3.1-8B is dense"),
])
def test_bad_expert_parallel_settings_are_one_line(args, words):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["predict", "decode", "--model", "zai-org/GLM-4.6", "--gpu", "H100", "--num-gpus", "8",
                     "--concurrency", "4", "--input-len", "1024", "--output-len", "1024", "--precision", "fp8", *args])
    assert code == 2 and out.getvalue() == "" and err.getvalue().count("\n") == 1 and words in err.getvalue(), \
        err.getvalue()


def test_the_text_says_the_experts_are_split():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["predict", "decode", "--model", "Qwen/Qwen3-30B-A3B", "--gpu", "H100", "--num-gpus", "2",
                     "--concurrency", "8", "--input-len", "512", "--output-len", "512", "--expert-parallel", "2"])
    assert code == 0 and "experts split whole over 2 GPUs" in out.getvalue()
    assert QWEN_MOE.is_moe
