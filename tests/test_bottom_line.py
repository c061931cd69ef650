"""The intro's bottom line (tinker_nomics.analysis.bottom_line) and the seed's quoted facts (data/literature/
seed_quotes.csv)."""
from __future__ import annotations

import pytest

from tinker_nomics import Scenario, estimate
from tinker_nomics.analysis.bottom_line import bottom_line
from tinker_nomics.analysis.compare import cheaper_factor
from tinker_nomics.sources.literature import quote, quotes


def test_at_the_seeds_own_list_nothing_flips_and_math_rl_matches_its_estimate():
    line = bottom_line(snapshot="2026-01-05")
    assert line.flipped == [] and line.successors == []
    side, factor = cheaper_factor(estimate(Scenario.from_workload("math_rl", prices="2026-01-05")))
    side, factor = str(side), float(factor)
    assert "math_rl" in line.sides[side].workloads
    assert line.sides[side].factor_low <= factor <= line.sides[side].factor_high
    # every takeaway workload has a side, or is a close call (whose draws split too evenly to give it one)
    assert sorted(line.sides["tinker"].workloads + line.sides["self_hosted"].workloads + line.close_calls) == sorted(
        ["math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl"])


def test_the_newest_list_bills_retired_models_on_successors():
    line = bottom_line()
    assert line.snapshot != line.seed_snapshot
    assert set(line.successors) <= {"math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl"}


def test_quotes_name_their_seed_page():
    for q in quotes().values():
        assert q.text and "shared/seeds/00" in q.source and q.page in {"cost model", "empirical validation",
                                                                          "takeaway", "FLOP accounting", "references"}
    assert "Silver" not in quote("site_disclaimer").text
    with pytest.raises(Exception, match="quote"):
        quote("no_such_quote")


def test_the_bottom_line_is_the_takeaways_answer():
    """The intro's three lines must say what the takeaway's headline table says (both from compare.headline_table):
    an earlier version computed them with the seed method and the successors' architectures, and disagreed."""
    from tinker_nomics.analysis import compare
    line = bottom_line()
    rows = {r.workload: r for r in compare.headline_table(["math_rl", "code_rl", "harbor_rl", "swe_rl", "osworld_rl"])}
    for side, s in line.sides.items():
        for w in s.workloads:
            assert rows[w].cheaper == side and s.factor_low <= rows[w].factor <= s.factor_high
