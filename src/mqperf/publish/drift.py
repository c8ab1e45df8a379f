"""Which number moved: a reader's account of the difference between two cell outputs.

nbval reports a failed cell as a raw diff of its HTML, which for a chart is one line of
several kilobytes of JSON. :func:`describe` compares a cell's stored outputs with the ones
just computed and says, one line per change beyond the book's rule for "the same book"
(:mod:`mqperf.publish.samebook`), which number moved, in which table (by its caption) or chart
(by its title), where, and by how much::

    table 'One fit per series', row 2 ('sink sustainable'), column 'sigma': 0.1187 → 0.1192 (+0.42 %)
    chart 'Measured rates and USL fits': 'rate_msg_s' at series='sink', tasks=2: 46,480 → 46,500 (+0.043 %)

It understands the tables of :mod:`mqperf.present.tables` and pandas' HTML, the charts of
:mod:`mqperf.present.charts` (the Vega-Lite spec embedded in their HTML), and plain text.
Pure functions of their inputs: no I/O, no nbval import.
"""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser

from mqperf.publish.samebook import parse_chart, parse_number, same_output, same_outputs, same_shown, same_value

#: Lines reported per output at most; the rest are counted.
MAX_LINES = 12

_NUMBER = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?(?:[eE][+-]?\d+)?%?")
_TAG = re.compile(r"<[^>]+>")
_DATASET_NAME = re.compile(r"data-[0-9a-f]{32}")



def notebook_differences(expected, actual, *, limit: int = MAX_LINES) -> list[str]:
    """Where two executions of one notebook differ beyond the rule: cell sources, cell count,
    outputs (number by number); empty when they are the same book. Metadata is not compared."""
    lines = []
    if len(expected.cells) != len(actual.cells):
        lines.append(f"{len(expected.cells)} cells → {len(actual.cells)} cells")
    for n, (ce, ca) in enumerate(zip(expected.cells, actual.cells), start=1):
        if ce.get("source") != ca.get("source"):
            lines.append(f"cell {n}: the cell's source differs")
            continue
        if ce.cell_type != "code" or same_outputs(ce.get("outputs", []), ca.get("outputs", [])):
            continue
        lines.extend(f"cell {n}: {m}" for m in describe(ce.get("outputs", []), ca.get("outputs", []), limit=limit)
                     or ["its outputs differ"])
    return lines


def describe(expected: list, actual: list, *, limit: int = MAX_LINES) -> list[str]:
    """Lines naming every number that differs between two lists of notebook outputs.

    Parameters
    ----------
    expected, actual
        Outputs as stored in a notebook (dicts with ``output_type`` and ``data`` or
        ``text``), the stored ones first.
    limit
        Most lines per output; further changes are summed up in one line.

    Returns
    -------
    list of str
        Empty when the outputs carry the same numbers and text.
    """
    lines: list[str] = []
    if len(expected) != len(actual):
        lines.append(f"the cell now has {len(actual)} output(s) where {len(expected)} were stored")
    for exp, act in zip(expected, actual):
        lines.extend(_cap(_describe_output(exp, act), limit))
    return lines


def _cap(lines: list[str], limit: int) -> list[str]:
    if len(lines) <= limit:
        return lines
    return lines[:limit] + [f"… and {len(lines) - limit} more change(s) in this output"]


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else ("" if value is None else str(value))


def _describe_output(exp: dict, act: dict) -> list[str]:
    if same_output(exp, act):
        return []
    exp_data, act_data = _mimes(exp), _mimes(act)
    html_e, html_a = exp_data.get("text/html"), act_data.get("text/html")
    if html_e is not None and html_a is not None:
        found = compare_html(html_e, html_a)
        if found or html_e == html_a:
            return found
    plain_e, plain_a = exp_data.get("text/plain", ""), act_data.get("text/plain", "")
    if plain_e != plain_a:
        return compare_text(plain_e, plain_a)
    for mime in ("text/markdown", "text/html"):
        if mime in exp_data and mime in act_data and exp_data[mime] != act_data[mime]:
            # Prose (a Markdown or HTML paragraph): compared as text, tags removed.
            found = compare_text(_TAG.sub("", exp_data[mime]), _TAG.sub("", act_data[mime]))
            if found:
                return [f"{mime.split('/')[1]} {line}" for line in found]
    changed = sorted(k for k in set(exp_data) | set(act_data) if exp_data.get(k) != act_data.get(k))
    return [f"output changed in {', '.join(changed)} (no number could be located)"]


def _mimes(output: dict) -> dict[str, str]:
    if output.get("output_type") == "stream":
        return {"text/plain": _text(output.get("text"))}
    if output.get("output_type") == "error":
        return {"text/plain": f"{output.get('ename')}: {output.get('evalue')}"}
    return {k: _text(v) for k, v in (output.get("data") or {}).items()}


# -- numbers --------------------------------------------------------------------------------

