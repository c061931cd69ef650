"""Invariants of the cost model, checked on random scenarios (hypothesis).

Profiles: `fast` (default, CI) and `thorough` (make test-deep: HYPOTHESIS_PROFILE=thorough).
"""
import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinker_nomics import Scenario, estimate

settings.register_profile("fast", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

MODELS = ["Qwen3-8B", "Qwen3-4B-Instruct-2507", "Qwen3-30B-A3B", "Qwen3-32B", "Llama-3.1-70B", "DeepSeek-V3.1",
          "Kimi-K2-Thinking", "GPT-OSS-20B"]
GPUS = ["H100 SXM", "H200 SXM", "B200", "A100 80GB SXM", "L40S"]

scenarios = st.fixed_dictionaries({
    "model": st.sampled_from(MODELS),
    "prompts_per_step": st.integers(1, 512),
    "group_size": st.integers(1, 64),
    "steps": st.integers(1, 1000),
    "completion_tokens": st.integers(1, 32768),
    "prompt_tokens": st.integers(0, 16384),
    "length_growth": st.floats(0.5, 3.0),
    "substeps": st.integers(1, 4),
    "turns": st.sampled_from([1, 1, 2, 10, 30]),
    "output_per_turn": st.integers(1, 4096),
    "observation_per_turn": st.integers(0, 4096),
    "cache_hit_rate": st.floats(0.0, 1.0),
    "off_policy": st.integers(0, 8),
    "gpu": st.sampled_from(GPUS),
    "num_gpus": st.integers(1, 256),
    "rollout_efficiency": st.floats(0.05, 1.0),
    "mfu": st.floats(0.01, 1.0),
    "sandbox": st.sampled_from(["none", "modal", "sandboxfusion"]),
    "sandbox_seconds_per_rollout": st.floats(0, 3600),
    "method": st.sampled_from(["seed", "exact"]),
    "prices": st.just("2026-01-05"),
})


def totals(fields):
    est = estimate(Scenario(**fields))
    return float(est.tinker.total_usd), float(est.self_hosted.total_usd), est


@given(scenarios)
def test_costs_are_finite_and_non_negative(fields):
    tinker, hosted, est = totals(fields)
    for value in (tinker, hosted, float(est.self_hosted.wallclock_hours), float(est.tokens.prefill)):
        assert np.isfinite(value) and value >= 0
    assert est.self_hosted.min_gpus >= 2


@given(scenarios, st.sampled_from(["prompts_per_step", "group_size", "completion_tokens", "steps",
                                   "prompt_tokens"]), st.floats(1.0, 4.0))
def test_costs_do_not_fall_when_the_run_grows(fields, name, factor):
    before_t, before_h, _ = totals(fields)
    after_t, after_h, _ = totals({**fields, name: fields[name] * factor})
    assert after_t >= before_t * (1 - 1e-9)
    assert after_h >= before_h * (1 - 1e-9)


@given(scenarios, st.integers(2, 5))
def test_linear_in_steps(fields, factor):
    _, _, one = totals(fields)
    _, _, more = totals({**fields, "steps": fields["steps"] * factor})
    assert float(more.tinker.tokens_usd + more.tinker.sandbox_usd) == \
        __import__("pytest").approx(factor * float(one.tinker.tokens_usd + one.tinker.sandbox_usd), rel=1e-9)
    assert float(more.self_hosted.total_usd) == __import__("pytest").approx(
        factor * float(one.self_hosted.total_usd), rel=1e-9)


@given(scenarios, st.integers(0, 8), st.sampled_from(GPUS), st.integers(1, 256))
def test_tinker_ignores_off_policy_and_hardware(fields, k, gpu, num_gpus):
    base, _, _ = totals(fields)
    other, _, _ = totals({**fields, "off_policy": k, "gpu": gpu, "num_gpus": num_gpus})
    assert other == base


@given(scenarios)
def test_overlap_is_max_and_sync_is_sum(fields):
    sync = estimate(Scenario(**{**fields, "off_policy": 0})).self_hosted
    overlapped = estimate(Scenario(**{**fields, "off_policy": 1})).self_hosted
    assert float(sync.wallclock_hours) == __import__("pytest").approx(float(sync.rollout_hours + sync.train_hours))
    assert float(overlapped.wallclock_hours) == __import__("pytest").approx(
        max(float(overlapped.rollout_hours), float(overlapped.train_hours)))


@given(scenarios, st.sampled_from(["2026-07-17", "2026-09-10", "2026-10-07"]))
def test_cached_prefill_is_never_dearer(fields, snapshot):
    fields = {**fields, "model": "Qwen3-8B", "prices": snapshot}
    plain, _, _ = totals(fields)
    cached, _, _ = totals({**fields, "tinker_cached_prefill": True})
    assert cached <= plain + 1e-9


@given(scenarios)
def test_vectorized_equals_scalar(fields):
    """An array of scenarios gives element-wise what the scalar calls give."""
    values = [fields["prompts_per_step"], fields["prompts_per_step"] + 7, 3]
    vector = estimate(Scenario(**{**fields, "prompts_per_step": np.array(values)}))
    for i, b in enumerate(values):
        scalar = estimate(Scenario(**{**fields, "prompts_per_step": b}))
        assert float(vector.tinker.total_usd[i]) == __import__("pytest").approx(float(scalar.tinker.total_usd))
        assert float(vector.self_hosted.total_usd[i]) == __import__("pytest").approx(
            float(scalar.self_hosted.total_usd))


@given(scenarios, st.sampled_from(["seed", "exact", "calibrated"]))
def test_the_self_hosted_side_does_not_depend_on_the_tinker_side(fields, method):
    """Qwen2.5-7B (no Tinker price in any list) and Qwen3-8B (priced) given Qwen2.5-7B's config.json: the same
    self-hosted side and token streams, the Tinker side absent for one and billed for the other."""
    from tinker_nomics.model import finite
    from tinker_nomics.sources.tables import data_dir
    config = str(data_dir() / "models" / "configs" / "Qwen--Qwen2.5-7B.json")
    fields = {**fields, "method": method, "prices": "2026-10-07"}
    alone = estimate(Scenario(**{**fields, "model": "Qwen2.5-7B"}))
    priced = estimate(Scenario(**{**fields, "model": "Qwen3-8B", "model_config": config}))
    assert alone.tinker_not_offered and priced.tinker_not_offered is None
    ours, theirs = finite.numbers(alone), finite.numbers(priced)
    for name in ours:
        if not name.startswith("tinker."):
            assert np.array_equal(np.asarray(ours[name]), np.asarray(theirs[name]), equal_nan=True), name
    assert np.isnan(float(alone.tinker.total_usd)) and np.isfinite(float(priced.tinker.total_usd))
