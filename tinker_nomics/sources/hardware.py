"""Accelerators (data/hardware/gpus.csv), their rental prices (gpu_prices.csv) and sandbox rates.

gpus_added.csv and gpu_prices_added.csv hold GPUs people rent that the imported reference tables lack (H20,
RTX 4090, L4, …) and default prices for GPUs that had none (MI300X, …), each row with its source
(recorded 2026-12-01; tools/import_reference.py regenerates only the first two files).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..errors import TinkerNomicsError
from .tables import Column, build_index, load_table, lookup

# ----------------------------------------------------------------------------------------------- GPUs


@dataclass(frozen=True)
class GPU:
    gpu: str
    description: str
    memory_gb: float
    hbm_bandwidth_tb_s: float
    bf16_dense_tflops: float | None
    fp8_dense_tflops: float | None
    seed_bf16_dense_tflops: float | None
    interconnect: str
    source_url: str

    @property
    def memory_bytes(self) -> float:
        return self.memory_gb * 1e9

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return self.hbm_bandwidth_tb_s * 1e12

    def peak_flops(self, method: str = "exact") -> float:
        """Dense BF16 peak in FLOP/s; the seed method uses the seed's rounded figure where it printed one."""
        tflops = self.seed_bf16_dense_tflops if (method == "seed" and self.seed_bf16_dense_tflops) \
            else self.bf16_dense_tflops
        if tflops is None:
            raise TinkerNomicsError(f"GPU {self.gpu!r} has no sourced dense BF16 peak; pick another GPU")
        return tflops * 1e12


GPU_COLUMNS = [
        Column("gpu"), Column("description", required=False), Column("memory_gb", "float"),
        Column("hbm_bandwidth_tb_s", "float"), Column("bf16_dense_tflops", "float", False),
        Column("fp8_dense_tflops", "float", False), Column("interconnect", required=False),
        Column("seed_bf16_dense_tflops", "float", False), Column("recorded"), Column("source_url")]


@functools.lru_cache(maxsize=None)
def gpus() -> dict[str, GPU]:
    rows = [(name, r) for name in ("hardware/gpus.csv", "hardware/gpus_added.csv")
            for r in load_table(name, GPU_COLUMNS)]
    out = {}
    for name, r in rows:
        if r["memory_gb"] <= 0 or r["hbm_bandwidth_tb_s"] <= 0:
            raise TinkerNomicsError(f"{name} row {r['_row']}: memory and bandwidth must be positive")
        if r["gpu"] in out:
            raise TinkerNomicsError(f"{name} row {r['_row']}: GPU {r['gpu']!r} is already listed")
        out[r["gpu"]] = GPU(r["gpu"], r["description"] or "", r["memory_gb"], r["hbm_bandwidth_tb_s"],
                            r["bf16_dense_tflops"], r["fp8_dense_tflops"], r["seed_bf16_dense_tflops"],
                            r["interconnect"] or "", r["source_url"])
    return out


@functools.lru_cache(maxsize=None)
def _gpu_index() -> dict[str, str]:
    return build_index({g: [g.replace(" SXM", "")] if g.endswith(" SXM") else [] for g in gpus()})


def get_gpu(name: str) -> GPU:
    """`H100 SXM`, `h100-sxm`, `B200`, … An ambiguous prefix (`H100`) resolves to the SXM part."""
    return gpus()[lookup("GPU", name, _gpu_index(), gpus(), "list them with `tinker-nomics gpus`")]


# ----------------------------------------------------------------------------------------------- links


@dataclass(frozen=True)
class Link:
    gpu: str
    kind: str                 # nvlink, infinity_fabric or pcie: what carries a tensor-parallel all-reduce
    gb_s_per_direction: float
    source_url: str


LINK_KINDS = ("nvlink", "infinity_fabric", "pcie")


@functools.lru_cache(maxsize=None)
def links() -> dict[str, Link]:
    """Each GPU's link to its peers (data/hardware/interconnects.csv): kind and bandwidth each way."""
    rows = load_table("hardware/interconnects.csv", [
        Column("gpu"), Column("link_kind"), Column("link_gb_s_per_direction", "float"), Column("recorded"),
        Column("source_url"), Column("note", required=False)])
    out = {}
    for r in rows:
        where = f"hardware/interconnects.csv row {r['_row']}"
        if r["gpu"] not in gpus():
            raise TinkerNomicsError(f"{where} column gpu: {r['gpu']!r} is not in the GPU registry")
        if r["link_kind"] not in LINK_KINDS:
            raise TinkerNomicsError(f"{where} column link_kind: {r['link_kind']!r} is not one of {', '.join(LINK_KINDS)}")
        if r["link_gb_s_per_direction"] <= 0:
            raise TinkerNomicsError(f"{where} column link_gb_s_per_direction: must be positive")
        out[r["gpu"]] = Link(r["gpu"], r["link_kind"], r["link_gb_s_per_direction"], r["source_url"])
    missing = sorted(set(gpus()) - set(out))
    if missing:
        raise TinkerNomicsError(f"hardware/interconnects.csv has no row for GPU {missing[0]!r}")
    return out


