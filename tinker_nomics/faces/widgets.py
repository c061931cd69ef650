"""ipywidgets calculators backed by the package. In Binder or your own Jupyter they redraw live; in the
static book they show the state they were built with (a snapshot).

    from tinker_nomics.widgets import Calculator
    Calculator("swe_rl").widget          # display it in a notebook
"""
from __future__ import annotations

import contextlib
import functools
import html
import io

import ipywidgets as W
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import SVG, display

from .. import fmt, sources
from ..analysis.compare import cheaper_factor
from ..analysis.experiments import informed_scenario
from ..analysis.seed_experiments import SEED_WORKLOADS, seed_experiment
from ..errors import TinkerNomicsError
from ..model.estimate import estimate, with_efficiencies
from ..model.scenario import METHODS, Scenario
from ..runs.calibrate import SIGN_CONVENTION
from ..sources.price_list import priced_models, snapshots
from ..sources.successors import billed_as
from ..sources.workloads import get_workload, workloads
from . import plots, wording

LABEL_WIDTH = "14em"          # wide enough for every label below; longer ones wrap instead of being cut
STYLE = {"description_width": LABEL_WIDTH}
TOKENS = ",d"                 # token counts read 13,000, not 13000 (a d3-format the slider's readout takes)
SECONDS = ",.0f"              # whole seconds (the slider steps by 5): 1,650 and 0, not 1650.00 or 0.00
ROW = dict(width="100%", max_width="34em")
# ipywidgets cuts a long description with an ellipsis and gives a slider's readout a fixed narrow box; in a
# panel (class tn-panel) labels wrap and readouts keep room for "32,768" or "$15.00". Shipped as a <style> inside
# the panel, so it applies in JupyterLab and in the static book alike.
PANEL_CSS = ("<style>.tn-panel .widget-label{white-space:normal;text-align:left;overflow:visible;text-overflow:clip;"
             "line-height:1.25;height:auto;min-height:var(--jp-widgets-inline-height,28px);display:flex;align-items:center;"
             "column-gap:0.3em}"   # a flex label drops the space between its words and its math symbol
             ".tn-panel .widget-readout{min-width:5.5em;overflow:visible;text-align:right}"
             ".tn-panel .widget-inline-hbox{height:auto;min-height:var(--jp-widgets-inline-height,28px)}"
             ".tn-panel .widget-html,.tn-panel .widget-html-content{min-width:0;max-width:100%;white-space:normal;"
             "height:auto}"
             ".tn-panel .tn-group{border:1px solid #e3e3e3;border-radius:6px;padding:4px 8px 6px 8px;min-width:0}"
             ".tn-panel .tn-group-title{font-weight:600;color:#333;margin:2px 0 4px 0}"
             ".tn-panel table.tn-summary td,.tn-panel table.tn-summary th{padding:3px 12px 3px 0;vertical-align:top;"
             "text-align:left}.tn-panel table.tn-summary th{white-space:nowrap}"
             # a long unbroken word (a file path in a note, a user's file name) wraps inside the cell, not past it
             ".tn-panel table.tn-summary td{overflow-wrap:anywhere}"
             ".tn-panel .tn-changes{color:#7a4b00;margin:4px 0}"
             ".tn-panel .tn-fixed{color:#555;margin:4px 0;font-size:0.92em}</style>")


def styled(widget, label: str):
    """One control: its full label, the panel's label column, and a row that shrinks on a phone."""
    widget.description, widget.style, widget.layout = label, STYLE, W.Layout(**ROW)
    if hasattr(widget, "continuous_update"):
        widget.continuous_update = False
    return widget


def group(title: str, children) -> W.VBox:
    box = W.VBox([W.HTML(f"<div class='tn-group-title'>{html.escape(title)}</div>"), *children],
                 layout=W.Layout(width="auto"))
    box.add_class("tn-group")
    return box


def groups(boxes) -> W.GridBox:
    """Groups side by side where the page is wide, one under another on a phone."""
    return W.GridBox(boxes, layout=W.Layout(grid_template_columns="repeat(auto-fit, minmax(min(100%, 26em), 1fr))",
                                            grid_gap="8px 12px", width="100%"))


def panel(children) -> W.VBox:
    box = W.VBox([W.HTML(PANEL_CSS), *children], layout=W.Layout(width="100%", max_width="72em"))
    box.add_class("tn-panel")
    return box


def changes_html(changes: list[str]) -> str:
    """What a change did beyond the control moved (a model switched, a GPU's rate taken), for the panel."""
    return "".join(f"<div class='tn-changes'>{html.escape(c)}</div>" for c in changes)


SANDBOX_LABELS = {"none": "none", "modal": "Modal (billed per CPU-core-hour and GiB-hour)",
                  "sandboxfusion": "SandboxFusion (your own CPUs, free)"}


