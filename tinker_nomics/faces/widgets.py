"""ipywidgets calculators backed by the package. In Binder or your own Jupyter they redraw live; in the
static book they show the state they were built with (a snapshot).

    from tinker_nomics.widgets import Calculator
    Calculator("swe_rl").widget          # display it in a notebook
"""
from __future__ import annotations

import html
import io

import ipywidgets as W
import matplotlib.pyplot as plt
from IPython.display import Image, display

from .. import fmt, sources
from ..analysis.compare import cheaper_factor
from ..analysis.experiments import informed_scenario
from ..analysis.seed_experiments import SEED_WORKLOADS, seed_experiment
from ..errors import TinkerNomicsError
from ..model.estimate import estimate
from ..model.scenario import METHODS, Scenario
from ..runs.calibrate import SIGN_CONVENTION
from ..sources.price_list import priced_models, snapshots
from ..sources.successors import model_for
from ..sources.workloads import get_workload, workloads
from . import plots

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
    """Models with a published architecture that Tinker bills as of `snapshot`: priced there, or retired and
    billed on a successor that is (sources.successors)."""
    names = []
    for model in priced_models():
        try:
            model_for(model, snapshot)
        except TinkerNomicsError:
            continue
        if sources.has_arch(model):
            names.append(model)
    return names


def priced_gpus() -> list[str]:
    return [g for g, spec in sources.gpus().items() if spec.bf16_dense_tflops
            and any(p.gpu == g and p.default for p in sources.gpu_prices())]


# Panel figures use fixed margins and are drawn once to PNG here: the notebook's default "tight" bounding box
# draws every figure twice, and a panel redraws on every slider move (make bench measures the redraw).
PANEL_FIGSIZE = (7.5, 3.2)
PANEL_MARGINS = dict(left=0.14, right=0.97, top=0.88, bottom=0.16)


def panel_axes(size=PANEL_FIGSIZE):
    fig, ax = plt.subplots(figsize=size)
    fig.subplots_adjust(**PANEL_MARGINS)
    return fig, ax


def show_png(out: W.Output, fig) -> None:
    """Replace what `out` shows with `fig` as a PNG, and free the figure."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi)
    plt.close(fig)
    out.clear_output(wait=True)
    with out:
        display(Image(data=buffer.getvalue(), format="png"))


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
        self.method = W.ToggleButtons(options=list(reversed(METHODS)), description="method", style=STYLE)
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
        self.gpu.observe(self._on_gpu, names="value")
        self.method.observe(self._on_method, names="value")
        for w in [self.model, self.cached, *self.controls.values()]:
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

    def _on_gpu(self, change):
        """The $/GPU-hour follows the GPU: the preset's rate for the preset's GPU, else the GPU's registry default."""
        self._set_quietly("gpu_hourly_usd", self._rate_for(change["new"])[0])
        self.redraw()

    def _on_method(self, change):
        """Each method's own efficiencies: the seed's 70% MBU and 10% MFU, or the calibrated fit for the model."""
        preset = Scenario.from_workload(self.workload.value, model=self.model.value, method=change["new"]).resolved()
        self._set_quietly("rollout_efficiency", preset.rollout_efficiency)
        self._set_quietly("mfu", preset.mfu)
        self.redraw()

    def _set_quietly(self, name: str, value: float) -> None:
        widget = self.controls[name]
        self._quiet = True
        try:
            widget.value = type(widget.value)(min(max(value, widget.min), widget.max))
        finally:
            self._quiet = False

    def _rate_for(self, gpu: str) -> tuple[float, str]:
        """The $/GPU-hour a GPU takes on this panel and where it comes from (Scenario.from_workload's rule)."""
        preset = Scenario.from_workload(self.workload.value, gpu=gpu).resolved()
        return float(preset.gpu_hourly_usd), str(preset.gpu_hourly_usd_source)

    def scenario(self) -> Scenario:
        values = {name: widget.value for name, widget in self.controls.items()}
        rate, source = self._rate_for(self.gpu.value)
        return Scenario.from_workload(self.workload.value, model=self.model.value, prices=self.prices.value,
                                      gpu=self.gpu.value, method=self.method.value,
                                      tinker_cached_prefill=self.cached.value,
                                      gpu_hourly_usd_source=source if abs(values["gpu_hourly_usd"] - rate) < 0.005
                                      else "set on the panel", **values)

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
        fig, ax = panel_axes()
        plots.cost_breakdown(est, ax=ax, title=f"{est.scenario.model} · Tinker prices as of {est.scenario.prices} · "
                                               f"{est.scenario.method} method")
        show_png(self.out, fig)


def summary_html(est) -> str:
    """A small table: tokens, Tinker's bill, self-hosted hours and dollars, the cheaper side."""
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


# ------------------------------------------------------------------------------------------ experiment replay


