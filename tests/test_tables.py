"""The book's table (tinker_nomics.faces.tables): what `show` promises every chapter's tables."""
import re

import pandas as pd

from tinker_nomics import fmt
from tinker_nomics.faces import tables


def _cells(html: str, tag: str) -> list[str]:
    return re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", html)


def _text(cell_html: str) -> str:
    return re.sub(r"<[^>]+>", "", cell_html)


def test_numbers_reach_the_page_formatted_never_raw():
    # 11837640 is step 0's train completion tokens in the bundled gptoss-20b-v3b log (test_runs pins it).
    html = tables.table(pd.DataFrame({"tokens": [11837640.0], "share": [0.25]}))._repr_html_()
    cells = [_text(c) for c in _cells(html, "td")]
    assert cells == [fmt.number(11837640.0), fmt.number(0.25)]
    assert "11837640.0" not in html


def test_headers_read_as_words_and_a_named_index_is_the_first_column():
    frame = pd.DataFrame({"train_tokens": [1.0, 2.0]}, index=pd.Index(["a", "b"], name="run_name"))
    t = tables.table(frame)
    assert t.header == ["run name", "train tokens"]
    assert t.label_column and [r[0] for r in t.rows] == ["a", "b"]
    assert tables.table(pd.DataFrame({"x": [1.0]})).header == ["x"]   # a RangeIndex is not shown


def test_number_like_columns_are_right_aligned_and_text_is_not():
    t = tables.table([{"model": "H100 SXM", "cost": "$99.20", "share": "+2.1%"}])
    assert t.numeric == [False, True, True]


def test_text_is_escaped():
    html = tables.table([{"note": "<script>alert(1)</script>"}])._repr_html_()
    assert "<script>alert" not in html and "&lt;script&gt;" in html


def test_a_hyphenated_word_is_kept_whole_and_plain_words_are_left_alone():
    # A narrow column would otherwise break "gptoss-20b-v3b" after a hyphen (seen at 1400 px in run_validation).
    html = tables.table([{"run": "gptoss-20b-v3b", "price list": "$ 2026-10-07", "note": "not priced"}])._repr_html_()
    words = re.findall(rf'<span class="{tables.CLASS}-word">([^<]*)</span>', html)
    assert words == ["gptoss-20b-v3b", "2026-10-07"]
    assert f".{tables.CLASS}-word{{white-space:nowrap}}" in html
    assert "not priced" in html                                         # no span around words without a hyphen


def test_a_range_beside_its_value_is_kept_whole():
    # The verdict table's wall-clocks broke after the dash at 1400 px, leaving "(0.10–" above "0.20)"; a long range
    # may still break (kept whole, "($50,062–$105,581)" widened the verdict table past the page at 1400 px).
    html = tables.table([{"Tinker (P10–P90)": "$55,948 ($50,062–$105,581)", "bill": "$146 ($135–$176)",
                          "wall-clock, days": "0.13 (0.10–0.20) on 8 GPUs", "note": "1.3×–1.5× wider"}])._repr_html_()
    words = re.findall(rf'<span class="{tables.CLASS}-word">([^<]*)</span>', html)
    assert words == ["(P10–P90)", "wall-clock,", "($135–$176)", "(0.10–0.20)"]     # not the long one, not "1.3×–1.5×"
    assert len("($50,062–$105,581)") > tables.LONGEST_UNBROKEN_RANGE >= len("(0.10–0.20)")


def test_an_org_prefixed_model_name_may_break_after_its_slash_only():
    # "Qwen/Qwen3-30B-A3B-Instruct-2507" set the width of run_validation's runs table at 1400 px.
    html = tables.table([{"model": "Qwen/Qwen3-235B-A22B", "rate": "$0.22/M"}])._repr_html_()
    assert f'Qwen/<wbr><span class="{tables.CLASS}-word">Qwen3-235B-A22B</span>' in html
    assert "$0.22/M" in html                                            # a unit after a number is not split


def test_a_very_long_hyphenated_name_may_break_at_its_hyphens():
    # "NVIDIA-Nemotron-3-Super-120B-A12B" alone made flop_accounting's KV table wider than the page at 1400 px.
    long_name = "NVIDIA-Nemotron-3-Super-120B-A12B"
    assert len(long_name) > tables.LONGEST_UNBROKEN >= len("qwen3-30b-instruct-v3b")
    html = tables.table([{"model": long_name, "run": "qwen3-30b-instruct-v3b"}])._repr_html_()
    assert f"<td>{long_name}</td>" in html
    assert f'<span class="{tables.CLASS}-word">qwen3-30b-instruct-v3b</span>' in html


def test_numeric_headers_may_wrap_while_their_figures_never_do():
    html = tables.table([{"rate usd per million": "$0.22"}])._repr_html_()
    assert re.search(r'<th class="num" scope="col">rate usd per million</th>', html)
    assert f"table.{tables.CLASS} thead th.num{{white-space:normal}}" in html
    assert "font-variant-numeric:tabular-nums;white-space:nowrap" in html


def test_plain_text_repr_aligns_columns():
    text = repr(tables.table([{"meter": "sample", "USD": "$1.00"}, {"meter": "train", "USD": "$10.00"}]))
    assert text.splitlines() == ["meter      USD", "sample   $1.00", "train   $10.00"]


def test_show_displays_every_table_of_a_cell():
    # The takeaway's reproduction cell showed only its last table: `show` returned the table instead of displaying
    # it, so only a cell's last expression reached the page (issue 20).
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()      # display() reaches outputs only inside a shell, as in a notebook
    with capture_output() as shown:
        assert tables.show([{"a": "first"}]) is None
        tables.show([{"b": "second"}])
    html = [o.data.get("text/html", "") for o in shown.outputs]
    assert len(html) == 2 and "first" in html[0] and "second" in html[1]


def test_a_raw_parameter_name_becomes_its_display_name():
    from tinker_nomics.faces import labels

    t = tables.table([{"length_growth": 1.5, "workload": "math_rl"}])
    assert t.header == [labels.label("length_growth"), "workload"]
    assert not labels.SNAKE.search(" ".join(t.header))
