r"""No typed-in quantities in the chapters' prose: every number a reader sees in a markdown cell is pasted in
by an `{eval}`\`prose.NAME\`` role (tinker_nomics/faces/prose.py), so it is computed by the package: by the
book build, which resolves it from the glued value (tools/sphinx_prose.py), and live in JupyterLab, where
jupyterlab-myst evaluates it in the kernel. Chapters not yet converted from myst-nb's `{glue:text}` roles
(tools/convert_prose.py converts them) are listed in GLUE_PENDING and must then still glue every number.

For every notebook listed in _toc.yml, the markdown cells are checked after removing what may hold digits
legitimately: eval, glue and other MyST roles, math (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`), code spans and code
fences, links and bare URLs, HTML tags, and a short allowlist of names (model and GPU names such as
Qwen3-8B or H100 never match, because their digits are glued to letters; model-size names such as "an 8B
model" and SKUs such as "A100 80GB" are allowed explicitly), snapshot dates, versions, section numbers and
single-letter symbols such as k=1. What is left must not contain a quantity: money,
percentages, multipliers, numbers with a unit, decimals, or thousands separators.

The checker is tested on planted examples, so a regression in it cannot silently pass every chapter.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import REPO, toc_notebooks

# ----------------------------------------------------------------------------------------- what is removed

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n.*?^(?P=fence)[ \t]*$", re.M | re.S)
PROSE_DIRECTIVES = {"note", "tip", "warning", "important", "caution", "attention", "admonition", "seealso",
                    "hint", "danger", "error", "margin", "sidebar", "epigraph", "topic"}
ROLE = re.compile(r"\{[\w:.\-]+\}(`+)(?:(?!\1).)*?\1", re.S)          # {glue:text}`name`, {doc}`...`, {math}`...`
DISPLAY_MATH = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]|\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S)
PAREN_MATH = re.compile(r"\\\(.*?\\\)", re.S)
# MyST dollarmath: the opening $ is not followed by a space, the closing $ is not preceded by one and not
# followed by a digit ("$12 and $34" is money, not math).
INLINE_MATH = re.compile(r"(?<![\\$])\$(?=\S)(?:[^$\n]|\\\$)*?(?<=[^\s\\])\$(?!\d)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\([^)]*\)|<https?://[^>]+>|https?://\S+")
HTML = re.compile(r"<!--.*?-->|</?[a-zA-Z][^>]*>", re.S)

ALLOWED = [  # names and symbols, not quantities
    r"\b\d{4}-\d{2}-\d{2}\b",                # snapshot and registry dates
    r"\b\d{4}-(?:H[12]|\d{2})\b",            # snapshot ids such as 2026-H1, 2026-09
    r"\b\d+(?:\.\d+){2,}\b",                 # versions (tinker-cookbook 0.6.1)
    r"§\s?\d+(?:\.\d+)*",                    # section numbers
    r"\b[A-Za-z]\s?=\s?\d+\b",               # single-letter symbols: k=1, K = 1
    r"\b\d+B\b",                             # model-size names: an 8B model, OLMo 3 32B, DeepSeek 67B
    r"\b[A-Z]+\d+[A-Z]? \d+GB\b",              # GPU SKUs named by their memory: A100 80GB
    r"\bOLMo \d(?:\.\d)?\b",                  # OLMo 3, OLMo 3.1
]
ALLOWED_RE = re.compile("|".join(ALLOWED))

# ----------------------------------------------------------------------------------------- what is flagged

NUMBER = r"(?<![\w.\-/])\d[\d,]*(?:\.\d+)?"
UNITS = (r"GB|MB|KB|TB|GiB|MiB|PFLOPs?|TFLOPS?|GFLOPS?|FLOPs?(?:/byte)?|FLOP/byte|tok/s|tokens?/s|tokens?|"
         r"h|hrs?|hours?|min|minutes?|s|sec|seconds?|ms|days?|weeks?|months?|GPUs?|GPU-hours?|M|K|B|T|steps?|"
         r"sequences?|seq/GPU|W")
QUANTITY = re.compile("|".join([
    r"[$€£]\s?\d",                                        # money: $1,234, $0.13
    NUMBER + r"\s?%",                                     # 12.5%
    NUMBER + r"\s?[×x](?![\w])",                          # 3.5×, 4x
    NUMBER + r"\s?(?:" + UNITS + r")(?![\w])",            # 83.9 GB, 209 tok/s, 1.3 h
    r"(?<![\w.\-/])\d+\.\d+(?![\w])",                      # bare decimals: 0.35
    r"(?<![\w.\-/])\d{1,3}(?:,\d{3})+(?![\d])",            # thousands separators: 1,024
]))


def _strip_fences(text: str) -> str:
    def keep_prose(match):
        info = match.group("info").strip()
        name = re.match(r"\{([\w-]+)\}", info)
        if name and name.group(1) in PROSE_DIRECTIVES:   # an admonition is prose: check its body
            return match.group(0).split("\n", 1)[1].rsplit("\n", 1)[0]
        return " "
    return FENCE.sub(keep_prose, text)


def visible_prose(markdown: str) -> str:
    """The markdown with everything that may legitimately hold digits removed."""
    text = _strip_fences(markdown)
    for pattern in (HTML, ROLE, DISPLAY_MATH, PAREN_MATH, INLINE_MATH, CODE_SPAN, LINK, ALLOWED_RE):
        text = pattern.sub(" ", text)
    return text


def typed_quantities(markdown: str) -> list[str]:
    """Quantities typed into `markdown` outside glue roles, math, code, links and the allowlist."""
    return [m.group(0) for m in QUANTITY.finditer(visible_prose(markdown))]


def markdown_cells(path: Path):
    """(index, source) of every markdown cell of a notebook."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "markdown":
            yield index, ("".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"])


def notebook_violations(path: Path) -> list[str]:
    found = []
    for index, source in markdown_cells(path):
        for hit in typed_quantities(source):
            line = next((ln.strip() for ln in source.splitlines() if hit.strip() in ln), "")
            found.append(f"cell {index}: {hit!r} in {line[:100]!r}")
    return found


# ----------------------------------------------------------------------------------------- the chapters

NOTEBOOKS = toc_notebooks()
# Chapters whose prose still types numbers in, waiting on their authors. Strict: when a chapter is fixed its
# test passes unexpectedly and fails, so the entry must then be removed from here.
PENDING: dict[str, str] = {}   # "notebooks/x.ipynb": "what it types in"


def _case(path: Path, pending: dict[str, str]):
    name = path.relative_to(REPO).as_posix()
    marks = [pytest.mark.xfail(reason=pending[name], strict=True)] if name in pending else []
    return pytest.param(path, id=name, marks=marks)


@pytest.mark.parametrize("source", [_case(p, PENDING) for p in NOTEBOOKS])
def test_chapter_prose_has_no_typed_quantities(source):
    found = notebook_violations(source)
    assert not found, (f"{source.name}: numbers typed into the prose; set them on `prose` in a code cell and "
                       f"quote them with {{eval}}`prose.NAME`:\n  " + "\n  ".join(found))


# ----------------------------------------------------------------------------------------- one source, two readers

EVAL = re.compile(r"\{eval\}`([^`]*)`")
GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
PROSE_EXPRESSION = re.compile(r"^prose\.[A-Za-z][A-Za-z0-9_]*$")
# Chapters that still quote with myst-nb glue roles, which JupyterLab cannot render. Strict: once a chapter is
# converted (python tools/convert_prose.py notebooks/<chapter>.ipynb) its entry must go.
GLUE_PENDING: dict[str, str] = {}


def role_problems(path: Path) -> list[str]:
    """Glue roles left in the prose, and `{eval}` expressions other than `prose.NAME`."""
    found = []
    for index, source in markdown_cells(path):
        found += [f"cell {index}: glue role {m.group(0)!r}" for m in GLUE_ROLE.finditer(source)]
        found += [f"cell {index}: {{eval}}`{m.group(1)}` is not prose.NAME" for m in EVAL.finditer(source)
                  if not PROSE_EXPRESSION.match(m.group(1))]
    return found


@pytest.mark.parametrize("source", [_case(p, GLUE_PENDING) for p in NOTEBOOKS])
def test_chapter_prose_quotes_through_prose_eval(source):
    found = role_problems(source)
    assert not found, (f"{source.name}: JupyterLab cannot render these; run tools/convert_prose.py on it:\n  "
                       + "\n  ".join(found))


def test_role_check_fails_on_glue_and_foreign_expressions(tmp_path):
    path = tmp_path / "chapter.ipynb"
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [text]} for text in
             ("Fine: {eval}`prose.total`.", "Left over: {glue:text}`total`.", "Live code: {eval}`1 + 1`.")]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    found = role_problems(path)
    assert len(found) == 2 and "cell 1: glue role" in found[0] and "cell 2: {eval}`1 + 1`" in found[1]


