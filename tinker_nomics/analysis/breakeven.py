"""Break-even maps: where, in two inputs at once, self-hosting becomes cheaper than Tinker.

Each map is one vectorized `estimate` call over a meshgrid (the turns × model map makes one call per model,
because a model is a name, not a number). The quantity mapped is the ratio self-hosted / Tinker: above 1
Tinker is cheaper, below 1 your own GPUs are; the boundary is the contour where it equals 1.

    from tinker_nomics import breakeven
    m = breakeven.length_group_map("code_rl")
    m.ratio, m.boundary()                        # the grid, and the ratio = 1 contour as polylines
    breakeven.crossings("math_rl", "gpu_hourly_usd", np.linspace(0.5, 20, 400))   # a 1-D cut
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import sources
from ..errors import TinkerNomicsError
from ..model.estimate import estimate, with_efficiencies
from ..model.scenario import Scenario
from ..sources.price_list import priced_models, resolve_snapshot
from ..sources.successors import is_priced, model_for
from ..sources.workloads import get_workload
from . import timeline

# Grids of the book's maps. Lengths and group sizes are log-spaced (the decisions are about doublings).
LENGTHS_SINGLE_TURN = np.round(2.0 ** np.arange(8.0, 15.01, 0.5))          # 256 … 32,768 tokens
LENGTHS_PER_TURN = np.round(2.0 ** np.arange(6.0, 12.01, 0.5))             # 64 … 4,096 tokens per turn
GROUP_SIZES = np.array([2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64], dtype=float)
TURNS = np.arange(2.0, 61.0, 2.0)
GPU_PRICES = np.round(np.arange(1.0, 8.01, 0.25), 2)                      # USD per GPU-hour
EFFICIENCIES = np.round(np.arange(0.10, 1.001, 0.05), 2)

def base_scenario(workload: str, snapshot: str | None = None, **overrides) -> Scenario:
    """The preset at `snapshot` (None: the default list of its method) under the package's default method (the
    takeaway's answer) unless `overrides` name another, with cached prefill billed wherever the snapshot has a
    cached rate. The self-hosted side runs the preset's model; Tinker bills its successor where the snapshot
    has retired it (`estimate` does)."""
    scenario = Scenario.from_workload(workload, **overrides)
    if snapshot is None:
        return scenario
    snap = resolve_snapshot(snapshot)
    return scenario.replace(prices=snap, tinker_cached_prefill=timeline.has_cached_rate(scenario.model, snap))


def is_multi_turn(workload: str) -> bool:
    return float(get_workload(workload).fields.get("turns", 1.0)) > 1


@dataclass(frozen=True)
class Map:
    workload: str
    snapshot: str
    model: str                   # the model Tinker bills (for the turns × model map: the preset's)
    x_field: str
    x: np.ndarray                # shape (nx,)
    y_field: str
    y: np.ndarray                # shape (ny,); for the model map, 0 … ny-1 with `y_labels`
    tinker_usd: np.ndarray       # shape (ny, nx)
    self_hosted_usd: np.ndarray  # shape (ny, nx)
    preset: tuple                # (x, y) of the preset itself, in the axes' coordinates
    y_labels: tuple = field(default_factory=tuple)

    @property
    def ratio(self) -> np.ndarray:
        """Self-hosted / Tinker (above 1: Tinker is cheaper)."""
        return self.self_hosted_usd / self.tinker_usd

    @property
    def tinker_share(self) -> float:
        """Share of the map's cells where Tinker is cheaper."""
        return float(np.mean(self.ratio >= 1.0))

    def tinker_rows_at(self, x: float) -> list[str]:
        """The rows (their labels, or y values as text) where Tinker is cheaper in the first grid column at or
        above `x`: for the turns × model map, the models Tinker wins at a given turn count."""
        column = min(int(np.searchsorted(self.x, x)), self.x.size - 1)
        labels = self.y_labels or tuple(f"{v:g}" for v in self.y)
        return [label for label, value in zip(labels, self.ratio[:, column]) if value >= 1.0]

    def boundary(self, index: bool = False) -> list[np.ndarray]:
        """The ratio = 1 boundary as polylines of (x, y) points, interpolated in log(ratio).

        In data coordinates, or in grid-index coordinates (column, row) with `index=True`. For the
        turns × model map, whose rows are separate models, each row gets its own short vertical mark at
        the turn count where it crosses (a contour would join models that have nothing in between)."""
        xs = np.arange(self.x.size, dtype=float) if index else self.x
        log_ratio = np.log(self.ratio)
        if self.y_field == "model":
            marks = []
            for row, values in enumerate(log_ratio):
                for at in _crossings_1d(xs, values):
                    marks.append(np.array([[at, row - 0.42], [at, row + 0.42]]))
            return marks
        import contourpy
        ys = np.arange(self.y.size, dtype=float) if index else self.y
        generator = contourpy.contour_generator(xs, ys, log_ratio)
        return [np.asarray(line) for line in generator.lines(0.0) if len(line) > 1]


