"""Registries: schema checks, sources on every row, lenient names, and dated price lookups.

Expected prices come from ../shared/reference/tinker_prices.csv (the rows named in each test).
"""
import csv
import shutil
from pathlib import Path

import pytest

from tinker_nomics import TinkerNomicsError, UnknownNameError, sources as registry
from tinker_nomics.sources import get_price, price_ratio, resolve_snapshot, snapshots, storage_usd_per_gb_month

DATA = Path(registry.data_dir())
SOURCE_COLUMNS = ("source_url", "source")


@pytest.mark.parametrize("path", sorted(DATA.rglob("*.csv")), ids=lambda p: str(p.relative_to(DATA)))
def test_every_row_has_a_source(path):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    column = next((c for c in SOURCE_COLUMNS if c in rows[0]), None)
    assert column, f"{path.name} has no source column"
    empty = [i + 2 for i, r in enumerate(rows) if not (r[column] or "").strip()]
    assert not empty, f"{path.name}: rows without a source: {empty}"


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    monkeypatch.setenv("TINKER_NOMICS_DATA", str(copy))
    registry.clear_caches()
    yield copy
    monkeypatch.delenv("TINKER_NOMICS_DATA")
    registry.clear_caches()


def test_malformed_row_names_file_row_and_column(data_copy):
    path = data_copy / "hardware" / "gpus.csv"
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace(",80,3.35,", ",eighty,3.35,")   # H100 SXM memory_gb
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TinkerNomicsError, match=r"hardware/gpus.csv row 4 column memory_gb: 'eighty'"):
        registry.get_gpu("H100 SXM")


def test_missing_required_cell_is_an_error(data_copy):
    path = data_copy / "prices" / "tinker_prices.csv"
    rows = list(csv.DictReader(open(path)))
    rows[0]["source_url"] = ""
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=rows[0].keys())
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(TinkerNomicsError, match=r"tinker_prices.csv row 2 column source_url: empty but required"):
        get_price("Qwen3-8B", "2026-01-05")


def test_negative_price_is_rejected(data_copy):
    path = data_copy / "prices" / "tinker_prices.csv"
    path.write_text(path.read_text().replace(",Qwen3-8B,,0.13,", ",Qwen3-8B,,-0.13,", 1))
    with pytest.raises(TinkerNomicsError, match="prefill: negative price"):
        get_price("Qwen3-8B", "2026-01-05")


@pytest.mark.parametrize("name", ["Qwen3-8B", "qwen3-8b", "Qwen/Qwen3-8B", "QWEN3_8B", " qwen/qwen3-8b "])
def test_model_names_resolve_leniently(name):
    assert registry.resolve_model(name) == "Qwen/Qwen3-8B"


def test_unknown_model_lists_closest():
    with pytest.raises(UnknownNameError) as err:
        registry.resolve_model("Qwen3-9B")
    assert "Qwen/Qwen3.5-9B" in err.value.closest and "\n" not in str(err.value)


def test_gpu_names():
    assert registry.get_gpu("h100").gpu == "H100 SXM"
    assert registry.get_gpu("b200").gpu == "B200"
    with pytest.raises(UnknownNameError, match="closest: .*H200 SXM"):
        registry.get_gpu("H200S")


def test_long_context_variants_share_the_architecture():
    assert registry.resolve_model("kimi-k2.6:peft:131072") == "moonshotai/Kimi-K2.6:peft:131072"
    assert registry.get_arch("Kimi-K2.6:peft:131072").hf_id == "moonshotai/Kimi-K2.6"


