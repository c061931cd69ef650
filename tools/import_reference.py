"""Convert the gathered reference tables (../shared/reference) into the tidy, sourced registries in data/.

Run once when the reference material changes:  python tools/import_reference.py ../shared/reference
The output files are committed; the package reads only data/. Every rule that changes a value on the way
(a canonical model id, a derived cached-prefill rate, a default provider) is written here and recorded in the
row's `basis`/`note` column, so a reader of data/ can see where each number came from.
"""
from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

RECORDED = "2026-11-30"  # the day these tables were imported into data/

# Price-table names -> canonical Hugging Face ids (the ids model_archs.csv uses).
CANONICAL = {
    "Qwen3-4B-Instruct-2507": "Qwen/Qwen3-4B-Instruct-2507",
    "Qwen3-8B": "Qwen/Qwen3-8B",
    "Qwen3-30B-A3B": "Qwen/Qwen3-30B-A3B",
    "Qwen3-VL-30B-A3B-Instruct": "Qwen/Qwen3-VL-30B-A3B-Instruct",
    "Qwen3-32B": "Qwen/Qwen3-32B",
    "Qwen3-235B-Instruct-2507": "Qwen/Qwen3-235B-A22B-Instruct-2507",
    "Qwen3-VL-235B-A22B-Instruct": "Qwen/Qwen3-VL-235B-A22B-Instruct",
    "Llama-3.2-1B": "meta-llama/Llama-3.2-1B",
    "Llama-3.2-3B": "meta-llama/Llama-3.2-3B",
    "Llama-3.1-8B": "meta-llama/Llama-3.1-8B",
    "Llama-3.1-70B": "meta-llama/Llama-3.1-70B",
    "DeepSeek-V3.1": "deepseek-ai/DeepSeek-V3.1",
    "GPT-OSS-120B": "openai/gpt-oss-120b",
    "GPT-OSS-20B": "openai/gpt-oss-20b",
    "Kimi-K2-Thinking": "moonshotai/Kimi-K2-Thinking",
    "Qwen3.5-397B-A17B": "Qwen/Qwen3.5-397B-A17B",
    "Kimi K2.6 (moonshotai/Kimi-K2.6 long-context)": "moonshotai/Kimi-K2.6:peft:131072",
    "Kimi K2.5": "moonshotai/Kimi-K2.5:peft:131072",
    "GPT-OSS-120B@128K": "openai/gpt-oss-120b:peft:131072",
    "Qwen3.5-397B-A17B@256K": "Qwen/Qwen3.5-397B-A17B:peft:262144",
}

SNAPSHOTS = {
    # raw snapshot label -> (snapshot id users type, effective date used for ordering, how dated)
    "2026-01-05": ("2026-01-05", "2026-01-05", "dated by the source"),
    "2026-H1 (undated; before 2026-07-17)": ("2026-H1", "2026-07-16", "undated; before the 2026-07-17 repricing"),
    "2026-07-17": ("2026-07-17", "2026-07-17", "dated by the source"),
    "2026-09-05": ("2026-09-05", "2026-09-05", "dated by the source"),
    "2026-09-10": ("2026-09-10", "2026-09-10", "dated by the source"),
    "2026-09": ("2026-09", "2026-09-30", "month only; ordered at month end"),
    "2026-10-07": ("2026-10-07", "2026-10-07", "dated by the source"),
    "undated (Fireworks docs copy)": ("fireworks-undated", "", "undated third-party copy; not used for lookups"),
}

CACHED_SHARE = 0.2  # "cached prefill billed at 20% of prefill (80% discount)", from 2026-07-17 (prices-sources.md)
REPRICING = "2026-07-17"


def canonical_model(raw: str, snapshot: str, context: str) -> str:
    if raw in CANONICAL:
        name = CANONICAL[raw]
    else:
        name = raw
    if snapshot.startswith("undated") and raw == "GPT-OSS-120B":
        name = CANONICAL["GPT-OSS-120B@128K"]
    if snapshot.startswith("undated") and raw == "Qwen3.5-397B-A17B":
        name = CANONICAL["Qwen3.5-397B-A17B@256K"]
    return name


def rejoin_unquoted_note(r: dict) -> dict:
    """Some reference rows (the 2026-H1 snapshot's) carry a note with commas that is not quoted, so the CSV reader
    splits it over the following columns and the source lands in extra fields. The source is the last field; the
    note is everything between `notes` and it."""
    extra = r.pop(None, None)
    if extra:
        r["notes"] = ",".join([r["notes"], r["source_url"], *extra[:-1]])
        r["source_url"] = extra[-1]
    return r


