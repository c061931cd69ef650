"""Sources: the sourced, dated tables in data/, the only place a number enters the package.

    tables         load a CSV with its schema check; lenient name lookup; where data/ is
    defaults       sourced defaults and seed constants (data/assumptions/defaults.csv)
    hardware       GPUs, their rental prices, sandbox rates
    offers         rented-GPU offers: the SkyPilot catalog's vms.csv files, read and mapped to the GPU registry
    price_list     Tinker's price lists as recorded: rows, snapshots, models priced
    architectures  model architectures and model names
    prices         a model's price as of a snapshot (carry-forward rules), storage
    successors     retired models and the models they are billed on
    workloads      workload presets
    literature     figures quoted from papers and from the seed's experiments
    bundled_runs   public run logs shipped in data/runs/
    hf_config      a Hugging Face config.json read into a ModelArch
    quantization   weight and KV precisions as vLLM and checkpoints name them
    calibration    the calibrated method's fitted efficiencies (make calibrate)
    tinker_wallclock  Tinker's step-time fit to its logged runs (make tinker-wallclock)
    shipped        where data/ and the report's notebook are: inside the installed package, or the checkout
    provenance     what produced an output: the package version and the newest recorded date in data/
"""
from __future__ import annotations

from . import (architectures, bundled_runs, calibration, defaults, hardware, hf_config, literature, offers, price_list,
               prices, provenance, successors, tables, tinker_wallclock, workloads)
from .architectures import (ARCH_ALIASES, ModelArch, get_arch, has_arch, model_names, models, resolve_model,
                            split_context)
from .defaults import Assumption, assumption, assumptions, number
from .hardware import (GPU, GpuPrice, GpuSpecs, default_gpu_price, get_gpu, get_sandbox, gpu_price_listing, gpu_prices,
                       gpu_specs, gpus,
                       sandbox_rates)
from .price_list import newest_snapshot, price_rows, priced_models, resolve_snapshot, snapshots
from .prices import Price, get_price, price_ratio, storage_usd_per_gb_month
from .tables import Column, build_index, data_dir, load_table, lookup

__all__ = [
    "ARCH_ALIASES", "Assumption", "Column", "GPU", "GpuPrice", "GpuSpecs", "ModelArch", "Price", "assumption", "assumptions",
    "build_index", "clear_caches", "data_dir", "default_gpu_price", "get_arch", "get_gpu", "get_price", "get_sandbox",
    "gpu_price_listing", "gpu_prices", "gpu_specs", "gpus", "has_arch", "load_table", "lookup", "model_names", "models", "newest_snapshot", "number",
    "price_ratio", "price_rows", "priced_models", "resolve_model", "resolve_snapshot", "sandbox_rates", "snapshots",
    "split_context", "storage_usd_per_gb_month",
]
MODULES = (tables, defaults, hardware, offers, price_list, architectures, prices, successors, workloads, literature,
           bundled_runs, calibration, provenance, tinker_wallclock)


def clear_caches() -> None:
    """Forget every loaded table (for tests that point TINKER_NOMICS_DATA elsewhere)."""
    for module in MODULES:
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
