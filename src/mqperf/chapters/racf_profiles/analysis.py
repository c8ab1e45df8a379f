"""``analyse(p)``: run the article's table, compare it with the documented order, resolve the
profiles, and add every sentence, table and chart the notebook shows."""

from __future__ import annotations

from mqperf.chapters.racf_profiles import CHAPTER, DEFAULT_QUEUE, fits, text
from mqperf.data import views
from mqperf.models import racf
from mqperf.present.charts import costs as grid_charts
from mqperf.present.results import Results


def analyse(p: dict):
    """Run the article's table, compare it with the documented order, and resolve the profiles."""
    rules = views.open(p["rules"], CHAPTER, "rules").sort_values("rule_id", kind="stable").reset_index(drop=True)
    ssid, group = str(p["ssid"]).strip().upper(), (str(p["qsg"]).strip().upper() or None)
    # Queue names as the reader gave them; RACF's MQQUEUE class holds upper-case profiles, so MQ
    # checks the name in upper case, and the tables say so where the two differ.
    given = list(dict.fromkeys(q.strip() for q in str(p["queues"]).split(",") if q.strip()))
    queues = [q.upper() for q in given]
    shown_as = {q.upper(): q for q in given}
    # Without a file of profiles the chapter evaluates the article's own advice, drawn from its table.
    src = views.describe(p["data"] or p["rules"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    # Rules, not fits: nothing is estimated, so no answer can leave a measured range.
    r.answers = "levels checked and queue profiles, found by rule with nothing fitted"
    r.checked("Rates", "none: the chapter reads security profiles, not measurements")

    # -- what the article says -------------------------------------------------------------
    r.about("article", text.ABOUT_ARTICLE)
    r.table("rules", fits.rules_table(rules), caption="The table of switch-profile rules, row by row")
    r.about("slips", text.ABOUT_SLIPS)

    # -- the table as code: each row's own profiles ---------------------------------------------
    examples = fits.row_examples(rules, ssid=ssid, qsg=group or "QSG1", queue=queues[0] if queues else DEFAULT_QUEUE)
    r.table("row_examples", examples, caption="Each row's profiles, resolved in the documented order and by the table")
    r.text("row_reading", text.row_reading(examples))

    # -- the table against the documented order --------------------------------------------
    comparison = racf.compare(rules)
    summary = fits.comparison_summary(comparison)
    r.table("comparison", summary, caption=f"The table against the documented order over "
                                           f"{len(comparison):,} combinations of switch profiles")
    r.text("comparison_reading", text.comparison_reading(summary))
    grid = fits.level_grid(rules)
    r.chart("grid", _grid_chart(grid))
    r.table("disagrees", fits.smallest_cases(comparison, "disagrees"),
            caption="The smallest combinations where the table disagrees with the documented order",
            missing="The table agrees with the documented order wherever it applies, so there is no case to show")
    r.about("disagree_notes", text.ABOUT_DISAGREE)
    r.table("not_covered", fits.smallest_cases(comparison, "not covered"),
            caption="The smallest combinations no row of the table covers",
            missing="Some row of the table covers every combination, so there is no gap to show")
    r.about("not_covered_notes", text.ABOUT_NOT_COVERED)

    # -- planning: what will my queue manager check? ---------------------------------------
    if p["data"]:
        frame = views.open(p["data"], CHAPTER)
        profiles = racf.Profiles.from_frame(frame)
    else:
        profiles = fits.article_profiles(rules, ssid=ssid, qsg=group or "QSG1")
        frame = fits.profile_frame(profiles)
    r.points = None  # profiles, not measured points: "How this report was made" says there are none
    r.about("advice", text.ABOUT_ADVICE)
    r.table("profile_counts", fits.profile_counts(frame, profiles), caption="The profiles read, by class")
    r.text("profile_reading", text.profile_reading(frame, profiles))
    result = racf.evaluate(profiles, ssid, group, queues, rules, generic_switches=p["generic_switches"])
    if len(result["queues"]):
        named = result["queues"]["queue"]
        result["queues"] = result["queues"].assign(queue=named.map(lambda q: shown_as.get(q, q)), checked_as=named)
    r.table("switches", fits.switch_table(result, profiles, ssid, group), caption="The nine switch profiles")
    r.table("summary", fits.summary_table(result), caption="What MQ checks, and what the table says")
    r.text("summary_reading", text.summary_reading(result, group),
           text.whose_names(frame, ssid, group, p) if p["data"] else None)
    r.table("reasons", fits.reasons_table(result), caption="Why, switch by switch, in the documented order")
    lookups = fits.queue_table(profiles, result, ssid, group)
    r.table("queues", lookups, caption="The profile each queue's open is checked against",
            missing="No queues were named (parameter queues), so no queue profile is resolved")
    r.text("queue_reading", text.queue_reading(lookups, result))
    generic = fits.generic_table(profiles, ssid, group, queues, rules)
    r.table("generic", generic, caption="Generic MQADMIN profiles that cover a switch name, read both ways",
            missing="No generic MQADMIN profile covers a switch name, so the article's reading of generic switch "
                    "profiles and IBM's give the same answer here")
    r.text("generic_reading", text.generic_reading(generic, p["generic_switches"]))
    r.table("warnings", fits.warnings_table(result),
            caption="Profiles that do not do what they seem to",
            missing="Nothing in the profiles does other than it seems: no near misses of a switch name, no "
                    "override without effect, no switch in a class MQ does not read")
    r.about("refresh", text.ABOUT_REFRESH)
    return r


def _grid_chart(grid):
    """Levels checked (colour) for each pair of level-switch combinations; the mark is the table's verdict."""
    return grid_charts.labelled_grid(
        grid, x="QSG-level switches", y="QMGR-level switches", colour="levels checked", label="mark",
        x_title="QSG-level switch profiles defined", y_title="QMGR-level switch profiles defined",
        colour_title="levels checked", title="Which levels MQ checks; = the table agrees, ≠ disagrees, ? is silent",
        tooltip=["QMGR-level switches", "QSG-level switches", "levels checked", "the table"])
