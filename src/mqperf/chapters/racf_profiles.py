"""RACF queue security profile resolution: the article's table of switch profiles run as code,
checked against IBM's documented order over every combination, and a reader's own profiles
resolved: which levels MQ checks, which profile protects each queue, and what in the profiles
does not do what it seems to. The rules are :mod:`mqperf.models.racf`.
"""

from mqperf.declarations import DataFile, Flag, Internal, Text

# z/OS subsystem and queue sharing group names: 1-4 characters, a letter or @ # $ first.
_NAME4 = r"[A-Za-z@#$][A-Za-z0-9@#$]{0,3}"

PARAMETERS = {
    "data": DataFile(help='a CSV of your defined profiles (columns class, profile); "" evaluates the article\'s '
                          "own advice", contract="racf_profiles", optional=True),
    "rules": DataFile(help="the article's table of profile rules", contract="racf_profile_rules"),
    "ssid": Text(help="your queue manager's subsystem name", max_length=4, pattern=_NAME4,
                 pattern_help="1 to 4 letters, digits or @ # $, not starting with a digit"),
    "qsg": Text(help='its queue sharing group; "" when it is not in one', max_length=4, pattern=f"({_NAME4})?",
                pattern_help="empty, or 1 to 4 letters, digits or @ # $, not starting with a digit"),
    # An MQ queue name has at most 48 characters; 200 of them fit in this length.
    "queues": Text(help="queues to resolve, comma-separated", max_length=10000),
    "generic_switches": Flag(help="count generic MQADMIN profiles as switches (the article's reading; IBM says "
                                  "they are ignored)"),
    "cards_dir": Internal(help="unused: this chapter fits no model"),
}

CHAPTER = "racf_profiles"
#: The queue the table's rows are resolved for when the reader names none.
DEFAULT_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"


def analyse(p: dict):
    """Run the article's table, compare it with the documented order, and resolve the profiles."""
    from mqperf.chapters import _racf_profiles_parts as parts
    from mqperf.data import views
    from mqperf.models import racf
    from mqperf.present.results import Results

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
    r.about("article", ABOUT_ARTICLE)
    r.table("rules", parts.rules_table(rules), caption="The table of switch-profile rules, row by row")
    r.about("slips", ABOUT_SLIPS)

    # -- the table as code: each row's own profiles ---------------------------------------------
    examples = parts.row_examples(rules, ssid=ssid, qsg=group or "QSG1", queue=queues[0] if queues else DEFAULT_QUEUE)
    r.table("row_examples", examples, caption="Each row's profiles, resolved in the documented order and by the table")
    r.text("row_reading", parts.row_reading(examples))

    # -- the table against the documented order --------------------------------------------
    comparison = racf.compare(rules)
    summary = parts.comparison_summary(comparison)
    r.table("comparison", summary, digits=3, caption=f"The table against the documented order over "
                                                     f"{len(comparison):,} combinations of switch profiles")
    r.text("comparison_reading", parts.comparison_reading(summary))
    grid = parts.level_grid(rules)
    r.chart("grid", parts.grid_chart(grid))
    r.table("disagrees", parts.smallest_cases(comparison, "disagrees"),
            caption="The smallest combinations where the table disagrees with the documented order",
            missing="The table agrees with the documented order wherever it applies, so there is no case to show")
    r.about("disagree_notes", ABOUT_DISAGREE)
    r.table("not_covered", parts.smallest_cases(comparison, "not covered"),
            caption="The smallest combinations no row of the table covers",
            missing="Some row of the table covers every combination, so there is no gap to show")
    r.about("not_covered_notes", ABOUT_NOT_COVERED)

    # -- planning: what will my queue manager check? ---------------------------------------
    if p["data"]:
        frame = views.open(p["data"], CHAPTER)
        profiles = racf.Profiles.from_frame(frame)
    else:
        profiles = parts.article_profiles(rules, ssid=ssid, qsg=group or "QSG1")
        frame = parts.profile_frame(profiles)
    r.points = None  # profiles, not measured points: "How this report was made" says there are none
    r.about("advice", ABOUT_ADVICE)
    r.table("profile_counts", parts.profile_counts(frame, profiles), caption="The profiles read, by class")
    r.text("profile_reading", parts.profile_reading(frame, profiles))
    result = racf.evaluate(profiles, ssid, group, queues, rules, generic_switches=p["generic_switches"])
    if len(result["queues"]):
        named = result["queues"]["queue"]
        result["queues"] = result["queues"].assign(queue=named.map(lambda q: shown_as.get(q, q)), checked_as=named)
    r.table("switches", parts.switch_table(result, profiles, ssid, group), caption="The nine switch profiles")
    r.table("summary", parts.summary_table(result), caption="What MQ checks, and what the table says")
    r.text("summary_reading", parts.summary_reading(result, group),
           parts.whose_names(frame, ssid, group, p) if p["data"] else None)
    r.table("reasons", parts.reasons_table(result), caption="Why, switch by switch, in the documented order")
    lookups = parts.queue_table(profiles, result, ssid, group)
    r.table("queues", lookups, caption="The profile each queue's open is checked against",
            missing="No queues were named (parameter queues), so no queue profile is resolved")
    r.text("queue_reading", parts.queue_reading(lookups, result))
    generic = parts.generic_table(profiles, ssid, group, queues, rules)
    r.table("generic", generic, caption="Generic MQADMIN profiles that cover a switch name, read both ways",
            missing="No generic MQADMIN profile covers a switch name, so the article's reading of generic switch "
                    "profiles and IBM's give the same answer here")
    r.text("generic_reading", parts.generic_reading(generic, p["generic_switches"]))
    r.table("warnings", parts.warnings_table(result),
            caption="Profiles that do not do what they seem to",
            missing="Nothing in the profiles does other than it seems: no near misses of a switch name, no "
                    "override without effect, no switch in a class MQ does not read")
    r.about("refresh", ABOUT_REFRESH)
    return r


