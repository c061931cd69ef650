"""`tinker-nomics workloads | models | gpus | prices`: what the registries hold."""
from __future__ import annotations

from ... import fmt, sources
from ...errors import TinkerNomicsError
from ...sources.price_list import listed_in, price_rows, priced_models, resolve_snapshot, snapshots
from ...sources.prices import get_price
from ...sources.workloads import workloads
from .common import add_format, table, to_json


def add_parsers(sub) -> None:
    for name, text in (("workloads", "list the workload presets"), ("models", "list the models"),
                       ("gpus", "list the GPUs and their $/GPU-hour")):
        add_format(sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + "."))
    prices = sub.add_parser("prices", help="list Tinker price snapshots, or the prices as of one",
                            description="Without options: the dated snapshots. With --snapshot: every model's "
                                        "prices as of that snapshot. With --model: that model across snapshots.")
    prices.add_argument("--snapshot", help="snapshot id (e.g. 2026-01-05), or 'latest'")
    prices.add_argument("--model", help="one model's prices in every snapshot (with --snapshot, in that one)")
    add_format(prices)


CELL_WIDTH = 60   # a long text cell in a listing, cut at a word (the whole text is in --format json)


def cmd_workloads(args) -> str:
    data = []
    for w in workloads().values():
        f = w.fields
        shape = (f"{f.get('turns', 1):g} turns" if f.get("turns", 1) > 1 else f"L={f.get('completion_tokens', 0):g}")
        data.append({"name": w.name, "description": w.description, "fields": f, "sources": w.sources,
                     "summary": [w.name, f["model"], f"{f['prompts_per_step']:g}×{f['group_size']:g}",
                                 f"{f['steps']:g}", shape, fmt.cut(w.description, CELL_WIDTH)]})
    if args.format == "json":
        return to_json({"workloads": [{k: v for k, v in d.items() if k != "summary"} for d in data]})
    return table([d["summary"] for d in data], ["workload", "model", "B×G", "steps", "length", "description"],
                 cuttable=("description",))


def cmd_models(args) -> str:
    listed: dict[str, dict[str, set]] = {"primary": {}, "sampling_only": {}}
    for r in price_rows():
        if r.status in listed:
            listed[r.status].setdefault(sources.split_context(r.model)[0], set()).add(r.snapshot)
    out = []
    for name in sources.model_names():
        arch = sources.get_arch(name) if sources.has_arch(name) else None
        snaps, sampling = (sorted(listed[status].get(name, ()), key=lambda s: snapshots().get(s, ""))
                           for status in ("primary", "sampling_only"))
        out.append({
            "model": name, "architecture": arch.arch_type if arch else None,
            "total_params": arch.total_params if arch else None, "active_params": arch.active_params if arch else None,
            "kv_bytes_per_token": arch.kv_bytes_per_token if arch else None,
            "tinker_status": arch.tinker_status if arch else "priced only",
            "price_snapshots": snaps, "sampling_only_snapshots": [s for s in sampling if s not in snaps],
            "source_url": arch.source_url if arch else None})
    if args.format == "json":
        return to_json({"models": out})
    rows = [[m["model"], m["architecture"] or "-",
             f"{m['total_params'] / 1e9:.1f}B" if m["total_params"] else "-",
             f"{m['active_params'] / 1e9:.2f}B" if m["active_params"] else "-",
             f"{m['kv_bytes_per_token'] / 1024:.0f} KiB" if m["kv_bytes_per_token"] else "-",
             ", ".join(m["price_snapshots"]) or "-"] for m in out]
    for row, m in zip(rows, out):
        if m["sampling_only_snapshots"]:
            row[-1] += f" (sampling rates only: {', '.join(m['sampling_only_snapshots'])})"
    return table(rows, ["model", "type", "total", "active", "KV/token", "Tinker price snapshots"])