@pytest.mark.parametrize("name, base", [
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"),
    ("Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"),
    ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B"),
    ("Qwen/Qwen3-8B-Base", "Qwen/Qwen3-8B"),
    ("meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf"),
    ("google/gemma-2-2b-it", "google/gemma-2-2b"),
    ("mistralai/Mistral-7B-Instruct-v0.1", "mistralai/Mistral-7B-v0.1"),
    ("Qwen/Qwen3-235B-A22B-Thinking-2507", "Qwen/Qwen3-235B-A22B"),     # the release tag goes with the token
    ("mistralai/Mistral-Nemo-Instruct-2407", "mistralai/Mistral-Nemo-Base-2407"),   # the tuned base is named -Base
    ("mistralai/Mistral-Small-24B-Instruct-2501", "mistralai/Mistral-Small-24B-Base-2501"),
    ("google/gemma-3-1b-it", "google/gemma-3-1b-pt"),        # Google names the pair -it and -pt
    ("google/gemma-3-27b-pt", "google/gemma-3-27b-it"),
    ("Qwen/Qwen2.5-3B", "Qwen/Qwen2.5-3B-Instruct"),           # a base read from its instruct release
    ("mistralai/Mistral-7B-v0.3", "mistralai/Mistral-7B-Instruct-v0.3"),   # ... whose tag follows the token
    ("01-ai/Yi-1.5-34B", "01-ai/Yi-1.5-34B-Chat"),             # ... or its chat release
    # a release whose name does not say its base (models/derivatives.csv: DeepSeek-R1's README table)
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "Qwen/Qwen2.5-14B"),
    ("DeepSeek-R1-Distill-Llama-8B", "meta-llama/Llama-3.1-8B"),
    # ... or whose card names its base (models/derivatives.csv)
    ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "meta-llama/Llama-3.1-70B"),
    ("nvidia/Llama-3.1-Nemotron-Nano-8B-v1", "meta-llama/Llama-3.1-8B"),
    ("HuggingFaceH4/zephyr-7b-beta", "mistralai/Mistral-7B-v0.1"),
    ("lmsys/vicuna-13b-v1.5", "meta-llama/Llama-2-13b-hf"),
    ("mistralai/Mistral-7B-v0.2", "mistralai/Mistral-7B-Instruct-v0.2"),   # v0.2's own release, bundled
])
def test_a_fine_tune_gets_its_base_models_architecture(name, base):
    """Published benchmarks name the instruct or chat release; fine-tuning keeps config.json's shapes, so the
    release is counted with its base's architecture, under its own name with the base named beside it."""
    arch, of = registry.get_arch(name), registry.get_arch(base)
    assert registry.has_arch(name) and registry.architectures.release_base(name) == base
    assert arch.checkpoint_precision == of.checkpoint_precision == "bf16"
    assert (arch.total_params, arch.active_params, arch.kv_bytes_per_token) == \
        (of.total_params, of.active_params, of.kv_bytes_per_token)
    assert arch.model == f"{name.split('/')[-1]} (architecture of {of.model})" and base in arch.source_url


@pytest.mark.parametrize("name", ["mistralai/Mistral-7B-Instruct-v0.4",   # no such release (not v0.3's or v0.2's shapes)
                                  "Qwen/Qwen2.5-7B-Instruct-GGUF",         # llama.cpp files: the format names no precision
                                  "Instruct-7B", "FP8", "Qwen3-FP8",
                                  "mistralai/Mistral-Nemo-Instruct-2409"])  # another release tag: not that base
def test_names_that_are_not_a_known_models_release_stay_unknown(name):
    assert registry.architectures.release_base(name) is None and not registry.has_arch(name)
    with pytest.raises(UnknownNameError, match="unknown model"):
        registry.get_arch(name)


@pytest.mark.parametrize("name, base, precision", [
    # quantized releases as their publishers name them (their config.json's quantization_config holds the format)
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "Qwen/Qwen2.5-7B", "int4"),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "Qwen/Qwen2.5-7B", "int4"),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen/Qwen2.5-7B", "int8"),
    ("Qwen/Qwen3-30B-A3B-FP8", "Qwen/Qwen3-30B-A3B", "fp8"),
    ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "meta-llama/Llama-3.3-70B-Instruct", "fp8"),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "meta-llama/Llama-3.1-8B", "w8a8"),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a16", "meta-llama/Llama-3.1-8B", "int8"),
    ("unsloth/Llama-3.3-70B-Instruct-bnb-4bit", "meta-llama/Llama-3.3-70B-Instruct", "int4"),
    # Llama 3.1's repositories before Hugging Face's rename, alone and quantized
    ("meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B", None),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "meta-llama/Llama-3.1-70B", "int4"),
    ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "meta-llama/Llama-3.1-8B", "fp8"),
    # Llama 2's Hugging Face repositories end in -hf; the releases built on them drop it
    ("TheBloke/Llama-2-70B-Chat-AWQ", "meta-llama/Llama-2-70b-hf", "int4"),
    ("TheBloke/Llama-2-13B-chat-GPTQ", "meta-llama/Llama-2-13b-hf", "int4"),
    ("meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf", None),
    ("Llama-2-70B", "meta-llama/Llama-2-70b-hf", None),
    # gpt-oss's MXFP4 (4.25 bits a weight) is its own format (sources/quantization.py)
    ("someone/Qwen3-8B-MXFP4", "Qwen/Qwen3-8B", "mxfp4"),
    ("someone/Qwen3-8B-NVFP4", "Qwen/Qwen3-8B", "fp4"),
])
def test_a_quantized_or_renamed_release_gets_its_models_architecture_at_its_precision(name, base, precision):
    """The shapes are the base model's; a quantized release's weights are at the precision its name states, so
    predict decode reads them at that precision unless --precision says otherwise."""
    from tinker_nomics.model.predict import predict_decode
    arch, of = registry.get_arch(name), registry.get_arch(base)
    assert registry.architectures.release_of(name) == registry.architectures.Release(base, precision)
    assert (arch.total_params, arch.active_params, arch.kv_bytes_per_token) == \
        (of.total_params, of.active_params, of.kv_bytes_per_token)
    assert arch.checkpoint_precision == (precision or of.checkpoint_precision)
    assert arch.model.startswith(f"{name.split('/')[-1]} (architecture of {of.model}")
    gpu = registry.get_gpu("H100 SXM")
    as_released = predict_decode(arch, gpu, 8, 8, 512, 256)
    as_stated = predict_decode(of, gpu, 8, 8, 512, 256, precision=precision)
    assert as_released.output_tokens_per_second == pytest.approx(as_stated.output_tokens_per_second, rel=1e-12)
    if precision is not None:
        plain = predict_decode(of, gpu, 8, 8, 512, 256)
        assert as_released.output_tokens_per_second > plain.output_tokens_per_second   # fewer weight bytes a step