def sandbox_options() -> list[tuple[str, str]]:
    """Every sandbox data/hardware/sandbox_rates.csv prices, by the name a reader knows it by."""
    return [(SANDBOX_LABELS.get(name, name), name) for name in sorted(sources.sandbox_rates(),
                                                                       key=lambda n: (n != "none", n))]


# Scenario field -> (label, widget factory). Ranges cover the presets and sensible sweeps.
SLIDERS = {
    "prompts_per_step": (r"prompts per step \(B\)", lambda: W.IntSlider(min=1, max=512, step=1)),
    "group_size": (r"rollouts per prompt \(G\)", lambda: W.IntSlider(min=1, max=64, step=1)),
    "steps": (r"steps \(S\)", lambda: W.IntSlider(min=1, max=1000, step=1)),
    "completion_tokens": (r"completion tokens \(L\)", lambda: W.IntSlider(min=64, max=32768, step=64,
                                                                         readout_format=TOKENS)),
    "prompt_tokens": (r"prompt tokens \(P\)", lambda: W.IntSlider(min=0, max=32768, step=50, readout_format=TOKENS)),
    "length_growth": (r"length growth, end ÷ start \(g\)", lambda: W.FloatSlider(min=0.5, max=3.0, step=0.05)),
    "substeps": (r"passes per batch \(K\)", lambda: W.IntSlider(min=1, max=8, step=1)),
    "lora_rank": ("LoRA rank", lambda: W.IntSlider(min=1, max=512, step=1)),
    "turns": (r"turns per rollout \(T\)", lambda: W.IntSlider(min=1, max=60, step=1)),
    "output_per_turn": (r"output tokens per turn \(O\)", lambda: W.IntSlider(min=0, max=8192, step=50,
                                                                             readout_format=TOKENS)),
    "observation_per_turn": ("observation tokens per turn", lambda: W.IntSlider(min=0, max=8192, step=50,
                                                                               readout_format=TOKENS)),
    "failure_overhead": ("extra turns of failed rollouts", lambda: W.FloatSlider(min=0.0, max=1.0, step=0.01,
                                                                                 readout_format=".0%")),
    "cache_hit_rate": ("prefix-cache hit rate", lambda: W.FloatSlider(min=0.0, max=1.0, step=0.01,
                                                                      readout_format=".0%")),
    "sandbox_seconds_per_rollout": ("sandbox seconds per rollout", lambda: W.FloatSlider(min=0.0, max=3600.0,
                                                                                         step=5.0,
                                                                                         readout_format=SECONDS)),
    "off_policy": (r"steps off-policy \(k\)", lambda: W.IntSlider(min=0, max=8, step=1)),
    "num_gpus": ("GPUs", lambda: W.IntSlider(min=1, max=256, step=1)),
    "gpu_hourly_usd": ("$ per GPU-hour", lambda: W.FloatSlider(min=0.2, max=15.0, step=0.01, readout_format=".2f")),
    "rollout_efficiency": ("rollout efficiency", lambda: W.FloatSlider(min=0.05, max=1.0, step=0.01,
                                                                      readout_format=".0%")),
    "mfu": ("training MFU", lambda: W.FloatSlider(min=0.01, max=0.6, step=0.005, readout_format=".1%")),
}


def priced_architectures(snapshot: str) -> list[str]:
    """Models with a published architecture that Tinker bills as of `snapshot`: priced there, or retired and
    billed on a successor that is (sources.successors)."""
    return [model for model in priced_models() if billed_as(model, snapshot) is not None and sources.has_arch(model)]


def model_options(snapshot: str, keep: str) -> list[tuple[str, str]]:
    """The panel's models at a price list: those Tinker bills there (`priced_architectures`), and `keep`, the model
    the panel holds, when the list does not bill it (its Tinker side is then not offered; its self-hosted side
    stands)."""
    return [(model_label(m), m) for m in dict.fromkeys([*priced_architectures(snapshot), keep])]


def model_label(model: str) -> str:
    """A model as a dropdown shows it: Tinker's long-context price keys (`Kimi-K2.6:peft:131072`) as the model and
    its context ("moonshotai/Kimi-K2.6 · 131K-token context"), not the price list's key."""
    base, context = sources.split_context(model)
    if context is None:
        return base
    # contexts are powers of two, said in binary thousands as model cards say them (131072 is "128K")
    size = f"{context // 1024:,}K" if context % 1024 == 0 else fmt.tokens(context)
    return f"{base} · {size}-token context"


def priced_gpus() -> list[str]:
    return [g for g, spec in sources.gpus().items() if spec.bf16_dense_tflops
            and any(p.gpu == g and p.default for p in sources.gpu_prices())]


