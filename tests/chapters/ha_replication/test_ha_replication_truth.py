"""HA replication latency on generated runs with known truth: every computed sentence held to it.

Each dataset comes from the chapter's model, rate = N·1000/(a + k·d), across scale (a from 0.5 to
80 ms, k from 2 to 12 round trips, N from 1 to 5,000 clients), shape (two delays, the contract's
minimum for a fit; three; five up to 5 ms), series count (one, three), with and without client
counts, with ±1 % noise from a fixed seed. Rules, one per kind of sentence:

* ``k``: "k (…) is about V (95 % interval L to H)" is true when the true k lies in [L, H] or V is
  within 15 % of it (a 95 % interval misses one time in twenty, and on one residual degree of
  freedom it can be narrow by chance); it is never said without client counts or without an
  interval; without them the slope b = k/N is held to the same rule;
* ``rate``: "at D ms … predicts V requests/s" is within 10 % of the true rate at D when D lies
  within the measured delays;
* ``extrapolated``: the planning sentence says "(extrapolated)" exactly when D lies outside them;
* ``target``: "keeps T requests/s up to X ms" is within 10 % (or 0.05 ms) of the true delay.
"""

from __future__ import annotations

import itertools
import zlib
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "ha_replication"
NOISE = 0.01
NUM = r"(-?[\d,]+(?:\.\d+)?(?:e[-+]?\d+)?)"

SCALES = [(0.5, 2.0, 1), (5.0, 5.0, 100), (80.0, 12.0, 5000)]
SHAPES = {"two delays": [0.0, 2.0], "three delays": [0.0, 1.0, 2.0], "five delays": [0.0, 0.5, 1.0, 2.0, 5.0]}


def _n(text: str) -> float:
    return float(text.replace(",", ""))


def _dataset(scale, shape, series, clients, seed):
    rng = np.random.default_rng(seed)
    a, k, n = scale
    truth, frames = {}, []
    for i in range(series):
        name = f"s{i}"
        ai, ki = a * (1 + 0.5 * i), k * (1 + 0.25 * i)
        d = np.array(SHAPES[shape])
        rate = n * 1000 / (ai + ki * d) * (1 + NOISE * rng.standard_normal(d.size))
        frame = pd.DataFrame({"series": name, "added_latency_ms": d, "rate": rate})
        if clients:
            frame["clients"] = n
        frames.append(frame)
        truth[name] = (ai, ki, n)
    return pd.concat(frames, ignore_index=True), truth


CASES = [(s, shape, series, clients) for s, shape, series, clients in
         itertools.product(SCALES, SHAPES, (1, 3), (True, False))]


@pytest.mark.parametrize("scale, shape, series, clients", CASES,
                         ids=[f"{s[2]}N-{sh.replace(' ', '')}-{n}s-{'N' if c else 'noN'}" for s, sh, n, c in CASES])
def test_every_sentence_is_true_of_the_generating_system(tmp_path, scale, shape, series, clients):
    frame, truth = _dataset(scale, shape, series, clients, seed=zlib.crc32(repr((scale, shape, series, clients)).encode()))
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    your = 1.5 if shape != "two delays" else 3.0
    a0, k0, n0 = truth["s0"]
    target = n0 * 1000 / (a0 + k0 * 1.0)
    r = props.run(CHAPTER, path, your_rtt_ms=your, target_rate=round(target, 3))
    props.assert_report_is_honest(r, r.fit_results)
    said = r.sentences()
    top = max(SHAPES[shape])
    for line in said["k_reading"].split("\n"):
        name = re.search(r"“([^”]+)”", line).group(1)
        a, k, n = truth[name]
        m = re.search(rf"is about {NUM}(?: ms per ms)? \(95 % interval {NUM} to {NUM}", line)
        if m:
            assert clients == line.startswith(f"* “{name}”: k ("), f"k said without client counts: {line}"
            true = k if clients else k / n
            v, lo, hi = (_n(g) for g in m.groups())
            assert lo <= true <= hi or abs(v - true) <= 0.15 * true, f"k: {line} (true {true})"
        else:
            assert "cannot tell" in line, line
    for line in said["plan_reading"].split("\n"):
        name = re.search(r"“([^”]+)”", line).group(1)
        a, k, n = truth[name]
        beyond = not (0 <= your <= top)
        head = line.split(";")[0]
        assert ("(extrapolated)" in head) == beyond, f"extrapolated: {line}"
        v = _n(re.search(rf"predicts {NUM} requests/s", line).group(1))
        if not beyond:
            assert v == pytest.approx(n * 1000 / (a + k * your), rel=0.1), f"rate: {line}"
        m = re.search(rf"up to {NUM} ms", line)
        if m and name == "s0":
            assert _n(m.group(1)) == pytest.approx(1.0, rel=0.1, abs=0.05), f"target: {line}"
