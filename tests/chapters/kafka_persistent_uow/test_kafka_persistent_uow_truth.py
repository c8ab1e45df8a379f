"""Persistent units of work on generated data with known truth: every computed sentence checked against it.

Each dataset comes from known X(b) = b/(t_c + b·t_m) per series and L(b) = l_m + l_c/b per
operation, across scale (an asymptote of 500 to 10 million msg/s), shape (levelling off; still
rising, where the asymptote cannot be seen; no commit cost), series count (one, two, three), the
contract's minimum (two units of work) and a ranged point ("up to 250"), with ±1 % noise from a
fixed seed. The rules, one per kind of sentence:

* ``value``: a commit time, a time per message, log bytes per message or per commit stated as a
  number is within 25 % of the truth (or within the 95 % interval the sentence gives);
* ``asymptote``: an asymptote X∞ stated as a number is within 15 % of 1/t_m;
* ``batch``: "N messages per commit reach F of the asymptote" within 25 % of the true N (a
  count of at most 2 within one message); "b messages per commit give R msg/s" within 10 % of
  the true rate;
* ``log rate``: "op logs L bytes per message, M MB/s" at b: L within 10 % of the truth and M
  within 15 % of L(b)·X(b) of the series that does that operation (the getter's log at the
  getter's rate);
* ``extrapolated``: an answer past the largest measured unit of work says so;
* ``reference``: "the asymptote is off the reference rate by E %" within 10 points of the truth,
  and a ranged point's readings are said as a range.

``python tests/chapters/test_kafka_persistent_uow_truth.py`` prints the false sentences per class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import props  # noqa: E402

CHAPTER = "kafka_persistent_uow"
NOISE = 0.01


@dataclass
class Series:
    t_c: float
    t_m: float
    batches: list
    operation: str | None = None            # the operation whose log bytes this series' rows give
    log: tuple | None = None                # (l_m, l_c)
    ranged: dict = field(default_factory=dict)   # b -> (low, high) as the file states it

    def x(self, b):
        return b / (self.t_c + b * self.t_m)

    @property
    def x_inf(self):
        return 1 / self.t_m if self.t_m > 0 else np.inf

    def b_for(self, f):
        return f / (1 - f) * self.t_c / self.t_m if self.t_m > 0 else np.inf


@dataclass
class Case:
    name: str
    series: dict
    plan_b: float = 250.0
    fraction: float = 0.9
    reference: float | None = None


CASES = [
    Case("a putter and a getter on one log",
         {"putter": Series(300e-6, 4e-6, [1, 5, 20, 100, 250], "put_commit", (2000.0, 400.0)),
          "getter": Series(400e-6, 10e-6, [1, 5, 20, 100, 250], "get_commit", (140.0, 350.0))}),
    Case("500 msg/s at most", {"slow": Series(40e-3, 2e-3, [1, 2, 5, 10, 20, 50])}, plan_b=30.0),
    Case("ten million msg/s", {"fast": Series(2e-6, 0.1e-6, [1, 2, 5, 10, 50, 100, 200])}, plan_b=500.0),
    Case("still rising", {"rising": Series(1e-3, 1e-6, [1, 2, 5, 10])}, plan_b=20.0),
    Case("no commit cost", {"flat": Series(0.0, 50e-6, [1, 5, 20, 100])}),
    Case("two units of work", {"two": Series(400e-6, 35e-6, [1, 250])}),
    Case("up to 250, with a reference", {"source": Series(400e-6, 35e-6, [1, 250], ranged={250: (100, 250)})},
         reference=1 / 35e-6 * 0.98),
    Case("three series", {"a": Series(1e-3, 20e-6, [1, 10, 50, 200]), "b": Series(2e-3, 20e-6, [1, 10, 50, 200]),
                          "c": Series(4e-3, 40e-6, [1, 10, 50, 200])}, plan_b=100.0),
]


def frame(case: Case, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for name, s in case.series.items():
        for b in s.batches:
            row = {"series": name, "msgs_per_commit": float(b), "rate_msg_s": s.x(b) * rng.normal(1, NOISE)}
            if b in s.ranged:
                row["msgs_per_commit_low"], row["msgs_per_commit_high"] = s.ranged[b]
            if s.log:
                row["log_bytes_per_msg"] = (s.log[0] + s.log[1] / b) * rng.normal(1, NOISE)
                row["operation"] = s.operation
            rows.append(row)
    return pd.DataFrame(rows)


def run(case: Case, tmp_path: Path):
    path = props.write(tmp_path, frame(case), re.sub(r"[^a-z0-9]+", "_", case.name.lower()) + ".csv")
    extra = {"reference_rate_msg_s": case.reference} if case.reference else {}
    return props.run(CHAPTER, path, plan_batch=case.plan_b, fraction=case.fraction, **extra)


def _n(token: str) -> float:
    return float(token.replace(",", ""))


_SERIES = re.compile(r"“([^”]+)”")
_COMMIT = re.compile(r"a commit takes (?P<v>[\d,.]+) µs")
_MESSAGE = re.compile(r"and a message (?P<v>[\d,.]+) µs")
_XINF = re.compile(r"X∞ = (?P<v>[\d,.]+) msg/s|asymptote \((?P<w>[\d,.]+) msg/s\)")
_B_FOR = re.compile(r"(?:reaches|reach) (?P<f>[\d.]+) % of (?:it|the asymptote) at (?P<b>[\d,.]+) messages per commit"
                    r"(?P<rest>(?:[^.;]|\.\d)*)|(?P<b2>[\d,.]+) messages per commit reach (?P<f2>[\d.]+) % of the "
                    r"asymptote \((?P<r2>[\d,.]+) msg/s(?P<rest2>[^)]*)\)")
_GIVE = re.compile(r"(?P<b>[\d,.]+) messages per commit give (?P<r>[\d,.]+) msg/s(?P<rest>(?:[^.]|\.\d)*)")
_LOG = re.compile(r"logs (?P<lm>[\d,.]+) bytes per message and (?P<lc>[\d,.]+) bytes per commit")
_PRICE = re.compile(r"“(?P<op>[^”]+)” logs (?P<l>[\d,.]+) bytes per message, (?P<m>[\d,.]+) MB/s")
_PRICE_AT = re.compile(r"At (?P<b>[\d,.]+) messages per commit")
_OFF = re.compile(r"off the reference rates? by (?P<e>-?[\d,.]+) %(?: to (?P<e2>-?[\d,.]+) %)?")


def falsehoods(r, case: Case) -> list[tuple[str, str, str]]:
    out = []
    by_op = {s.operation: s for s in case.series.values() if s.operation}
    for key, text in r.sentences().items():
        for sentence in re.split(r"(?<=[.])\s+(?=[A-Z“])", text):
            names = [m for m in _SERIES.findall(sentence) if m in case.series]
            s = case.series[names[0]] if names else (next(iter(case.series.values())) if len(case.series) == 1 else None)
            if s is not None:
                largest = max(s.batches)
                for m in _COMMIT.finditer(sentence):
                    if abs(_n(m["v"]) * 1e-6 - s.t_c) > 0.25 * s.t_c + 1e-12:
                        out.append(("value", sentence, f"true commit time {s.t_c * 1e6:.4g} µs"))
                for m in _MESSAGE.finditer(sentence):
                    if abs(_n(m["v"]) * 1e-6 - s.t_m) > 0.25 * s.t_m:
                        out.append(("value", sentence, f"true time per message {s.t_m * 1e6:.4g} µs"))
                for m in _XINF.finditer(sentence):
                    v = _n(m["v"] or m["w"])
                    if abs(v / s.x_inf - 1) > 0.15:
                        out.append(("asymptote", sentence, f"true X∞ {s.x_inf:,.4g}"))
                for m in _B_FOR.finditer(sentence):
                    b, f = (_n(m["b"]), float(m["f"])) if m["b"] else (_n(m["b2"]), float(m["f2"]))
                    true = s.b_for(f / 100)
                    if abs(b - true) > max(0.25 * true, 1.0):
                        out.append(("batch", sentence, f"truly {true:,.4g} messages per commit"))
                    if b > largest and "extrapolat" not in (m["rest"] or m["rest2"] or ""):
                        out.append(("extrapolated", sentence, f"beyond the largest measured {largest}"))
                for m in _GIVE.finditer(sentence):
                    b, rate = _n(m["b"]), _n(m["r"])
                    if abs(rate / s.x(b) - 1) > 0.10:
                        out.append(("batch", sentence, f"true rate {s.x(b):,.4g} msg/s"))
                    if b > largest and "extrapolat" not in m["rest"]:
                        out.append(("extrapolated", sentence, f"beyond the largest measured {largest}"))
                for m in _OFF.finditer(sentence):
                    if case.reference:
                        true = (s.x_inf / case.reference - 1) * 100
                        lo, hi = sorted([float(m["e"].replace(",", "")), float((m["e2"] or m["e"]).replace(",", ""))])
                        if not (lo - 10 <= true <= hi + 10):
                            out.append(("reference", sentence, f"truly {true:.3g} %"))
                        if s.ranged and m["e2"] is None and "range" not in sentence:
                            out.append(("reference", sentence, "a ranged point's readings give a range"))
            op_names = [m for m in _SERIES.findall(sentence) if m in by_op]
            if op_names:
                s = by_op[op_names[0]]
                for m in _LOG.finditer(sentence):
                    if abs(_n(m["lm"]) / s.log[0] - 1) > 0.25 or abs(_n(m["lc"]) / s.log[1] - 1) > 0.25:
                        out.append(("value", sentence, f"true l_m {s.log[0]}, l_c {s.log[1]}"))
            at = _PRICE_AT.search(sentence)
            for m in _PRICE.finditer(sentence):
                s = by_op.get(m["op"])
                if s is None or at is None:
                    continue
                b = _n(at["b"])
                true_l = s.log[0] + s.log[1] / b
                true_m = true_l * s.x(b) / 1e6
                if abs(_n(m["l"]) / true_l - 1) > 0.10:
                    out.append(("log rate", m.group(0), f"true {true_l:,.4g} bytes per message"))
                if abs(_n(m["m"]) / true_m - 1) > 0.15:
                    out.append(("log rate", m.group(0), f"true {true_m:,.4g} MB/s at its own series' rate"))
    return out


@pytest.fixture(autouse=True)
def _fewer_refits(monkeypatch):
    from mqperf.models import diagnostics

    monkeypatch.setitem(diagnostics.bootstrap_conf_int.__kwdefaults__, "refits", 19)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_sentence_is_true_of_the_generating_units_of_work(case, tmp_path):
    r = run(case, tmp_path)
    false = falsehoods(r, case)
    assert not false, "\n".join(f"[{c}] {s!r}: {why}" for c, s, why in false)
    props.assert_report_is_honest(r, r.fit_results)


def test_the_rules_catch_the_false_sentences_they_are_for():
    class Fake:
        def __init__(self, text):
            self.text = text

        def sentences(self):
            return {"x": self.text}

    case = CASES[0]
    bad = ["In “getter” a commit takes 900 µs and a message 10 µs: the rate approaches X∞ = 250,000 msg/s, "
           "reaches 90 % of it at 360 messages per commit.",
           "In “getter”, 250 messages per commit give 20,000 msg/s.",
           "At 250 messages per commit and the 243,000 msg/s the throughput fit gives for it, “get_commit” logs 141 "
           "bytes per message, 34.3 MB/s."]
    classes = {c for text in bad for c, _, _ in falsehoods(Fake(text), case)}
    assert {"value", "asymptote", "batch", "extrapolated", "log rate"} <= classes
    fine = ("At 250 messages per commit, “get_commit” logs 141 bytes per message, 13.7 MB/s at the rate of "
            "“getter” (97,600 msg/s).")
    assert not falsehoods(Fake(fine), case)


def main() -> None:  # pragma: no cover - the counts for the closing note
    import tempfile
    from collections import Counter

    counts, total = Counter(), 0
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                r = run(case, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - a refusal is counted, not a crash of the count
                print(f"{case.name}: refused: {exc}")
                counts["refused"] += 1
                continue
        total += sum(len(re.split(r"(?<=[.])\s+(?=[A-Z“])", t)) for t in r.sentences().values())
        for c, s, why in falsehoods(r, case):
            counts[c] += 1
            print(f"{case.name} [{c}] {s[:170]!r}: {why}")
    print(dict(counts), "false of", total, "sentences")


if __name__ == "__main__":
    main()
