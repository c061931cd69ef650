"""Logs of verl's early releases. verl's first releases (late 2024) log `timing/<name>` timers and no step timer;
the lines below are its quick-start's sample output (verl docs, start/quickstart: `step:0 - timing/gen:21.470 -
timing/ref:4.360 - timing/values:5.800 - … - timing/adv:0.109 - timing/update_critic:15.664 - … -
timing/update_actor:20.314 - …`, one line per step as the console logger prints it). Early-2025 releases (and
TinyZero's copy) log `timing_s/` with a step timer but no `old_log_prob` timer: generate_sequences recomputed the
old policy's log-probs inside the `gen` timer (fsdp_workers.py, `recompute_log_prob`). Qwen2.5-0.5B on one GPU is
the quick start's own run (trainer.n_gpus_per_node=1)."""
import contextlib
import io
import json

import pytest

from tinker_nomics.faces.cli import main
from tinker_nomics.model import predict as model_predict
from tinker_nomics.runs.detect import read_hosted
from tinker_nomics.sources import get_arch, get_gpu

QUICKSTART = {"timing/gen": 21.470, "timing/ref": 4.360, "timing/values": 5.800, "timing/adv": 0.109,
              "timing/update_critic": 15.664, "timing/update_actor": 20.314}
DATA = ("actor/pg_loss:-0.005 - critic/score/mean:0.004 - response_length/mean:239.133 - "
        "response_length/max:256.000 - prompt_length/mean:104.883 - prompt_length/max:175.000")


def _line(step, timers, data=DATA):
    return f"step:{step} - " + " - ".join(f"{k}:{v:.3f}" if isinstance(v, float) else f"{k}:{v}"
                                          for k, v in timers.items()) + " - " + data


def _validate(path, *extra):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["validate", str(path), "--model", "Qwen/Qwen2.5-0.5B", "--gpu", "H100", "--num-gpus", "1",
                     "--prompts-per-step", "256", "--group-size", "1", *extra])
    return code, out.getvalue(), err.getvalue()


def test_a_first_release_log_is_read_with_its_step_the_sum_of_its_timers(tmp_path):
    log = tmp_path / "verl_demo.log"
    log.write_text("\n".join(_line(s, QUICKSTART) for s in range(3)) + "\n")
    run = read_hosted(log)
    assert len(run.steps) == 3 and list(run.steps["step"]) == [0, 1, 2]
    assert run.steps["step_seconds"].iloc[0] == pytest.approx(sum(QUICKSTART.values()), abs=1e-9)
    assert run.steps["generation_seconds"].iloc[0] == QUICKSTART["timing/gen"]
    assert run.steps["training_seconds"].iloc[0] == QUICKSTART["timing/update_actor"]
    assert run.steps["phase/ref"].iloc[0] == QUICKSTART["timing/ref"]
    assert any("first releases log no step timer" in n for n in run.notes)
    code, out, err = _validate(log, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["measured"]["basis"]["step_seconds"].startswith("the sum of the step's timing/ timers")
    assert data["measured"]["basis"]["generation_seconds"] == "timing/gen"


def test_a_bad_timer_is_named_not_a_dropped_step(tmp_path):
    log = tmp_path / "verl_demo.log"
    bad = {**QUICKSTART, "timing/ref": "abc"}
    log.write_text(_line(0, QUICKSTART) + "\n" + _line(1, bad) + "\n")
    code, out, err = _validate(log)
    assert code == 2 and out == "" and err.count("\n") == 1 and "timing/ref" in err and "line 2" in err, err
    negative = {**QUICKSTART, "timing/values": -5.8}
    log.write_text(_line(0, QUICKSTART) + "\n" + _line(1, negative) + "\n")
    code, out, err = _validate(log)
    assert code == 2 and "timing/values" in err, err


def _early_2025(tmp_path, old_log_prob: bool):
    timers = {"timing_s/gen": 21.470, **({"timing_s/old_log_prob": 3.9} if old_log_prob else {}),
              "timing_s/ref": 4.360, "timing_s/adv": 0.109, "timing_s/update_actor": 20.314}
    timers["timing_s/step"] = round(sum(timers.values()), 3)
    log = tmp_path / ("with.log" if old_log_prob else "without.log")
    log.write_text("\n".join(_line(s, timers) for s in range(1, 4)) + "\n")
    code, out, err = _validate(log, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    return {r["phase"]: r["predicted_seconds_mean"] for r in data["predicted"]["by_method"]
            if r["method"] == "calibrated"}, data


def test_a_log_without_an_old_log_prob_timer_has_that_pass_in_its_generation(tmp_path):
    timed, later = _early_2025(tmp_path, old_log_prob=True)
    assert not any("inside generate_sequences" in n for n in later["notes"])
    inside, data = _early_2025(tmp_path, old_log_prob=False)
    moved = timed["logprob"] - inside["logprob"]
    # the old policy's pass moves from the log-probs to the generation; the step is the same
    assert inside["generation"] - timed["generation"] == pytest.approx(moved, rel=1e-9)
    assert inside["step"] == pytest.approx(timed["step"], rel=1e-12)
    # the old policy's pass and the reference's are one forward pass each over the same tokens
    assert moved == pytest.approx(inside["logprob"], rel=0.05)
    assert any("recomputed the old policy's log-probs inside generate_sequences" in n for n in data["notes"])


def test_a_small_model_trains_on_one_gpu():
    """The quick start's run: a 0.5B model's RL step on one GPU is predicted on that GPU, not the seed's floor of
    two (which `--method seed` keeps)."""
    arch, gpu = get_arch("Qwen/Qwen2.5-0.5B"), get_gpu("H100 SXM")
    step = model_predict.predict_rl_step(arch, gpu, 1, 256, 105, 239)
    assert bool(step.feasible) and float(step.fitting_gpus) == 1
    seed = model_predict.predict_rl_step(arch, gpu, 1, 256, 105, 239, method="seed")
    assert not bool(seed.feasible) and float(seed.fitting_gpus) == 2