def _crossings_1d(x: np.ndarray, log_ratio: np.ndarray) -> list[float]:
    """Where a sampled log(ratio) changes sign, by linear interpolation between neighbours."""
    out = []
    for i in np.nonzero(np.sign(log_ratio[:-1]) * np.sign(log_ratio[1:]) < 0)[0]:
        a, b = log_ratio[i], log_ratio[i + 1]
        out.append(float(x[i] + (x[i + 1] - x[i]) * a / (a - b)))
    return out


def _meshgrid_map(workload: str, x_field: str, x, y_field: str, y, snapshot: str | None, **overrides) -> Map:
    base = base_scenario(workload, snapshot, **overrides)
    xx, yy = np.meshgrid(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    est = estimate(base.replace(**{x_field: xx, y_field: yy})).tinker_required("a break-even map")
    resolved = with_efficiencies(base)      # the calibrated method's own efficiencies, where the preset sits
    preset = (float(getattr(resolved, x_field)), float(getattr(resolved, y_field)))
    shape = xx.shape
    return Map(workload, resolved.prices, est.price.model, x_field, np.asarray(x, dtype=float), y_field,
               np.asarray(y, dtype=float), np.broadcast_to(est.tinker.total_usd, shape).astype(float),
               np.broadcast_to(est.self_hosted.total_usd, shape).astype(float), preset)


def length_group_map(workload: str, lengths=None, group_sizes=GROUP_SIZES, snapshot: str | None = None,
                     **overrides) -> Map:
    """Completion length × group size. For agentic workloads the length is the output per turn."""
    field_name = "output_per_turn" if is_multi_turn(workload) else "completion_tokens"
    if lengths is None:
        lengths = LENGTHS_PER_TURN if is_multi_turn(workload) else LENGTHS_SINGLE_TURN
    return _meshgrid_map(workload, field_name, lengths, "group_size", group_sizes, snapshot, **overrides)


def price_efficiency_map(workload: str, gpu_prices=GPU_PRICES, efficiencies=EFFICIENCIES,
                         snapshot: str | None = None, **overrides) -> Map:
    """GPU price × rollout efficiency: how good and how cheap your own setup has to be."""
    return _meshgrid_map(workload, "gpu_hourly_usd", gpu_prices, "rollout_efficiency", efficiencies, snapshot,
                         **overrides)


def map_models(snapshot: str | None = None) -> list[str]:
    """Models with a complete Tinker price (prefill, sample, train) as of `snapshot` and a published
    architecture, smallest first (by the seed method's total parameter count)."""
    snap = resolve_snapshot(snapshot)
    names = [m for m in priced_models() if ":peft:" not in m and sources.has_arch(m)
             and is_priced(m, snap)]
    return sorted(names, key=lambda m: (sources.get_arch(m).params("seed")[0], m))


def model_label(model: str) -> str:
    """'Qwen3-8B · 8B' or 'Kimi-K2.6 · 1000B / 32B active' (the seed method's sizes)."""
    arch = sources.get_arch(model)
    total, active = (v / 1e9 for v in arch.params("seed"))
    def billions(value):
        return f"{value:,.0f}B" if value >= 100 else f"{value:.3g}B"
    size = billions(total) if total == active else f"{billions(total)} / {billions(active)} active"
    return f"{model.split('/')[-1]} · {size}"


def turns_model_map(workload: str, turns=TURNS, models=None, snapshot: str | None = None, **overrides) -> Map:
    """Turns per rollout × model (every priced model with an architecture, run on both sides). One vectorized call
    per model. The preset is marked on the row of the model Tinker bills for it (its successor when retired)."""
    if not is_multi_turn(workload):
        raise TinkerNomicsError(f"{workload} is single-turn; the turns × model map needs an agentic workload")
    base = base_scenario(workload, snapshot, **overrides)
    snap = base.resolved().prices
    models = list(models) if models is not None else map_models(snap)
    turns = np.asarray(turns, dtype=float)
    tinker, hosted = [], []
    for model in models:
        est = estimate(base.replace(model=model, turns=turns, tinker_cached_prefill=_has_cached(model, snap))
                       ).tinker_required("a break-even map")
        tinker.append(np.broadcast_to(est.tinker.total_usd, turns.shape))
        hosted.append(np.broadcast_to(est.self_hosted.total_usd, turns.shape))
    resolved = base.resolved()
    billed = model_for(resolved.model, snap)[0]    # the preset's row is the model Tinker bills (its successor)
    row = models.index(billed) if billed in models else float("nan")
    return Map(workload, snap, billed, "turns", turns, "model", np.arange(len(models), dtype=float),
               np.array(tinker, dtype=float), np.array(hosted, dtype=float), (float(resolved.turns), float(row)),
               tuple(model_label(m) for m in models))


def _has_cached(model: str, snapshot: str) -> bool:
    return timeline.has_cached_rate(model, snapshot)


def crossings(workload: str, field_name: str, values, snapshot: str | None = None, **overrides) -> np.ndarray:
    """A 1-D cut: the values of one input where self-hosted / Tinker crosses 1, from one vectorized call,
    located by linear interpolation of log(ratio) between neighbouring grid points."""
    values = np.asarray(values, dtype=float)
    est = estimate(base_scenario(workload, snapshot, **overrides).replace(**{field_name: values})
                   ).tinker_required("a break-even")
    log_ratio = np.log(np.broadcast_to(est.self_hosted.total_usd, values.shape)
                       / np.broadcast_to(est.tinker.total_usd, values.shape))
    return np.asarray(_crossings_1d(values, log_ratio))


def segments(workload: str, field_name: str, values, snapshot: str | None = None, **overrides) -> list[tuple]:
    """The cheaper side along a 1-D cut, as (side, from, to) segments in order of `values`, split where
    self-hosted / Tinker crosses 1 (`crossings`): [("self_hosted", 32, 19650.4), ("tinker", 19650.4, 65536)].
    A tie counts for Tinker, as everywhere."""
    values = np.asarray(values, dtype=float)
    est = estimate(base_scenario(workload, snapshot, **overrides).replace(**{field_name: values})
                   ).tinker_required("the cheaper side")
    tinker_cheaper = np.broadcast_to(est.tinker.total_usd, values.shape) <= np.broadcast_to(
        est.self_hosted.total_usd, values.shape)
    edges = [float(values[0]), *map(float, crossings(workload, field_name, values, snapshot, **overrides)),
             float(values[-1])]
    first = bool(tinker_cheaper[0])
    return [("tinker" if (first if i % 2 == 0 else not first) else "self_hosted", edges[i], edges[i + 1])
            for i in range(len(edges) - 1)]


def offers_below(offers, usd_per_gpu_hour: float) -> int:
    """How many GPU offers (dicts with "usd", as explorer.gpu_offers gives them) rent for less than a given
    $/GPU-hour, e.g. the break-even price: the listings at which self-hosting is the cheaper side."""
    return int(sum(offer["usd"] < usd_per_gpu_hour for offer in offers))


def breakeven_gpu_price(workload: str, snapshot: str | None = None, **overrides) -> float:
    """The $/GPU-hour at which self-hosting costs what Tinker bills, everything else at the preset.
    Tinker's bill does not depend on the GPU price and the GPU bill is linear in it, so this is exact."""
    est = estimate(base_scenario(workload, snapshot, **overrides)).tinker_required("a break-even GPU price")
    hosted = est.self_hosted
    return float((est.tinker.total_usd - hosted.sandbox_usd) / hosted.gpu_hours)
