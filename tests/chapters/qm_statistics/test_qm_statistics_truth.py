"""Queue manager statistics on generated interval data with known truth: every computed sentence checked.

Each dataset is a known day of intervals per queue manager: a quiet rate, busy periods with their
own rates, a persistent share, messages per commit b, log bytes per persistent message equal to
k times what MP16's figures give at b (l_m + l_c/b for the put and for the get), connections and
CPU. They vary in scale (busy rates from 8 to 1,000,000 puts + gets per second), shape (busy
periods; flat), interval length (900 s; 60 s; 300 and 900 s mixed inside a busy period), series
count (one queue manager without a qmgr column; two; three) and the contract's minimum (one
interval), with ±2 % noise from a fixed seed. The rules, one per kind of sentence:

* ``busy``: the number of busy periods per queue manager is the true one, "no busy period" only
  of a flat day, and the longest period's start, end and mean rate (total count over total time,
  within 5 %) are the truth's;
* ``chart``: the busy period's stated rate is the quantity a line of the chart beside it shows
  (some line of that queue manager averages within 5 % of it over the period, in time);
* ``log``: MB/s and bytes per persistent message within 5 % of the truth, and "Z times" the MP16
  figure within 5 % of k: the figure is MP16's at the measured messages per commit;
* ``commits``: messages per commit within 5 %;
* ``connections``: the peak connects per second within 1 %.

``python tests/chapters/test_qm_statistics_truth.py`` prints the false sentences per class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import props  # noqa: E402

CHAPTER = "qm_statistics"
NOISE = 0.02
DAY = pd.Timestamp("2026-11-16 00:00:00")
#: MP16's figures as the book's dataset gives them: put/commit 2,088; get/commit 492 at 1 and 178 at 10.
L_C = (492 - 178) / 0.9
L_M_GET = 492 - L_C
L_M_PUT = 2088 - L_C  # a commit record logs the same whether its unit of work put or got


def mp16(b: float) -> float:
    """Log bytes per persistent message (its put and its get) at b operations per commit."""
    return L_M_PUT + L_M_GET + 2 * L_C / b


@dataclass
class QM:
    quiet: float                          # puts + gets per second
    busy: list                            # [(start hour, end hour, rate)]
    b: float = 5.0                        # operations (puts + gets) per commit
    k: float = 1.0                        # log bytes per persistent message / MP16's at b
    persistent: float = 0.6
    lengths: tuple = (900,)               # interval lengths, cycled
    busy_lengths_rate: dict = field(default_factory=dict)   # length -> rate inside busy periods

    def rate(self, hour: float, length: float) -> float:
        for lo, hi, r in self.busy:
            if lo <= hour < hi:
                return self.busy_lengths_rate.get(length, r)
        return self.quiet


@dataclass
class Case:
    name: str
    qms: dict
    column: bool = True
    columns: tuple = ("puts", "persistent_puts", "gets", "commits", "log_write_bytes", "connects", "disconnects",
                      "cpu_s")
    rows: int | None = None


CASES = [
    Case("a day of two queue managers", {"QM1": QM(40, [(9, 12, 800), (14, 17, 1200)]),
                                         "QM2": QM(25, [(8.5, 11, 300), (13.5, 16, 450)], b=8, k=1.3)}),
    Case("eight messages a second, no qmgr column", {"(one queue manager)": QM(0.4, [(10, 14, 8)], b=2, k=1.5,
                                                                              lengths=(60,))}, column=False),
    Case("a million messages a second", {"BIG": QM(40_000, [(6, 9, 1_000_000)], b=50)}),
    Case("a flat day", {"FLAT": QM(500, [])}),
    Case("mixed interval lengths", {"MIX": QM(100, [(9, 12, 1000)], lengths=(300, 900),
                                              busy_lengths_rate={300: 2000, 900: 1000})}),
    Case("three queue managers", {"A": QM(10, [(1, 3, 200)]), "B": QM(20, [(5, 8, 400)], b=3),
                                  "C": QM(5, [(20, 23, 90)], b=10)}),
    Case("puts and gets only", {"PG": QM(50, [(9, 17, 900)])}, columns=("puts", "gets")),
    Case("one interval", {"ONE": QM(100, [])}, rows=1, columns=("puts", "gets")),
]


def frame(case: Case, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for name, qm in case.qms.items():
        t, i = DAY, 0
        while t < DAY + pd.Timedelta(days=1) and (case.rows is None or i < case.rows):
            length = qm.lengths[i % len(qm.lengths)]
            hour = (t - DAY).total_seconds() / 3600
            rate = qm.rate(hour, length) * rng.normal(1, NOISE)
            msgs = rate * length
            puts = msgs / 2
            persistent = puts * qm.persistent
            row = {"start": t.strftime("%Y-%m-%dT%H:%M:%S"), "interval_s": length, "qmgr": name, "puts": puts,
                   "persistent_puts": persistent, "gets": msgs - puts, "commits": msgs / qm.b,
                   "log_write_bytes": persistent * mp16(qm.b) * qm.k, "connects": (1 + rate / 100) * length,
                   "disconnects": (1 + rate / 100) * length, "cpu_s": msgs * 40e-6 + 0.02 * length}
            rows.append({k: v for k, v in row.items() if k in ("start", "interval_s", "qmgr", *case.columns)})
            t += pd.Timedelta(seconds=length)
            i += 1
    out = pd.DataFrame(rows)
    return out if case.column else out.drop(columns="qmgr")


def truth(case: Case, data: pd.DataFrame) -> dict:
    """Per queue manager: its busy periods (start, end, total count over total time), the busy scope's
    log MB/s and bytes per persistent message, b, k and the peak connects per second, from the rows."""
    data = data.assign(qmgr=data["qmgr"] if "qmgr" in data else next(iter(case.qms)),
                       time=pd.to_datetime(data["start"]))
    out = {}
    for name, qm in case.qms.items():
        g = data[data["qmgr"] == name]
        hours = (g["time"] - DAY).dt.total_seconds() / 3600
        periods, scope = [], np.zeros(len(g), dtype=bool)
        for lo, hi, _ in qm.busy:
            inside = ((hours >= lo) & (hours < hi)).to_numpy()
            scope |= inside
            p = g[inside]
            msgs = (p["puts"] + p["gets"]).sum()
            periods.append({"start": p["time"].min(), "end": (p["time"] + pd.to_timedelta(p["interval_s"], unit="s")).max(),
                            "rate": msgs / p["interval_s"].sum()})
        s = g[scope] if scope.any() else g
        item = {"periods": periods, "b": qm.b, "k": qm.k}
        if "log_write_bytes" in s:
            item["log_mb_s"] = s["log_write_bytes"].sum() / s["interval_s"].sum() / 1e6
            item["per_message"] = s["log_write_bytes"].sum() / s["persistent_puts"].sum()
        if "connects" in g:
            item["peak_connects"] = float((g["connects"] / g["interval_s"]).max())
        out[name] = item
    return out


def run(case: Case, tmp_path: Path):
    data = frame(case)
    path = props.write(tmp_path, data, re.sub(r"[^a-z0-9]+", "_", case.name.lower()) + ".csv")
    return props.run(CHAPTER, path), truth(case, data)


def _n(token: str) -> float:
    return float(token.replace(",", ""))


def _chart_lines(r) -> pd.DataFrame:
    chart = r.show("rates_chart")
    if not hasattr(chart, "to_dict"):
        return pd.DataFrame(columns=["time", "rate", "line"])
    rows = [row for rows in chart.to_dict()["datasets"].values() for row in rows if "rate" in row and "line" in row]
    return pd.DataFrame(rows)


_BUSY = re.compile(r"(?P<qm>\S+) has (?P<n>\w+) busy periods?.*?the longest runs from (?P<a>[\d:\- ]+?) to "
                   r"(?P<b>[\d:\- ]+?) at (?P<r>[\d,.]+)")
_NONE = re.compile(r"No busy period: (?P<rest>.*)")
_LOG = re.compile(r"(?P<qm>\S+) wrote (?P<mb>[\d,.]+) MB/s of log[^,]*, (?P<y>[\d,.]+) bytes per persistent "
                  r"(?:put|message)(?:: (?P<z>[\d,.]+) times)?")
_COMMIT = re.compile(r"(?P<qm>\S+) commits every (?P<b>[\d,.]+) messages")
_CONNECT = re.compile(r"(?P<qm>\S+) peaks at (?P<p>[\d,.]+) connects per second")
WORDS = {w: i for i, w in enumerate(("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"))}


def _time_mean(line: pd.DataFrame) -> float:
    """A line's average over time: each point weighted by the time to the next (its interval)."""
    line = line.assign(t=pd.to_datetime(line["time"])).sort_values("t")
    gaps = line["t"].diff().shift(-1).dt.total_seconds()
    gaps = gaps.fillna(gaps.median() if gaps.notna().any() else 1.0)
    return float((line["rate"] * gaps).sum() / gaps.sum())


