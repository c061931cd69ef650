"""`report.html`: a run's report as one self-contained page anyone can open, without Jupyter and without a network.

`validate --report DIR` writes it beside the executed chapter, from the same page data the chapter shows
(analysis.run_report) and the same text summary.txt holds. The page carries no script at all and loads nothing: its
figures are inline SVG drawn here (lines, axes and labels, no text taken from the log), its style is inline, and a
Content-Security-Policy forbids scripts, frames and any request a browser could make for it. Every string from the
log (a folder or run name, a model path read from a config dump, a metric key in a note) is HTML-escaped where it is
written, so it shows as text.
"""
from __future__ import annotations

import html
import math

from .. import fmt

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1d2330}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
pre{background:#f5f6f8;padding:.8rem;overflow-x:auto;white-space:pre-wrap;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:.5rem 0;display:block;overflow-x:auto}
th,td{border-bottom:1px solid #d9dce2;padding:.25rem .5rem;text-align:right}th{background:#f5f6f8}
td.text,th.text{text-align:left}svg{max-width:100%;height:auto}.note{color:#555;font-size:13px}
"""
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")


def esc(value) -> str:
    """Any value as HTML text (quotes too: safe inside an attribute)."""
    return html.escape(str(value), quote=True)


def report_html(page: dict, summary_text: str, produced_by: dict) -> str:
    """The page (module docstring): `page` from analysis.run_report.report_page, `summary_text` summary.txt's."""
    s = page["summary"]
    title = f"Run validation: {fmt.printable(s.get('run'), limit=160)}"   # a bidi override in a file name escaped
    parts = [f"<h1>{esc(title)}</h1>",
             f"<p class=\"note\">{esc(_kind(page))}. Written by tinker-nomics {esc(produced_by.get('tinker_nomics'))} "
             f"with data recorded up to {esc(produced_by.get('data_recorded'))}; the executed chapter beside this file "
             f"(run_validation.ipynb) shows the same check with its explanations.</p>",
             "<h2>Summary</h2>", f"<pre>{esc(summary_text)}</pre>",
             "<h2>Figures</h2>", *_figures(page),
             "<h2>The first logged steps</h2>", _table(page["steps_head"]["columns"], page["steps_head"]["rows"])]
    if page.get("reconciliation"):
        rec = page["reconciliation"]
        parts += ["<h2>The self-hosted model against the run, phase by phase</h2>", _records(rec["table"])]
    if page.get("calibration") and page["calibration"]["table"]:
        parts += ["<h2>The cost model against the logged meters</h2>", _records(page["calibration"]["table"])]
    if page.get("bills"):
        parts += ["<h2>The same tokens under the compared price lists</h2>", _records(page["bills"])]
    items = [f"<li>{esc(c)}</li>" for c in page.get("caveats") or []] + \
            [f"<li>note: {esc(n)}</li>" for n in page.get("notes") or []]
    parts += ["<h2>Caveats and notes</h2>", f"<ul>{''.join(items)}</ul>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n<body>\n" + "\n".join(parts)
            + "\n</body></html>\n")


def _kind(page: dict) -> str:
    where = "a run on Tinker" if page["kind"] == "tinker" else "a run on self-hosted GPUs"
    return f"{where} ({page['framework']})"


# ------------------------------------------------------------------------------------------ tables

def _cell(value, column: str = "") -> tuple[str, str]:
    """(text, css class) of a table cell: dollars for a `…usd…` column, a signed percentage for an `…error`
    one, other numbers through fmt.number, missing values as n/a."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a", ""
    if isinstance(value, bool):
        return str(value), "text"
    if isinstance(value, (int, float)):
        if "usd" in column:
            return fmt.usd(value), ""
        if column.endswith("error"):
            return fmt.signed_pct(value), ""
        return fmt.number(value), ""
    return str(value), "text"


def _table(columns: list, rows: list) -> str:
    head = "".join(f"<th class=\"text\">{esc(str(c).replace('_', ' '))}</th>" for c in columns)
    body = []
    for row in rows:
        cells = [_cell(v, str(c)) for v, c in zip(row, columns)]
        body.append("<tr>" + "".join(f"<td class=\"{cls}\">{esc(text)}</td>" for text, cls in cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _records(records: list[dict]) -> str:
    columns = list(records[0]) if records else []
    return _table(columns, [[r.get(c) for c in columns] for r in records])


# ------------------------------------------------------------------------------------------ figures

def _figures(page: dict) -> list[str]:
    s, per_point = page["series"], page["series_steps_per_point"]
    averaged = "" if per_point == 1 else f" (each point the mean of {fmt.count(per_point, 'step')})"
    if page["kind"] == "tinker":
        return [svg_chart("Tokens per logged step" + averaged, s["step"],
                          {"training completions": s["completion"], "training prompts": s["prompt"]}, "tokens"),
                svg_chart("Tinker cost per step" + averaged, s["step"], {"USD per step": s["cost_usd"]}, "usd"),
                svg_chart("Cumulative Tinker cost", s["step"], {"cumulative USD": s["cumulative_usd"]}, "usd"),
                svg_chart("Training reward" + averaged, s["step"], {"reward": s["reward"]}, "count"),
                svg_chart("Minutes per step" + averaged, s["step"], {"minutes": s["step_minutes"]}, "count")]
    return [svg_chart("Tokens per logged step" + averaged, s["step"],
                      {"generated (responses)": s["response_tokens"], "prompts": s["prompt_tokens"]}, "tokens"),
            svg_chart("Seconds per step, by phase" + averaged, s["step"],
                      {"logged step time": s["step_seconds"], "generation": s["generation_seconds"],
                       "actor update": s["training_seconds"], "everything else": s["other_seconds"]}, "count"),
            svg_chart("Training score" + averaged, s["step"], {"score": s["reward"]}, "count")]


def _finite(values) -> list[float]:
    return [v for v in values if v is not None and isinstance(v, (int, float)) and math.isfinite(v)]


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    raw = (high - low) / (count - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(count + 1) if first + i * step <= high + step * 1e-9]


def svg_chart(title: str, x, lines: dict, kind: str, width: int = 720, height: int = 260) -> str:
    """A line chart as inline SVG: one polyline per series (broken where a value is missing), axes with ticks
    labelled by fmt.tick(kind), a legend. Only the given title and series names are text; both are escaped."""
    left, right, top, bottom = 70, 16, 30, 40
    xs = _finite(x)
    ys = _finite(v for values in lines.values() for v in values)
    if not xs or not ys:
        return f"<p class=\"note\">{esc(title)}: nothing logged to draw.</p>"
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(0.0, min(ys)), max(ys)
    if x1 == x0:
        x1 = x0 + 1
    if y1 == y0:
        y1 = y0 + 1
    px = lambda v: left + (v - x0) / (x1 - x0) * (width - left - right)          # noqa: E731
    py = lambda v: height - bottom - (v - y0) / (y1 - y0) * (height - top - bottom)   # noqa: E731
    out = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" role=\"img\" "
           f"aria-label=\"{esc(title)}\">",
           f"<text x=\"{left}\" y=\"18\" font-size=\"14\" font-weight=\"600\">{esc(title)}</text>"]
    for t in _ticks(y0, y1):
        out.append(f"<line x1=\"{left}\" x2=\"{width - right}\" y1=\"{py(t):.1f}\" y2=\"{py(t):.1f}\" "
                   f"stroke=\"#e3e5e9\"/><text x=\"{left - 6}\" y=\"{py(t) + 4:.1f}\" font-size=\"11\" "
                   f"text-anchor=\"end\">{esc(fmt.tick(t, kind))}</text>")
    for t in _ticks(x0, x1):
        out.append(f"<text x=\"{px(t):.1f}\" y=\"{height - bottom + 16}\" font-size=\"11\" "
                   f"text-anchor=\"middle\">{esc(fmt.tick(t, 'count'))}</text>")
    out.append(f"<text x=\"{(left + width - right) / 2:.0f}\" y=\"{height - 6}\" font-size=\"11\" "
               f"text-anchor=\"middle\">step</text>")
    out.append(f"<line x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{height - bottom}\" stroke=\"#777\"/>"
               f"<line x1=\"{left}\" x2=\"{width - right}\" y1=\"{height - bottom}\" y2=\"{height - bottom}\" "
               f"stroke=\"#777\"/>")
    for i, (name, values) in enumerate(lines.items()):
        color = COLORS[i % len(COLORS)]
        run: list[str] = []
        segments = []
        for xv, yv in zip(x, values):
            if xv is None or yv is None or not (math.isfinite(xv) and math.isfinite(yv)):
                if run:
                    segments.append(run)
                run = []
                continue
            run.append(f"{px(xv):.1f},{py(yv):.1f}")
        if run:
            segments.append(run)
        for seg in segments:
            if len(seg) == 1:
                cx, cy = seg[0].split(",")
                out.append(f"<circle cx=\"{cx}\" cy=\"{cy}\" r=\"2.5\" fill=\"{color}\"/>")
            else:
                out.append(f"<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.4\" "
                           f"points=\"{' '.join(seg)}\"/>")
        lx = left + 10 + 170 * i
        out.append(f"<rect x=\"{lx}\" y=\"{top + 2}\" width=\"12\" height=\"3\" fill=\"{color}\"/>"
                   f"<text x=\"{lx + 16}\" y=\"{top + 8}\" font-size=\"11\">{esc(name)}</text>")
    out.append("</svg>")
    return "".join(out)