def mark_sampling_only(prices: list[dict]) -> None:
    """A listing without a train price whose train price no lookup can supply is marked `sampling_only`: the
    source lists the model's sampling rates (prefill, sample, cached) only. The rule is the lookup's
    (tinker_nomics/sources/prices.py, rule 3): a missing meter is taken from an earlier listing of the same
    model in the same pricing epoch whose prefill and sample prices agree. Such a listing is kept for the
    record (the prices command shows it) but does not count as a snapshot pricing the model."""
    for row in prices:
        if row["status"] != "primary" or row["train"] or not row["effective_date"]:
            continue
        epoch = row["effective_date"] >= REPRICING
        supplied = any(
            other is not row and other["model"] == row["model"] and other["status"] == "primary" and other["train"]
            and other["effective_date"] and other["effective_date"] <= row["effective_date"]
            and (other["effective_date"] >= REPRICING) == epoch
            and float(other["prefill"]) == float(row["prefill"]) and float(other["sample"]) == float(row["sample"])
            for other in prices)
        if not supplied:
            row["status"] = "sampling_only"
            row["note"] += ("; sampling rates only: no source gives its train price at this date, so this "
                            "listing does not price the model for RL (status sampling_only)")


def convert_prices(src: Path, out: Path) -> None:
    rows = [rejoin_unquoted_note(r) for r in csv.DictReader(open(src / "tinker_prices.csv", newline=""))]
    prices, storage = [], []
    for r in rows:
        snap_id, effective, dating = SNAPSHOTS[r["snapshot_date"]]
        if r["model"] == "(checkpoint storage)":
            storage.append({"snapshot": snap_id, "usd_per_gb_month": "0.10", "note": r["notes"],
                            "source_url": r["source_url"]})
            continue
        model = canonical_model(r["model"], r["snapshot_date"], r["context"])
        cached, basis = r["cached_prefill"], "listed by the source" if r["cached_prefill"] else ""
        status = "primary"
        note = r["notes"]
        if snap_id == "fireworks-undated":
            status = "alternate"
        # Two 2026-10-07 sources disagree on Inkling: the api-evangelist transcription lists the price readers
        # actually paid (limited-time 50% discount); cameron.stream's pricing.ts deliberately uses the undiscounted
        # list price. Keep the discounted one as primary, the other as an alternate kept for provenance.
        if snap_id == "2026-10-07" and model.startswith("thinkingmachines/Inkling") and "Small" not in model \
                and "undiscounted" in note:
            status = "alternate"
        if not cached and effective and effective >= REPRICING and r["prefill"]:
            if model.startswith("thinkingmachines/Inkling"):
                basis = ""  # Inkling's cached rate follows its own rule (10% of list); only listed values are used
            else:
                cached = f"{CACHED_SHARE * float(r['prefill']):.6g}"
                basis = "derived: 20% of prefill (cached prefill billed at 20% from 2026-07-17)"
        context = r["context"]
        if context in ("64K",):
            context = "65536"
        elif context == "128K":
            context = "131072"
        elif context == "256K":
            context = "262144"
        prices.append({
            "snapshot": snap_id, "effective_date": effective, "snapshot_dating": dating,
            "model": model, "model_as_listed": r["model"], "context_tokens": context,
            "prefill": r["prefill"], "sample": r["sample"], "train": r["train"],
            "cached_prefill": cached, "cached_prefill_basis": basis, "status": status,
            "note": note, "source_url": r["source_url"],
        })
    mark_sampling_only(prices)
    # The seed's checkpoint table prices storage at $0.10/GB-month next to its January 2026 prices.
    storage.insert(0, {"snapshot": "2026-01-05", "usd_per_gb_month": "0.10",
                       "note": "the seed's LoRA checkpoint table (cost model page) prices storage at $0.10/GB-month "
                               "alongside the January 2026 prices; no January-dated Tinker page was found",
                       "source_url": "seed: cost model page, 'LoRA checkpoint size' table (../shared/seeds/000)"})
    write(out / "prices" / "tinker_prices.csv", prices)
    write(out / "prices" / "tinker_storage.csv", storage)


GPU_IDS = {
    "B200 (HGX; 1000 W)": ("B200", "HGX B200, 1000 W"),
    "GB200 (per GPU; NVL72; 1200 W)": ("GB200", "per GPU of an NVL72 rack, 1200 W"),
    "B300 (HGX; Blackwell Ultra)": ("B300", "HGX B300, Blackwell Ultra"),
    "GB300 (per GPU; NVL72)": ("GB300", "per GPU of an NVL72 rack"),
    "A10G (AWS G5)": ("A10G", "AWS G5"),
}
# The seed computes with 990 TFLOPS for the H100 ("B_crit = 990 / 3.35", FLOP accounting page);
# the datasheet's dense BF16 figure is 989 (989.4). The seed method uses the seed's figure.
SEED_TFLOPS = {"H100 SXM": ("990", "seed FLOP accounting page: 'B_crit = GPU_TFLOPS / GPU_bandwidth = 990 / 3.35'")}

PRICE_GPU_IDS = {"H200": "H200 SXM", "A10 / A10G": "A10G", "A10G (AWS G5)": "A10G", "A100 80GB PCIe": "A100 80GB PCIe",
                 "A10 (not A10G)": "A10"}


