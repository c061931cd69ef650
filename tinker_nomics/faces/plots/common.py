"""What every figure shares: the meter colours, the default panel size, line series and dollar axes, and how a
figure reaches a page: as SVG with its text kept as text, narrowed until its smallest text is still readable on a
phone (`fit_for_phone`)."""
from __future__ import annotations

import io
import textwrap
import warnings

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.text
import matplotlib.ticker

from ... import fmt

# One colour per meter, used everywhere in the book.
COLORS = {
    "sample": "#4C72B0", "train": "#DD8452", "prefill": "#55A868", "cached prefill": "#8DCB9B",
    "sandbox": "#8172B3", "storage": "#937860", "GPU time": "#C44E52", "rollout": "#4C72B0",
    "training": "#DD8452", "tinker": "#4C72B0", "self-hosted": "#C44E52",
}

# A phone: a 400 px screen shows the book's column about 368 px wide; a figure's text must be at least 9 px there.
PHONE_COLUMN_PX = 368
MIN_TEXT_PX = 9
WIDTH = 4.8               # inches: the default figure width (461 px at the page's natural size)
SMALL = 8.5               # points: the smallest text a figure uses (tick labels, annotations, legends)
STYLE = {"svg.fonttype": "none",          # text stays text: searchable, sharp, and measurable by the book's test
         "font.size": 9.5, "axes.titlesize": 10, "axes.labelsize": 9.5, "xtick.labelsize": SMALL,
         "ytick.labelsize": SMALL, "legend.fontsize": SMALL, "figure.titlesize": 10.5,
         "figure.figsize": (WIDTH, 3.2)}
matplotlib.rcParams.update(STYLE)


def axes(ax, size=(WIDTH, 3.2)):
    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    return fig, ax


def styled_lines(ax, x, series: dict):
    """One line per series, told apart by colour and dash, so they stay distinct in greyscale."""
    styles = ["-", "--", ":", "-."]
    for i, (label, values) in enumerate(series.items()):
        ax.plot(x, values, label=label, ls=styles[i % len(styles)], color=f"C{i}")


def dollar_axis(ax, axis="x"):
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(fmt.axis_tick("usd"))


def _drawn_texts(fig):
    return [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]


def smallest_text_pt(fig) -> float:
    """The smallest font size, in points, of the figure's visible text."""
    sizes = [t.get_fontsize() for t in _drawn_texts(fig)]
    return min(sizes) if sizes else float("inf")


def saved_width_pt(fig) -> float:
    """The width, in points, the figure has once saved with a tight bounding box (as a notebook shows it)."""
    fig.canvas.draw()
    pad = float(matplotlib.rcParams["savefig.pad_inches"])
    return (fig.get_tightbbox(fig.canvas.get_renderer()).width + 2 * pad) * 72.0


def wrap_long_titles(fig, share: float = 0.95) -> None:
    """Wrap a title, suptitle or x-axis label wider than the room it has (`share` of its axes' width, or of the
    figure's for a suptitle) onto more lines: a long one-line title in a narrow figure collapses the layout."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # a collapsed layout is what this fixes
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    figure_room = fig.get_figwidth() * fig.dpi * share
    texts = [(fig._suptitle, figure_room)] if getattr(fig, "_suptitle", None) is not None else []
    for ax in fig.axes:
        room = min(figure_room, max(ax.get_window_extent(renderer).width, figure_room * 0.5) * share)
        texts += [(ax.title, room), (ax._left_title, room), (ax._right_title, room), (ax.xaxis.label, room)]
    for text, room in texts:
        content = text.get_text()
        if not content or "\n" in content:
            continue
        width = text.get_window_extent(renderer).width
        if width > room:
            text.set_text(textwrap.fill(content, max(12, int(len(content) * room / width))))


def plain_log_ticks(fig) -> None:
    """Log axes label their ticks as plain numbers (1,000, not 10³): matplotlib's powers of ten set the exponent at
    0.7 of the label size, too small on a phone."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if isinstance(axis.get_major_formatter(), matplotlib.ticker.LogFormatter):
                axis.set_major_formatter(fmt.axis_tick("count"))
            if isinstance(axis.get_minor_formatter(), matplotlib.ticker.LogFormatter):
                axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def fit_for_phone(fig):
    """Narrow `fig` until its smallest text, shown PHONE_COLUMN_PX wide, is at least MIN_TEXT_PX: the width a saved
    figure may have is its smallest font size × PHONE_COLUMN_PX ÷ MIN_TEXT_PX (SVG user units are points). Only the
    width shrinks; the layout (constrained) follows, and a title too long for the new width wraps."""
    plain_log_ticks(fig)
    wrap_long_titles(fig)
    for _ in range(4):
        limit = smallest_text_pt(fig) * PHONE_COLUMN_PX / MIN_TEXT_PX
        width = saved_width_pt(fig)
        if width <= limit:
            break
        w, h = fig.get_size_inches()
        fig.set_size_inches(w * limit / width * 0.97, h)
        wrap_long_titles(fig)
    return fig


def svg(fig) -> str:
    """The figure as the book shows it: fitted for a phone, SVG with text as text, tight bounding box."""
    fit_for_phone(fig)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    return buffer.getvalue()


def use_svg_in_notebooks() -> None:
    """In a notebook kernel, show every matplotlib figure through `svg` (and not as PNG)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    from matplotlib.figure import Figure

    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
        set_matplotlib_formats("svg")
    except ImportError:
        pass
    formatters = shell.display_formatter.formatters
    formatters["image/png"].pop(Figure, None)
    formatters["image/svg+xml"].for_type(Figure, svg)