class ExperimentPanel:
    """Re-predict one of the seed's Tinker experiments (exp 1a, exp 1b) with the reader's assumptions, next to
    the bill of the tokens the run logged: per meter, tokens and dollars, and the signed error."""

    def __init__(self, experiment: str = "exp1a"):
        self.workloads = dict(SEED_WORKLOADS)
        self.out = W.Output()
        self.summary = W.HTML()
        self.experiment = W.Dropdown(options=[("exp 1a (GSM8K)", "exp1a"), ("exp 1b (MATH)", "exp1b")],
                                     value=experiment, description="experiment", style=STYLE, layout=LAYOUT)
        self.completion = W.IntSlider(min=64, max=2048, step=16, description=r"completion tokens \(L\)")
        self.prompt = W.IntSlider(min=0, max=400, step=1, description=r"prompt tokens \(P\)")
        self.growth = W.FloatSlider(min=0.5, max=2.5, step=0.05, description="length growth (end/start)")
        self.evals = W.Checkbox(description="count the eval rollouts the run made", indent=False)
        self.method = W.ToggleButtons(options=list(reversed(METHODS)), description="method", style=STYLE)
        for w in (self.completion, self.prompt, self.growth):
            w.style, w.layout, w.continuous_update = STYLE, LAYOUT, False
        self._quiet = False
        self.load(experiment)
        self.experiment.observe(lambda change: self.load(change["new"]), names="value")
        for w in (self.completion, self.prompt, self.growth, self.evals, self.method):
            w.observe(lambda change: self.redraw(), names="value")
        self.widget = W.VBox([W.HBox([W.VBox([self.experiment, self.completion, self.prompt]),
                                      W.VBox([self.growth, self.method, self.evals])]),
                              self.summary, self.out])
        self.redraw()

    def load(self, experiment: str):
        """Start from the seed's prediction (the workload preset under the seed method)."""
        preset = Scenario.from_workload(self.workloads[experiment], method="seed").resolved()
        self._quiet = True
        try:
            self.experiment.value = experiment
            self.completion.value = int(preset.completion_tokens)
            self.prompt.value = int(preset.prompt_tokens)
            self.growth.value = float(preset.length_growth)
            self.method.value = preset.method
            self.evals.value = False
        finally:
            self._quiet = False
        self.redraw()

    def scenario(self) -> Scenario:
        name = self.experiment.value
        evals = informed_scenario(name)
        return Scenario.from_workload(self.workloads[name], completion_tokens=self.completion.value,
                                      prompt_tokens=self.prompt.value, length_growth=self.growth.value,
                                      method=self.method.value,
                                      eval_every=evals.eval_every if self.evals.value else 0.0,
                                      eval_prompts=evals.eval_prompts if self.evals.value else 0.0)

    def comparison(self):
        """(meter, predicted tokens, predicted USD, logged tokens, logged USD) rows and the real bill."""
        run = seed_experiment(self.experiment.value)
        est = estimate(self.scenario())
        rows = []
        for meter in ("sample", "train", "prefill"):
            rows.append((meter, float(getattr(est.tokens, meter)), float(getattr(est.tinker, f"{meter}_usd")),
                         float(getattr(run.bill.meters, meter)), float(getattr(run.bill, f"{meter}_usd"))))
        return rows, run.billed_usd, est

    def redraw(self):
        if self._quiet:
            return
        try:
            rows, billed, est = self.comparison()
        except TinkerNomicsError as exc:
            self.summary.value = f"<p style='color:#b00'>{html.escape(str(exc))}</p>"
            self.out.clear_output()
            return
        self.summary.value = experiment_html(rows, billed, est)
        fig, ax = panel_axes()
        plots.meters_side_by_side([r[0] for r in rows], [r[2] for r in rows], [r[4] for r in rows],
                                  labels=("predicted", "from the logged tokens"), ax=ax,
                                  title=f"{self.experiment.label}: predicted vs logged, "
                                        f"Tinker prices as of {est.scenario.prices}")
        show_png(self.out, fig)


def experiment_html(rows, billed_usd: float, est) -> str:
    """Per meter: predicted and logged tokens and dollars, and the signed error of the prediction."""
    head = ("<tr><th style='text-align:left'>meter</th><th>predicted</th><th>logged</th><th>predicted $</th>"
            "<th>logged $</th><th>error</th></tr>")
    body = []
    for meter, p_tok, p_usd, m_tok, m_usd in rows:
        err = fmt.signed_pct((p_usd - m_usd) / m_usd) if m_usd else "n/a"
        body.append(f"<tr><td>{meter}</td><td>{fmt.tokens(p_tok)}</td><td>{fmt.tokens(m_tok)}</td>"
                    f"<td>{fmt.usd(p_usd)}</td><td>{fmt.usd(m_usd)}</td><td>{err}</td></tr>")
    predicted = sum(r[2] for r in rows)
    logged = sum(r[4] for r in rows)
    body.append(f"<tr><th style='text-align:left'>total</th><td></td><td></td><td><b>{fmt.usd(predicted)}</b></td>"
                f"<td><b>{fmt.usd(logged)}</b></td><td>{fmt.signed_pct((predicted - logged) / logged)}</td></tr>")
    return (f"<table>{head}{''.join(body)}</table><p>Tinker billed {fmt.usd(billed_usd)}. "
            f"Signed error: {html.escape(SIGN_CONVENTION)}.</p>")
