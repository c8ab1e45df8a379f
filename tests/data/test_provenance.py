"""Every number in data/ traces to an exact quote in a source, or to a formula that recomputes.

Rules (DESIGN.md, data conventions):
- every CSV in data/ is a resource of data/datapackage.json, which validates (Frictionless);
- every row has basis, seed and quote; the quote is an exact substring of its source: a seed
  article (``seeds/<file>``, named by its file) or a report of the IBM MQ performance team
  (``sources/ibm-mqperf/<file>.txt``, named by its path under ../shared);
- in measured and config rows, every field with role "value" appears as a number in the quote;
- derived rows state a formula that recomputes the value to the precision it is printed with;
- rows read off a chart (basis ``chart``) say which axis and how precisely (``chart_axis``,
  ``chart_uncertainty``), and never share a dataset with printed values.

One test per dataset, each reporting every row that breaks a rule (a dataset of hundreds of
rows is one test, not hundreds).
"""

from __future__ import annotations

import ast
import csv
import json
import math
import operator
import re
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import ROOT

DATA = ROOT / "data"
PACKAGE = json.loads((DATA / "datapackage.json").read_text(encoding="utf-8"))
RESOURCES = {r["name"]: r for r in PACKAGE["resources"]}
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?|(?<![\w.])\.\d+")


def rows(resource):
    with (DATA / resource["path"]).open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def value_fields(resource):
    return [f["name"] for f in resource["schema"]["fields"] if f.get("role") == "value"]


@lru_cache(maxsize=None)
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def source_text(seed: str) -> str:
    """The text a row's ``seed`` names: a seed article, or a report under ../shared/sources."""
    from conftest import need_shared

    if seed.startswith("sources/"):
        return _text(need_shared("sources") / seed.removeprefix("sources/"))
    return _text(need_shared("seeds") / seed)


def numbers_in(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in NUMBER.findall(text)]


def test_every_csv_is_described():
    described = {r["path"] for r in PACKAGE["resources"]}
    on_disk = {p.name for p in DATA.glob("*.csv")}
    assert on_disk - described == set(), "CSV files not in datapackage.json"
    assert described - on_disk == set(), "datapackage.json names files that do not exist"


def test_package_validates_with_frictionless():
    from frictionless import Package

    report = Package(str(DATA / "datapackage.json")).validate()
    assert report.valid, report.flatten(["resourceName", "rowNumber", "fieldName", "type", "note"])[:10]


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_resource_is_documented(name):
    res = RESOURCES[name]
    assert res.get("title") and res.get("description") and res.get("sources"), name
    fields = {f["name"]: f for f in res["schema"]["fields"]}
    for col in ("basis", "seed", "quote"):
        assert col in fields, f"{name} lacks the provenance column {col}"
    assert value_fields(res) or fields["basis"]["constraints"]["enum"] == ["constraint"], (
        f"{name}: no field has role 'value'"
    )
    for fname, field in fields.items():
        if field.get("role") == "value" and field["type"] in ("number", "integer"):
            assert field.get("unit"), f"{name}.{fname}: numeric value field without a unit"


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_every_quote_is_in_its_source(name):
    bad = []
    for line, row in enumerate(rows(RESOURCES[name]), start=2):
        if not row["quote"]:
            bad.append(f"line {line}: empty quote")
        elif row["quote"] not in source_text(row["seed"]):
            bad.append(f"line {line}: quote not found in {row['seed']}: {row['quote']!r}")
    assert not bad, f"{name}: {len(bad)} row(s)\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_every_value_traces(name):
    res = RESOURCES[name]
    fields = value_fields(res)
    bad = []
    for line, row in enumerate(rows(res), start=2):
        values = {f: row[f] for f in fields if row.get(f, "") != ""}
        if row["basis"] in ("measured", "config"):
            stated = numbers_in(row["quote"])
            for field, text in values.items():
                if not any(math.isclose(float(text), s, rel_tol=1e-12, abs_tol=1e-12) for s in stated):
                    bad.append(f"line {line}: {field}={text} does not appear in its quote {row['quote']!r}")
        elif row["basis"] == "derived":
            formula = row.get("formula", "")
            if not formula:
                bad.append(f"line {line}: derived row without a formula")
                continue
            for field, expected in formula_values(formula, values).items():
                text = values[field]
                got = safe_eval(expected)
                decimals = len(text.split(".")[1]) if "." in text else 0
                tol = max(0.5 * 10**-decimals, 1e-9 * abs(got))
                if abs(float(text) - got) > tol + 1e-12:
                    bad.append(f"line {line}: {field}={text} but {expected} = {got}")
        elif row["basis"] == "chart":
            if not row.get("chart_axis") or not row.get("chart_uncertainty"):
                bad.append(f"line {line}: a value read off a chart without its axis and uncertainty")
    assert not bad, f"{name}: {len(bad)} row(s)\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("name", sorted(RESOURCES))
def test_chart_readings_are_never_mixed_with_printed_values(name):
    bases = {row["basis"] for row in rows(RESOURCES[name])}
    assert "chart" not in bases or bases == {"chart"}, f"{name} mixes chart readings with {sorted(bases - {'chart'})}"


def formula_values(formula: str, values: dict) -> dict:
    """'expr' for a row with one value, or 'field = expr; field = expr' for several."""
    if "=" not in formula:
        assert len(values) == 1, f"formula {formula!r} does not say which of {list(values)} it gives"
        return {next(iter(values)): formula}
    out = {}
    for part in formula.split(";"):
        field, expr = (s.strip() for s in part.split("=", 1))
        assert field in values, f"formula names {field}, which is not a value in this row"
        out[field] = expr
    return out


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.Pow: operator.pow, ast.USub: operator.neg}
_FUNCS = {"min": min, "max": max, "round": round, "sqrt": math.sqrt, "log2": math.log2}


def safe_eval(expr: str) -> float:
    """Evaluate plain arithmetic (numbers, + - * / **, parentheses, min/max/round/sqrt/log2)."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.operand))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            return _FUNCS[node.func.id](*[ev(a) for a in node.args])
        raise ValueError(f"not plain arithmetic: {ast.dump(node)}")

    return float(ev(ast.parse(expr, mode="eval")))


def test_safe_eval_rejects_code():
    with pytest.raises(ValueError):
        safe_eval("__import__('os').getcwd()")
    assert safe_eval("28000 * 1.66") == pytest.approx(46480)


def test_number_extraction_reads_thousands_and_decimals():
    assert numbers_in("from 30,592 to 41,995 messages, 1.5 CPU, 93% and 2270") == [30592, 41995, 1.5, 93, 2270]
