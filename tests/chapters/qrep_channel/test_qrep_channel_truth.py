"""Generated truth for the Q Replication chapter: every computed sentence held to what generated it.

Channel files are drawn from the chapter's own model with known settings (round trip, window,
message size, BATCHSZ, link, commit) and 2–5 % noise on the measured rate: window-limited,
link-limited and confirmation-limited channels, round trips of 0.2 to 40 ms and messages of
1 KB to 1 MB (rates over three orders of magnitude), one channel or two, one measurement per
batch size or three, a window that grew past what the file says (dynamic right-sizing), and
files with no measured rates. For every kind of sentence a rule says when it is false:

* claims: "exceeds the bound" when the true rate does not (noise alone), or "below the bound"
  for the fitted bandwidth when its interval does not put it there;
* extrapolated: a planning answer (BATCHSZ, BATCHLIM, window, channels, BATCHSZ for 90 %)
  past the measured batch sizes and rates, or with no measured rate at all, said without
  "(extrapolated" or not recorded with ``Results.extrapolated``;
* the book's numbers: on a reader's run, planning settings that are the parameters' defaults
  stated as the reader's ("these settings") without saying they are parameters;
* answers and text: ``Results.answers`` set; no "–" for a number, no doubled sentence, names as
  given.

``python tests/chapters/qrep_channel/test_qrep_channel_truth.py`` prints the false sentences by class.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mqperf.errors import DataError, ModelError

import props  # noqa: E402

CHAPTER = "qrep_channel"
BATCHES = [1, 5, 20, 100, 400]


def true_mb_s(b, size, rtt_ms, window, link_mb_s, commit_ms):
    eff = min(window / (rtt_ms / 1e3), link_mb_s * 1e6)
    return b * size / ((rtt_ms + commit_ms) / 1e3 + b * size / eff) / 1e6


def generate(case: dict) -> pd.DataFrame:
    rng = np.random.default_rng(case["seed"])
    rows = []
    for i, ch in enumerate(case["channels"]):
        for b in case.get("batches", BATCHES):
            for _ in range(case.get("reps", 1)):
                row = {"series": ch["name"], "rtt_ms": ch["rtt"], "tcp_window_bytes": ch["window"],
                       "message_bytes": ch["size"], "batch_size": b, "batchlim_kb": 100000,
                       "link_mb_s": ch["link"], "commit_ms": ch["commit"]}
                if case.get("measured", True):
                    truth = true_mb_s(b, ch["size"], ch["rtt"], ch["window"] * ch.get("grown", 1), ch["link"],
                                      ch["commit"])
                    row["measured_mb_s"] = round(truth * (1 + rng.normal(0, case.get("noise", 0.03))), 6)
                rows.append(row)
    return pd.DataFrame(rows)


EAST = {"name": "CAPTURE.TO.APPLY east", "rtt": 4.2, "window": 262144, "size": 32768, "link": 1250, "commit": 0.6}
WEST = {"name": "DR site/west", "rtt": 11.5, "window": 1048576, "size": 102400, "link": 125, "commit": 1.1}
FAST = {"name": "Zürich_LAN", "rtt": 0.2, "window": 4194304, "size": 1024, "link": 125, "commit": 0.3}
FAR = {"name": "λ far", "rtt": 40.0, "window": 65536, "size": 1048576, "link": 1250, "commit": 2.0}

PLAN = {"rtt_ms": 1.0, "tcp_buffer_bytes": 65536, "message_kb": 100, "link_gbit_s": 10.0, "commit_ms": 0.0,
        "target_mb_s": 50.0}
AT_PLAN = {"name": "PLAN.LIKE", "rtt": 1.0, "window": 65536, "size": 102400, "link": 1250, "commit": 0.0}

CASES = [
    {"id": "two channels, one row per batch", "channels": [EAST, WEST], "seed": 1},
    {"id": "link-limited, replicated", "channels": [FAST], "reps": 3, "seed": 2},
    {"id": "window-limited far channel, 1 MB messages", "channels": [FAR], "seed": 3},
    {"id": "window grew (right-sizing), replicated", "channels": [{**EAST, "grown": 4}], "reps": 3, "seed": 4},
    {"id": "no measured rates", "channels": [EAST, WEST], "measured": False, "seed": 5},
    {"id": "at the bound, noisy, one row each", "channels": [{**FAST, "size": 65536}], "noise": 0.05,
     "batches": [50, 100, 200, 400, 800], "seed": 6},
    {"id": "the contract's minimum: one row", "channels": [EAST], "batches": [200], "seed": 7},
    {"id": "a measured channel at the planning settings", "channels": [AT_PLAN], "batches": [1, 2, 3, 5, 20, 100],
     "reps": 2, "seed": 8},
]


def run_case(tmp_path: Path, case: dict):
    frame = generate(case)
    try:
        return props.run(CHAPTER, props.frame_to_csv(frame, tmp_path / "qrep.csv")), frame
    except (DataError, ModelError) as exc:
        return exc, frame




def false_sentences(r, case: dict, frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    out = []
    said = r.sentences()
    measured = "measured_mb_s" in frame

    text = said.get("measured_reading", "") or ""
    if re.search(r"exceeds? the bound", text) and not any(ch.get("grown", 1) > 1 for ch in case["channels"]):
        if "(t-test" not in text:
            out.append(("untested claim", "measured_reading", "says a rate exceeds the bound, which the truth does not"))
    fit = said.get("fit_reading", "") or ""
    for m in re.finditer(r"move at [\d.,]+ MB/s, (below|above) the [\d.,]+ MB/s bound(?! \()", fit):
        out.append(("untested claim", "fit_reading", f"says the bandwidth is {m[1]} the bound without its interval"))

    plan = " ".join(said.get(k, "") or "" for k in ("plan_reading",))
    # The plan is for a channel at the planning parameters: within the data only when a measured
    # channel has those settings, its batch sizes span the answer and its rates reach the target.
    p = PLAN
    same = frame[(frame["rtt_ms"] == p["rtt_ms"]) & (frame["tcp_window_bytes"] == p["tcp_buffer_bytes"])
                 & (frame["message_bytes"] == p["message_kb"] * 1024) & (frame["link_mb_s"] == p["link_gbit_s"] * 125)
                 & (frame["commit_ms"] == p["commit_ms"])] if measured else frame.iloc[0:0]
    m = re.search(r"BATCHSZ (\d[\d,]*) would already reach it|a batch of (\d[\d,]*) messages", plan)
    answer = int((m[1] or m[2]).replace(",", "")) if m else None
    inside = (len(same) > 0 and same["measured_mb_s"].max() >= p["target_mb_s"]
              and (answer is None or same["batch_size"].min() <= answer <= same["batch_size"].max()))
    if plan and not inside and not ("(extrapolated" in plan and r.extrapolations):
        out.append(("extrapolated", "plan_reading", "a planning answer past the measured data, unlabelled"))
    if plan and inside and "(extrapolated" in plan:
        out.append(("extrapolated", "plan_reading", "labelled extrapolated, but a measured channel covers it"))
    if plan and not re.search(r"planning parameters|parameters'|the parameters", plan):
        out.append(("book's numbers", "plan_reading", "the planning settings are stated as the reader's"))
    scen = said.get("scenario_reading", "") or ""
    if re.search(r"BATCHSZ \d[\d,]* would reach 90 %(?! \(extrapolated)", scen) and measured:
        for m in re.finditer(r"BATCHSZ (\d[\d,]*) would reach 90 %", scen):
            if int(m[1].replace(",", "")) > frame["batch_size"].max():
                out.append(("extrapolated", "scenario_reading", f"BATCHSZ {m[1]} past the measured batches"))

    if not r.answers:
        out.append(("answers", "-", "Results.answers is not set"))
    out += props.text_faults(said, set(frame["series"]))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_sentence_is_true_to_the_generated_truth(tmp_path, case):
    r, frame = run_case(tmp_path, case)
    assert not isinstance(r, Exception), f"refused: {r}"
    props.assert_report_is_honest(r, r.fit_results or None)
    assert false_sentences(r, case, frame) == []


def count(tmp: Path) -> dict:
    return props.tally(CASES, run_case, false_sentences, tmp)


if __name__ == "__main__":
    import tempfile
    import warnings

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as d:
        print(count(Path(d)))
