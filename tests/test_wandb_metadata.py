"""The GPU type from W&B's wandb-metadata.json beside a self-hosted run's log (runs.wandb_metadata).

A run that logs to W&B leaves `files/output.log` (the console) beside `files/wandb-metadata.json`, whose `gpu` is the
device name as the driver reports it and `gpu_nvidia` one entry per device (the W&B SDK's system metadata; the
layout of a public wandb-metadata.json: `"gpu_count": 1, "gpu_nvidia": [{"name": "NVIDIA L4", "memoryTotal": ...}]`).
The device name resolves through data/hardware/gpu_device_names.csv: 'NVIDIA H100 80GB HBM3' is the H100 SXM part
(the row's source: SkyPilot PR 2945). The synthetic verl log is tests/hosted_shapes.py's (8 GPUs in its config).
"""
from __future__ import annotations

import json
import os

from hosted_shapes import write_verl_console
from tinker_nomics.runs import detect, validate_hosted
from tinker_nomics.sources import get_gpu

H100_DRIVER_NAME = "NVIDIA H100 80GB HBM3"


def _run_folder(tmp_path, meta) -> str:
    folder = tmp_path / "files"
    folder.mkdir(parents=True)
    write_verl_console(folder / "output.log")
    if meta is not None:
        (folder / "wandb-metadata.json").write_text(meta if isinstance(meta, str) else json.dumps(meta))
    return str(folder)


def _validated(folder, **kw):
    run = detect.read_hosted(folder)
    return run, validate_hosted.validate_hosted(run, **kw).to_dict()


def test_the_gpu_type_comes_from_the_metadata_beside_the_log(tmp_path):
    folder = _run_folder(tmp_path, {"gpu": H100_DRIVER_NAME, "gpu_count": 8,
                                    "gpu_nvidia": [{"name": H100_DRIVER_NAME, "memoryTotal": "85520809984"}] * 8})
    run, d = _validated(folder)
    assert run.config["gpu"] == get_gpu("H100 SXM").gpu
    assert d["gpu"] == "H100 SXM" and "wandb-metadata.json" in d["setup_sources"]["gpu"]
    assert d["measured"]["training_mfu"] is not None            # the MFU needs the GPU's peak: it is computed now
    assert not any("does not record the GPU type" in n for n in d["notes"])
    # the console log read directly finds the same file in its folder
    assert detect.read_hosted(os.path.join(folder, "output.log")).config["gpu"] == "H100 SXM"


def test_gpu_flag_wins_and_a_disagreement_is_said(tmp_path):
    folder = _run_folder(tmp_path, {"gpu": H100_DRIVER_NAME})
    _, d = _validated(folder, gpu="A100 80GB SXM")
    assert d["gpu"] == "A100 80GB SXM" and d["setup_sources"]["gpu"] == "--gpu"
    assert any("--gpu A100 80GB SXM given" in n and "H100 SXM" in n for n in d["notes"])


def test_only_the_names_under_gpu_nvidia_are_enough(tmp_path):
    run = detect.read_hosted(_run_folder(tmp_path, {"gpu_nvidia": [{"name": H100_DRIVER_NAME}]}))
    assert run.config["gpu"] == "H100 SXM"


def test_an_amd_host_s_devices_are_named_by_their_series(tmp_path):
    # rocm-smi --showproductname's "Card Series: AMD Instinct MI300X" is what W&B's GpuAmdInfo.series holds
    # (wandb/proto/wandb_internal.proto); the registry resolves the AMD marketing name to its part.
    run = detect.read_hosted(_run_folder(tmp_path, {"gpu_amd": [{"id": "0", "series": "AMD Instinct MI300X"}] * 8}))
    assert run.config["gpu"] == get_gpu("MI300X").gpu


def test_metadata_that_names_no_single_registry_gpu_leaves_the_gpu_unknown_with_a_note(tmp_path):
    cases = {
        "mixed": {"gpu_nvidia": [{"name": H100_DRIVER_NAME}, {"name": "NVIDIA A100-SXM4-80GB"}]},
        "unknown part": {"gpu": "NVIDIA Imaginary 9000"},
        "no gpu": {"os": "Linux", "gpu_count": 0},
        "not an object": [1, 2],
        "not JSON": "{nope",
        "wrong types": {"gpu": 7, "gpu_nvidia": "H100"},
    }
    for i, (case, meta) in enumerate(cases.items()):
        run, d = _validated(_run_folder(tmp_path / str(i), meta))
        assert "gpu" not in run.config, case
        assert d["gpu"] is None, case
        assert any("wandb-metadata.json" in n and "--gpu" in n for n in d["caveats"] + d["notes"]), case


def test_the_metadata_gpu_count_is_a_note_never_the_run_count(tmp_path):
    """The count is the W&B host's GPUs: the run's count comes from the log (its config says 8) or --num-gpus."""
    run, d = _validated(_run_folder(tmp_path, {"gpu": H100_DRIVER_NAME, "gpu_count": 3}))
    assert d["num_gpus"] == 8


def test_reading_the_metadata_never_changes_it(tmp_path):
    folder = _run_folder(tmp_path, {"gpu": H100_DRIVER_NAME})
    path = os.path.join(folder, "wandb-metadata.json")
    before = (open(path, "rb").read(), os.stat(path).st_mtime_ns)
    _validated(folder)
    assert (open(path, "rb").read(), os.stat(path).st_mtime_ns) == before
