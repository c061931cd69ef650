"""Per-phase timings of the real verl runs in ../shared/realdata/verl_runs/, as rows of
data/measurements/rl_phases.csv (the raw table of RL steps with phase breakdowns).

    .venv/bin/python tools/import_verl_phases.py          # rewrite this tool's rows of rl_phases.csv
    .venv/bin/python tools/import_verl_phases.py --check  # exit 1 if the committed rows differ

The logs carry no licence, so they are read in place and never copied: each row holds only figures computed from
its log with the package's own verl reader (tinker_nomics.runs.verl) — phase means over the steps that hold no
validation or checkpoint — and the facts its SOURCE.md quotes from the log's config dump (repository, path,
commit, GPU type). The rows of other sources in rl_phases.csv are kept as they are.
"""
from __future__ import annotations

import csv
import io
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))

from realdata import realdata  # noqa: E402
from tinker_nomics.runs import verl  # noqa: E402
from tinker_nomics.runs.measured import plain_steps  # noqa: E402
from tinker_nomics.runs.reconcile import padded_length  # noqa: E402

TABLE = REPO / "data" / "measurements" / "rl_phases.csv"


def _logs() -> Path:
    """The real verl logs, read in place (tools/realdata.py says where)."""
    path = realdata("verl_runs")
    if not path.is_dir():
        raise SystemExit(f"the real verl logs are not at {path} (set TINKER_NOMICS_REALDATA)")
    return path


FAMILY_PREFIX = "verl console log"
COLUMNS = ["source_url", "source_family", "framework", "framework_version", "algorithm", "critic", "kl_reference",
           "model", "gpu", "num_gpus", "rollout_engine", "rollout_tp", "gpu_memory_utilization", "offload",
           "fine_tune", "lora_rank", "prompts_per_step", "samples_per_prompt", "prompt_len_mean", "response_len_mean",
           "response_len_max", "max_response_length", "tokens_per_step", "step_s", "gen_s", "old_log_prob_s", "ref_s",
           "values_s", "update_critic_s", "update_actor_s", "refit_s", "other_s", "mfu_reported", "steps_averaged",
           "optimizer_steps", "enforce_eager", "gen_includes_refit", "micro_batch_tokens", "micro_batch_samples",
           "logprob_micro_batch_tokens", "logprob_micro_batch_samples", "reference_micro_batch_tokens",
           "reference_micro_batch_samples", "values_micro_batch_tokens", "values_micro_batch_samples",
           "critic_micro_batch_tokens", "critic_micro_batch_samples", "padded_tokens", "critic_padded_tokens", "date_read", "notes"]

# folder -> (log file, repository URL of the file at its commit, source family, GPU type and why)
RUNS = {
    "playverl_qwen2-7b_ppo_8gpu": (
        "verl_qwen2_7b_recommended.log",
        "https://github.com/dingxianzhong/play-verl/blob/7716a615fc4b68961f2bb7716c9aadcd65ca28d2/logs/"
        "verl_qwen2_7b_recommended.log", f"{FAMILY_PREFIX}: dingxianzhong/play-verl",
        "H100 SXM", "the repository's README at 7716a61 says 8×H100 80GB; older text said A100; verl's logged MFU "
                    "implies an H100-class peak (SOURCE.md)"),
    "playverl_qwen2.5-0.5b_grpo_8gpu": (
        "verl_grpo_qwen2.5b_8gpu.log",
        "https://github.com/dingxianzhong/play-verl/blob/7716a615fc4b68961f2bb7716c9aadcd65ca28d2/logs/"
        "verl_grpo_qwen2.5b_8gpu.log", f"{FAMILY_PREFIX}: dingxianzhong/play-verl",
        "H100 SXM", "the repository's README at 7716a61 says 8×H100; verl's logged MFU implies an H100-class peak "
                    "(SOURCE.md)"),
    "dstack_qwen2.5-7b_ppo_16gpu": (
        "verl_demo.log",
        "https://github.com/Bihan/dstack-configs/blob/136d6ade6f904d3096ed5b393128e8c25b2b39b2/verl_demo.log",
        f"{FAMILY_PREFIX}: Bihan/dstack-configs", "H100 SXM",
        "80 GB GPUs per the dstack task; the same commit's fleet file names H100s; verl's logged MFU implies an "
        "H100-class peak (SOURCE.md)"),
}


def _mean(series) -> str:
    values = series.dropna()
    return "" if values.empty else f"{float(values.mean()):.6g}"


