"""Managed RL services beside Tinker (data/services/managed_services.csv), their quotes in `estimate`, and that
Tinker's committed step-time fit (data/services/tinker_*.csv) is what a fresh fit gives (tests/test_tinker_wallclock.py
tests the fit and the wall-clock built on it)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO
from tinker_nomics import Scenario, estimate
from tinker_nomics.analysis.services import other_services
from tinker_nomics.faces.cli import main
from tinker_nomics.sources.services import managed_services, per_token_services


def test_every_rate_is_quoted_in_its_source():
    """A figure without a source stays out: each rate appears, as written, in the row's quoted source."""
    for s in managed_services():
        for value in (s.prefill_usd_per_m, s.sample_usd_per_m, s.train_usd_per_m, s.usd_per_gpu_hour,
                      s.usd_per_training_hour):
            if value is not None:
                assert f"{value:.2f}" in s.source or f"{value:g}" in s.source, (s.service, s.model, s.gpu, value)
        assert s.recorded == "2026-12-02" and s.source_url.startswith("https://")


def test_statuses():
    closed = [s for s in managed_services() if s.status == "closed_to_new_runs"]
    assert closed and all(s.status_date == "2026-10-05" and "stopped taking new runs" in s.why_not for s in closed)
    assert all(s.complete for s in managed_services() if s.available and s.billing == "per_token")
    openai = next(s for s in managed_services() if s.vendor == "OpenAI")
    assert openai.status == "not_applicable" and openai.usd_per_training_hour == 100 and "o4-mini" in openai.why_not
    assert {s.gpu for s in managed_services() if s.billing == "gpu_hour" and s.available} == \
        {"H100 SXM", "H200 SXM", "B200", "B300", "GB300"}
    assert [s.model for s in per_token_services("gpt-oss-20b")] == ["openai/gpt-oss-20b"]
    assert per_token_services("Qwen3-8B") == []


def run(*args):
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_estimate_quotes_the_managed_gpu_hours_at_the_services_rate():
    code, out, err = run("estimate", "--workload", "math_rl", "--format", "json")
    assert code == 0, err
    (fireworks,) = json.loads(out)["other_services"]
    # Fireworks' on-demand H100 80 GB: $8.00 per hour (data/services/managed_services.csv, fireworks.ai/pricing)
    expected = estimate(Scenario.from_workload("math_rl", gpu_hourly_usd=8.0)).self_hosted.total_usd
    assert fireworks["service"] == "Fireworks dedicated trainers" and fireworks["available"]
    assert fireworks["total_usd"] == pytest.approx(float(expected), rel=1e-12)
    code, table, _ = run("estimate", "--workload", "math_rl")
    assert "Other services\n" in table and "Fireworks dedicated trainers: $" in table


def test_estimate_quotes_a_closed_per_token_service_with_why():
    scenario = Scenario.from_workload("math_rl", model="gpt-oss-20b")
    est = estimate(scenario)
    (quote,) = [q for q in other_services(scenario, est) if q.billing == "per_token"]
    # Prime Intellect, gpt-oss-20b: $0.10 input (prefill) / $0.30 output (sample) / $0.40 train per million tokens
    expected = (float(est.tokens.prefill) * 0.10 + float(est.tokens.sample) * 0.30 + float(est.tokens.train) * 0.40) / 1e6
    assert quote.total_usd == pytest.approx(expected + float(est.tinker.sandbox_usd), rel=1e-12)
    assert not quote.available and quote.why_not == "stopped taking new runs on 2026-10-05"
    code, table, _ = run("estimate", "--workload", "math_rl", "--model", "gpt-oss-20b")
    assert "Prime Intellect Hosted Training (shared LoRA): $" in table and "stopped taking new runs" in table


def test_estimate_prices_the_gpu_from_a_catalog_copy(tmp_path):
    # a user's copy of one provider's file, in runpod's column order (GpuInfo only a name): the cheapest on-demand
    # H100 SXM instance is 2.99 per GPU-hour (spot below it is not on demand; the 2-GPU row costs more per GPU)
    copy = tmp_path / "runpod" / "vms.csv"
    copy.parent.mkdir()
    copy.write_text("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,"
                    "AvailabilityZone\n"
                    "1x_H100-SXM_SECURE,H100-SXM,1.0,20.0,80.0,H100-SXM,CA,2.69,2.99,CA-MTL-1\n"
                    "2x_H100-SXM_SECURE,H100-SXM,2.0,40.0,160.0,H100-SXM,CA,5.38,6.40,CA-MTL-1\n"
                    "1x_A100-80GB_SECURE,A100-80GB,1.0,8.0,80.0,A100-80GB,CA,1.19,1.64,CA-MTL-1\n")
    code, out, err = run("estimate", "--workload", "math_rl", "--gpu-offers", str(copy), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["self_hosted"]["gpu_hourly_usd"] == pytest.approx(2.99)
    assert "cheapest on-demand offer for H100 SXM" in data["self_hosted"]["gpu_hourly_usd_source"]


# ----------------------------------------------------------------------------------------- Tinker's step time


def test_committed_tinker_step_time_fit_is_a_fresh_fit():
    done = subprocess.run([sys.executable, str(REPO / "tools" / "fit_tinker_wallclock.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
