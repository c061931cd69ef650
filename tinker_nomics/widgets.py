"""ipywidgets calculators backed by the package. In Binder or your own Jupyter they redraw live; in the
static book they show the state they were built with (a snapshot).

    from tinker_nomics.widgets import Calculator
    Calculator("swe_rl").widget          # display it in a notebook
"""
from __future__ import annotations

import html

import ipywidgets as W
import matplotlib.pyplot as plt
from IPython.display import display

from . import fmt, plots, registry
from .errors import TinkerNomicsError
from .prices import get_price, priced_models, snapshots
from .scenario import Scenario, estimate
from .workloads import get_workload, workloads

STYLE = {"description_width": "150px"}
LAYOUT = W.Layout(width="420px")

# Scenario field -> (label, widget factory). Ranges cover the presets and sensible sweeps.
SLIDERS = {
    "prompts_per_step": (r"prompts per step \(B\)", lambda: W.IntSlider(min=1, max=512, step=1)),
    "group_size": (r"group size \(G\)", lambda: W.IntSlider(min=1, max=64, step=1)),
    "steps": (r"steps \(S\)", lambda: W.IntSlider(min=1, max=1000, step=1)),
    "completion_tokens": (r"completion \(L\)", lambda: W.IntSlider(min=0, max=32768, step=64)),
    "prompt_tokens": (r"prompt \(P\)", lambda: W.IntSlider(min=0, max=32768, step=50)),
    "length_growth": (r"length growth \(g\)", lambda: W.FloatSlider(min=0.5, max=3.0, step=0.05)),
    "substeps": (r"substeps \(K\)", lambda: W.IntSlider(min=1, max=8, step=1)),
    "turns": (r"turns \(N\)", lambda: W.IntSlider(min=1, max=60, step=1)),
    "output_per_turn": (r"output per turn \(O\)", lambda: W.IntSlider(min=0, max=8192, step=50)),
    "observation_per_turn": (r"observation per turn", lambda: W.IntSlider(min=0, max=8192, step=50)),
    "cache_hit_rate": ("prefix-cache hit rate", lambda: W.FloatSlider(min=0.0, max=1.0, step=0.01)),
    "off_policy": (r"off-policy \(k\)", lambda: W.IntSlider(min=0, max=8, step=1)),
    "num_gpus": ("GPUs", lambda: W.IntSlider(min=1, max=256, step=1)),
    "gpu_hourly_usd": ("$ per GPU-hour", lambda: W.FloatSlider(min=0.2, max=15.0, step=0.01)),
    "rollout_efficiency": ("rollout efficiency", lambda: W.FloatSlider(min=0.05, max=1.0, step=0.01)),
    "mfu": ("training MFU", lambda: W.FloatSlider(min=0.01, max=0.6, step=0.005)),
}


def priced_architectures(snapshot: str) -> list[str]:
    """Models with both a Tinker price as of `snapshot` and a published architecture."""
    names = []
    for model in priced_models():
        try:
            get_price(model, snapshot)
        except TinkerNomicsError:
            continue
        if registry.has_arch(model):
            names.append(model)
    return names


def priced_gpus() -> list[str]:
    return [g for g, spec in registry.gpus().items() if spec.bf16_dense_tflops
            and any(p.gpu == g and p.default for p in registry.gpu_prices())]