def rows() -> list[dict]:
    out = []
    for folder, (name, url, family, gpu, gpu_note) in RUNS.items():
        path = _logs() / folder / name
        run = verl.read_console(path, str(path))
        c = run.config
        steps = run.steps[plain_steps(run)]
        phase = {n: steps.get(f"phase/{n}") for n in run.phase_names}
        per_step = steps["samples"]
        mini = c.get("mini_batch_prompts")
        optimizer_steps = (c["prompts_per_step"] / mini * (c.get("ppo_epochs") or 1)) if mini else None
        logprob_dynamic = c.get("logprob_dynamic_batch", c.get("dynamic_batch"))
        kl_reference = bool(c.get("use_kl_loss") or c.get("use_kl_in_reward"))
        padded = padded_length(c)
        actor_padded = f"{padded:g}" if padded and c.get("remove_padding") is False else ""
        critic_padded = f"{padded:g}" if padded and c.get("critic") and c.get("critic_remove_padding") is False else ""
        out.append({
            "source_url": url, "source_family": family, "framework": "verl",
            "framework_version": "2025 (vLLM 0.8 rollout, FSDP)", "algorithm": c.get("adv_estimator", ""),
            "critic": "yes" if c.get("critic") else "no", "kl_reference": "yes" if kl_reference else "no",
            "model": c.get("model_path", ""), "gpu": gpu, "num_gpus": f"{c['num_gpus']:g}",
            "rollout_engine": c.get("rollout_engine", ""), "rollout_tp": f"{c['rollout_tp']:g}",
            "gpu_memory_utilization": f"{c['rollout_memory_fraction']:g}", "offload": "no",
            "fine_tune": c.get("fine_tune", "full"), "lora_rank": f"{c.get('lora_rank') or 0:g}",
            "prompts_per_step": f"{c['prompts_per_step']:g}", "samples_per_prompt": f"{c['group_size']:g}",
            "prompt_len_mean": _mean(steps["prompt_tokens"] / per_step),
            "response_len_mean": _mean(steps["response_tokens"] / per_step),
            "response_len_max": _mean(steps["response_max"]), "max_response_length": f"{c['max_response_length']:g}",
            "tokens_per_step": _mean(steps["trained_tokens"]), "step_s": _mean(steps["step_seconds"]),
            "gen_s": _mean(steps["generation_seconds"]),
            "old_log_prob_s": _mean(phase["old_log_prob"]) if "old_log_prob" in phase else "",
            "ref_s": _mean(phase["ref"]) if "ref" in phase else "",
            "values_s": _mean(phase["values"]) if "values" in phase else "",
            "update_critic_s": _mean(phase["update_critic"]) if "update_critic" in phase else "",
            "update_actor_s": _mean(steps["training_seconds"]),
            "refit_s": _mean(phase["update_weights"]) if "update_weights" in phase else "",
            "other_s": "", "mfu_reported": _mean(steps["logged_mfu"]), "steps_averaged": str(len(steps)),
            "optimizer_steps": f"{optimizer_steps:g}" if optimizer_steps and math.isfinite(optimizer_steps) else "",
            "enforce_eager": "yes" if c.get("enforce_eager") else "no",
            "gen_includes_refit": "no" if "update_weights" in phase else "yes",
            "micro_batch_tokens": f"{c['micro_batch_tokens']:g}" if c.get("dynamic_batch") else "",
            "micro_batch_samples": "" if c.get("dynamic_batch") else f"{c['micro_batch_samples']:g}",
            "logprob_micro_batch_tokens": f"{c['logprob_micro_batch_tokens']:g}" if logprob_dynamic else "",
            "logprob_micro_batch_samples": "" if logprob_dynamic else f"{c['logprob_micro_batch_samples']:g}",
            **_own_micro_batches(c, "reference", "reference_dynamic_batch", kl_reference),
            **_own_micro_batches(c, "values", "critic_dynamic_batch", c.get("critic")),
            **_own_micro_batches(c, "critic", "critic_dynamic_batch", c.get("critic")),
            "padded_tokens": actor_padded, "critic_padded_tokens": critic_padded,
            "date_read": "2026-12-02",
            "notes": (f"computed by tools/import_verl_phases.py from the log read in place (no licence: not copied); "
                      f"means over the {len(steps)} steps without validation or checkpoint; GPU: {gpu_note}; "
                      f"timing_s/gen holds the weight hand-off to vLLM in this verl version (no update_weights "
                      f"timer); optimizer steps = train_batch_size / ppo_mini_batch_size × ppo_epochs; micro-batches: "
                      f"ppo_max_token_len_per_gpu with use_dynamic_bsz, else ppo_micro_batch_size_per_gpu (the "
                      f"log-prob passes: rollout.log_prob_max_token_len_per_gpu with log_prob_use_dynamic_bsz, else "
                      f"rollout.log_prob_micro_batch_size_per_gpu; the reference's ref.log_prob_*, the critic's "
                      f"values pass critic.forward_* and its update critic.ppo_* likewise, where the step runs "
                      f"them); padded "
                      f"tokens (actor, critic): max_prompt_length + max_response_length for a model whose "
                      f"use_remove_padding is False (its passes compute every padded position), empty where it is "
                      f"True")})
    return out


def _own_micro_batches(c: dict, stem: str, dynamic_fact: str, runs) -> dict:
    """A pass's own micro-batch setting from the config (verl's ref.log_prob_* for `reference`, critic.forward_*
    for `values`, critic.ppo_* for the critic's update, `critic`), as the columns say it: a token budget with
    dynamic batch sizes (`dynamic_fact`), else sequences; both empty where the step does not run the pass or the
    config does not set it."""
    dynamic = c.get(dynamic_fact)
    tokens, samples = c.get(f"{stem}_micro_batch_tokens"), c.get(f"{stem}_micro_batch_samples")
    out = {f"{stem}_micro_batch_tokens": "", f"{stem}_micro_batch_samples": ""}
    if runs and dynamic is True and isinstance(tokens, (int, float)) and tokens > 0:
        out[f"{stem}_micro_batch_tokens"] = f"{tokens:g}"
    elif runs and dynamic is False and isinstance(samples, (int, float)) and samples > 0:
        out[f"{stem}_micro_batch_samples"] = f"{samples:g}"
    return out


def render(own: list[dict]) -> str:
    kept = []
    if TABLE.is_file():
        with open(TABLE, newline="", encoding="utf-8") as fh:
            kept = [r for r in csv.DictReader(fh) if not r["source_family"].startswith(FAMILY_PREFIX)]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in kept + own:
        writer.writerow({k: row.get(k, "") for k in COLUMNS})
    return buffer.getvalue()


def main(argv: list[str]) -> int:
    text = render(rows())
    if "--check" in argv:
        if not TABLE.is_file() or TABLE.read_text(encoding="utf-8") != text:
            print("stale: data/measurements/rl_phases.csv (run tools/import_verl_phases.py)", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    print(f"wrote {len(rows())} verl log rows to {TABLE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