def cmd_gpus(args) -> str:
    out = []
    for g in sources.gpus().values():
        listings = [p for p in sources.gpu_prices() if p.gpu == g.gpu]
        default = next((p for p in listings if p.default), None)
        out.append({"gpu": g.gpu, "description": g.description, "memory_gb": g.memory_gb,
                    "hbm_bandwidth_tb_s": g.hbm_bandwidth_tb_s, "bf16_dense_tflops": g.bf16_dense_tflops,
                    "fp8_dense_tflops": g.fp8_dense_tflops, "source_url": g.source_url,
                    "default_usd_per_gpu_hour": default.usd_per_gpu_hour if default else None,
                    "default_provider": default.provider if default else None,
                    "listings": [{"provider": p.provider, "usd_per_gpu_hour": p.usd_per_gpu_hour, "date": p.date,
                                  "source_url": p.source_url} for p in listings]})
    if args.format == "json":
        return to_json({"gpus": out})
    rows = [[g["gpu"], f"{g['memory_gb']:g} GB", f"{g['hbm_bandwidth_tb_s']:g} TB/s",
             f"{g['bf16_dense_tflops']:g}" if g["bf16_dense_tflops"] else "-",
             fmt.usd(g["default_usd_per_gpu_hour"]) if g["default_usd_per_gpu_hour"] else "-",
             fmt.cut(g["default_provider"] or "-", CELL_WIDTH), str(len(g["listings"]))] for g in out]
    return table(rows, ["gpu", "memory", "bandwidth", "BF16 TFLOPS", "default $/h", "default listing", "listings"],
                 cuttable=("default listing",))


def _priced(pairs):
    """(model, snapshot, Price) for every pair Tinker prices, skipping the pairs it does not."""
    for model, snap in pairs:
        try:
            yield model, snap, get_price(model, snap)
        except TinkerNomicsError:
            continue


def cmd_prices(args) -> str:
    if args.model:
        model = sources.resolve_model(args.model)
        wanted = [resolve_snapshot(args.snapshot)] if args.snapshot else list(snapshots())   # both: that one row
        out = [{"snapshot": snap, "prefill": p.prefill, "sample": p.sample, "train": p.train,
                "cached_prefill": p.cached_prefill, "notes": list(p.notes)}
               for _, snap, p in _priced((model, snap) for snap in wanted)]
        if not out:
            raise TinkerNomicsError(f"Tinker prices {model} in no snapshot" if not args.snapshot else
                                    f"snapshot {wanted[0]} does not price {model} (`tinker-nomics prices --model "
                                    f"{model}` lists the snapshots that do)")
        if args.format == "json":
            return to_json({"model": model, "usd_per_million_tokens": out})
        return f"{model}, USD per million tokens\n" + table(
            [[o["snapshot"], _rate(o["prefill"]), _rate(o["sample"]), _rate(o["train"]), _rate(o["cached_prefill"])]
             for o in out], ["snapshot", "prefill", "sample", "train", "cached prefill"])
    if args.snapshot:
        snap = resolve_snapshot(args.snapshot)
        out = [{"model": model, "prefill": p.prefill, "sample": p.sample, "train": p.train,
                "cached_prefill": p.cached_prefill, "provenance": p.provenance, "notes": list(p.notes)}
               for model, _, p in _priced((model, snap) for model in priced_models())]
        if args.format == "json":
            return to_json({"snapshot": snap, "effective_date": snapshots()[snap], "usd_per_million_tokens": out})
        rows = [[o["model"], _rate(o["prefill"]), _rate(o["sample"]), _rate(o["train"]), _rate(o["cached_prefill"]),
                 "sampling rates only" if o["train"] is None else "carried forward" if o["notes"] else ""]
                for o in out]
        return f"Tinker prices as of {snap}, USD per million tokens\n" + table(
            rows, ["model", "prefill", "sample", "train", "cached prefill", "note"])
    out = []
    for snap, date in snapshots().items():
        rows, sampling = listed_in(snap), listed_in(snap, "sampling_only")
        out.append({"snapshot": snap, "effective_date": date, "models_listed": len(rows),
                    "sampling_only_listed": len(sampling), "sources": sorted({r.source_url for r in rows + sampling})})
    if args.format == "json":
        return to_json({"snapshots": out})
    return table([[o["snapshot"], o["effective_date"], o["models_listed"], o["sampling_only_listed"] or "",
                   fmt.cut(o["sources"][0], 70)] for o in out],
                 ["snapshot", "ordered as", "models", "+ sampling only", "source"], cuttable=("source",)) + \
        "\n(newest is the default; `tinker-nomics prices --snapshot ID` lists one)"


def _rate(x) -> str:
    return "-" if x is None else f"{x:g}"
