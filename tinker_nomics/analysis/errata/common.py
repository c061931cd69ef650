"""What every erratum shares: the seed's printed figures, the Erratum record, number formatting, and the
FLOP page's default inputs."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ... import fmt
from ...errors import UnknownNameError
from ...sources.architectures import get_arch
from ...sources.defaults import number
from ...sources.hardware import get_gpu
from ...sources.tables import Column, load_table
from ...sources.workloads import get_workload

PAGES = ("cost model", "FLOP accounting", "empirical validation", "takeaway")


# ------------------------------------------------------------------------------------------ printed figures


@dataclass(frozen=True)
class Printed:
    figure: str
    value: float
    unit: str
    page: str
    source: str          # the seed page and the sentence that prints it


@functools.lru_cache(maxsize=None)
def printed_figures() -> dict[str, Printed]:
    """The seed's printed figures the book compares with (its takeaway table, and the figures its own method
    cannot reproduce), with the sentence that prints them."""
    rows = load_table("literature/seed_printed_figures.csv", [
        Column("figure"), Column("value", "float"), Column("unit"), Column("page"), Column("source")])
    return {r["figure"]: Printed(r["figure"], r["value"], r["unit"], r["page"], r["source"]) for r in rows}


def printed(name: str) -> float:
    table = printed_figures()
    if name not in table:
        raise UnknownNameError("printed seed figure", name, table)
    return table[name].value


# ------------------------------------------------------------------------------------------ formatting


def _count(x, digits=0):
    return f"{float(x):,.{digits}f}"


def _bytes(x):
    x = float(x)
    if abs(x) >= 1e12:
        return f"{x / 1e12:,.1f} TB"
    return fmt.gb(x)


def _minutes(hours):
    m = float(hours) * 60
    return f"{m:,.1f} min" if m < 10 else f"{m:,.0f} min"


FORMATS = {
    "usd": fmt.usd,
    "usd_k": lambda x: fmt.usd_short(x) if abs(float(x)) >= 1e4 else fmt.usd(x, cents=False),
    "usd3": lambda x: f"${float(x):,.3f}",
    "tokens": fmt.tokens,
    "tokens1": lambda x: f"{float(x) / 1e6:,.1f}M" if abs(float(x)) >= 1e6 else f"{float(x) / 1e3:,.1f}K",
    "bytes": _bytes,
    "kb": lambda x: fmt.kb(x) if float(x) >= 1e3 else f"{float(x):,.0f} bytes",
    "kb_exact": lambda x: fmt.kb(x, digits=None),
    "mb": lambda x: f"{float(x) / 1e6:,.0f} MB",
    "tps": lambda x: f"{float(x):,.0f} tok/s",
    "hours": fmt.hours,
    "minutes": _minutes,
    "hours1": lambda x: f"{float(x):.1f} h",
    "seconds": fmt.seconds,
    "seconds_s": lambda x: f"{float(x):,.1f} s",
    "tb_s": lambda x: f"{float(x):g} TB/s",
    "pct": fmt.pct,
    "pct0": lambda x: fmt.pct(x, 0),
    "ratio": fmt.ratio,
    "count": _count,
    "count1": lambda x: _count(x, 1),
    "growth": lambda x: f"{float(x):.2g}",
    "gpus": lambda x: f"{float(x):,.0f} GPUs",
    "tflops": fmt.tflops,
    "flop_per_byte": lambda x: f"{float(x):,.0f} FLOP/byte",
    "usd_rate": lambda x: f"${float(x):g}/M",
    "billion": lambda x: f"{float(x) / 1e9:,.2f} billion",
    "pflop": lambda x: f"{float(x) / 1e15:,.1f} PFLOP",
    "pflop_n": lambda x: f"{float(x) / 1e15:,.1f}",
    "flop_n": lambda x: f"{float(x):,.0f}N",
    "text": str,
}


def format_value(value, kind: str) -> str:
    return FORMATS[kind](value)


@dataclass(frozen=True)
class Erratum:
    key: str                 # short id, also the prefix of the page's glue names
    page: str                # the seed page that prints it (one of PAGES)
    figure: str              # what the figure is, in words
    seed: float              # the seed's number: its own method where that reproduces it, else as printed
    consistent: float
    kind: str                # how seed and consistent are formatted (a key of FORMATS)
    why: str
    printed: float | None = None      # the printed figure when the seed's own method gives another number
    details: dict = field(default_factory=dict)   # name -> (value, kind): the numbers the explanation uses
    consistent_kind: str | None = None            # when the consistent number needs another format
    error: bool = True       # False for a figure that looks inconsistent but is not (explained in prose only)

    @property
    def seed_text(self) -> str:
        own = format_value(self.seed, self.kind)
        if self.printed is None:
            return own
        shown = format_value(self.printed, self.kind)
        return shown if shown == own else f"{shown} printed ({own} recomputed)"

    @property
    def consistent_text(self) -> str:
        return format_value(self.consistent, self.consistent_kind or self.kind)

    def text(self, name: str) -> str:
        value, kind = self.details[name]
        return format_value(value, kind)

    def texts(self) -> dict[str, str]:
        """Every formatted number of this erratum, keyed `<key>_<name>` (seed, consistent and the details)."""
        out = {f"{self.key}_seed": self.seed_text, f"{self.key}_consistent": self.consistent_text,
               f"{self.key}_own": format_value(self.seed, self.kind)}
        if self.printed is not None:
            out[f"{self.key}_printed"] = format_value(self.printed, self.kind)
        out.update({f"{self.key}_{name}": self.text(name) for name in self.details})
        return out


# ------------------------------------------------------------------------------------------ shared inputs

FLOP_PAGE_MODEL = "Qwen3-8B"
FLOP_PAGE_GPU = "H100 SXM"


def flop_page_inputs():
    """The FLOP page's defaults: Qwen3-8B (as 8B), 8 × H100 SXM, B = 64, G = 16, L = 512."""
    arch, gpu = get_arch(FLOP_PAGE_MODEL), get_gpu(FLOP_PAGE_GPU)
    return (arch, gpu, number("num_gpus"), number("flop_page_prompts_per_step"), number("flop_page_group_size"),
            get_workload("math_rl").fields["completion_tokens"])


def implied_growth(average_multiplier):
    """The end/start growth factor whose average multiplier (1 + g)/2 is `average_multiplier`."""
    return 2.0 * np.asarray(average_multiplier, dtype=float) - 1.0


def sequences_gain(kv_reduction):
    """How many times more sequences fit when the KV cache shrinks by `kv_reduction` (1 / (1 − r))."""
    return 1.0 / (1.0 - np.asarray(kv_reduction, dtype=float))