def _clock(text: str, day: pd.Timestamp) -> pd.Timestamp:
    text = text.strip()
    return pd.Timestamp(text) if "-" in text else day + pd.Timedelta(text + ":00")


def falsehoods(r, case: Case, true: dict) -> list[tuple[str, str, str]]:
    out = []
    lines = _chart_lines(r)
    single = next(iter(case.qms))
    for key, text in r.sentences().items():
        for sentence in re.split(r"(?<=[.])\s+(?=[A-Z“])", text):
            for m in _BUSY.finditer(sentence):
                qm = m["qm"] if m["qm"] in true else single
                t = true[qm]
                n = WORDS.get(m["n"], None) or int(m["n"])
                if n != len(t["periods"]):
                    out.append(("busy", sentence, f"truly {len(t['periods'])} busy periods"))
                    continue
                longest = max(t["periods"], key=lambda p: p["end"] - p["start"])
                start, end = _clock(m["a"], DAY), _clock(m["b"], DAY)
                if abs((start - longest["start"]).total_seconds()) > 900 or abs((end - longest["end"]).total_seconds()) > 900:
                    out.append(("busy", sentence, f"truly {longest['start']} to {longest['end']}"))
                rate = _n(m["r"])
                if abs(rate / longest["rate"] - 1) > 0.05:
                    out.append(("busy", sentence, f"truly {longest['rate']:,.4g} (total count over total time)"))
                mine = lines[lines["line"].astype(str).str.startswith(m["qm"])] if len(lines) else lines
                if len(mine):
                    when = pd.to_datetime(mine["time"])
                    inside = mine[(when >= longest["start"]) & (when < longest["end"])]
                    means = inside.groupby("line").apply(_time_mean) if len(inside) else pd.Series(dtype=float)
                    if not ((means / rate - 1).abs() <= 0.05).any():
                        out.append(("chart", sentence, f"the chart's lines average {means.round(1).to_dict()} there"))
            for m in _NONE.finditer(sentence):
                if any(t["periods"] for t in true.values()) and len(true) == 1:
                    out.append(("busy", sentence, "the day has a busy period"))
            for m in _LOG.finditer(sentence):
                t = true.get(m["qm"], true[single])
                if abs(_n(m["mb"]) / t["log_mb_s"] - 1) > 0.05:
                    out.append(("log", sentence, f"truly {t['log_mb_s']:.4g} MB/s"))
                if abs(_n(m["y"]) / t["per_message"] - 1) > 0.05:
                    out.append(("log", sentence, f"truly {t['per_message']:,.4g} bytes"))
                if m["z"] and abs(_n(m["z"]) / t["k"] - 1) > 0.05:
                    out.append(("log", sentence, f"truly {t['k']} times MP16's figure at b = {t['b']}"))
            for m in _COMMIT.finditer(sentence):
                t = true.get(m["qm"], true[single])
                if abs(_n(m["b"]) / t["b"] - 1) > 0.05:
                    out.append(("commits", sentence, f"truly {t['b']}"))
            for m in _CONNECT.finditer(sentence):
                t = true.get(m["qm"], true[single])
                if abs(_n(m["p"]) / t["peak_connects"] - 1) > 0.01:
                    out.append(("connections", sentence, f"truly {t['peak_connects']:.4g}"))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_sentence_is_true_of_the_generated_day(case, tmp_path):
    r, true = run(case, tmp_path)
    false = falsehoods(r, case, true)
    assert not false, "\n".join(f"[{c}] {s!r}: {why}" for c, s, why in false)
    props.assert_report_is_honest(r, r.fit_results)


