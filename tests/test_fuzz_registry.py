"""Fuzzing the registry loaders: a corrupted data file gives a result or a one-line TinkerNomicsError,
never another exception (a traceback) and never a silently wrong number of the wrong type. A result keeps the
price invariants of issue 11 (defect 9): every model a listing calls priced has all three meters, and every
estimate and listing is finite, strict JSON."""
import contextlib
import io
import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinker_nomics import Scenario, TinkerNomicsError, estimate, sources as registry
from tinker_nomics.sources import literature
from tinker_nomics.model import lora
from tinker_nomics.sources import prices as prices_module
from tinker_nomics.faces.cli import main
from tinker_nomics.sources.price_list import price_rows
from tinker_nomics.sources.workloads import workloads

DATA = Path(registry.data_dir())
TABLES = sorted(p.relative_to(DATA) for p in DATA.rglob("*.csv") if "measurements" not in p.parts)


def exercise():
    """Load every registry and compute one estimate per method."""
    registry.gpus(), registry.gpu_prices(), registry.sandbox_rates(), registry.models(), registry.assumptions()
    prices_module.snapshots(), prices_module.storage_usd_per_gb_month("2026-01-05")
    literature.claims(), literature.seed_experiments(), lora.cookbook_lora_table(), workloads()
    for method in ("seed", "exact"):
        est = estimate(Scenario.from_workload("swe_rl", method=method))
        float(est.tinker.total_usd), float(est.self_hosted.total_usd)
        json.dumps(est.to_dict(), allow_nan=False)
    for r in price_rows():   # defect 9: a listing that calls a model priced prices all three meters
        if r.status == "primary" and r.snapshot in prices_module.snapshots():
            assert prices_module.get_price(r.model, r.snapshot).complete, r
    for args in (["prices", "--format", "json"], ["models", "--format", "json"]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
        if code == 2:   # the CLI's one-line refusal (e.g. provenance reading a corrupted date): pass it on as one
            assert err.getvalue().count("\n") == 1, err.getvalue()
            raise TinkerNomicsError(err.getvalue().strip())
        assert code == 0, err.getvalue()
        json.loads(out.getvalue(), parse_constant=lambda c: (_ for _ in ()).throw(AssertionError(c)))


def corrupt(text: str, rng: random.Random, how: str) -> str:
    lines = text.splitlines(keepends=True)
    if how == "truncate":
        return text[: rng.randrange(0, len(text) + 1)]
    if how == "bytes":
        chars = list(text)
        for _ in range(rng.randint(1, 8)):
            chars[rng.randrange(len(chars))] = rng.choice(['"', ",", "\n", "\x00", "é", "x", "-", "9"])
        return "".join(chars)
    if how == "cell":
        i = rng.randrange(1, len(lines))
        cells = lines[i].rstrip("\n").split(",")
        j = rng.randrange(len(cells))
        cells[j] = rng.choice(["", "nan", "inf", "-1", "1e400", "abc", "0", "99999999999999999999", "True",
                               "primary", "sampling_only", "alternate", "1e308"])
        lines[i] = ",".join(cells) + "\n"
        return "".join(lines)
    if how == "drop_lines":
        keep = [lines[0]] + [ln for ln in lines[1:] if rng.random() > 0.5]
        return "".join(keep)
    if how == "shuffle_header":
        header = lines[0].rstrip("\n").split(",")
        rng.shuffle(header)
        return ",".join(header) + "\n" + "".join(lines[1:])
    raise ValueError(how)


@pytest.fixture(scope="module")
def sandbox_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzzdata")


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "60")), deadline=None)
@given(table=st.sampled_from(TABLES), how=st.sampled_from(["truncate", "bytes", "cell", "drop_lines",
                                                           "shuffle_header"]),
       seed=st.integers(0, 2**32 - 1))
def test_corrupted_registry_gives_result_or_one_line_error(sandbox_dir, table, how, seed):
    copy = sandbox_dir / f"data-{seed}"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(DATA, copy)
    target = copy / table
    target.write_text(corrupt(target.read_text(encoding="utf-8"), random.Random(seed), how), encoding="utf-8")
    import os
    old = os.environ.get("TINKER_NOMICS_DATA")
    os.environ["TINKER_NOMICS_DATA"] = str(copy)
    registry.clear_caches()
    try:
        exercise()
    except TinkerNomicsError as exc:
        assert "\n" not in str(exc) and str(exc)
    finally:
        if old is None:
            del os.environ["TINKER_NOMICS_DATA"]
        else:
            os.environ["TINKER_NOMICS_DATA"] = old
        registry.clear_caches()
        shutil.rmtree(copy, ignore_errors=True)
