"""Legal data never crash: every chapter on awkward but legal files, as ``mqperf check`` and
``mqperf run`` see them.

Each file is made from the chapter's example by one change a reader's data may well have: a
single row, only the required columns, flat values (no variance), a key value of 10¹², values
near the smallest a float holds, 400 series, and names that differ only in punctuation. The
chapter's analysis (what ``check`` runs and the notebook shows) must either give a report
whose every table and chart renders and that holds every result the notebook shows, or
refuse the file with one line (DataError, ModelError, ParameterError: exit status 2). Any
other exception is a defect of ours (exit 1) and fails here.
"""

from __future__ import annotations

import functools
import re

import pandas as pd
import pytest

from conftest import ROOT
from mqperf import chapters
from mqperf.data.contracts import CONTRACTS
from mqperf.errors import MQPerfError
from mqperf.present import charts
from mqperf.present.results import Missing, Text
from mqperf.present.tables import Table

CHAPTERS = sorted(p.stem for p in (ROOT / "data" / "examples").glob("*.csv") if "." not in p.stem)
COLLIDING = ("a/b c", "a b c", "a:b c")
#: What a number must never read as: an integer overflow, or not a number at all.
NONSENSE = re.compile(r"−?9,223,372,036,854,775,80[78]|\bnan\b|\bNaN\b")


def _fields(chapter):
    return {f["name"]: f for f in CONTRACTS[chapter]["fields"]}


def _free_text(chapter, frame):
    out = []
    for name, f in _fields(chapter).items():
        c = f.get("constraints", {})
        if name in frame and f["type"] == "string" and name != "basis" and "enum" not in c and "pattern" not in c:
            out.append(name)
    return out


@functools.cache
def _columns(chapter: str) -> tuple[pd.DataFrame, list, list, list, list]:
    """The example, and its required, integer, number and free-text columns."""
    frame = pd.read_csv(ROOT / "data" / "examples" / f"{chapter}.csv")
    fields = _fields(chapter)
    required = [n for n, f in fields.items() if f.get("constraints", {}).get("required") and n in frame]
    integers = [n for n, f in fields.items() if f["type"] == "integer" and n in frame]
    numbers = [n for n, f in fields.items() if f["type"] == "number" and n in frame]
    return frame, required, integers, numbers, _free_text(chapter, frame)


def variant_names(chapter: str) -> list[str]:
    """The variants :func:`variants` makes of ``chapter``'s example, without making them (collection
    needs only the names; a worker makes the files of the cases it runs)."""
    _, _, integers, numbers, text = _columns(chapter)
    return ["one row", "required only", *(["flat", "tiny values"] if numbers else []),
            *(["huge key"] if integers else []), *(["many series", "colliding names"] if text else [])]


@functools.cache  # made once per chapter, on the worker that runs its cases: read only
def variants(chapter: str) -> dict[str, pd.DataFrame]:
    frame, required, integers, numbers, text = _columns(chapter)
    out = {"one row": frame.head(1), "required only": frame[required] if required else frame}
    if numbers:
        out["flat"] = frame.assign(**{c: frame[c].dropna().iloc[0] if frame[c].notna().any() else None
                                      for c in numbers})
        out["tiny values"] = frame.assign(**{numbers[-1]: frame[numbers[-1]] * 1e-290})
    if integers:
        big = frame.copy()
        big.loc[big.index[-1], integers[0]] = 10**12
        out["huge key"] = big
    if text:
        col = text[0]
        out["many series"] = pd.concat([frame.assign(**{col: f"series {i:03d}"}) for i in range(400)],
                                       ignore_index=True)
        values = list(dict.fromkeys(frame[col].dropna()))
        if len(values) < len(COLLIDING):
            # Too few series of its own: the file three times, once under each name.
            out["colliding names"] = pd.concat([frame.assign(**{col: n}) for n in COLLIDING], ignore_index=True)
        else:
            out["colliding names"] = frame.assign(**{col: frame[col].map(
                {v: COLLIDING[i % len(COLLIDING)] if i < len(COLLIDING) else v for i, v in enumerate(values)})})
    assert list(out) == variant_names(chapter), "variant_names and variants disagree"
    return out


CASES = [pytest.param(c, v, id=f"{c}-{v.replace(' ', '_')}") for c in CHAPTERS for v in variant_names(c)]


def rendered(results) -> list[str]:
    """Every item as the notebook would show it; the texts, for reading."""
    texts = []
    for item in results.items.values():
        if isinstance(item, (Text, Missing)):
            texts.append(item._repr_markdown_())
        elif isinstance(item, Table):
            texts.append(item._repr_html_())
        elif item is not None and hasattr(item, "to_dict"):
            charts.render(item.to_dict())
    return texts


@pytest.mark.parametrize("chapter,variant", CASES)
def test_legal_data_gives_a_report_or_one_line(chapter, variant, tmp_path):
    path = tmp_path / f"{chapter}.csv"
    variants(chapter)[variant].to_csv(path, index=False)
    try:
        results = chapters.preflight(chapter, path)
    except MQPerfError as exc:
        line = str(exc)
        assert line.strip() and "\n" not in line.strip(), f"not one line: {line!r}"
        assert "Traceback" not in line
        return
    texts = rendered(results)
    odd = [m.group(0) for t in texts for m in NONSENSE.finditer(t)]
    assert not odd, f"numbers that read as nonsense: {odd[:5]}"
    assert not results.warnings, f"the report would show warnings: {results.warnings[:3]}"
    if variant == "colliding names":
        names = [n for n, _ in results.cards]
        assert len(names) == len(set(names)), names


# -- parameters at the ends of their ranges -----------------------------------------------------

def _extremes(decl) -> list:
    """The smallest and largest value a numeric parameter accepts (a big finite one where it has no bound)."""
    from mqperf.declarations import Integer, Number

    if not isinstance(decl, Number):
        return []
    step = 1 if isinstance(decl, Integer) else 1e-9
    lo = decl.minimum if decl.minimum is not None else -1e12
    hi = decl.maximum if decl.maximum is not None else 1e12
    lo = lo + step * max(1, abs(lo)) if decl.exclusive_minimum else lo
    hi = hi - step * max(1, abs(hi)) if decl.exclusive_maximum else hi
    out = [lo, hi]
    return [int(v) if isinstance(decl, Integer) else float(v) for v in out]


def _parameter_cases():
    from mqperf import parameters

    for chapter in CHAPTERS:
        for name, decl in parameters.declarations(chapter).items():
            for value in _extremes(decl):
                yield pytest.param(chapter, name, value, id=f"{chapter}-{name}={value:g}")


@pytest.mark.parametrize("chapter,name,value", list(_parameter_cases()))
def test_a_parameter_at_the_end_of_its_range_gives_a_report_or_one_line(chapter, name, value):
    from mqperf import parameters

    example = ROOT / "data" / "examples" / f"{chapter}.csv"
    try:
        given = parameters.parse_cli(chapter, [(name, repr(value))])
        results = chapters.preflight(chapter, example, {**parameters.run_overrides(chapter, str(example), given)})
    except MQPerfError as exc:
        assert str(exc).strip() and "\n" not in str(exc).strip(), str(exc)
        return
    texts = rendered(results)
    odd = [m.group(0) for t in texts for m in NONSENSE.finditer(t)]
    assert not odd, f"numbers that read as nonsense: {odd[:5]}"
    assert not results.warnings, f"the report would show warnings: {results.warnings[:3]}"
