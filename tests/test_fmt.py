"""tinker_nomics.fmt: the display helpers the chapters use instead of scaling numbers by hand. Each helper is
pinned against the string the chapters printed before it existed (the same scaling written inline), so moving
the arithmetic out of the notebooks changed no figure."""

import math

import pytest

from tinker_nomics import fmt
from tinker_nomics.sources import get_gpu, number


def test_usd_and_tokens_unchanged():
    assert fmt.usd(99.2) == "$99.20" and fmt.usd(1610.4) == "$1,610" and fmt.usd(-2.35) == "-$2.35"
    assert fmt.usd(math.nan) == "n/a"
    assert fmt.tokens(117_964_800) == "117.96M" and fmt.tokens(999) == "999"


@pytest.mark.parametrize("x_bytes, digits, expected", [
    (16_000, None, "16 KB"),          # the seed's KV rule, 16 KB per billion active parameters
    (500, None, "0.5 KB"),
    (128_000, 0, "128 KB"),
    (147_456, 0, "147 KB"),           # Qwen3-8B's GQA cache per token, 36 layers × 8 heads × 128 × 2 × 2 bytes / 1e3
    (1_234_567, 1, "1,234.6 KB"),
])
def test_kb(x_bytes, digits, expected):
    assert fmt.kb(x_bytes, digits) == expected


def test_kb_matches_the_inline_scaling_it_replaces():
    rule = number("kv_bytes_per_active_billion_params_seed")
    assert fmt.kb(rule, digits=None) == f"{rule / 1e3:g} KB"
    assert fmt.kb(rule * 8) == f"{rule * 8 / 1e3:,.0f} KB"


def test_tflops():
    gpu = get_gpu("H100 SXM")
    assert fmt.tflops(gpu.peak_flops("seed")) == f"{gpu.peak_flops('seed') / 1e12:,.0f} TFLOPS"
    assert fmt.tflops(989.4e12) == "989 TFLOPS" and fmt.tflops(2.25e15) == "2,250 TFLOPS"


@pytest.mark.parametrize("x_gb, expected", [(83.886, "83.9 GB"), (0.186, "186 MB"), (1.0, "1.0 GB")])
def test_size_gb_is_gb_of_the_bytes(x_gb, expected):
    assert fmt.size_gb(x_gb) == expected == fmt.gb(x_gb * 1e9)


@pytest.mark.parametrize("share, expected", [(0.1, "10%"), (0.016, "1.6%"), (0.0185, "1.85%"), (0.35, "35%"),
                                             (1.0, "100%")])
def test_pct_exact(share, expected):
    assert fmt.pct_exact(share) == expected


@pytest.mark.parametrize("x, expected", [(2.42, "+$2.42"), (0.0, "+$0.00"), (-2.35, "-$2.35"),
                                         (-1234.0, "-$1,234")])
def test_signed_usd(x, expected):
    assert fmt.signed_usd(x) == expected
    assert fmt.signed_usd(math.nan) == "n/a"


def test_table_numbers_have_no_float_noise():
    """The raw DataFrame values the book used to print (11837640.0, 2048.0) read as counts."""
    assert fmt.number(11837640.0) == "11,837,640" and fmt.number(2048.0) == "2,048"
    assert fmt.number(0.35) == "0.35" and fmt.number(12.5) == "12.5" and fmt.number(float("nan")) == "n/a"


@pytest.mark.parametrize("value, kind, label", [
    (100_000, "tokens", "100K"), (2_500_000, "tokens", "2.5M"), (500, "usd", "$500"), (1000, "usd", "$1,000"),
    (12_500, "usd", "$12.5K"), (20_000, "usd", "$20K"), (0.5, "usd", "$0.50"), (80e9, "bytes", "80 GB"),
    (0.25, "pct", "25%"), (2048, "count", "2,048"),
])
def test_axis_ticks_carry_no_needless_decimals(value, kind, label):
    assert fmt.tick(value, kind) == label
    assert fmt.axis_tick(kind)(value, 0) == label


@pytest.mark.parametrize("items, expected", [(["code_rl"], "code_rl"), (["a", "b"], "a and b"),
                                             (["a", "b", "c"], "a, b and c")])
def test_series(items, expected):
    assert fmt.series(items) == expected


def test_time_in_unit_takes_the_unit_of_the_value_it_is_shown_with():
    assert fmt.time_in_unit(3.55383e-05) == ("35.5", "µs")
    assert fmt.time_in_unit(0.0658114) == ("65.8", "ms")
    assert fmt.time_in_unit(4.07924) == ("4.08", "s")
    # a range shown beside a value: the value's unit, whatever the end's size
    assert fmt.time_in_unit(0.001, like=3.55383e-05) == ("1,000", "µs")
    assert fmt.time_in_unit(60.0, like=4.07924) == ("60", "s")


def test_ratio_span_prints_one_factor_where_both_ends_print_alike():
    assert fmt.ratio_span(1.31, 1.53) == f"{fmt.ratio(1.31)}–{fmt.ratio(1.53)}"
    assert fmt.ratio_span(1.041, 1.045) == fmt.ratio(1.045)


def test_count_agrees_with_its_number():
    assert fmt.count(1, "row") == "1 row"
    assert fmt.count(2, "row") == "2 rows"
    assert fmt.count(0, "family", "families") == "0 families"
    assert fmt.count(1024, "sequence") == "1,024 sequences"


@pytest.mark.parametrize("x, expected", [
    (-0.351, "-35.1%"),   # would print as -35%, which reads as meeting a 35% mark it misses
    (0.349, "+34.9%"),    # would print as +35%, which reads as missing a mark it meets
    (-0.27, "-27%"), (0.6, "+60%"), (0.0, "0%"),
])
def test_signed_pct_beside_shows_which_side_of_the_mark(x, expected):
    assert fmt.signed_pct_beside(x, number("target_regime_error_held_out")) == expected


def test_a_signed_percent_that_rounds_to_zero_has_no_sign():
    # the accuracy chapter's phase table printed "(-0%)" for a log-prob pass predicted 0.47% short
    assert fmt.signed_pct(-0.0047, 0) == "0%" and fmt.signed_pct(0.0004, 1) == "0.0%"
    assert fmt.signed_pct(-0.006, 0) == "-1%" and fmt.signed_pct(0.12, 0) == "+12%"