def test_the_rules_catch_the_false_sentences_they_are_for(tmp_path):
    case = CASES[0]

    class Fake:
        def __init__(self, text):
            self.text = text

        def sentences(self):
            return {"x": self.text}

        def show(self, key):
            return None

    true = truth(case, frame(case))
    bad = ["QM1 has three busy periods (intervals at or above 717 msg/s); the longest runs from 09:00 to 12:00 at "
           "803 msg/s on average.",
           "QM1 has two busy periods (intervals at or above 717 msg/s); the longest runs from 09:00 to 12:00 at "
           "1,000 msg/s on average.",
           "QM1 wrote 0.8 MB/s of log in its busy intervals, 2,600 bytes per persistent put: 1.01 times the 2,580 "
           "bytes a 1 KB message costs.", "QM1 commits every 4 messages (puts and gets) on average.",
           "QM1 peaks at 20 connects per second."]
    classes = {c for text in bad for c, _, _ in falsehoods(Fake(text), case, true)}
    assert {"busy", "log", "commits", "connections"} <= classes


def main() -> None:  # pragma: no cover - the counts for the closing note
    import tempfile
    from collections import Counter

    counts, total = Counter(), 0
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            r, true = run(case, Path(tmp))
        total += sum(len(re.split(r"(?<=[.])\s+(?=[A-Z“])", t)) for t in r.sentences().values())
        for c, s, why in falsehoods(r, case, true):
            counts[c] += 1
            print(f"{case.name} [{c}] {s[:170]!r}: {why}")
    print(dict(counts), "false of", total, "sentences")


if __name__ == "__main__":
    main()
