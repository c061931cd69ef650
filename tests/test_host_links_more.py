"""Host links added for GPUs that had none (data/hardware/host_links.csv), so CPU offload can be timed on them.

Each expected per-direction figure is computed here from the figure the row's note quotes, not copied from the row:
a vendor's both-directions PCIe bandwidth is halved, and a generation and lane count is turned into bytes by the
per-lane rate the file already uses (PCI-SIG nominal: Gen3 1, Gen4 2, Gen5 4 GB/s per lane each way, the 16 / 32 /
64 GB/s of a x16 link that the older rows carry)."""
import contextlib
import csv
import io
import json

import pytest

from conftest import REPO
from tinker_nomics.faces.cli import main
from tinker_nomics.sources.hardware import host_links

PER_LANE_GB_S = {3: 1.0, 4: 2.0, 5: 4.0}   # PCI-SIG nominal rate per lane, each way


def _row(gpu):
    with open(REPO / "data/hardware/host_links.csv", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["gpu"] == gpu]
    assert len(rows) == 1, gpu
    return rows[0]


@pytest.mark.parametrize("gpu, quote, both_ways_gb_s", [
    # V100 datasheet (update r5), V100S PCIe column: interconnect bandwidth 32 GB/sec, both directions
    ("V100S PCIe", "Interconnect Bandwidth ... 32 GB/sec", 32.0),
    # A800 spec survey's own convention for the 'PCIe 4.0' it gives the A800 80GB SXM4: 64 GB/s both ways at x16
    ("A800 80GB SXM", "PCIe 4.0 x16 为 64 GB/s", 64.0),
])
def test_a_quoted_both_ways_figure_is_halved(gpu, quote, both_ways_gb_s):
    row = _row(gpu)
    assert quote in row["note"]
    assert float(row["gb_s_per_direction"]) == both_ways_gb_s / 2
    assert host_links()[gpu] == both_ways_gb_s / 2 * 1e9


@pytest.mark.parametrize("gpu, quote, generation, lanes", [
    # NVIDIA's own MLPerf system descriptions: 'accelerator_host_interconnect'
    ("B200", "'accelerator_host_interconnect': 'PCIe Gen5 x16'", 5, 16),
    ("L4", "'accelerator_host_interconnect': 'PCIe Gen4 x16'", 4, 16),
    # AMD's MI325X text: 'PCIe Gen 5 interface with 16 lanes'
    ("MI325X", "PCIe® Gen 5 interface with 16 lanes", 5, 16),
])
def test_a_quoted_generation_and_width_give_the_rate(gpu, quote, generation, lanes):
    row = _row(gpu)
    assert quote in row["note"]
    assert (int(row["generation"]), int(row["lanes"])) == (generation, lanes)
    assert float(row["gb_s_per_direction"]) == PER_LANE_GB_S[generation] * lanes


def test_b200_takes_the_hosts_gen5_not_the_gpus_gen6():
    """The Blackwell datasheet's 'PCIe Gen6: 256GB/s' (128 each way) is the GPU's side; NVIDIA reports its B200
    systems' host link as Gen5 x16, and the link runs at the slower end."""
    row = _row("B200")
    assert "PCIe Gen6: 256GB/s" in row["note"]
    assert float(row["gb_s_per_direction"]) == 64.0 < 256 / 2


def _predict(gpu, *flags):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", gpu, "--num-gpus", "8",
                     "--samples", "512", "--prompt-len", "300", "--response-len", "1500", "--format", "json",
                     *flags])
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


@pytest.mark.parametrize("gpu", ["B200", "L4", "A800 80GB SXM"])
def test_predict_times_offload_on_a_newly_linked_gpu(gpu):
    plain = _predict(gpu)
    offload = _predict(gpu, "--param-offload", "--optimizer-offload")
    assert json.dumps(offload) != json.dumps(plain)   # the copies are priced, not refused


def test_h20_still_has_no_sourced_link():
    """No NVIDIA document found gives the H20's host interface (NVIDIA publishes no H20 datasheet): it stays out,
    and offload on it is still refused."""
    assert "H20" not in host_links()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["predict", "rl-step", "--model", "Qwen3-8B", "--gpu", "H20", "--num-gpus", "8",
                     "--samples", "512", "--prompt-len", "300", "--response-len", "1500", "--param-offload"])
    assert code == 2 and "H20 has no host link" in err.getvalue()