ABOUT_ARTICLE = (
    "The article (2014; {ref}`dataset <data-racf_profile_rules>`, the {ref}`Data catalog <data-catalog>` gives "
    "every quote) writes *ssid* for the queue manager's subsystem name (\"the profile for a particular queue "
    "manager\") and *qsg* for the queue sharing group's. Switch profiles live in the `MQADMIN` class; \"defined\" "
    "means the profile must exist, \"not defined\" that it must not, and the article adds that this \"applies to "
    "generic profiles as well as specific profiles\". Its table, row by row:")

ABOUT_SLIPS = (
    "Two slips in the printed table: row 3's label, \"Use QMGR.* profile and not ssid profiles\", means *queue "
    "manager (ssid) profiles and not QSG profiles* ({ref}`erratum E035 <errata-e035>`), and its \"not defined\" "
    "list names `ssid.NO.QMGR.CHECK` without the final S ({ref}`erratum E036 <errata-e036>`); the book reads both "
    "as the article evidently means them, and the evaluation below flags names one letter away from a switch. `MQQUEUE qsg.system.*` stands for a profile such as `QSG1.SYSTEM.**` "
    "covering the queue name prefixed by the queue sharing group.")

ABOUT_DISAGREE = """Why the article's table goes wrong in these cases:

* **The QSG-wide switch.** `qsg.NO.QMGR.CHECKS` alone (IBM's own example of a QSG-level setup) switches
  queue-manager checks off for every queue manager in the group. The table's row 2 requires it to be *not*
  defined and row 4 does not mention it, so the table says both levels are checked.
* **The override as printed.** Row 2 defines `ssid.NO.QMGR.CHECKS`; row 5 says to define `QMA.YES.QMGR.CHECKS`
  so that queue manager QMA's definitions override the QSG's. MQ checks `ssid.NO.QMGR.CHECKS` first, so with
  both defined QMA still checks at QSG level only: a YES profile overrides only `qsg.NO.QMGR.CHECKS`. For the
  effect row 5 describes, define `qsg.NO.QMGR.CHECKS` once and `QMA.YES.QMGR.CHECKS`, and no
  `QMA.NO.QMGR.CHECKS`.
* **Both levels off.** Rows 2 and 3 do not forbid the other level's NO profile; with both defined MQ rejects the
  combination (CSQH026I) and checks at both levels."""

ABOUT_NOT_COVERED = (
    "`qsg.NO.SUBSYS.SECURITY` and `qsg.NO.QSG.CHECKS` appear in the article's table only as profiles that must not "
    "exist, so it cannot say what they do. One more difference is not in any row: the article says \"defined\" and "
    "\"not defined\" apply to generic profiles too, while IBM's documentation says generic switch profiles such as "
    "`hlq.NO.**` are ignored; the parameter `generic_switches` chooses the reading (IBM's by default).")

ABOUT_ADVICE = (
    "With no file of profiles the chapter evaluates the article's own advice for one queue manager: row 2's "
    "`ssid.NO.QMGR.CHECKS` with row 5's `ssid.YES.QMGR.CHECKS`, and queue profiles at both levels.")

ABOUT_REFRESH = (
    "The article's way to tell what a queue manager found is `+cpf REFRESH SEC(*)`, which lists the switch profiles "
    "found; `DISPLAY SECURITY` shows the resulting switches.")
