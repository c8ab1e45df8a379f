"""Release to release: everything the chapter shows, in the order it shows it.

Orchestration only: the data through :func:`mqperf.data.views.open`, cells, comparisons and the
planning answer from :mod:`.fits`, the sentences from :mod:`.text`.
"""

from __future__ import annotations

from pathlib import Path

from mqperf.chapters.release_to_release import CHAPTER
from mqperf.chapters.release_to_release import fits as f
from mqperf.chapters.release_to_release import text
from mqperf.data import views
from mqperf.errors import ParameterError
from mqperf.present.cards import card_name
from mqperf.present.results import Results

EXAMPLE = "release_to_release.csv"


def analyse(p: dict) -> Results:
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    src = views.describe(p["data"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = "changes in peak rate and CPU per round trip between measured releases, on measured workloads only"
    d = f.prepare(views.open(p["data"], CHAPTER))
    f.check_replicates(d)
    noise = float(p["assumed_noise_pct"])
    c = f.cells(d)
    r.points = c.assign(n=c["runs"])
    r.checked("Rates", "each release's peak rate on a workload is the mean of its runs' peak rates (each run one "
                       "printed or measured peak); nothing is summed over time")
    rel = f.releases(d)
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
    r.text("read", text.what_was_read(d, c, example=example))
    r.about("about", text.about())
    r.checked("CPU per round trip", "each run's CPU % over its peak rate × 1,000 (CPU % of the server per 1,000 round "
                                    "trips/s), averaged over a cell's runs; it compares only on one machine")
    r.checked("Releases", "oldest first, in the order the file first names them: " + ", ".join(rel))
    r.setup["MQ version"] = ", ".join(rel) + " (the file's releases)"
    named = f.machines(c)
    if named:
        r.setup["platform"] = "; ".join(f"{k}: {v}" for k, v in named.items())
    else:
        r.setup["machine"] = "not stated: every release is taken to have run on the same machine and setup"
    r.setup["interval length"] = "none: each row is one run's peak"
    r.table("peaks", f.peaks_table(c), caption=f"Peak rate and CPU per release and workload: {len(d):,} runs of "
            f"{c['workload'].nunique():,} workloads in {len(rel):,} releases (CPU per round trip = CPU % / rate × 1,000)")

    # -- each release against the one before it ------------------------------------------------
    found = f.read(f.consecutive(d, c), noise)
    pairs = f.pairs_of(found)
    machines = f.machines(c)
    single = any(s.reading in (f.BEYOND, f.WITHIN) for s in found)
    caption = ("reading: a Welch t-test against the runs' scatter (rose, fell, cannot tell), else beyond or within the "
               f"assumed run-to-run noise of {noise:g} %; a step between machines is not read")
    why = ("The data hold one release, so there is nothing to compare here: give two or more releases in one file, "
           "or one file per release to `mqperf compare release_to_release --data OLD.csv --data NEW.csv`."
           if len(rel) < 2 else "No workload was run in two releases.")
    r.table("rate_changes", f.steps_table(found, "rate"), caption="Peak rate, each release against the one before: "
            + caption, missing=why)
    r.table("cost_changes", f.steps_table(found, "cost"), caption="CPU per round trip, each release against the one "
            "before: " + caption, missing=why)
    r.table("summary", f.summary_table(found), caption="Each pair of releases: how the changes read", missing=why)
    r.chart("change_chart", _chart(found), missing=why)
    r.text("changes_text", *[text.pair_reading(found, a, b, noise, machines) for a, b in pairs])
    r.text("noise_text", text.noise_rule(noise, single))
    if len(rel) >= 3:
        cp, skipped = f.changepoints(c)
        r.table("changepoints", cp, caption="Change points over the releases (mean levels; shift = after − before, "
                                            "interval at 95 % over the sequence)",
                missing="No workload has two or more runs in every release on one machine, so no change point "
                        "can be searched.")
        r.text("changepoint_text", text.changepoint_reading(cp, skipped, len(rel)))
    else:
        r.missing("changepoints", "Change points need three or more releases.")
        r.text("changepoint_text", None)
    r.about("claim", text.ibm_claim(found), title=False)  # the book's data only

    # -- the planner's question -------------------------------------------------------------------
    before = p["from_release"] or (rel[0] if rel else "")
    after = p["to_release"] or (rel[-1] if rel else "")
    for name, value in (("from_release", before), ("to_release", after)):
        if value not in rel:
            raise ParameterError(f"{name} {value!r} is not a release in the data (have: {', '.join(rel)})")
    if p["workload"] and p["workload"] not in set(c["workload"]):
        raise ParameterError(f"workload {p['workload']!r} is not in the data")
    if len(rel) < 2 or before == after:
        r.missing("plan", "The planning question needs two different releases in the data.")
        r.text("plan_text", None)
    else:
        plan = f.plan(d, c, before, after, p["workload"], noise)
        same = [(a, b) for a, b in zip(rel, rel[1:]) if not (machines.get(a) and machines.get(b)
                                                           and machines[a] != machines[b])]
        r.table("plan", f.plan_table(plan), caption=f"Planning: from {before} to {after}, change per workload",
                missing=f"{before} and {after} ran no workload in common.")
        r.text("plan_text", text.plan_reading(plan, before, after, p["workload"], noise, machines, same))

    # -- cards: a file of one release gives mqperf compare its cells' means ------------------------
    if len(rel) == 1:
        for w in dict.fromkeys(c["workload"]):
            for q, what in (("rate", "peak rate"), ("cost", "CPU per round trip")):
                res = f.fit(d, w, rel[0], q)
                r.card(card_name(CHAPTER, f"{w} {q}"), res.to_card(name=f"{CHAPTER}: {w}, {what}", dataset=src.name), res)
    return r


def _chart(found: list) -> object:
    """Each workload's change in peak rate, one bar per pair of releases, coloured by its reading."""
    if not found:
        return None
    import pandas as pd

    from mqperf.present.charts import shares

    rows = [{"workload": f"{s.workload} ({s.before} → {s.after})", "change (%)": s.change_pct, "reading": s.reading}
            for s in found if s.quantity == "rate"]
    return shares.horizontal_bars(pd.DataFrame(rows), label="workload", value="change (%)", colour="reading",
                                  value_title="change in peak rate (%)", colour_title="reading",
                                  title="Peak rate, each release against the one before")
