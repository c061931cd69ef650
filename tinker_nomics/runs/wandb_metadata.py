"""The GPU a run ran on, from W&B's `wandb-metadata.json` beside its log (or the environment record of W&B's run
file, which holds the same facts in newer releases: runs.wandb_file).

verl, NeMo RL, OpenRLHF and TRL do not write the GPU type into their logs, but a run that logs to W&B leaves a
`files/` folder holding the console log (`output.log`) and `wandb-metadata.json`, the system facts the W&B SDK records
at start: `gpu` (the device name as the driver reports it, e.g. `NVIDIA H100 80GB HBM3`), `gpu_count` (the GPUs of the
host that ran the W&B process), `gpu_nvidia` (one entry per device, each with its `name`) and, on an AMD host,
`gpu_amd` (one entry per device, its `series` the name rocm-smi gives, e.g. `AMD Instinct MI300X`). The name
resolves to a registry part through data/hardware/gpu_device_names.csv (sources.get_gpu). Only the type is taken:
the count is one host's, not a multi-node run's, so it is said in a note and never used.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from .. import sources
from ..errors import TinkerNomicsError
from .files import exists, load_json
from .stream import check_regular

FILE = "wandb-metadata.json"


def _listed(meta: dict, keys: tuple[str, ...], field: str) -> list:
    """The `field` of each device entry under the first of `keys` that holds a list."""
    devices = next((meta[k] for k in keys if isinstance(meta.get(k), list)), [])
    return [d.get(field) for d in devices if isinstance(d, dict)]


def device_name(meta: dict) -> tuple[str | None, str]:
    """The one device name the metadata gives (`gpu`, else the names under `gpu_nvidia`, or the `series` of each
    AMD device under `gpu_amd`, rocm-smi's "Card Series"), or None with the reason."""
    names = _listed(meta, ("gpu_nvidia", "gpuNvidia"), "name") + _listed(meta, ("gpu_amd", "gpuAmd"), "series")
    names = [n.strip() for n in names if isinstance(n, str) and n.strip()]
    if isinstance(meta.get("gpu"), str) and meta["gpu"].strip():
        names = [meta["gpu"].strip()] + names
    if not names:
        return None, "it names no GPU"
    if len(set(names)) > 1:
        return None, f"it names more than one kind of GPU ({', '.join(sorted(set(names)))})"
    return names[0], ""


def with_gpu(run, folder: Path):
    """`run` (a HostedRun) with the GPU type of the `wandb-metadata.json` in `folder` (or its `files/`, in a W&B run
    folder), where the log gives none: in config["gpu"], with where it was read; a file that is unreadable, not a
    JSON object or names no single registry part leaves the run as it was, with a note saying why."""
    path = next((f for f in (folder / FILE, folder / "files" / FILE) if exists(f)), None)   # files/: a run folder's
    if run.config.get("gpu") or path is None:
        return run
    label = str(path)
    try:
        check_regular(path, label)
        meta = load_json(path, label)
    except TinkerNomicsError as exc:
        return _noted(run, f"W&B's {FILE} beside the log was not read ({exc}); pass --gpu")
    if not isinstance(meta, dict):
        return _noted(run, f"W&B's {FILE} beside the log is not a JSON object; pass --gpu")
    return with_devices(run, meta, f"W&B's {FILE} beside the log")


def with_devices(run, meta: dict, where: str):
    """`run` with the GPU type `meta` names (wandb-metadata.json's `gpu`, `gpu_count`, `gpu_nvidia`), read from
    `where`, unless the log gave one; a note where it names none the registry knows."""
    if run.config.get("gpu"):
        return run
    name, why = device_name(meta)
    if name is None:
        return _noted(run, f"{where} gives no GPU type: {why}; pass --gpu")
    try:
        gpu = sources.get_gpu(name).gpu
    except TinkerNomicsError:
        return _noted(run, f"{where} names the GPU {name!r}, which is not in the GPU registry; pass --gpu "
                           f"(`tinker-nomics gpus` lists them) and --gpu-hourly-usd")
    notes = list(run.notes)
    count = meta.get("gpu_count")
    if not run.config.get("num_gpus") and isinstance(count, int) and not isinstance(count, bool) and count > 0:
        notes.append(f"the log does not give its GPU count; {where} lists {count} on the host that ran W&B (one "
                     f"node's, not the run's): pass --num-gpus")
    config = {**run.config, "gpu": gpu}
    sources_ = {**run.config_sources, "gpu": f"{where} ({name!r})"}
    return dataclasses.replace(run, config=config, config_sources=sources_, notes=tuple(notes))


def _noted(run, note: str):
    return dataclasses.replace(run, notes=tuple(run.notes) + (note,))
