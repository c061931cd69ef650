"""The model computes its large arrays on ordinary pages and leaves the caller's NumPy setting as it found it
(tinker_nomics/model/pages.py: backing fresh huge pages made the first estimate over 10^6 scenarios take 0.45-2.4 s
from one process to the next on the 2-core machine; `make bench` measures it)."""
import threading

import numpy as np
import pytest

from tinker_nomics import Scenario, estimate
from tinker_nomics.errors import TinkerNomicsError
from tinker_nomics.model import pages, tokens

pytestmark = pytest.mark.skipif(pages._set_madvise_hugepage is None, reason="this NumPy has no huge-page switch")


def _current() -> bool:
    """NumPy's huge-page advice right now (setting it returns the previous value; put it back)."""
    value = bool(pages._set_madvise_hugepage(False))
    pages._set_madvise_hugepage(value)
    return value


@pytest.fixture
def caller_wants_huge_pages():
    before = bool(pages._set_madvise_hugepage(True))
    yield
    pages._set_madvise_hugepage(before)


def test_estimate_runs_on_ordinary_pages_and_restores_the_callers_setting(monkeypatch, caller_wants_huge_pages):
    seen = []
    rollout = tokens.rollout

    def spying_rollout(*args, **kwargs):
        seen.append(_current())
        return rollout(*args, **kwargs)

    monkeypatch.setattr(tokens, "rollout", spying_rollout)
    est = estimate(Scenario.from_workload("math_rl").replace(steps=np.arange(1, 5)))
    assert est.tinker.total_usd.shape == (4,)
    assert seen == [False]
    assert _current() is True


def test_the_setting_comes_back_after_an_error(caller_wants_huge_pages):
    with pytest.raises(TinkerNomicsError):
        estimate(Scenario.from_workload("math_rl").replace(steps=1e308))
    assert _current() is True


def test_nested_and_concurrent_calls_keep_it_off_until_the_last_leaves(caller_wants_huge_pages):
    inside, release, states = threading.Event(), threading.Event(), []

    def worker():
        with pages.ordinary_pages():
            inside.set()
            release.wait(10)

    with pages.ordinary_pages():
        thread = threading.Thread(target=worker)
        thread.start()
        inside.wait(10)
        with pages.ordinary_pages():
            states.append(_current())
        states.append(_current())
    states.append(_current())          # the worker is still inside
    release.set()
    thread.join(10)
    states.append(_current())
    assert states == [False, False, False, True]