def test_a_listed_model_keeps_its_own_row():
    """A name the registries list is never read through the fine-tune rule (Qwen2.5-3B-Instruct has its own config)."""
    assert registry.get_arch("Qwen/Qwen2.5-3B-Instruct").hf_id == "Qwen/Qwen2.5-3B-Instruct"
    assert registry.get_arch("Qwen/Qwen3-4B-Instruct-2507").hf_id == "Qwen/Qwen3-4B-Instruct-2507"


def test_architecture_rows_all_load():
    archs = registry.models()
    # every row of model_archs.csv plus the config files of data/models/configs/sources.csv
    assert len(archs) == 36 + len(registry.architectures.bundled_configs())
    with open(registry.data_dir() / "models" / "configs" / "sources.csv", newline="", encoding="utf-8") as fh:
        assert len(registry.architectures.bundled_configs()) == sum(1 for _ in fh) - 1   # one per sources.csv row
    qwen = archs["Qwen/Qwen3-30B-A3B"]
    assert qwen.is_moe and qwen.total_params == 30_532_122_624 and qwen.active_params == 3_041_867_776


def test_january_snapshot():
    # tinker_prices.csv, 2026-01-05 Qwen3-8B: 0.13 / 0.40 / 0.40, no cached rate
    p = get_price("Qwen3-8B", "2026-01-05")
    assert (p.prefill, p.sample, p.train, p.cached_prefill) == (0.13, 0.4, 0.4, None)


def test_newest_snapshot_is_default_and_has_cached_rate():
    # 2026-10-07 Qwen3-8B 0.195 / 0.60 / 0.44; cached prefill at 20% of prefill = 0.039 (2026-09-10 lists 0.039)
    assert resolve_snapshot(None) == "2026-10-07" == list(snapshots())[-1]
    p = get_price("Qwen3-8B")
    assert (p.prefill, p.sample, p.train) == (0.195, 0.6, 0.44)
    assert p.cached_prefill == pytest.approx(0.039)


def test_price_carried_forward_within_epoch():
    # gpt-oss-20b is not in the 2026-10-07 sources; 2026-09-05 lists 0.18 / 0.45 / 0.396
    p = get_price("gpt-oss-20b", "2026-10-07")
    assert (p.prefill, p.sample, p.train) == (0.18, 0.45, 0.396)
    assert any("carried forward from 2026-09-05" in n for n in p.notes)


def test_missing_train_price_filled_from_agreeing_row():
    # 2026-10-07 pricing.ts lists Qwen3.6-35B-A3B without train; 2026-07-17 has the same prefill/sample and 1.177
    p = get_price("Qwen3.6-35B-A3B", "2026-10-07")
    assert p.train == 1.177 and p.provenance["train"].startswith("2026-07-17")


def test_no_carry_across_the_repricing():
    # Qwen3-32B was last priced before 2026-07-17; a January price is never used for October
    with pytest.raises(TinkerNomicsError, match="no Tinker price for Qwen/Qwen3-32B as of snapshot 2026-10-07"):
        get_price("Qwen3-32B", "2026-10-07")


