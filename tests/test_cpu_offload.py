"""CPU offload in an RL step (verl's actor fsdp_config.param_offload and optimizer_offload): each GPU's shard of the
trainer's FP32 weights goes to host memory and back around every call that uses it (the old policy's log-prob pass,
the update, the hand-off to the rollout engine; verl/workers/fsdp_workers.py), Adam's two FP32 moments around the
update, over the GPU's host link at the rate pageable copies reach.

Expected values come from the sources: the A100 datasheet's 'PCIe Gen4: 64GB/s' (32 GB/s each way,
data/hardware/host_links.csv), NVIDIA bandwidthTest's pageable copies on a DGX A100 (10.0 GB/s to the GPU, 10.8 back;
data/hardware/host_copy_rates.csv), Qwen2.5-32B's parameter count from its config.json."""
import copy

import numpy as np
import pytest

import hosted_shapes as hs
from tinker_nomics import TinkerNomicsError
from tinker_nomics.model import predict as model_predict
from tinker_nomics.model.rl_step import rl_steps
from tinker_nomics.runs.ledger import check_run
from tinker_nomics.runs.reconcile import run_facts
from tinker_nomics.sources import get_arch, get_gpu
from tinker_nomics.sources.hardware import host_copy_shares, host_links

A100 = "A100 80GB SXM"


def _step(facts, model="Qwen/Qwen2.5-32B", gpu=A100, fine_tune="full"):
    return rl_steps(arch=get_arch(model), gpu=get_gpu(gpu), num_gpus=8, samples=512.0, prompt_tokens=300.0,
                    response_tokens=1000.0, method="calibrated", fine_tune=fine_tune, run_facts=facts)


def test_the_registries_hold_the_sourced_figures():
    assert host_links()[A100] == 32e9                       # datasheet: PCIe Gen4 64 GB/s both ways
    shares = host_copy_shares()
    assert 0 < shares["pageable"] < shares["pinned"] <= 1   # pageable memory is staged through a pinned buffer
    # the published pageable copies: bandwidthTest on a DGX A100 (10.0 GB/s to the GPU, 10.8 back) and on a Dell
    # PCIe A100 (3.3, 8.5), each over a 32 GB/s Gen4 link; the share is their median
    assert shares["pageable"] == pytest.approx(np.median([10.0, 10.8, 3.3, 8.5]) / 32)


def test_each_call_moves_the_shard_there_and_back():
    arch = get_arch("Qwen/Qwen2.5-32B")
    rate = host_links()[A100] * host_copy_shares()["pageable"]
    shard = arch.total_params / 8                            # FSDP: each of 8 GPUs holds 1/8 of the weights
    weights_trip = 2 * 4 * shard / rate                      # FP32 there and back
    moments_trip = 2 * 8 * shard / rate                      # exp_avg and exp_avg_sq, FP32
    plain, params, both = _step({}), _step({"param_offload": True}), \
        _step({"param_offload": True, "optimizer_offload": True})
    assert float(params.logprob_hours - plain.logprob_hours) * 3600 == pytest.approx(weights_trip, rel=1e-9)
    assert float(params.train_hours - plain.train_hours) * 3600 == pytest.approx(weights_trip, rel=1e-9)
    assert float(params.refit_hours - plain.refit_hours) * 3600 == pytest.approx(weights_trip, rel=1e-9)
    assert float(both.train_hours - params.train_hours) * 3600 == pytest.approx(moments_trip, rel=1e-9)
    assert float(both.rollout_hours) == float(plain.rollout_hours)   # the engine decodes as before
    # with LoRA the reference is the actor without its adapter: a second log-prob call, a second trip
    lora, lora_off = _step({}, fine_tune="lora"), _step({"param_offload": True}, fine_tune="lora")
    assert float(lora_off.logprob_hours - lora.logprob_hours) * 3600 == pytest.approx(2 * weights_trip, rel=1e-9)


def test_a_verl_log_that_offloads_is_priced_and_said(tmp_path):
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["actor"]["fsdp_config"] = {"param_offload": True, "optimizer_offload": True}
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025", config=config), gpu="H100 SXM")
    facts, _ = run_facts(v.run, v.run.steps)
    assert facts["param_offload"] and facts["optimizer_offload"]
    plain = check_run(hs.write_verl_console(tmp_path / "p.log", "2025"), gpu="H100 SXM")
    assert v.reconciliation.predicted_mean("step") > plain.reconciliation.predicted_mean("step")
    assert any("offloads to host memory" in n and "64 GB/s" in n for n in v.reconciliation.notes)