def change(old: float, new: float) -> str:
    """The size of a change: relative in percent, or absolute when the old value is 0."""
    if not (math.isfinite(old) and math.isfinite(new)):
        return ""
    diff = new - old
    if old == 0:
        return f" ({_signed(diff)}, was 0)"
    pct = diff / abs(old) * 100
    return f" ({'+' if pct >= 0 else '−'}{_sig(abs(pct), 2)} %)"


def _sig(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    return f"{value:.{digits}g}" if abs(value) < 1e-3 or abs(value) >= 1e6 else \
        f"{value:,.{max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))}f}"


def _signed(value: float) -> str:
    return ("+" if value >= 0 else "−") + f"{abs(value):.4g}"


def _show(value) -> str:
    """A JSON number as a person reads it: thousands separated, no float noise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.12g}" if abs(value) >= 1 else f"{value:.12g}"


# -- tables -----------------------------------------------------------------------------------

class _Tables(HTMLParser):
    """Every <table> in a piece of HTML: caption, header row, body rows of (text, is_header)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._cell: list[str] | None = None
        self._row: list | None = None
        self._in_caption = False
        self._section = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"caption": "", "head": [], "rows": []})
        elif not self.tables:
            return
        elif tag == "caption":
            self._in_caption = True
        elif tag in ("thead", "tbody"):
            self._section = tag
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
            self._row.append([self._cell, tag == "th"])

    def handle_endtag(self, tag):
        if not self.tables:
            return
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th"):
            self._cell = None
        elif tag == "tr" and self._row is not None:
            row = [("".join(c).strip(), is_th) for c, is_th in self._row]
            table = self.tables[-1]
            if self._section == "thead" or (not table["head"] and all(is_th for _, is_th in row)):
                table["head"] = [t for t, _ in row]
            else:
                table["rows"].append(row)
            self._row = None

    def handle_data(self, data):
        if self._in_caption and self.tables:
            self.tables[-1]["caption"] += data
        elif self._cell is not None:
            self._cell.append(data)


def parse_tables(html: str) -> list[dict]:
    """Tables in ``html`` as dicts with ``caption``, ``head`` (column names) and ``rows``."""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    return parser.tables


def _table_name(table: dict, index: int) -> str:
    if table["caption"].strip():
        return f"table '{table['caption'].strip()}'"
    cols = [c for c in table["head"] if c][:3]
    return f"table {index + 1} (columns {', '.join(repr(c) for c in cols)}…)" if cols else f"table {index + 1}"


def _row_label(row: list) -> str:
    texts = [t for t, is_th in row if not is_th and t and parse_number(t) is None]
    return f" ('{texts[0]}')" if texts else ""


def compare_tables(exp: dict, act: dict, index: int = 0) -> list[str]:
    """One line per cell that differs between two parsed tables of the same shape."""
    name = _table_name(exp, index)
    if exp["head"] != act["head"]:
        return [f"{name}: columns {exp['head']} → {act['head']}"]
    lines = []
    if len(exp["rows"]) != len(act["rows"]):
        lines.append(f"{name}: {len(exp['rows'])} rows → {len(act['rows'])} rows")
    head = exp["head"]
    for r, (row_e, row_a) in enumerate(zip(exp["rows"], act["rows"]), start=1):
        # pandas writes an empty corner header over its index column; mqperf tables have none.
        offset = len(head) - len(row_e)
        for j, ((te, _), (ta, _)) in enumerate(zip(row_e, row_a)):
            if same_shown(te, ta):
                continue
            col = head[j + offset] if 0 <= j + offset < len(head) and head[j + offset] else f"#{j + 1}"
            ne, na = parse_number(te), parse_number(ta)
            size = change(ne, na) if ne is not None and na is not None else ""
            lines.append(f"{name}, row {r}{_row_label(row_e)}, column '{col}': {te} → {ta}{size}")
    return lines


# -- charts -----------------------------------------------------------------------------------

def chart_title(spec: dict) -> str:
    """The title of a chart, looked for on the spec and then on its layers."""
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(map(str, title))
    if title:
        return str(title)
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for part in spec.get(key, []) or []:
            if isinstance(part, dict) and (t := chart_title(part)) != "untitled":
                return t
    return "untitled"


def _pair_datasets(exp: dict, act: dict) -> list[tuple[list, list]]:
    """Pairs (stored, new) of datasets. Names are content hashes: equal names hold equal data,
    and the changed ones are matched by shape, then by how many rows they share."""
    pairs = [(exp[k], act[k]) for k in exp if k in act and exp[k] != act[k]]
    left = {k: v for k, v in exp.items() if k not in act}
    right = {k: v for k, v in act.items() if k not in exp}
    for name, rows in left.items():
        def score(item):
            other = item[1]
            keys = lambda rs: sorted({k for r in rs for k in r}) if rs else []  # noqa: E731
            same = sum(1 for a, b in zip(rows, other) if a == b)
            return (keys(rows) == keys(other), len(rows) == len(other), same)
        if not right:
            break
        best = max(right.items(), key=score)
        pairs.append((rows, best[1]))
        del right[best[0]]
    return pairs


