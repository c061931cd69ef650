"""Fuzzing the self-hosted readers (verl and its asynchronous recipes, EasyR1, TRL, OpenRLHF; W&B run files) and the usage-export reader: whatever bytes they are given, the only
outcomes are a result whose JSON is strict (no NaN or Infinity) or one TinkerNomicsError line. Inputs are the valid
logs of tests/hosted_shapes.py (and tests/test_openrlhf.py's run) damaged the ways real files get damaged (tests/fuzz_damage.py), plus verl step lines
built from random items.
"""
import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hosted_shapes as hs
import test_easyr1 as easy
import test_openrlhf as orl
import test_skyrl as sky
import test_verl_async as verl_async
import test_trl_profiling as trl_profiling
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
    "verl-dapo.log": ("c.log", _bytes_of(hs.write_verl_dapo_console, "c.log")),
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
    "trl-profiled.csv": ("trl-p.csv", _bytes_of(lambda p: hs.write_table(p, trl_profiling.profiled_rows(), "csv"),
                                                "trl-p.csv")),
    "openrlhf.log": ("train.log", orl.console().encode()),
    "openrlhf-history.csv": ("orl.csv", _bytes_of(lambda p: orl.write(p, orl.wandb_rows()), "orl.csv")),
    "openrlhf-launched.log": ("train.log", (orl.namespace_line() + "\n" + orl.console()).encode()),
    "skyrl-history.csv": ("sky.csv", _bytes_of(lambda p: hs.write_table(p, sky.rows(), "csv"), "sky.csv")),
    "skyrl.log": ("train.log", _bytes_of(lambda p: sky.write_console(p, "(skyrl_entrypoint pid=7) "), "train.log")),
    "verl.wandb": ("run.wandb", (Path(__file__).parent / "wandb_runs" / "verl" / "run.wandb").read_bytes()),
    "openrlhf.wandb": ("run.wandb", (Path(__file__).parent / "wandb_runs" / "openrlhf" / "run.wandb").read_bytes()),
    "easyr1.log": ("train.log", _bytes_of(easy.write_console, "train.log")),
    "easyr1-experiment_log.jsonl": ("experiment_log.jsonl", "\n".join(
        json.dumps({"step": i + 1, **easy.nested(easy.metrics(i))}) for i in range(4)).encode() + b"\n"),
    "verl-one-step-off.log": ("c.log", _bytes_of(lambda p: verl_async.one_step_console(p.parent), "one_step.log")),
    "verl-fully-async.jsonl": ("fully.jsonl", "".join(json.dumps(r) + "\n"
                                                      for r in verl_async.fully_async_records()).encode()),
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
    elif not (file_name.startswith("trainer") or file_name.startswith("trl") or file_name.startswith("orl")
              or file_name.startswith("sky")):
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


# ------------------------------------------------------------------------------------ issue 22

NAMES = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n"), min_size=1,
                max_size=16).filter(lambda t: t.strip() == t)
HOSTILE = st.one_of(NAMES, st.sampled_from(["<img src=x onerror=alert(1)>", "{/data/train.parquet", "it's \"q\"",
                                            "a\\b", "}{][)(", "'''", "np.float64(1)"]))


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE, HOSTILE, st.integers(1, 4), st.integers(1, 4))
def test_appended_verl_console_logs_are_one_run_only_when_their_configs_agree(model_a, model_b, nodes_a, nodes_b):
    """Issue 22 items 1 and 8: any text in the config's strings (braces, quotes, escapes) reads the dump and every
    step; two dumps that differ in model or GPU count are two runs, refused naming the line the second starts; the
    same config printed again is one run restarted."""
    from test_reliability_round3 import _config, write_console
    first = _config(**{"actor_rollout_ref.model.path": model_a, "trainer.nnodes": nodes_a,
                       "data.train_files": model_b})
    second = _config(**{"actor_rollout_ref.model.path": model_b, "trainer.nnodes": nodes_b})
    with tempfile.TemporaryDirectory() as tmp:
        path = write_console(Path(tmp) / "verl.log", 6, (1, first), (4, second))
        try:
            result = check_run(path, gpu="H100 SXM")
        except TinkerNomicsError as exc:
            assert "\n" not in str(exc)
            assert (model_a, nodes_a) != (model_b, nodes_b) and "a second run starts" in str(exc), str(exc)
            return
        assert (model_a, nodes_a) == (model_b, nodes_b)
        assert result.measured.totals["steps"] == 6 and result.run.config["num_gpus"] == 4 * nodes_a
        assert any("printed again" in c for c in result.caveats)
        json.dumps(result.to_dict(), allow_nan=False)


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["csv", "records", "parquet", "jsonl"]), st.lists(NAMES, min_size=2, max_size=3, unique=True),
       st.sampled_from(["verl", "TRL"]))
def test_a_self_hosted_table_of_several_runs_is_refused_or_picked(layout, names, framework):
    """Issue 22 item 8 in every self-hosted table reader: rows of several runs (a run-name column) are refused as
    mixed, --run picks one, an unknown --run names the runs present."""
    rows = hs.verl_wandb_rows() if framework == "verl" else hs.trl_wandb_rows()
    mixed = [{**r, "name": n} for n in names for r in rows]
    options = {"gpu": "H100 SXM"} if framework == "verl" else {"gpu": "H100 SXM", "prompts_per_step": 4,
                                                                  "group_size": 8}
    with tempfile.TemporaryDirectory() as tmp:
        if layout == "jsonl":
            path = Path(tmp) / "h.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in mixed))
        else:
            path = hs.write_table(Path(tmp) / {"csv": "h.csv", "records": "h.json", "parquet": "h.parquet"}[layout],
                                  mixed, layout)
        for run, outcome in ((None, "mixed runs"), (names[0] + "\u00a7", "no run named"), (names[-1], None)):
            try:
                result = check_run(path, run=run, **options)
            except TinkerNomicsError as exc:
                assert outcome is not None and outcome in str(exc) and "\n" not in str(exc), (run, str(exc))
                continue
            assert outcome is None, (run, "read as one run")
            assert result.measured.totals["steps"] == (4 if framework == "verl" else hs.TRL_EXPECTED["steps"])


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE, HOSTILE)
def test_hostile_names_from_a_verl_log_reach_the_report_page_only_as_text(model, experiment):
    """Issue 22 item 2: a model path and an experiment name from verl's config dump, in report.html (the chapter's
    own escaping is tested on the executed notebook in tests/test_report_html.py)."""
    from test_reliability_round3 import _config, write_console
    from test_report_html import assert_inert
    from tinker_nomics.analysis.run_report import report_page
    from tinker_nomics.faces.report_html import report_html
    config = _config(**{"actor_rollout_ref.model.path": model, "trainer.experiment_name": experiment})
    with tempfile.TemporaryDirectory() as tmp:
        result = check_run(write_console(Path(tmp) / "verl.log", 4, (1, config)), gpu="H100 SXM")
        page = report_html(report_page(result), result.render(), {})
        assert_inert(page)
        assert "<script" not in page and "<img" not in page