class Calculator:
    """A workload picker, registry pickers and sliders; a summary table and a cost-breakdown figure.

    `compact=True` keeps the summary and figure but folds the controls into one short tab (workload, model,
    prices, the run's size and the agentic knobs), for pages that explore one workload."""

    def __init__(self, workload: str = "math_rl", compact: bool = False, **overrides):
        self.out = W.Output()
        self.summary = W.HTML()
        self.controls: dict[str, W.Widget] = {}
        self._quiet = False
        self.workload = W.Dropdown(options=list(workloads()), description="workload", style=STYLE, layout=LAYOUT)
        self.prices = W.Dropdown(options=list(snapshots()), description="Tinker prices", style=STYLE, layout=LAYOUT)
        self.model = W.Dropdown(description="model", style=STYLE, layout=LAYOUT)
        self.gpu = W.Dropdown(options=priced_gpus(), description="GPU", style=STYLE, layout=LAYOUT)
        self.method = W.ToggleButtons(options=["seed", "exact"], description="method", style=STYLE)
        self.cached = W.Checkbox(description="Tinker bills cached prefill (from 2026-07-17)", indent=False,
                                 layout=W.Layout(width="420px"))
        for name, (label, make) in SLIDERS.items():
            widget = make()
            widget.description, widget.style, widget.layout = label, STYLE, LAYOUT
            widget.continuous_update = False
            self.controls[name] = widget
        self.load(workload, **overrides)
        self.workload.observe(lambda change: self.load(change["new"]), names="value")
        self.prices.observe(self._on_prices, names="value")
        for w in [self.model, self.gpu, self.method, self.cached, *self.controls.values()]:
            w.observe(lambda change: self.redraw(), names="value")
        c = self.controls
        run = W.VBox([self.workload, self.model, self.prices, c["prompts_per_step"], c["group_size"], c["steps"],
                      c["completion_tokens"], c["prompt_tokens"], c["length_growth"], c["substeps"]])
        agentic = W.VBox([c["turns"], c["output_per_turn"], c["observation_per_turn"], c["cache_hit_rate"],
                          self.cached])
        hosted = W.VBox([self.gpu, c["num_gpus"], c["gpu_hourly_usd"], c["rollout_efficiency"], c["mfu"],
                         c["off_policy"], self.method])
        if compact:
            left = W.VBox([self.workload, self.model, self.prices, c["steps"], c["group_size"],
                           c["completion_tokens"]])
            right = W.VBox([c["turns"], c["output_per_turn"], c["prompt_tokens"], c["cache_hit_rate"], self.cached,
                            self.method])
            controls = W.HBox([left, right], layout=W.Layout(flex_flow="row wrap"))
        else:
            controls = W.Tab(children=[run, agentic, hosted])
            for i, title in enumerate(["Run", "Agentic & caching", "Self-hosted"]):
                controls.set_title(i, title)
        self.widget = W.VBox([controls, self.summary, self.out])
        self.redraw()

    # ---------------------------------------------------------------- state
    def load(self, workload: str, **overrides):
        """Set every control from a preset (and overrides), then redraw once."""
        preset = Scenario.from_workload(workload, **overrides).resolved()
        self._quiet = True
        try:
            if self.workload.value != get_workload(workload).name:
                self.workload.value = get_workload(workload).name
            self.prices.value = preset.prices
            self.model.options = priced_architectures(preset.prices)
            self.model.value = preset.model
            self.gpu.value = preset.gpu
            self.method.value = preset.method
            self.cached.value = bool(preset.tinker_cached_prefill)
            for name, widget in self.controls.items():
                value = getattr(preset, name)
                widget.value = type(widget.value)(min(max(value, widget.min), widget.max))
        finally:
            self._quiet = False
        self.redraw()

    def _on_prices(self, change):
        current = self.model.value
        self._quiet = True
        try:
            self.model.options = priced_architectures(change["new"])
            if current in self.model.options:
                self.model.value = current
        finally:
            self._quiet = False
        self.redraw()

    def scenario(self) -> Scenario:
        values = {name: widget.value for name, widget in self.controls.items()}
        return Scenario.from_workload(self.workload.value, model=self.model.value, prices=self.prices.value,
                                      gpu=self.gpu.value, method=self.method.value,
                                      tinker_cached_prefill=self.cached.value, **values)

    # ---------------------------------------------------------------- drawing
    def redraw(self):
        if self._quiet:
            return
        try:
            est = estimate(self.scenario())
        except TinkerNomicsError as exc:
            self.summary.value = f"<p style='color:#b00'>{html.escape(str(exc))}</p>"
            self.out.clear_output()
            return
        self.summary.value = summary_html(est)
        fig = plots.cost_breakdown(est, title=f"{est.scenario.model} · Tinker prices as of {est.scenario.prices} · "
                                               f"{est.scenario.method} method")
        self.out.clear_output(wait=True)
        with self.out:
            display(fig)
        plt.close(fig)


def summary_html(est) -> str:
    """A small table: tokens, Tinker's bill, self-hosted hours and dollars, the cheaper side."""
    from .compare import cheaper_factor
    t, s, k = est.tinker, est.self_hosted, est.tokens
    side, factor = cheaper_factor(est)
    rows = [("Prices", f"Tinker as of {est.scenario.prices}"
                       + (f"; {float(s.num_gpus):g} × {est.scenario.gpu} at {fmt.usd(s.gpu_hourly_usd)}/GPU-hour"
                          if s is not None else "")),
            ("Tokens", f"sample {fmt.tokens(k.sample)} · train {fmt.tokens(k.train)} · "
                       f"prefill {fmt.tokens(k.prefill)}"),
            ("Tinker", f"<b>{fmt.usd(t.total_usd)}</b> (sample {fmt.usd(t.sample_usd)}, train "
                       f"{fmt.usd(t.train_usd)}, prefill {fmt.usd(t.prefill_usd)}, sandbox {fmt.usd(t.sandbox_usd)})")]
    if s is not None:
        rows += [("Self-hosted", f"<b>{fmt.usd(s.total_usd)}</b> ({float(s.gpu_hours):,.1f} GPU-h on "
                                 f"{float(s.num_gpus):g} GPUs, sandbox {fmt.usd(s.sandbox_usd)})"),
                 ("Time", f"rollout {fmt.hours(s.rollout_hours)}, training {fmt.hours(s.train_hours)}, "
                          f"wall-clock {fmt.hours(s.wallclock_hours)}"),
                 ("Cheaper", f"<b>{str(side).replace('_', '-')}</b> ({fmt.ratio(factor)})")]
    rows += [("Note", html.escape(n)) for n in est.notes]
    body = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{a}</th><td>{b}</td></tr>" for a, b in rows)
    return f"<table>{body}</table>"
