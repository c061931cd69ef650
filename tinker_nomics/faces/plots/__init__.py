"""The book's figures, one module per figure family. Functions take package results and return a matplotlib
Figure; they compute nothing beyond arranging what the package computed.

    common     meter colours, panel size, line series, dollar axes
    costs      the cost model and FLOP chapters: bills by meter, sweeps, decode throughput, memory
    accuracy   predicted against measured, by method
    beyond     prices over time, uncertainty, break-even maps
    empirical  the seed's experiments: meters predicted against billed, cost against wall-clock
    planner    where to run it: every option's cost against its wall-clock, the best option by deadline

Every figure is also available here: `from tinker_nomics.faces import plots; plots.cost_breakdown(est)`. Imported in
a notebook, the package shows figures as SVG, each narrowed until its text is readable on a phone (common.svg).
"""
from __future__ import annotations

from .accuracy import errors_by_source, predicted_vs_measured
from .beyond import (breakeven_map, breakeven_maps, driver_steps, influence_chart, mc_intervals, mc_ratio_histograms,
                     verdict_timeline)
from .common import COLORS, fit_for_phone, svg, use_svg_in_notebooks
from .costs import (async_speedups, cache_per_sequence, cost_breakdown, cost_breakdowns, decode_throughput,
                    grouped_barh, meters_side_by_side, prefill_vs_turns, rollout_share, sweep, workload_comparison)
from .empirical import cost_vs_wallclock, meters_predicted_vs_actual
from .planner import best_by_deadline, pareto

use_svg_in_notebooks()

__all__ = ["COLORS", "fit_for_phone", "svg", "async_speedups", "best_by_deadline", "breakeven_map", "breakeven_maps", "cache_per_sequence", "cost_breakdown",
           "cost_breakdowns", "cost_vs_wallclock", "decode_throughput", "driver_steps", "errors_by_source",
           "grouped_barh",
           "influence_chart", "mc_intervals", "mc_ratio_histograms", "meters_predicted_vs_actual",
           "meters_side_by_side", "pareto", "predicted_vs_measured", "prefill_vs_turns", "rollout_share", "sweep",
           "verdict_timeline", "workload_comparison"]