# ----------------------------------------------------------------------------------------------- GPU arrays


@dataclass(frozen=True)
class GpuSpecs:
    """The figures the throughput model reads, as arrays shaped like the GPU names asked for, so that one call
    costs many GPU types at once. A figure the registry lacks is NaN (the model refuses it where it needs it)."""
    name: np.ndarray
    memory_bytes: np.ndarray
    bandwidth_bytes_per_s: np.ndarray
    bf16_flops: np.ndarray
    fp8_flops: np.ndarray              # dense FP8 peak; the BF16 peak where the GPU has no FP8 figure
    seed_flops: np.ndarray             # the seed's rounded BF16 peak where it printed one, else the BF16 peak
    link_bytes_per_s: np.ndarray       # each way, to the other GPUs of a tensor-parallel group
    link_kind: np.ndarray
    gemm_bf16_flops: np.ndarray        # the dense GEMM ceiling under load: the vendor's measured max-achievable
    gemm_fp8_flops: np.ndarray         # FLOP/s where it publishes one (gemm_ceilings.csv), else the datasheet peak

    @property
    def shape(self) -> tuple:
        return np.shape(self.name)

    def peak_flops(self, method: str = "exact") -> np.ndarray:
        """Dense BF16 peak FLOP/s (the seed method: the seed's rounded figure where it printed one)."""
        return self.seed_flops if method == "seed" else self.bf16_flops

    def require(self, flops: np.ndarray, figure: str = "bf16_dense_tflops", needed_for: str = "training and prefill"
                ) -> "GpuSpecs":
        """These specs, or a one-line error naming the GPUs whose peak `flops` (one of the arrays above) the registry
        lacks: the model cannot time `needed_for` on them, and would otherwise answer NaN."""
        flops = np.broadcast_to(np.asarray(flops, dtype=float), self.shape)
        if np.isfinite(flops).all():
            return self
        missing = sorted({str(n) for n in np.asarray(self.name)[~np.isfinite(flops)].ravel()})
        raise TinkerNomicsError(
            f"{', '.join(missing)} {'has' if len(missing) == 1 else 'have'} no {figure} in data/hardware/gpus.csv "
            f"(no sourced dense peak), so the model cannot time {needed_for} on "
            f"{'it' if len(missing) == 1 else 'them'}; pick a GPU `tinker-nomics gpus` lists with a peak")


def gpu_specs(gpu) -> GpuSpecs:
    """GPU figures as arrays: `gpu` is a GPU record, a name, or an array of names (each resolved leniently)."""
    if isinstance(gpu, GPU):
        names = np.asarray(gpu.gpu)
    else:
        raw = np.asarray(gpu)
        if raw.dtype.kind not in "UO":
            raise TinkerNomicsError(f"gpu must be a GPU name or an array of names, got {gpu!r}")
        unique, inverse = np.unique(raw.astype(str), return_inverse=True)
        canonical = np.array([get_gpu(str(n)).gpu for n in unique], dtype=object)
        names = np.asarray(canonical[inverse.reshape(-1)], dtype=object).reshape(raw.shape)
    return _specs_of(names)


@functools.lru_cache(maxsize=None)
def gemm_ceilings() -> dict[str, tuple[float, float]]:
    """GPU -> (BF16, FP8) dense GEMM FLOP/s a vendor measured as achievable under sustained load
    (data/hardware/gemm_ceilings.csv: AMD's max-achievable FLOPs, below its datasheet peaks because dense
    tensor-core work runs at a lower clock than the boost clock those peaks assume)."""
    rows = load_table("hardware/gemm_ceilings.csv", [
        Column("gpu"), Column("bf16_tflops", "float"), Column("fp8_tflops", "float"), Column("recorded"),
        Column("source_url"), Column("note", required=False)])
    table = gpus()
    out = {}
    for r in rows:
        if r["gpu"] not in table:
            raise TinkerNomicsError(f"hardware/gemm_ceilings.csv: GPU {r['gpu']!r} is not in the GPU registry")
        out[r["gpu"]] = (r["bf16_tflops"] * 1e12, r["fp8_tflops"] * 1e12)
    return out