def _record_label(old: dict, new: dict) -> str:
    parts = [f"{k}={v!r}" for k, v in old.items() if isinstance(v, str) and new.get(k) == v]
    parts += [f"{k}={_show(v)}" for k, v in old.items()
              if isinstance(v, (int, float)) and not isinstance(v, bool) and new.get(k) == v][:2]
    return " at " + ", ".join(parts) if parts else ""


def compare_charts(exp: dict, act: dict) -> list[str]:
    """One line per data value that differs between two chart specs."""
    name = f"chart '{chart_title(exp)}'"
    lines = []
    for rows_e, rows_a in _pair_datasets(exp.get("datasets", {}) or {}, act.get("datasets", {}) or {}):
        if len(rows_e) != len(rows_a):
            lines.append(f"{name}: a data set of {len(rows_e)} rows now has {len(rows_a)}")
        for i, (re_, ra) in enumerate(zip(rows_e, rows_a), start=1):
            if re_ == ra:
                continue
            for key in sorted(set(re_) | set(ra)):
                ve, va = re_.get(key), ra.get(key)
                if same_value(ve, va):
                    continue
                numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (ve, va))
                size = change(float(ve), float(va)) if numeric else ""
                lines.append(f"{name}: '{key}'{_record_label(re_, ra) or f' in row {i}'}: {_show(ve)} → {_show(va)}{size}")
    if not same_value(*(json.loads(_without_data(s)) for s in (exp, act))):
        lines.append(f"{name}: the chart's specification changed (encodings, marks or titles), not only its data")
    if not lines and not same_value(exp, act):
        lines.append(f"{name}: its data sets changed")
    return lines


def _without_data(spec: dict) -> str:
    """The spec without its data sets, with data set names (content hashes) blanked."""
    rest = json.dumps({k: v for k, v in spec.items() if k != "datasets"}, sort_keys=True)
    return _DATASET_NAME.sub("data-#", rest)


def compare_html(expected: str, actual: str) -> list[str]:
    """Changes between two HTML outputs: charts by their data, tables cell by cell."""
    spec_e, spec_a = parse_chart(expected), parse_chart(actual)
    if spec_e is not None and spec_a is not None:
        return compare_charts(spec_e, spec_a)
    tables_e, tables_a = parse_tables(expected), parse_tables(actual)
    if tables_e and tables_a:
        lines = []
        if len(tables_e) != len(tables_a):
            lines.append(f"{len(tables_e)} table(s) stored, {len(tables_a)} now")
        for i, (te, ta) in enumerate(zip(tables_e, tables_a)):
            lines.extend(compare_tables(te, ta, i))
        if lines:
            return lines
    return []


# -- text -----------------------------------------------------------------------------------------

def card_differences(old, new, where: str = "card") -> list[str]:
    """Where two model cards (parsed JSON) differ beyond the rule: text as :func:`compare_text`
    describes a text (number by number where the words agree), numbers by
    :func:`~mqperf.publish.samebook.same_value`, keys exactly. Empty when they are the same book."""
    if isinstance(old, dict) and isinstance(new, dict):
        if old.keys() != new.keys():
            return [f"{where}: keys {sorted(old)} → {sorted(new)}"]
        return [line for k in old for line in card_differences(old[k], new[k], f"{where}.{k}")]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [line for i, (a, b) in enumerate(zip(old, new)) for line in card_differences(a, b, f"{where}[{i}]")]
    if isinstance(old, str) and isinstance(new, str):
        return [f"{where}, {line}" for line in compare_text(old, new)]
    return [] if same_value(old, new) else [f"{where}: {old!r} → {new!r}"]


def compare_text(expected: str, actual: str) -> list[str]:
    """Changes between two texts: line by line, number by number where the words agree."""
    lines_e, lines_a = expected.splitlines(), actual.splitlines()
    out = []
    if len(lines_e) != len(lines_a):
        out.append(f"text: {len(lines_e)} lines → {len(lines_a)} lines")
    for n, (le, la) in enumerate(zip(lines_e, lines_a), start=1):
        if le == la:
            continue
        nums_e, nums_a = _NUMBER.findall(le), _NUMBER.findall(la)
        if _NUMBER.sub("#", le) == _NUMBER.sub("#", la) and len(nums_e) == len(nums_a):
            context = f" ('{_clip(' '.join(le.split()), 60)}')"
            for te, ta in zip(nums_e, nums_a):
                if not same_shown(te, ta):
                    ne, na = parse_number(te), parse_number(ta)
                    size = change(ne, na) if ne is not None and na is not None else ""
                    out.append(f"text line {n}{context}: {te} → {ta}{size}")
        else:
            out.append(f"text line {n}: {_clip(le)!r} → {_clip(la)!r}")
    return out


def _clip(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