def test_meter_missing_in_snapshot_is_a_clear_error():
    # the 2026-09 source lists Nemotron-3-Nano at 2x the July rate, prefill and sample only
    p = get_price("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "2026-09")
    with pytest.raises(TinkerNomicsError, match="has no train price"):
        p.rate("train")


def test_price_ratio_divides_one_meter():
    # as of 2026-10-07 Qwen3.5-9B samples at $1.995/M (carried from the 2026-09-10 list) against Qwen3-8B's $0.60
    # (asserted above): the break-even chapter's "3.3×"
    assert price_ratio("Qwen3.5-9B", "2026-10-07", "Qwen3-8B") == pytest.approx(1.995 / 0.6)
    # across lists: the undated pre-July list prices Qwen3.5-4B at 0.67 sample against Qwen3-4B-Instruct-2507's
    # January 0.22 (tests/test_beyond_timeline.py pins the same pair)
    assert price_ratio("Qwen3.5-4B", "2026-H1", "Qwen3-4B-Instruct-2507", "2026-01-05") == pytest.approx(0.67 / 0.22)
    assert price_ratio("Qwen3-8B", "2026-10-07", "Qwen3-8B", "2026-01-05", meter="train") == pytest.approx(1.1)
    with pytest.raises(TinkerNomicsError, match="no train price"):
        price_ratio("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "2026-09", "Qwen3-8B", meter="train")


def test_storage_and_gpu_price_defaults():
    # $0.10 per GB-month (seed checkpoint table; 2026-07-17 and 2026-10-07 sources); H100 SXM $2.69 (RunPod)
    assert storage_usd_per_gb_month("2026-01-05") == storage_usd_per_gb_month("2026-10-07") == 0.10
    assert registry.default_gpu_price("H100 SXM").usd_per_gpu_hour == 2.69


def test_gpu_without_price_asks_for_one():
    # H20: no dated USD listing was found (data/hardware/gpu_prices_added.csv has none)
    with pytest.raises(TinkerNomicsError, match="no sourced \\$/GPU-hour for 'H20'.*gpu_hourly_usd"):
        registry.default_gpu_price("H20")


# ------------------------------------------------------------------------------------ issue 11, defect 9: price data

def _price_rows():
    from tinker_nomics.sources.price_list import price_rows
    return price_rows()


def test_every_primary_listing_prices_all_three_meters():
    """Issue 11 defect 9: Qwen/Qwen3.8-27B was listed as priced in 2026-09 and 2026-10-07 with no train price.
    Every primary row prices prefill, sample and train, listed or by the carry-forward rule (sources/prices.py)."""
    checked = 0
    for r in _price_rows():
        if r.status == "primary" and r.snapshot in snapshots():
            price = get_price(r.model, r.snapshot)
            assert price.complete, (r.snapshot, r.model, price)
            checked += 1
    assert checked > 60


def test_sampling_only_listings_really_have_no_train_price():
    """A row marked sampling_only is one the lookup cannot complete: the status is not hiding a price."""
    marked = [r for r in _price_rows() if r.status == "sampling_only"]
    assert {(r.snapshot, r.model) for r in marked} >= {("2026-09", "Qwen/Qwen3.8-27B"),
                                                       ("2026-10-07", "Qwen/Qwen3.8-27B")}
    for r in marked:
        assert r.train is None and get_price(r.model, r.snapshot).train is None, r


def test_models_listing_names_only_snapshots_that_price_the_model():
    import json
    from tinker_nomics import Scenario, estimate
    from tinker_nomics.faces.cli import main
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["models", "--format", "json"]) == 0
    listed = {m["model"]: m for m in json.loads(out.getvalue())["models"]}
    assert listed["Qwen/Qwen3.8-27B"]["price_snapshots"] == []
    assert listed["Qwen/Qwen3.8-27B"]["sampling_only_snapshots"] == ["2026-09", "2026-10-07"]
    for model, m in listed.items():
        for snap in m["price_snapshots"]:
            assert get_price(model, snap).complete, (model, snap)
    est = estimate(Scenario.from_workload("math_rl", model="Qwen3-8B", prices="2026-10-07"))
    assert float(est.tinker.total_usd) > 0
    # sampling rates only, and no architecture to fall back on: neither side can be computed
    with pytest.raises(TinkerNomicsError, match=r"gives only sampling rates for Qwen/Qwen3.8-27B \(no train price\); "
                                                r"no Tinker list bills it, and it has no published architecture"):
        estimate(Scenario.from_workload("math_rl", model="Qwen/Qwen3.8-27B", prices="2026-10-07"))


CITATION = (r"https?://\S+",                                   # a URL
            r"github\.com/[\w.-]+/[\w.-]+",                   # a repository (and a path in it)
            r"\b(file|index) id \d{6,}",                      # a public code file by its code-search index id
            r"^seed\b.*\bpage\b")                             # a page of the seed site


def is_url_or_citation(text: str) -> bool:
    import re
    return any(re.search(pattern, text.strip()) for pattern in CITATION)


def test_every_price_source_is_a_url_or_a_citation():
    """Issue 11 defect 9: snapshot 2026-H1's source read ' Qwen3.5-35B-A3B' (a model name cut from an unquoted
    note by the importer); it now cites the code file the reference table names."""
    import csv
    for name in ("prices/tinker_prices.csv", "prices/tinker_storage.csv"):
        with open(DATA / name, newline="", encoding="utf-8") as fh:
            for i, row in enumerate(csv.DictReader(fh), start=2):
                assert is_url_or_citation(row["source_url"]), (name, i, row["source_url"])
    assert not is_url_or_citation(" Qwen3.5-35B-A3B") and not is_url_or_citation("definition")
    h1 = {r.source_url for r in _price_rows() if r.snapshot == "2026-H1"}
    assert h1 == {"public GitHub code (Tinker lineup Diplomacy benchmark script, MODEL_SPECS; stored-copy file id "
                  "67503087151) - undated, pre-2026-07-17"}   # ../shared/reference/tinker_prices.csv, 2026-H1 rows


def test_a_primary_listing_without_train_price_is_refused_at_load(data_copy):
    path = data_copy / "prices" / "tinker_prices.csv"
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        if r["snapshot"] == "2026-10-07" and r["model"] == "Qwen/Qwen3.8-27B":
            r["status"] = "primary"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=rows[0].keys())
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(TinkerNomicsError, match=r"Qwen3.8-27B is listed as priced \(status primary\) in 2026-10-07 "
                                                r"but has no train price"):
        get_price("Qwen3-8B", "2026-01-05")