def _specs_of(names: np.ndarray) -> GpuSpecs:
    table, link, ceilings = gpus(), links(), gemm_ceilings()
    unique, inverse = np.unique(np.asarray(names, dtype=str), return_inverse=True)
    inverse = inverse.reshape(-1)

    def column(fn):
        return np.array([fn(table[n]) for n in unique], dtype=float)[inverse].reshape(np.shape(names))

    nan = float("nan")
    bf16 = column(lambda g: g.bf16_dense_tflops * 1e12 if g.bf16_dense_tflops else nan)
    fp8 = column(lambda g: (g.fp8_dense_tflops or g.bf16_dense_tflops or nan) * 1e12)
    seed = column(lambda g: (g.seed_bf16_dense_tflops or g.bf16_dense_tflops or nan) * 1e12)
    kinds = np.array([link[n].kind for n in unique], dtype=object)[inverse].reshape(np.shape(names))
    gemm_bf16 = column(lambda g: ceilings[g.gpu][0] if g.gpu in ceilings else
                       (g.bf16_dense_tflops * 1e12 if g.bf16_dense_tflops else nan))
    gemm_fp8 = column(lambda g: ceilings[g.gpu][1] if g.gpu in ceilings else
                      (g.fp8_dense_tflops or g.bf16_dense_tflops or nan) * 1e12)
    return GpuSpecs(np.asarray(names, dtype=object), column(lambda g: g.memory_bytes),
                    column(lambda g: g.bandwidth_bytes_per_s), bf16, fp8, seed,
                    column(lambda g: link[g.gpu].gb_s_per_direction * 1e9), kinds, gemm_bf16, gemm_fp8)


@dataclass(frozen=True)
class GpuPrice:
    gpu: str
    provider: str
    usd_per_gpu_hour: float
    date: str | None
    default: bool
    source_url: str


@functools.lru_cache(maxsize=None)
def gpu_prices() -> list[GpuPrice]:
    columns = [Column("gpu"), Column("provider"), Column("usd_per_gpu_hour", "float"), Column("date", required=False),
               Column("default", required=False), Column("source_url")]
    rows = [r for name in ("hardware/gpu_prices.csv", "hardware/gpu_prices_added.csv")
            for r in load_table(name, columns)]
    return [GpuPrice(r["gpu"], r["provider"], r["usd_per_gpu_hour"], r["date"], r["default"] == "yes",
                     r["source_url"]) for r in rows]


def gpu_price_listing(gpu: str) -> GpuPrice | None:
    """The default $/GPU-hour listing: RunPod Community Cloud (the seed's anchor), else the cheapest dated listing;
    None for a GPU no listing prices (the H20)."""
    return next((p for p in gpu_prices() if p.gpu == gpu and p.default), None)


def default_gpu_price(gpu: str) -> GpuPrice:
    """`gpu_price_listing`, or an error naming the flag that gives the rate."""
    listing = gpu_price_listing(gpu)
    if listing is None:
        raise TinkerNomicsError(f"no sourced $/GPU-hour for {gpu!r} in data/hardware/gpu_prices*.csv; give the rate "
                                "with --gpu-hourly-usd (gpu_hourly_usd)")
    return listing


# ----------------------------------------------------------------------------------------------- sandboxes


@functools.lru_cache(maxsize=None)
def sandbox_rates() -> dict[str, dict[str, float]]:
    rows = load_table("hardware/sandbox_rates.csv", [
        Column("sandbox"), Column("resource"), Column("usd_per_unit_hour", "float"), Column("date"),
        Column("source_url")])
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        if r["usd_per_unit_hour"] < 0:
            raise TinkerNomicsError(f"hardware/sandbox_rates.csv row {r['_row']} column usd_per_unit_hour: negative")
        out.setdefault(r["sandbox"], {})[r["resource"]] = r["usd_per_unit_hour"]
    for name, rates in out.items():
        missing = {"cpu_core_hour", "memory_gib_hour"} - set(rates)
        if missing:
            raise TinkerNomicsError(f"hardware/sandbox_rates.csv: sandbox {name!r} lacks a {sorted(missing)[0]} rate")
    return out


def get_sandbox(name: str) -> str:
    table = sandbox_rates()
    return lookup("sandbox", name, build_index({k: [] for k in table}), table)


