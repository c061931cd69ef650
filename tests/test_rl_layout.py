"""Off-policy layouts of an RL step (model/rl_phases.py): with k >= 1 generation runs on its own share of the GPUs
beside the trainer (NeMo RL's async GRPO turns colocation off; its performance recipes give generation half the
nodes: data/assumptions/defaults.csv off_policy_rollout_share), unless the GPUs cannot be split so that each side
holds its part or taking turns on all of them is faster."""
import numpy as np
import pytest

from tinker_nomics.analysis import accuracy, calibration
from tinker_nomics.model import rl_phases
from tinker_nomics.sources.architectures import get_arch
from tinker_nomics.sources.calibration import parameters
from tinker_nomics.sources.defaults import number
from tinker_nomics.sources.hardware import gpu_specs

LLAMA = get_arch("meta-llama/Llama-3.1-8B")
H100 = gpu_specs("H100 SXM")


ROW = next(r for r in accuracy.rl_step_cases(usable_only=True) if r["case_id"] == "rl-02")
PROMPT = accuracy.case_prompt_tokens(ROW)             # derived from the row's own tokens/s/GPU definition
LONGEST = ROW["max_sequence_tokens"] - PROMPT          # 'T-max seq' less the prompt


def features(num_gpus, off_policy, samples=ROW["generation_samples"], response=ROW["generated_tokens"]):
    """NeMo RL v0.5's Llama-3.1-8B GRPO row rl-02 (data/measurements/rl_step_cases.csv: 2,048 samples, a mean
    response of 1,019 tokens, 16 H100s; its async recipe async-grpo-llama3.1-8b-instruct-2n8g.yaml generates on 1 of
    the 2 nodes)."""
    return rl_phases.rl_features(LLAMA, H100, num_gpus, samples, PROMPT, response, LONGEST,
                                 off_policy=off_policy, response_max_over_mean=parameters().response_max_over_mean)


def test_one_step_off_splits_the_gpus_as_the_recipes_do():
    f = features(16, 1)
    share = number("off_policy_rollout_share")
    assert share == 0.5                                  # NeMo RL recipes: 4 of 8 nodes, 32 of 64, 1 of 2
    assert bool(f.separate) and float(f.gpus_used) == 16
    assert float(f.trainer_gpus) == 16 * (1 - share)
    assert float(f.replicas * f.tensor_parallel) == 16 * share     # 8 one-GPU engines
    # the same step colocated sits beside it, for phase_seconds to keep the faster
    assert f.colocated is not None and not bool(f.colocated.separate) and float(f.colocated.trainer_gpus) == 16
    on = features(16, 0)
    assert on.colocated is None and not bool(on.separate)


def test_too_few_gpus_to_split_stay_colocated_and_take_turns():
    """Two H100s: the 8B model's trainer alone (weights, gradients, optimizer state × headroom) needs more than the
    one GPU a split leaves it, so the job stays colocated, and the phases add up whatever k is."""
    f = features(2, 1)
    assert not bool(f.separate) and f.colocated is None
    p = parameters()
    ph = rl_phases.phase_seconds(f, p)
    assert float(ph.step_seconds) == pytest.approx(float(ph.generation_seconds + ph.logprob_seconds
                                                         + ph.training_seconds + ph.refit_seconds + ph.other_seconds))


def test_the_faster_layout_is_kept_and_never_slower_than_on_policy():
    p = parameters()
    for response in (0.3 * ROW["generated_tokens"], ROW["generated_tokens"], 3.0 * ROW["generated_tokens"]):
        on = rl_phases.phase_seconds(features(16, 0, response=response), p)
        f = features(16, 1, response=response)
        off = rl_phases.phase_seconds(f, p)
        split = rl_phases._phase_seconds(f, p)
        together = rl_phases._phase_seconds(f.colocated, p)
        assert float(off.step_seconds) == pytest.approx(min(float(split.step_seconds), float(together.step_seconds)))
        assert float(off.step_seconds) <= float(on.step_seconds) * (1 + 1e-12)
        # the kept layout's features go with its times
        assert float(rl_phases.kept(f, off, "trainer_gpus")) == (16.0 if bool(off.colocated) else 8.0)