# Panel figures use fixed margins and are drawn once to PNG here: the notebook's default "tight" bounding box
# draws every figure twice, and a panel redraws on every slider move (make bench measures the redraw).
PANEL_FIGSIZE = (4.8, 3.2)    # inches: at the book's smallest font, text stays >= 9 px on a phone (plots.common)
PANEL_MARGINS = dict(left=0.2, right=0.97, top=0.88, bottom=0.38)   # room for the legend under the axis


def set_holding(widget, value) -> None:
    """Set a slider to a preset's value exactly: a value outside its range widens the range rather than being
    clipped, so the panel never prices a different run than the preset it says it holds."""
    value = type(widget.value)(value)
    if value > widget.max:
        widget.max = value
    if value < widget.min:
        widget.min = value
    widget.value = value


def panel_axes(size=PANEL_FIGSIZE):
    fig, ax = plt.subplots(figsize=size)
    fig.subplots_adjust(**PANEL_MARGINS)
    return fig, ax


def show_png(out: W.Output, fig) -> None:
    """Replace what `out` shows with `fig`, and free the figure. Drawn as SVG with its text as text (the name is
    older than the format): PANEL_FIGSIZE and the book's smallest font keep the text readable on a phone
    (plots.common.PHONE_COLUMN_PX) without the refitting the chapters' figures get, which a redraw cannot afford."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    out.clear_output(wait=True)
    with out:
        display(SVG(data=buffer.getvalue()))


class Calculator:
    """A workload picker, registry pickers and sliders in labelled groups; a summary table and a cost-breakdown
    figure. Every consequence of a change beyond the control itself is stated above the summary: a price list that
    bills the model on its successor or not at all (Tinker's side then not offered), a new GPU's $/GPU-hour and
    where it comes from.

    `compact=True` keeps the summary and figure but shows only the controls a one-workload page needs
    (workload, model, prices, the run's size and the agentic knobs)."""

    def __init__(self, workload: str = "math_rl", compact: bool = False, **overrides):
        self.out = W.Output()
        self.summary = W.HTML()
        self.fixed = W.HTML()        # the controls that cannot change this run's result, and why
        self.controls: dict[str, W.Widget] = {}
        self.changes: list[str] = []
        self._quiet = False
        self.workload = styled(W.Dropdown(options=list(workloads())), "workload preset")
        self.prices = styled(W.Dropdown(options=list(snapshots())), "Tinker price list")
        self.model = styled(W.Dropdown(), "model")
        self.gpu = styled(W.Dropdown(options=priced_gpus()), "GPU")
        self.sandbox = styled(W.Dropdown(options=sandbox_options()), "sandbox")
        self.method = styled(W.ToggleButtons(options=list(reversed(METHODS))), "method")
        self.method.style = {"description_width": LABEL_WIDTH, "button_width": "7.5em"}
        self.cached = W.Checkbox(description="Tinker bills cached prefill (from 2026-07-17)", indent=False,
                                 layout=W.Layout(**ROW))
        for name, (label, make) in SLIDERS.items():
            self.controls[name] = styled(make(), label)
        self.load(workload, **overrides)
        self.workload.observe(lambda change: self.load(change["new"], announce=True), names="value")
        self.prices.observe(self._on_prices, names="value")
        self.gpu.observe(self._on_gpu, names="value")
        self.method.observe(self._on_method, names="value")
        for w in [self.model, self.cached, self.sandbox, *self.controls.values()]:
            w.observe(lambda change: self.redraw(), names="value")
        c = self.controls
        if compact:
            boxes = [group("Run", [self.workload, self.model, self.prices, c["steps"], c["group_size"],
                                   c["completion_tokens"], self.method]),
                     group("Agents and caching", [c["turns"], c["output_per_turn"], c["prompt_tokens"],
                                                  c["cache_hit_rate"], self.cached])]
        else:
            boxes = [group("Run", [self.workload, self.model, self.prices, c["prompts_per_step"], c["group_size"],
                                   c["steps"], c["completion_tokens"], c["prompt_tokens"], c["length_growth"],
                                   c["substeps"], c["lora_rank"], self.method]),
                     group("Agents, sandboxes and caching", [c["turns"], c["output_per_turn"],
                                                             c["observation_per_turn"], c["failure_overhead"],
                                                             self.sandbox, c["sandbox_seconds_per_rollout"],
                                                             c["cache_hit_rate"], self.cached]),
                     group("Self-hosted", [self.gpu, c["num_gpus"], c["gpu_hourly_usd"], c["rollout_efficiency"],
                                           c["mfu"], c["off_policy"]])]
        self.widget = panel([groups(boxes), self.fixed, self.summary, self.out])   # load() drew the first state

    # ---------------------------------------------------------------- state
    @contextlib.contextmanager
    def _holding(self):
        """Set several controls with one redraw after: nested holds (a preset setting the price list, whose
        observer sets the model) restore the outer hold instead of ending it."""
        outer, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = outer

    def load(self, workload: str, announce: bool = False, **overrides):
        """Set every control from a preset (and overrides), then redraw once; `announce` says so in the panel."""
        preset = with_efficiencies(Scenario.from_workload(workload, **overrides))
        with self._holding():
            if self.workload.value != get_workload(workload).name:
                self.workload.value = get_workload(workload).name
            self.prices.value = preset.prices
            self.model.options = model_options(preset.prices, preset.model)
            self.model.value = preset.model
            self.gpu.value = preset.gpu
            self.sandbox.value = preset.sandbox
            self.method.value = preset.method
            self.cached.value = bool(preset.tinker_cached_prefill)
            for name, widget in self.controls.items():
                set_holding(widget, getattr(preset, name))
        self.changes = [f"Every control now holds the {get_workload(workload).name} preset: {preset.model}, "
                        f"Tinker prices as of {preset.prices}, {float(preset.num_gpus):g} × {preset.gpu}."] \
            if announce else []
        self.redraw()

    def _on_prices(self, change):
        """The model stays: Tinker's side is billed at the new list, on the model's successor where the list has
        retired it, or not offered where it bills neither (the self-hosted side does not depend on the list)."""
        current = self.model.value
        with self._holding():
            self.model.options = model_options(change["new"], current)
            self.model.value = current
        billed = billed_as(current, change["new"])
        self.changes = []
        if billed is None:
            self.changes.append(f"The {change['new']} price list bills neither {current} nor a successor of it: "
                                f"Tinker's side is not offered; the self-hosted side is unchanged.")
        elif billed[1] is not None:   # kept, but Tinker bills it as its successor (sources.successors)
            self.changes.append(f"The {change['new']} price list does not price {current}: Tinker's side is "
                                f"billed as its successor {billed[0]}; the self-hosted side runs {current}.")
        self.redraw()

    def _on_gpu(self, change):
        """The $/GPU-hour follows the GPU: the preset's rate for the preset's GPU, else the GPU's registry default
        (Scenario.from_workload's rule), and the panel says which."""
        rate, source = self._rate_for(change["new"])
        with self._holding():
            self.controls["gpu_hourly_usd"].value = rate
        self.changes = [f"{change['new']}: {fmt.usd(rate)} per GPU-hour ({source}); move $ per GPU-hour to price "
                        f"another offer."]
        self.redraw()

    def _on_method(self, change):
        """Each method's own efficiencies: the seed's 70% MBU and 10% MFU, or the calibrated fit for the model."""
        preset = with_efficiencies(Scenario.from_workload(self.workload.value, model=self.model.value,
                                                          method=change["new"]))
        with self._holding():
            for name in ("rollout_efficiency", "mfu"):
                set_holding(self.controls[name], getattr(preset, name))
        self.changes = [f"The {change['new']} method's efficiencies: rollout "
                        f"{fmt.pct(float(preset.rollout_efficiency))}, training MFU {fmt.pct(float(preset.mfu))}."]
        self.redraw()

    def _rate_for(self, gpu: str) -> tuple[float, str]:
        """The $/GPU-hour a GPU takes on this panel and where it comes from (Scenario.from_workload's rule)."""
        preset = Scenario.from_workload(self.workload.value, gpu=gpu).resolved()
        return float(preset.gpu_hourly_usd), str(preset.gpu_hourly_usd_source)

    def scenario(self) -> Scenario:
        values = {name: widget.value for name, widget in self.controls.items()}
        rate, source = self._rate_for(self.gpu.value)
        return Scenario.from_workload(self.workload.value, model=self.model.value, prices=self.prices.value,
                                      gpu=self.gpu.value, method=self.method.value, sandbox=self.sandbox.value,
                                      tinker_cached_prefill=self.cached.value,
                                      gpu_hourly_usd_source=source if abs(values["gpu_hourly_usd"] - rate) < 0.005
                                      else "set on the panel", **values)

    # ---------------------------------------------------------------- drawing
    def redraw(self):
        if self._quiet:
            return
        try:
            scenario = self.scenario()
            est = estimate(scenario)
            fixed = fixed_controls(scenario, {name: self.controls[name] for name in ("rollout_efficiency", "mfu")})
        except TinkerNomicsError as exc:
            self.summary.value = f"<p style='color:#b00'>{html.escape(str(exc))}</p>"
            self.out.clear_output()
            # the controls that can fix it stay open: the length the turns slider now asks for (a single turn
            # with no completion length is refused, and its slider must not stay greyed)
            if "turns" in self.controls:
                fixed_now = length_controls_fixed(float(self.controls["turns"].value))
                for name, widget in self.controls.items():
                    widget.disabled = name in fixed_now
            return
        for name, widget in self.controls.items():
            widget.disabled = name in fixed
        self.fixed.value = fixed_html(fixed, self.controls)
        self.summary.value = changes_html(self.changes) + summary_html(est, panel_verdict(scenario,
                                                                                          self.workload.value))
        self.changes = []
        fig, ax = panel_axes()
        plots.cost_breakdown(est, ax=ax, title=f"{est.scenario.model.split('/')[-1]} · prices {est.scenario.prices} · "
                                               f"{est.scenario.method}")
        show_png(self.out, fig)


SINGLE_TURN_ONLY = ("completion_tokens",)
MULTI_TURN_ONLY = ("output_per_turn", "observation_per_turn")
PACE_REASONS = {"rollout_efficiency": "training sets the pace of this run at every rollout efficiency, so the "
                                      "rollout's speed cannot change its bill",
                "mfu": "rollout sets the pace of this run at every training MFU, so training's speed cannot change "
                       "its bill"}


def length_controls_fixed(turns: float) -> dict[str, str]:
    """The length controls a run of `turns` turns does not read, each with the reason."""
    fixed = {name: "a multi-turn run reads the output and observation tokens per turn" for name in SINGLE_TURN_ONLY
             if turns > 1}
    fixed.update({name: "a single-turn run reads the completion length" for name in MULTI_TURN_ONLY if turns <= 1})
    return fixed


# A moved panel draws this many times, so a redraw stays fast; at a preset's own values it draws what the book drew
# (uncertainty.DEFAULT_DRAWS, the same seeded draws), so the panel states the verdict of the table beside it.
PANEL_DRAWS = 4_000
# set on the panel by the method's fitted values, which the calibrated method reads the same as when not set
PANEL_SHOWN = ("rollout_efficiency", "mfu", "gpu_hourly_usd_source")


def panel_verdict(scenario: Scenario, workload: str) -> str | None:
    """The calibrated panel's verdict with its share of draws (the book's words, wording.verdict): the Monte-Carlo
    around the panel's scenario, an input moved off the preset held where the panel puts it (not drawn). None for
    the seed and exact methods, or where a side has no dollars."""
    from ..analysis import uncertainty

    resolved = scenario.resolved()
    if resolved.method != "calibrated":
        return None
    ours, preset = resolved.to_dict(), Scenario.from_workload(workload).resolved().to_dict()
    moved = {k for k in ours if k not in PANEL_SHOWN and ours[k] != preset.get(k)}
    if not moved:   # the preset itself: the book's draws, drawn once
        return _preset_verdict(workload)
    return _verdict_text(uncertainty.around(scenario, workload, n=PANEL_DRAWS, fixed=tuple(sorted(moved))))


@functools.lru_cache(maxsize=None)
def _preset_verdict(workload: str) -> str | None:
    from ..analysis import uncertainty
    return _verdict_text(uncertainty.around(Scenario.from_workload(workload), workload))


def _verdict_text(mc) -> str | None:
    from ..analysis.verdict import Verdict
    if mc.tinker_not_offered or not min(round(mc.point_tinker_usd, 2), round(mc.point_self_hosted_usd, 2)) > 0:
        return None     # NaN (no sourced GPU rate) fails the comparison too
    said = wording.verdict(Verdict.of(mc.point_tinker_usd, mc.point_self_hosted_usd, mc.p_tinker_cheaper), True)
    return said.replace("of draws", f"of {mc.n:,} draws")


def fixed_controls(scenario: Scenario, sliders: dict) -> dict[str, str]:
    """The controls that cannot change this scenario's result, each with the reason: the length inputs of the
    other kind of run (single- or multi-turn), and a rollout efficiency or MFU slider whose whole range leaves
    the self-hosted bill where it is (one vectorized estimate over the slider's range each)."""
    fixed = length_controls_fixed(float(np.max(scenario.resolved().turns)))
    for name, slider in sliders.items():
        grid = np.linspace(slider.min, slider.max, 16)
        bills = np.asarray(estimate(scenario.replace(**{name: grid})).self_hosted.total_usd, dtype=float)
        if np.ptp(bills) <= 1e-9 * np.max(bills):
            fixed[name] = PACE_REASONS[name]
    return fixed


def fixed_html(fixed: dict[str, str], controls: dict) -> str:
    """The greyed controls and why, under the panel's controls."""
    if not fixed:
        return ""
    items = "; ".join(f"<b>{html.escape(strip_math(controls[name].description))}</b>: {html.escape(reason)}"
                      for name, reason in fixed.items())
    return f"<div class='tn-fixed'>Greyed, because they cannot change this run's result: {items}.</div>"


def strip_math(label: str) -> str:
    r"""A control's label without its MathJax delimiters: 'completion tokens \(L\)' → 'completion tokens (L)'."""
    return label.replace(r"\(", "(").replace(r"\)", ")")


def summary_html(est, verdict: str | None = None) -> str:
    """A small table: tokens, Tinker's bill, self-hosted hours and dollars, the cheaper side (`verdict`, the
    sentence with its share of draws where the caller drew them, panel_verdict)."""
    t, s, k, sc = est.tinker, est.self_hosted, est.tokens, est.scenario
    side, factor = cheaper_factor(est)
    tinker = (f"not offered: {html.escape(est.tinker_not_offered)}" if est.tinker_not_offered else
              f"<b>{fmt.usd(t.total_usd)}</b> (sample {fmt.usd(t.sample_usd)}, train "
              f"{fmt.usd(t.train_usd)}, prefill {fmt.usd(t.prefill_usd)}, sandbox {fmt.usd(t.sandbox_usd)}, "
              f"storage {fmt.usd(t.storage_usd)} for a {fmt.size_gb(est.checkpoint_gb)} adapter at "
              f"rank {float(sc.lora_rank):g})")
    rows = [("Prices", f"Tinker as of {sc.prices}"
                       + (f"; {float(s.num_gpus):g} × {sc.gpu} at {fmt.usd(s.gpu_hourly_usd)} per GPU-hour "
                          f"({html.escape(wording.rate_source(sc.gpu_hourly_usd_source, sc.gpu, s.gpu_hourly_usd))})"
                          if s is not None else "")),
            ("Tokens", f"sample {fmt.tokens(k.sample)} · train {fmt.tokens(k.train)} · "
                       f"prefill {fmt.tokens(k.prefill)}"),
            ("Tinker", tinker)]
    if not est.tinker_not_offered and est.tinker_time is not None:
        rows.append(("Tinker time", f"wall-clock ≈ {fmt.hours(est.tinker_time.wallclock_hours)} "
                                    f"({html.escape(wording.tinker_wallclock_basis())})"))
    if s is not None:
        rows += [("Self-hosted", f"<b>{fmt.usd(s.total_usd)}</b> ({float(s.gpu_hours):,.1f} GPU-h on "
                                 f"{float(s.num_gpus):g} GPUs, sandbox {fmt.usd(s.sandbox_usd)})"),
                 ("Self-hosted time", wording.self_hosted_time(s)),
                 ("Cheaper", "unknown (Tinker does not offer this model)" if est.tinker_not_offered else
                             f"<b>{html.escape(verdict)}</b>" if verdict else
                             f"<b>{str(side).replace('_', '-')}</b> ({wording.factor(factor)})")]
    rows += [("Note", html.escape(n)) for n in est.notes
             if not (est.tinker_not_offered and n.endswith(est.tinker_not_offered))]   # the Tinker row says it
    body = "".join(f"<tr><th>{a}</th><td>{b}</td></tr>" for a, b in rows)
    return f"<table class='tn-summary'>{body}</table>"


# ------------------------------------------------------------------------------------------ experiment replay


class ExperimentPanel:
    """Re-predict one of the seed's Tinker experiments (exp 1a, exp 1b) with the reader's assumptions, next to
    the bill of the tokens the run logged: per meter, tokens and dollars, and the signed error."""

    def __init__(self, experiment: str = "exp1a"):
        self.workloads = dict(SEED_WORKLOADS)
        self.out = W.Output()
        self.summary = W.HTML()
        self.experiment = styled(W.Dropdown(options=[("exp 1a (GSM8K)", "exp1a"), ("exp 1b (MATH)", "exp1b")],
                                            value=experiment), "experiment")
        self.completion = styled(W.IntSlider(min=64, max=2048, step=16), r"completion tokens \(L\)")
        self.prompt = styled(W.IntSlider(min=0, max=400, step=1), r"prompt tokens \(P\)")
        self.growth = styled(W.FloatSlider(min=0.5, max=2.5, step=0.05), r"length growth, end ÷ start \(g\)")
        self.evals = W.Checkbox(description="count the eval rollouts the run made", indent=False,
                                layout=W.Layout(**ROW))
        self.method = styled(W.ToggleButtons(options=list(reversed(METHODS))), "method")
        self.method.style = {"description_width": LABEL_WIDTH, "button_width": "7.5em"}
        self._quiet = False
        self.load(experiment)
        self.experiment.observe(lambda change: self.load(change["new"]), names="value")
        for w in (self.completion, self.prompt, self.growth, self.evals, self.method):
            w.observe(lambda change: self.redraw(), names="value")
        self.widget = panel([groups([group("The run", [self.experiment, self.completion, self.prompt]),
                                     group("The prediction", [self.growth, self.method, self.evals])]),
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
                                  title=f"{self.experiment.label}, prices {est.scenario.prices}")
        show_png(self.out, fig)


def experiment_html(rows, billed_usd: float, est) -> str:
    """Per meter: predicted and logged tokens and dollars, and the signed error of the prediction."""
    from .tables import table

    lines = []
    for meter, p_tok, p_usd, m_tok, m_usd in rows:
        lines.append({"meter": meter, "predicted tokens": fmt.tokens(p_tok), "logged tokens": fmt.tokens(m_tok),
                      "predicted": fmt.usd(p_usd), "logged": fmt.usd(m_usd),
                      "error": fmt.signed_pct((p_usd - m_usd) / m_usd) if m_usd else "n/a"})
    predicted, logged = sum(r[2] for r in rows), sum(r[4] for r in rows)
    lines.append({"meter": "total", "predicted tokens": "", "logged tokens": "", "predicted": fmt.usd(predicted),
                  "logged": fmt.usd(logged), "error": fmt.signed_pct((predicted - logged) / logged)})
    convention = SIGN_CONVENTION[:1].upper() + SIGN_CONVENTION[1:]
    return (table(lines)._repr_html_() + f"<p>Tinker billed {fmt.usd(billed_usd)} for this run. "
            f"{html.escape(convention)}.</p>")


# ------------------------------------------------------------------------------------------ FLOP panel


class FlopPanel:
    """Decode and training throughput of a cluster for any model and GPU, and whether it carries a GRPO batch
    of B·G sequences of L tokens (tinker_nomics.model.flops.throughput): the FLOP accounting chapter's panel."""

    def __init__(self, model: str, gpu: str, num_gpus: int, prompts_per_step: int, group_size: int,
                 completion_tokens: int):
        from ..analysis.errata import format_value as show
        from ..sources import get_arch, get_gpu, models, number

        self._show, self._get_arch, self._get_gpu = show, get_arch, get_gpu
        self.report = W.HTML()
        self.model = styled(W.Dropdown(options=sorted(a.model for a in models().values()),
                                       value=get_arch(model).model), "model")
        self.gpu = styled(W.Dropdown(options=[n for n, spec in sources.gpus().items() if spec.bf16_dense_tflops],
                                     value=get_gpu(gpu).gpu), "GPU")
        self.num_gpus = styled(W.IntSlider(value=num_gpus, min=1, max=256), "GPUs")
        self.prompts = styled(W.IntSlider(value=prompts_per_step, min=1, max=512), r"prompts per step \(B\)")
        self.group = styled(W.IntSlider(value=group_size, min=1, max=64), r"rollouts per prompt \(G\)")
        self.length = styled(W.IntSlider(value=completion_tokens, min=64, max=32768, step=64,
                                         readout_format=TOKENS),
                             r"completion tokens \(L\)")
        self.efficiency = styled(W.FloatSlider(value=number("flop_page_mbu"), min=0.05, max=1.0, step=0.05,
                                               readout_format=".0%"), "decode efficiency")
        self.mfu = styled(W.FloatSlider(value=number("flop_page_train_mfu"), min=0.01, max=0.6, step=0.01,
                                        readout_format=".0%"), "training MFU")
        self.method = styled(W.ToggleButtons(options=["seed", "exact"], value="seed"), "method")
        self.method.style = {"description_width": LABEL_WIDTH, "button_width": "7.5em"}
        for control in self.controls():
            control.observe(self.redraw, names="value")
        self.widget = panel([groups([group("Hardware", [self.model, self.gpu, self.num_gpus, self.method]),
                                     group("The GRPO batch", [self.prompts, self.group, self.length]),
                                     group("Efficiencies", [self.efficiency, self.mfu])]), self.report])
        self.redraw()

    def controls(self):
        return (self.model, self.gpu, self.num_gpus, self.prompts, self.group, self.length, self.efficiency,
                self.mfu, self.method)

    def redraw(self, _=None):
        from ..model import flops

        show = self._show
        arch, hw, n = self._get_arch(self.model.value), self._get_gpu(self.gpu.value), self.num_gpus.value
        args = (arch, hw, n, self.prompts.value, self.group.value, self.length.value)
        kw = dict(efficiency=self.efficiency.value, mfu=self.mfu.value, method=self.method.value)
        t = flops.throughput(*args, **kw)
        full = flops.throughput(*args, fine_tune="full", **kw)
        regime = "compute-bound" if t.compute_bound else "bandwidth-bound"
        spread = (f"{show(t.concurrent_sequences, 'count')} sequences of {show(t.tokens_per_sequence, 'count')} "
                  f"tokens over {show(t.replicas, 'count')} replica(s) of {show(t.replica_gpus, 'count')} GPU(s): "
                  f"{show(t.sequences_per_replica, 'count')} each")
        fits = "fits" if t.kv_fits else "<b style='color:#b00'>does not fit</b>"
        rows = [
            ("decode, one sequence", f"<b>{show(t.single_stream_tps, 'tps')}</b> per replica (bandwidth ÷ weight "
                                     f"bytes)"),
            ("decode, seed's 'effective'", f"{show(t.seed_effective_tps, 'tps')} (one sequence per replica × "
                                           f"replicas × {show(self.efficiency.value, 'pct0')})"),
            ("decode, whole batch", f"<b>{show(t.batched_tps, 'tps')}</b> (decode MFU {show(t.decode_mfu, 'pct')})"),
            ("training", f"<b>{show(t.train_tps, 'tps')}</b> LoRA (4N) · {show(full.train_tps, 'tps')} full (6N) "
                         f"at {show(self.mfu.value, 'pct0')} MFU"),
            ("batch", spread),
            ("regime per replica", f"<b>{regime}</b>: intensity {show(t.arithmetic_intensity, 'flop_per_byte')} "
                                   f"against a critical batch of {show(t.critical_batch, 'count')}"),
            ("KV cache", f"{show(t.kv_cache_bytes, 'bytes')} of {show(max(t.kv_available_bytes, 0), 'bytes')} "
                         f"free: {fits} (room for {show(t.max_sequences, 'count')} sequences)"),
            ("memory use", f"{show(t.memory_utilization, 'pct0')} of {show(t.total_memory_bytes, 'bytes')} "
                           f"(weights footprint {show(t.weights_bytes, 'bytes')} + KV)"),
            ("GPUs needed", f"{show(t.min_gpus, 'count')} for colocated RL"
                            + ("" if n >= t.min_gpus else " <b style='color:#b00'>(more than selected)</b>")),
        ]
        body = "".join(f"<tr><th>{html.escape(a)}</th><td>{b}</td></tr>" for a, b in rows)
        self.report.value = f"<table class='tn-summary'>{body}</table>"


class PlannerPanel:
    """Where to run it, live: a workload, its model (the preset's or the 70B alternate), a deadline, a budget and
    whether spot instances may be rented; the best option, the ranked options (the chapter's table) and every
    option's cost against its wall-clock with the frontier. The evaluation behind each workload and model is the
    kernel-free explorer's (faces.explorer.planner_evaluation), made once and ranked again on every change."""

    def __init__(self, workload: str = "math_rl", draws: int = 300, prices: str = "latest"):
        from .explorer import PLANNER_DEADLINES, planner_models

        self.draws, self.prices, self.deadlines = draws, prices, PLANNER_DEADLINES
        self.out = W.Output()
        self.summary = W.HTML()
        self.workload = styled(W.Dropdown(options=list(workloads()), value=get_workload(workload).name),
                               "workload preset")
        self.model = styled(W.Dropdown(options=planner_models(self.workload.value)), "model")
        from ..analysis.where_to_run import deadline_label
        self.deadline = styled(W.Dropdown(options=[(deadline_label(h), h) for h in PLANNER_DEADLINES],
                                          value=168.0), "deadline")
        self.budget = styled(W.BoundedFloatText(value=0.0, min=0.0, max=1e7, step=100.0),
                             "budget, $ (0: none)")
        self.spot = W.Checkbox(value=True, description="rent spot instances too", indent=False,
                               layout=W.Layout(**ROW))
        self.workload.observe(self._on_workload, names="value")
        for w in (self.model, self.deadline, self.budget, self.spot):
            w.observe(lambda change: self.redraw(), names="value")
        boxes = [group("Run", [self.workload, self.model]),
                 group("Constraints", [self.deadline, self.budget, self.spot])]
        self.widget = panel([groups(boxes), self.summary, self.out])
        self.redraw()

    def _on_workload(self, change):
        from .explorer import planner_models
        self.model.unobserve_all("value")
        self.model.options = planner_models(change["new"])
        self.model.observe(lambda c: self.redraw(), names="value")
        self.redraw()

    def plan(self):
        from .explorer import planner_evaluation
        ev = planner_evaluation(self.workload.value, self.model.value, self.deadlines, self.draws, 0, self.prices)
        return ev.plan(self.deadline.value, self.budget.value or None, None if self.spot.value else False)

    def redraw(self):
        from ..analysis import where_to_run
        from . import tables
        try:
            p = self.plan()
        except TinkerNomicsError as exc:
            self.summary.value = f"<p style='color:#b00'>{html.escape(str(exc))}</p>"
            self.out.clear_output()
            return
        best = "no option fits, is on time at the confidence and within the budget" if p.best is None else \
            (f"{where_to_run.where_text(p.best)} ({where_to_run.gpus_text(p.best)}): "
             f"{where_to_run.money_span(p.best)}, wall-clock {where_to_run.hours_span(p.best)}")
        over = "" if p.cheapest_over_budget is None else \
            f"<p>Over budget: the cheapest on time costs {fmt.usd(p.cheapest_over_budget['cost_usd'])}.</p>"
        self.summary.value = (f"<p><b>Best:</b> {html.escape(best)}</p>{over}"
                              + tables.table(where_to_run.listed_table(p))._repr_html_())
        fig, ax = panel_axes((7.5, 3.8))
        plots.pareto(p, ax=ax, title=f"{p.workload} · {p.scenario.model.split('/')[-1]} · Tinker at {p.scenario.prices}")
        show_png(self.out, fig)
