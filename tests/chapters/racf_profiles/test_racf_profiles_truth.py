"""Generated truth for the RACF chapter: every computed sentence held to IBM's documented order.

The chapter is rule-based: nothing is fitted, so nothing is extrapolated; its answers are which
levels MQ checks and which profile protects each queue. Profile files are drawn with known
switch profiles (each of the nine on or off, for a queue manager in a queue sharing group or
not) and queue profiles (discrete names and ``PREFIX.**`` generics at either level), queue
names in the case a reader typed them, and a queue manager whose name is not the parameter's
default. The truth is IBM's documented order, written out here from the documentation
("Profiles to control subsystem security", "... queue sharing group or queue manager level
security"), not taken from the chapter. Rules:

* levels: the levels the summary says MQ checks are the documented ones;
* queues: the profile a queue's sentence names is the most specific covering one at the
  level MQ checks first (queue manager, then queue sharing group);
* the book's numbers: a verdict about the reader's queue manager made for the parameter's
  default name (QMA) when the file's profiles name another, without saying so;
* answers and text: ``Results.answers`` set; no "–" for a number, no doubled sentence, names
  (queues, queue managers) printed as given.

``python tests/chapters/racf_profiles/test_racf_profiles_truth.py`` prints the false sentences by class.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from mqperf.errors import DataError, ModelError

import props  # noqa: E402

CHAPTER = "racf_profiles"


def documented(switches: set[str], ssid: str, qsg: str | None) -> str:
    """The levels MQ checks, in the chapter's words, from IBM's documented order."""
    has = lambda name: name in switches  # noqa: E731
    if has(f"{ssid}.NO.SUBSYS.SECURITY"):
        return "none"
    if qsg and has(f"{qsg}.NO.SUBSYS.SECURITY") and not has(f"{ssid}.YES.SUBSYS.SECURITY"):
        return "none"
    if qsg is None:
        return "QMGR only"

    def level(kind: str) -> bool:
        if has(f"{ssid}.NO.{kind}.CHECKS"):
            return False
        if has(f"{qsg}.NO.{kind}.CHECKS"):
            return has(f"{ssid}.YES.{kind}.CHECKS")
        return True

    q, g = level("QMGR"), level("QSG")
    if not q and not g:
        return "QMGR and QSG"  # not valid: CSQH026I, and both levels are checked
    return "QMGR and QSG" if q and g else ("QMGR only" if q else "QSG only")


def covering(profiles: list[str], name: str) -> str | None:
    """The most specific profile covering ``name``: a discrete one, else the longest ``PREFIX.**``."""
    if name in profiles:
        return name
    generic = [p for p in profiles if p.endswith(".**") and name.startswith(p[:-2])]
    return max(generic, key=len) if generic else None


def queue_truth(queue_profiles: list[str], levels: str, ssid: str, qsg: str | None, queue: str) -> str | None:
    q = queue.upper()
    if levels == "none":
        return None
    order = {"QMGR only": [ssid], "QSG only": [qsg], "QMGR and QSG": [ssid, qsg]}[levels]
    for prefix in order:
        hit = covering(queue_profiles, f"{prefix}.{q}")
        if hit:
            return hit
    return None


CASES = [
    {"id": "QSG, article's advice", "ssid": "MQ01", "qsg": "QSGA",
     "switches": ["MQ01.NO.QMGR.CHECKS", "MQ01.YES.QMGR.CHECKS"],
     "queues": ["MQ01.PAYROLL.**", "QSGA.PAYROLL.**", "QSGA.**"], "names": ["PAYROLL.IN", "Orders.Reply"]},
    {"id": "QSG-wide NO.QMGR.CHECKS", "ssid": "MQ01", "qsg": "QSGA", "switches": ["QSGA.NO.QMGR.CHECKS"],
     "queues": ["MQ01.APP.**", "QSGA.APP.**"], "names": ["APP.REQUEST"]},
    {"id": "override that works", "ssid": "QMB", "qsg": "QSG2",
     "switches": ["QSG2.NO.QMGR.CHECKS", "QMB.YES.QMGR.CHECKS"],
     "queues": ["QMB.APP.IN", "QSG2.APP.**"], "names": ["APP.IN", "app.out"]},
    {"id": "both levels off (CSQH026I)", "ssid": "MQ02", "qsg": "QSGB",
     "switches": ["MQ02.NO.QMGR.CHECKS", "MQ02.NO.QSG.CHECKS"], "queues": ["MQ02.X.**"], "names": ["X.Y"]},
    {"id": "security off", "ssid": "MQ03", "qsg": "QSGC", "switches": ["MQ03.NO.SUBSYS.SECURITY"],
     "queues": ["MQ03.**"], "names": ["A.B"]},
    {"id": "no QSG", "ssid": "MQ04", "qsg": "", "switches": [], "queues": ["MQ04.SALES.**"],
     "names": ["SALES.EU", "Sales.us"]},
    {"id": "defaults left: the file names another queue manager", "ssid": None, "qsg": None,
     "switches": ["MQP1.NO.QSG.CHECKS"], "queues": ["MQP1.ORDERS.**"], "names": ["ORDERS.IN"]},
]


def frame_of(case: dict) -> pd.DataFrame:
    rows = [{"class": "MQADMIN", "profile": s} for s in case["switches"]]
    rows += [{"class": "MQQUEUE", "profile": q} for q in case["queues"]]
    return pd.DataFrame(rows)


def run_case(tmp_path: Path, case: dict):
    params = {"queues": ",".join(case["names"])}
    if case["ssid"] is not None:
        params["ssid"] = case["ssid"]
    if case["qsg"] is not None:
        params["qsg"] = case["qsg"]
    try:
        return props.run(CHAPTER, props.frame_to_csv(frame_of(case), tmp_path / "profiles.csv"), **params)
    except (DataError, ModelError) as exc:
        return exc


_LEVELS = [("makes no security checks", "none"), ("checks at both levels", "QMGR and QSG"),
           ("checks at QMGR and QSG levels", "QMGR and QSG"), ("checks at QMGR level only", "QMGR only"),
           ("checks at QSG level only", "QSG only")]


def false_sentences(r, case: dict) -> list[tuple[str, str, str]]:
    from mqperf import parameters

    out = []
    said = r.sentences()
    defaults = parameters.defaults(CHAPTER)
    ssid = case["ssid"] or defaults["ssid"]
    qsg = (case["qsg"] if case["qsg"] is not None else defaults["qsg"]) or None
    summary = said.get("summary_reading", "")
    claimed = next((lv for words, lv in _LEVELS if words in summary), None)
    truth = documented(set(case["switches"]), ssid, qsg)
    if claimed is not None and claimed != truth:
        out.append(("levels", "summary_reading", f"says {claimed}, the documented order gives {truth}"))
    if case["ssid"] is None and not re.search(r"default|parameter", summary):
        out.append(("book's numbers", "summary_reading", f"a verdict for queue manager {ssid}, the parameter's "
                                                          "default, not named as such"))
    queues = said.get("queue_reading", "") or ""
    for name in case["names"]:
        expected = queue_truth(case["queues"], truth, ssid, qsg, name)
        m = re.search(rf"“{re.escape(name)}”[^\n]*?(?:against `([^`]*)`|no profile covers it)", queues)
        if not m:
            if queues and truth != "none" and len(case["names"]) <= 6:
                out.append(("text", "queue_reading", f"queue {name!r} is not named as given"))
            continue
        got = m[1]
        if got != expected:
            out.append(("queues", "queue_reading", f"{name}: says {got}, the documented order gives {expected}"))

    if not r.answers:
        out.append(("answers", "-", "Results.answers is not set"))
    out += props.text_faults(said)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_sentence_is_true_to_the_documented_order(tmp_path, case):
    r = run_case(tmp_path, case)
    assert not isinstance(r, Exception), f"refused: {r}"
    props.assert_report_is_honest(r)
    assert false_sentences(r, case) == []


def count(tmp: Path) -> dict:
    return props.tally(CASES, run_case, false_sentences, tmp)


if __name__ == "__main__":
    import tempfile
    import warnings

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as d:
        print(count(Path(d)))