def test_a_decimal_point_in_a_name_is_not_dropped():
    """Names match case- and punctuation-blind, but not across a decimal point: facebook/opt-13b is not opt-1.3b.
    Before 2026-12-03 the bundled DeepSeek-R1-Distill-Qwen-1.5B answered for a '…-Qwen-15B' that does not exist."""
    assert registry.get_arch("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B").total_params < 2e9
    assert registry.get_arch("deepseek ai/deepseek r1 distill qwen 1.5b").model.endswith("Qwen-1.5B")
    with pytest.raises(UnknownNameError):
        registry.get_arch("deepseek-ai/DeepSeek-R1-Distill-Qwen-15B")
    assert registry.get_gpu("A100-80GB-SXM").gpu == registry.get_gpu("A100 80GB SXM").gpu


@pytest.mark.parametrize("written, canonical", [
    # as papers and benchmark tables shorten them: Meta's "Meta-" prefix of Llama 3, a first release's version tag
    ("Llama-3-8B", "meta-llama/Meta-Llama-3-8B"), ("Llama3-8B", "meta-llama/Meta-Llama-3-8B"),
    ("Llama-3-70B", "meta-llama/Meta-Llama-3-70B"), ("Mixtral 8x7B", "mistralai/Mixtral-8x7B-v0.1"),
    ("Mixtral-8x22B", "mistral-community/Mixtral-8x22B-v0.1"),
])
def test_a_release_named_as_tables_shorten_it_resolves_to_it(written, canonical):
    from tinker_nomics.sources.architectures import resolve_model
    assert resolve_model(written) == canonical


def test_a_short_name_two_releases_share_names_neither():
    """Mistral-7B-Instruct-v0.2 and -v0.3 both shorten to "Mistral-7B-Instruct": that short name is not an alias of
    either (which version a table meant is not said), while a short name one release alone has is."""
    from tinker_nomics.sources.architectures import _model_index
    from tinker_nomics.errors import _squash
    index = _model_index()
    assert {"mistralai/Mistral-7B-Instruct-v0.2", "mistralai/Mistral-7B-Instruct-v0.3"} <= set(index.values())
    assert _squash("Mistral-7B-Instruct") not in index
    assert index[_squash("Mixtral 8x7B")] == "mistralai/Mixtral-8x7B-v0.1"
