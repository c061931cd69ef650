"""The rollout engine's size where a run does not give it (rl_phases._engine_size): from the smallest tensor
parallelism that holds the model, doubled while each GPU's KV cache is smaller than its weights and the engine
cannot hold its share of the step's sequences (vLLM's own advice, docs 'Optimization and Tuning': 'Increase
tensor_parallel_size. This shards model weights across GPUs, allowing each GPU to have more memory available for KV
cache'). Checked against the model itself: the size the rule picks is within a few percent of the fastest size the
model finds when every power of two is asked for (`--rollout-tensor-parallel`), where the smallest size that fits
was up to 1.8× slower for a mixture of experts with long responses."""
import pytest

from tinker_nomics.model import predict as model_predict
from tinker_nomics.sources import get_arch, get_gpu

H100 = get_gpu("H100 SXM")


def _generation(model, gpus, samples, prompt, response, fraction, tp=None, response_max=None):
    out = model_predict.predict_rl_step(get_arch(model), H100, gpus, samples, prompt, response,
                                        response_max_tokens=response_max, rollout_memory_fraction=fraction,
                                        rollout_tensor_parallel=tp)
    return float(out.generation_seconds)


@pytest.mark.parametrize("model,gpus,samples,prompt,response,response_max,fraction", [
    ("Qwen/Qwen3-30B-A3B", 16, 1536, 200, 6000, 20000, 0.5),
    ("Qwen/Qwen3-30B-A3B", 16, 1536, 200, 6000, 20000, 0.8),
    ("Qwen/Qwen3-32B", 8, 1024, 300, 3000, None, 0.5),
    ("Qwen/Qwen3-8B", 8, 1024, 300, 3000, None, 0.5),
])
def test_the_default_engine_is_about_as_fast_as_the_fastest_size(model, gpus, samples, prompt, response,
                                                                  response_max, fraction):
    chosen = _generation(model, gpus, samples, prompt, response, fraction, response_max=response_max)
    sizes = [tp for tp in (1, 2, 4, 8, 16) if tp <= gpus]
    fastest = min(_generation(model, gpus, samples, prompt, response, fraction, tp, response_max) for tp in sizes)
    assert chosen <= 1.10 * fastest


def test_a_small_step_keeps_the_smallest_engine():
    """Sixty-four short rollouts of an 8B model fit a one-GPU engine's cache: no larger engine is taken."""
    arch = get_arch("Qwen/Qwen3-8B")
    out = model_predict.predict_rl_step(arch, H100, 8, 64, 200, 500)
    one = model_predict.predict_rl_step(arch, H100, 8, 64, 200, 500, rollout_tensor_parallel=1)
    assert float(out.generation_seconds) == pytest.approx(float(one.generation_seconds), rel=1e-12)