# ----------------------------------------------------------------------------------------- the checker


@pytest.mark.parametrize("planted", [
    "Tinker costs $1,234 for this run.",
    "It costs $0.13 per million.",
    "Rollout takes 12.5% of the step.",
    "Self-hosted is 3.5× cheaper.",
    "It is 4x faster.",
    "The cache holds 83.9 GB.",
    "One GPU decodes 209 tok/s.",
    "Training takes 1.3 h.",
    "A batch of 1,024 sequences.",
    "The MFU is 0.35 here.",
    "It needs 90 GPUs.",
    "Prefill is 36.9M tokens.",
    "An adapter of 186 MB.",
    "costs $12 and $34 in total",          # money that looks like the edges of a math span
    ":::{note}\nThe bill is $99.20.\n:::",  # prose inside an admonition is still prose
    "```{note}\nThe bill is 12%.\n```",
])
def test_checker_flags_typed_quantities(planted):
    assert typed_quantities(planted), f"the checker missed a typed quantity in {planted!r}"


@pytest.mark.parametrize("allowed", [
    "Tinker costs {glue:text}`tinker_total` for this run.",
    "Tinker costs {eval}`prose.tinker_total` for this run, {eval}`prose.share` of it sampling.",
    "Rollout takes {glue:text}`share:.1%` of the step.",
    "The roofline gives $\\text{tok/s} = 3.35 \\times 10^{12} / 16 \\times 10^{9}$ here.",
    "$$\nB_\\text{crit} = 990 / 3.35\n$$",
    "Inline \\(x = 0.5\\) math.",
    "Run `tinker-nomics estimate --prices 2026-01-05 --mfu 0.35`.",
    "```python\nest = estimate(x, mfu=0.35)  # 12.5%\n```",
    "See [the 2.5× paper](https://arxiv.org/abs/2602.17616) and https://example.com/v1.2/x.",
    "Qwen3-8B on H100 SXM, Llama-3.1-70B, gpt-oss-120b, Qwen3.5-9B, Kimi-K2.6, MI300X, B200.",
    "Prices as of 2026-01-05 and 2026-07-17; snapshot 2026-H1.",
    "With k=1 and K = 1, turns > 1, one step.",
    "tinker-cookbook 0.6.1 logs it (§2.1).",
    "DeepSeek-V2's figure against DeepSeek 67B, an 8B model, the A100 80GB, OLMo 3.1.",
    "$B$ = {glue:text}`B`, $G$ = {glue:text}`G`",
    "Exp 1a and exp 1b; chapter 3.",
])
def test_checker_allows_names_math_code_and_glue(allowed):
    assert not typed_quantities(allowed), f"false positive in {allowed!r}: {typed_quantities(allowed)}"


def test_checker_fails_on_a_planted_notebook(tmp_path):
    clean = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["Costs {eval}`prose.total`."]},
                       {"cell_type": "code", "metadata": {}, "source": ["x = 0.35  # 35%"], "outputs": [],
                        "execution_count": None}],
             "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(clean))
    assert notebook_violations(path) == []                   # code cells may hold numbers
    clean["cells"].append({"cell_type": "markdown", "metadata": {},
                           "source": ["The KV cache is 83.9 GB, ", "so it fits."]})
    path.write_text(json.dumps(clean))
    found = notebook_violations(path)
    assert len(found) == 1 and "83.9 GB" in found[0] and found[0].startswith("cell 2")