def convert_gpus(src: Path, out: Path) -> None:
    rows = list(csv.DictReader(open(src / "gpus.csv", newline="")))
    gpus = []
    for r in rows:
        gid, desc = GPU_IDS.get(r["gpu"], (r["gpu"], ""))
        seed_tflops, seed_src = SEED_TFLOPS.get(gid, ("", ""))
        gpus.append({"gpu": gid, "description": desc, "memory_gb": r["memory_gb"],
                     "hbm_bandwidth_tb_s": r["hbm_bandwidth_tb_s"], "bf16_dense_tflops": r["bf16_dense_tflops"],
                     "fp8_dense_tflops": r["fp8_dense_tflops"], "interconnect": r["interconnect"],
                     "seed_bf16_dense_tflops": seed_tflops, "seed_source": seed_src,
                     "recorded": RECORDED, "source_url": r["source_url"]})
    write(out / "hardware" / "gpus.csv", gpus)

    prices = list(csv.DictReader(open(src / "gpu_prices.csv", newline="")))
    known = {g["gpu"] for g in gpus}
    table = []
    for r in prices:
        gid = PRICE_GPU_IDS.get(r["gpu"], r["gpu"])
        table.append({"gpu": gid, "provider": r["provider"], "usd_per_gpu_hour": r["usd_per_gpu_hour"],
                      "date": r["date"], "default": "", "in_spec_table": "yes" if gid in known else "no",
                      "source_url": r["source_url"]})
    # Default price per GPU: RunPod Community Cloud, the seed's anchor provider ($2.69/h H100 SXM, takeaway page);
    # where RunPod does not list the GPU, the cheapest dated on-demand row.
    for gid in sorted({t["gpu"] for t in table}):
        rows_g = [t for t in table if t["gpu"] == gid and t["date"]]
        if not rows_g:
            continue
        runpod = [t for t in rows_g if t["provider"] == "RunPod (Community Cloud)"]
        pick = runpod[0] if runpod else min(rows_g, key=lambda t: float(t["usd_per_gpu_hour"]))
        pick["default"] = "yes"
    write(out / "hardware" / "gpu_prices.csv", table)

    modal = list(csv.DictReader(open(src / "modal_prices.csv", newline="")))
    sandbox = []
    for r in modal:
        if r["tier"] != "Sandboxes + Notebooks":
            continue
        unit = "cpu_core_hour" if r["resource"] == "CPU" else "memory_gib_hour"
        sandbox.append({"sandbox": "modal", "resource": unit, "usd_per_unit_hour": r["usd_per_unit_hour"],
                        "date": r["date"], "note": f"{r['tier']}: {r['unit']}", "source_url": r["source_url"]})
    for unit in ("cpu_core_hour", "memory_gib_hour"):
        sandbox.append({"sandbox": "sandboxfusion", "resource": unit, "usd_per_unit_hour": "0",
                        "date": "2026-01-05", "note": "runs locally on your own CPUs; the seed calls it zero-cost",
                        "source_url": "seed: cost model page, 'Use SandboxFusion for zero-cost local execution'"})
        sandbox.append({"sandbox": "none", "resource": unit, "usd_per_unit_hour": "0", "date": RECORDED,
                        "note": "no code execution", "source_url": "definition"})
    write(out / "hardware" / "sandbox_rates.csv", sandbox)


def convert_models(src: Path, out: Path) -> None:
    (out / "models").mkdir(parents=True, exist_ok=True)
    rows = list(csv.DictReader(open(src / "model_archs.csv", newline="")))
    for r in rows:
        r["recorded"] = RECORDED
        head_in_active(r)
    write(out / "models" / "model_archs.csv", rows)


def head_in_active(r: dict) -> None:
    """The reference's `computed_active_params_excl_input_embed` subtracts the tied V·H matrix as the input
    embedding, so for a tied model it leaves the LM head out. Decode multiplies by the head every token, tied or
    not: add V·H back for tied rows (the N of 2N FLOPs per token = everything active but the lookup)."""
    if r["tie_word_embeddings"] == "True":
        head = int(r["vocab_size"]) * int(r["hidden_size"])
        r["computed_active_params_excl_input_embed"] = str(int(r["computed_active_params_excl_input_embed"]) + head)


def copy_measurements(src: Path, out: Path) -> None:
    (out / "measurements").mkdir(parents=True, exist_ok=True)
    for name in ("decode_throughput.csv", "rl_mfu.csv", "published_runs.csv"):
        shutil.copyfile(src / name, out / "measurements" / name)


def write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference")
    out = Path(__file__).resolve().parent.parent / "data"
    convert_prices(src, out)
    convert_gpus(src, out)
    convert_models(src, out)
    copy_measurements(src, out)
    print("wrote", *sorted(str(p.relative_to(out)) for p in out.rglob("*.csv")))
