"""Fuzzing the self-hosted readers (verl, TRL) and the usage-export reader: whatever bytes they are given, the only
outcomes are a result whose JSON is strict (no NaN or Infinity) or one TinkerNomicsError line. Inputs are the valid
logs of tests/hosted_shapes.py damaged the ways real files get damaged (tests/fuzz_damage.py), plus verl step lines
built from random items.
"""
import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hosted_shapes as hs
from fuzz_damage import ODD_VALUES, damage
from tinker_nomics import TinkerNomicsError
from tinker_nomics.runs.ledger import check_run


def _bytes_of(writer, name: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        return Path(writer(Path(tmp) / name)).read_bytes()


def _state_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        folder = hs.write_trainer_state(Path(tmp) / "out")
        return (folder / "checkpoint-6" / "trainer_state.json").read_bytes()


SOURCES = {  # name -> (file name, valid bytes)
    "verl-2025.log": ("c.log", _bytes_of(lambda p: hs.write_verl_console(p, "2025"), "c.log")),
    "verl-2026.log": ("c.log", _bytes_of(lambda p: hs.write_verl_console(p, "2026"), "c.log")),
    "verl.jsonl": ("verl.jsonl", _bytes_of(lambda p: hs.write_verl_jsonl(p), "verl.jsonl")),
    "verl-history.csv": ("h.csv", _bytes_of(lambda p: hs.write_table(p, hs.verl_wandb_rows(), "csv"), "h.csv")),
    "verl-history.json": ("h.json", _bytes_of(lambda p: hs.write_table(p, hs.verl_wandb_rows(), "records"),
                                              "h.json")),
    "verl-history.parquet": ("h.parquet", _bytes_of(lambda p: hs.write_table(p, hs.verl_wandb_rows(), "parquet"),
                                                    "h.parquet")),
    "verl-chart.csv": ("chart.csv", _bytes_of(lambda p: hs.write_chart_csv(p, {"a": hs.verl_wandb_rows()}),
                                              "chart.csv")),
    "trainer_state.json": ("trainer_state.json", _state_bytes()),
    "trl-history.csv": ("trl.csv", _bytes_of(lambda p: hs.write_table(p, hs.trl_wandb_rows(), "csv"), "trl.csv")),
    "usage.csv": ("usage.csv", _bytes_of(hs.write_usage_csv, "usage.csv")),
    "usage.json": ("usage.json", _bytes_of(hs.write_usage_json, "usage.json")),
}
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "150"))


def _outcome(data: bytes, name: str, **options) -> None:
    """Check the bytes as `validate` would; only a strict-JSON result or one error line is acceptable."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            result = check_run(path, **options)
        except TinkerNomicsError as exc:
            assert "\n" not in str(exc)
            return
        json.dumps(result.to_dict(), allow_nan=False)
        assert result.render()


@st.composite
def damaged(draw):
    name = draw(st.sampled_from(sorted(SOURCES)))
    file_name, data = SOURCES[name]
    return file_name, damage(draw, data, Path(file_name).suffix)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(), st.sampled_from([{}, {"gpu": "H100 SXM", "num_gpus": 8, "prompts_per_step": 4, "group_size": 8}]))
def test_damaged_self_hosted_logs_give_a_result_or_one_error_line(case, options):
    file_name, data = case
    if file_name.startswith("usage"):
        options = {}
    elif not (file_name.startswith("trainer") or file_name.startswith("trl")):
        options = {k: v for k, v in options.items() if k not in ("prompts_per_step",)}
    _outcome(data, file_name, **options)


KEYS = ["timing_s/step", "timing_s/gen", "timing_s/update_actor", "timing_s/testing", "timing_s/save_checkpoint",
        "response_length/mean", "prompt_length/mean", "perf/total_num_tokens", "perf/mfu/actor", "critic/score/mean",
        "timing_s/ref", "val-core/x/reward/mean@1", "step"]
VALUE_TEXT = st.one_of(st.integers(-5, 10**7).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                       ODD_VALUES.map(str), st.sampled_from(["np.float64(3.5)", "np.int64(7)", "True", "-0.000"]))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(-2, 10**13), st.lists(st.tuples(st.sampled_from(KEYS), VALUE_TEXT),
                                                              max_size=10)), min_size=1, max_size=6))
def test_random_verl_step_lines_give_a_result_or_one_error_line(lines):
    text = "\n".join(" - ".join([f"step:{step}"] + [f"{k}:{v}" for k, v in items]) for step, items in lines)
    _outcome((text + "\n").encode(), "random.log", gpu="H100 SXM", num_gpus=8, model="Qwen3-8B")
