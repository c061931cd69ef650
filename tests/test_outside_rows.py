"""Published decode rows no fit reads (data/measurements/outside_decode.csv), which the accuracy chapter predicts as a
user would: each row sourced and quoted, none a copy of a row the fit reads, every usable one answered."""
import csv

import numpy as np

from conftest import REPO
from tinker_nomics.analysis import calibration

ROWS = list(csv.DictReader((REPO / "data" / "measurements" / "outside_decode.csv").open(encoding="utf-8")))


def test_every_row_is_sourced_and_every_left_out_row_says_why():
    assert len({r["case_id"] for r in ROWS}) == len(ROWS)
    for r in ROWS:
        # a link, or the id of the indexed copy read where the index did not name the repository
        assert (r["source_url"].startswith("http") or "index" in r["source_url"]) and r["quote"].strip(), r["case_id"]
        assert r["usable"] in ("yes", "no") and (r["usable"] == "yes" or r["reason"].strip()), r["case_id"]


def test_no_row_is_one_the_fit_reads():
    fitted = list(csv.DictReader((REPO / "data" / "measurements" / "decode_cases.csv").open(encoding="utf-8")))

    def key(r):
        return (r["model"], r["gpu"], float(r["measured_output_tok_s"] or "nan"))
    assert not {key(r) for r in ROWS} & {key(r) for r in fitted if r["usable"] == "yes"}
    assert not {r["source_url"] for r in ROWS} & {r.get("source_url", "") for r in fitted}


def test_the_model_answers_every_usable_row():
    frame = calibration.outside_decode()
    assert len(frame) == sum(r["usable"] == "yes" for r in ROWS)
    assert frame["refused"].eq("").all() and np.isfinite(frame["predicted"]).all()
    by_regime = calibration.outside_by_regime(frame).set_index("regime")
    assert by_regime.loc["all", "answered"] == len(frame)