def test_an_engine_k_steps_ahead_fills_the_drain():
    """k steps off-policy the engine may start the next batches while the longest responses drain, and a response
    may span k steps: the decode steps per RL step fall to the work at the larger batch, not below R_max / k."""
    one, eight = features(16, 1), features(16, 8)
    assert float(eight.decode_steps) < float(one.decode_steps)
    assert float(eight.decode_steps) >= LONGEST / 8 - 1e-9
    assert float(one.decode_steps) >= LONGEST - 1e-9


def test_the_async_rows_are_predicted_no_faster_than_their_layout_allows():
    """Every measured k >= 1 case keeps a layout, and its predicted step is the longer of generation and the trainer
    where split (the refit and the rest after), the sum where colocated."""
    p = calibration.fit_all()
    checked = 0
    for case in calibration.rl_cases():
        if not np.any(case.actor.off_policy > 0):
            continue
        ph = rl_phases.phase_seconds(case.actor, p)
        trainer = ph.logprob_seconds + ph.training_seconds
        rest = ph.refit_seconds + ph.other_seconds
        expected = np.where(ph.separate, np.maximum(ph.generation_seconds, trainer), ph.generation_seconds + trainer)
        assert float(ph.step_seconds) == pytest.approx(float(expected + rest))
        checked += 1
    assert checked >= 9    # NeMo RL's 1-step-off and 8-step-off rows (data/measurements/rl_step_cases.csv)


def test_a_hybrid_whose_blocks_hold_one_mixer_all_reduces_once_per_block():
    """Nemotron-H's config.json (hybrid_override_pattern) gives each of its layers one mixer (Mamba-2, attention or
    experts), each ending in one row-parallel projection: one all-reduce per layer under tensor parallelism, where a
    transformer layer (attention, then the MLP) has two."""
    from tinker_nomics.model import decode
    nemotron = get_arch("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert decode.allreduces_per_step(nemotron) == nemotron.num_layers
    assert decode.allreduces_per_step(LLAMA) == 2 * LLAMA.num_layers
    b200 = gpu_specs("B200")
    two = decode.decode_features(nemotron, b200, 2, 8, 2048.0)
    assert float(two.allreduce_calls) == nemotron.num_layers
    assert float(decode.decode_features(nemotron, b200, 1, 8, 2048.0).allreduce_calls) == 0.0


@pytest.mark.parametrize("model, asked", [("openai/gpt-oss-20b", 1.0), ("openai/gpt-oss-20b", 2.0),
                                          ("Qwen/Qwen3-32B", 1.0), ("meta-llama/Llama-3.1-70B", 2.0)])
@pytest.mark.parametrize("off_policy", [0.0, 1.0])
def test_a_count_raised_to_the_smallest_that_fits_plans_as_if_asked_for(model, asked, off_policy):
    """Too few GPUs for the job: the step is figured on the smallest count that holds it, and that answer is the
    one asking for that count gives (it used to keep the engine planned for the count asked: gpt-oss-20b asked on 1
    H100 came out 100 s of generation on its 3 fitting GPUs, 123 s when asked on 3)."""
    arch, p = get_arch(model), parameters()

    def step(n):
        f = rl_phases.rl_features(arch, H100, n, 1024.0, 200.0, 1000.0, off_policy=off_policy,
                                  response_max_over_mean=p.response_max_over_mean)
        return f, rl_phases.phase_seconds(f, p)

    small, small_phases = step(asked)
    assert not bool(small.feasible)                                  # the case is one the count is raised for
    fitting, fitting_phases = step(float(small.fitting_gpus))
    assert float(small.gpus_used) == float(small.fitting_gpus) == float(fitting.gpus_used)
    for name in ("generation_seconds", "logprob_seconds", "training_seconds", "step_seconds"):
        assert float(getattr(small_phases, name)) == pytest.approx(float(getattr(fitting_phases, name)), rel=1e-12)
