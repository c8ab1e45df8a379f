"""The errata table: each implied value recomputes from its formula, and what it names exists."""

import csv
import json

import pytest

from conftest import ROOT
from test_provenance import safe_eval

ERRATA = list(csv.DictReader((ROOT / "data" / "errata.csv").open(encoding="utf-8")))
DATASETS = {r["name"] for r in json.loads((ROOT / "data" / "datapackage.json").read_text())["resources"]}


@pytest.mark.parametrize("row", ERRATA, ids=[r["erratum_id"] for r in ERRATA])
def test_implied_value_recomputes(row):
    if row["implied_formula"]:
        text = row["implied_value"]
        decimals = len(text.split(".")[1]) if "." in text else 0
        assert abs(safe_eval(row["implied_formula"]) - float(text)) <= 0.5 * 10**-decimals + 1e-12


@pytest.mark.parametrize("row", ERRATA, ids=[r["erratum_id"] for r in ERRATA])
def test_erratum_names_existing_datasets(row):
    for name in row["affects"].split():
        assert name in DATASETS, f"{row['erratum_id']} affects unknown dataset {name}"


@pytest.mark.parametrize("row", ERRATA, ids=[r["erratum_id"] for r in ERRATA])
def test_erratum_is_a_real_discrepancy(row):
    """The printed value and the implied one differ by more than the printed value's rounding
    (half a unit in its last place): 49.04 printed against 49.034 implied is a slip, 49.03 is not."""
    if row["implied_value"] and row["printed_value"]:
        printed = row["printed_value"]
        decimals = len(printed.split(".")[1]) if "." in printed else 0
        implied = safe_eval(row["implied_formula"]) if row["implied_formula"] else float(row["implied_value"])
        assert abs(float(printed) - implied) > 0.5 * 10**-decimals