def test_fsdp2_offload_policy_is_priced_and_said(tmp_path):
    """verl turns its own offload off under FSDP2's CPUOffloadPolicy (fsdp_workers: _is_offload_param = False): the
    actor lives in host memory and its optimizer steps on the CPU, which the prediction prices and the caveat says."""
    config = copy.deepcopy(hs.CONFIG)
    config["actor_rollout_ref"]["actor"]["strategy"] = "fsdp2"
    config["actor_rollout_ref"]["actor"]["fsdp_config"] = {"param_offload": True, "offload_policy": True}
    v = check_run(hs.write_verl_console(tmp_path / "c.log", "2025", config=config), gpu="H100 SXM")
    facts, _ = run_facts(v.run, v.run.steps)
    assert "param_offload" not in facts and facts["cpu_optimizer"] is True
    plain = check_run(hs.write_verl_console(tmp_path / "p.log", "2025"), gpu="H100 SXM")
    assert v.reconciliation.predicted_mean("step") > plain.reconciliation.predicted_mean("step")
    assert any("CPUOffloadPolicy" in c and "cpu_adam.csv" in c for c in v.caveats)


def test_the_policy_streams_the_shard_every_micro_batch_and_steps_adam_on_the_cpu():
    # 512 samples on 8 GPUs in micro-batches of 8: 8 micro-batches a pass per GPU, 4 optimizer steps (the default);
    # each GPU's FP32 shard crosses the A100's 32 GB/s link at the pinned share: once a micro-batch of the old
    # policy's pass, twice there and its gradient back in the update, once for the hand-off; Adam steps over the
    # shard at the published one-thread CPU rate (ISEEKYAN/Megatron-LM#188: 1.93 s and 1.81 s for 536,870,912
    # elements with one and two threads; data/measurements/cpu_adam.csv)
    arch = get_arch("Qwen/Qwen2.5-32B")
    rate = host_links()[A100] * host_copy_shares()["pinned"]
    shard = arch.total_params / 8
    adam = np.median([1.93 / 536870912, 1.81 / 536870912])
    plain = _step({"micro_batch_samples": 8.0})
    policy = _step({"micro_batch_samples": 8.0, "cpu_optimizer": True})
    assert float(policy.logprob_hours - plain.logprob_hours) * 3600 == pytest.approx(8 * 4 * shard / rate, rel=1e-9)
    assert float(policy.train_hours - plain.train_hours) * 3600 == pytest.approx(
        8 * 12 * shard / rate + 4 * shard * adam, rel=1e-9)
    assert float(policy.refit_hours - plain.refit_hours) * 3600 == pytest.approx(4 * shard / rate, rel=1e-9)


def test_predict_takes_the_policy_and_refuses_it_beside_verls_own_offload():
    arch, gpu = get_arch("Qwen/Qwen2.5-7B"), get_gpu(A100)
    plain = model_predict.predict_rl_step(arch, gpu, 8, 512, 300, 1000)
    policy = model_predict.predict_rl_step(arch, gpu, 8, 512, 300, 1000, offload_policy=True)
    assert float(policy.training_seconds) > float(plain.training_seconds)
    with pytest.raises(TinkerNomicsError, match="give one or the other"):
        model_predict.predict_rl_step(arch, gpu, 8, 512, 300, 1000, offload_policy=True, param_offload=True)
    with pytest.raises(TinkerNomicsError, match="H20 has no host link"):
        model_predict.predict_rl_step(arch, get_gpu("H20"), 8, 512, 300, 1000, offload_policy=True)


def test_a_gpu_without_a_sourced_host_link_cannot_time_offload():
    assert "H20" not in host_links()
    with pytest.raises(TinkerNomicsError, match="H20 has no host link"):
        model_predict.predict_rl_step(get_arch("Qwen/Qwen2.5-7B"), get_gpu("H20"), 8, 512, 300, 1000,
                                      param_offload=True)
    with pytest.raises(TinkerNomicsError, match="param_offload must be True or False"):
        model_predict.predict_rl_step(get_arch("Qwen/Qwen2.5-7B"), get_gpu(A100), 8, 512, 300, 1000,
                                      param_offload="yes")


def test_predict_says_it_timed_the_policy():
    import contextlib
    import io
    import json

    from tinker_nomics.faces.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["predict", "rl-step", "--model", "Qwen2.5-7B", "--gpu", A100, "--num-gpus", "8", "--samples",
                     "256", "--prompt-len", "256", "--response-len", "512", "--offload-policy", "--format", "json"])
    assert code == 0 and any("CPUOffloadPolicy" in n and "cpu_adam.csv" in n for n in json.loads(out.getvalue())["notes"])
