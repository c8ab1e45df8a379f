"""Release to release: the chapter's sentences, each computed from its tables, and its about-passages.

Every sentence about a change follows one of three rules (:mod:`.fits` decides, this module
words): repeat runs on both sides, a Welch t-test against their scatter, Holm-corrected, with the
interval of :mod:`mqperf.models.compare`; one run on a side, only the stated assumption about the
run-to-run noise, and no interval; another machine, no reading as the release's at all.
"""

from __future__ import annotations

import pandas as pd

from mqperf.chapters.release_to_release import NAMED, QUANTITIES
from mqperf.chapters.release_to_release import fits as f
from mqperf.present import prose
from mqperf.present.text import markdown as md


def _names(items: list[str]) -> str:
    shown = [md(i) for i in items[:NAMED]]
    more = len(items) - len(shown)
    others = prose.count(more, "other") if more <= 10 else "the others"
    return prose.listing(shown + ([f"{others} (see the table)"] if more else []))


def what_was_read(d: pd.DataFrame, c: pd.DataFrame, *, example: bool) -> str:
    rel = f.releases(d)
    repl = int((c["runs"] >= 2).sum())
    text = (f"The data holds {prose.count(len(d), 'run')} of {prose.count(c['workload'].nunique(), 'workload')} in "
            f"{prose.count(len(rel), 'release')} ({_names(rel)}, taken oldest first in the order the file names them). ")
    if repl:
        counted = prose.count(repl, 'release and workload', 'releases and workloads')
        text += (f"{counted[0].upper() + counted[1:]} {'has' if repl == 1 else 'have'} two or more runs: their "
                 "scatter gives real intervals and tests. ")
    else:
        text += ("Every release and workload has a single run: there is no spread between runs, so nothing below "
                 "has an interval from the data. ")
    if (d["basis"] != "measured").any():
        other = d[d["basis"] != "measured"]
        odd = list(dict.fromkeys(other["release"] + ": " + other["workload"]))
        text += (f"Not every value was measured as printed: the `basis` column says how ({_names(odd)} "
                 f"{'is' if len(odd) == 1 else 'are'} marked otherwise). ")
    if example:
        text += ("This is the book's sample file, **synthetic** (`data/examples/release_to_release.csv`), not a "
                 "measurement: run the chapter on your own runs to read your releases.")
    return text.strip()


def _of(part: int, whole: int) -> str:
    """"on five of the 27 workloads" (counts as words up to ten; larger ones are in the summary table)."""
    if whole == 1:
        return "the one workload" if part else "no workload"
    word = prose.count(part, "x").rsplit(" ", 1)[0] if part else "none"
    return f"{word} of the {prose.count(whole, 'workload')}"


def _largest(steps: list[f.Step]) -> f.Step:
    return max(steps, key=lambda s: abs(s.change_pct))


def pair_reading(found: list[f.Step], before: str, after: str, noise_pct: float, machines: dict) -> str:
    """What can be said about one pair of releases, both quantities."""
    mine = [s for s in found if s.before == before and s.after == after]
    if not mine:
        return f"{md(before)} and {md(after)} ran no workload in common: nothing to compare."
    head = (f"**{md(before)} → {md(after)}** ({prose.count(len({s.workload for s in mine}), 'workload')} in both). ")
    if not mine[0].same_machine:
        return head + (f"The two releases ran on different machines ({md(machines.get(before, ''))}; "
                       f"{md(machines.get(after, ''))}): every change below mixes the release with the machine, so "
                       "none is read as the release's, whatever its size. The data cannot separate them.")
    parts = []
    for q, what in QUANTITIES.items():
        steps = [s for s in mine if s.quantity == q]
        tested = [s for s in steps if s.reading in (f.UP, f.DOWN, f.UNSURE)]
        assumed = [s for s in steps if s.reading in (f.BEYOND, f.WITHIN)]
        if tested:
            up = [s.workload for s in tested if s.reading == f.UP]
            down = [s.workload for s in tested if s.reading == f.DOWN]
            unsure = [s.workload for s in tested if s.reading == f.UNSURE]
            bits = ([f"rose on {_names(up)}"] if up else []) + ([f"fell on {_names(down)}"] if down else [])
            said = f"The {what} {prose.listing(bits)}" if bits else ""
            if unsure:
                said += ("; " if said else "") + f"the data cannot tell whether the {what} changed on {_names(unsure)}"
            said = said[0].upper() + said[1:]
            parts.append(said + " (Welch t-tests of the means against the runs' scatter, Holm-corrected across "
                                "the report's tests; each change's 95 % interval is in the table).")
        if assumed:
            beyond = [s for s in assumed if s.reading == f.BEYOND]
            big = _largest(assumed)
            said = (f"With one run on a side there is no spread and no interval: only the assumption speaks. If two "
                    f"runs of one setup differ by at most {prose.num(noise_pct)} %, the {what} changed by more than "
                    f"that on {_of(len(beyond), len(assumed))}"
                    if tested else
                    ("With one run per release there is no interval: the " if q == "rate" else "The ")
                    + f"{what} changed by more than the assumed {prose.num(noise_pct)} % on "
                    f"{_of(len(beyond), len(assumed))}")
            said += (f"; the largest change is {prose.num(abs(big.change_pct))} % "
                     f"({'up' if big.change_pct > 0 else 'down'}, {md(big.workload)}).")
            parts.append(said)
    return head + " ".join(parts)


def noise_rule(noise_pct: float, any_single: bool) -> str:
    if not any_single:
        return ""
    return (f"**What one run per release cannot say.** A single peak per release has no spread, so the data give no "
            f"interval and no test: the chapter says only whether a change is larger than a run-to-run noise you "
            f"assume, here {prose.num(noise_pct)} % (`assumed_noise_pct`). That number is an assumption, not a "
            "measurement; a change within it may be real, and one beyond it may still be noise if your runs "
            "scatter more. Repeat runs (two or more per release and workload) replace the assumption with a "
            "Welch t-test and a 95 % interval.")


def plan_reading(found: list[f.Step], before: str, after: str, workload: str, noise_pct: float,
                 machines: dict, like_for_like: list[tuple[str, str]]) -> str:
    if not found:
        what = f"the workload {md(workload)}" if workload else "any workload"
        return (f"**Planning.** {md(before)} and {md(after)} did not both run {what}, so the data give no answer "
                "for this upgrade.")
    head = f"**Planning: from {md(before)} to {md(after)}**"
    head += f" on {md(workload)}. " if workload else f" on {prose.count(len({s.workload for s in found}), 'workload')}. "
    if not found[0].same_machine:
        other = [f"{md(a)} → {md(b)}" for a, b in like_for_like]
        tail = (f" The only {'step' if len(other) == 1 else 'steps'} on one machine in the data "
                f"{'is' if len(other) == 1 else 'are'} {prose.listing(other)}: read "
                f"{'it' if len(other) == 1 else 'those'} for a release's own effect." if other
                else " No step in the data is on one machine.")
        return head + (f"The two releases were measured on different machines ({md(machines.get(before, ''))}; "
                       f"{md(machines.get(after, ''))}), so the data cannot tell you what the upgrade alone changes: "
                       "the table's ratios are release and hardware together, not an expectation for your "
                       "upgrade on your own machine." + tail)
    out = []
    for q, what in QUANTITIES.items():
        steps = [s for s in found if s.quantity == q]
        if len(steps) == 1:
            s = steps[0]
            change = f"{'a rise' if s.change_pct > 0 else 'a fall'} of {prose.num(abs(s.change_pct))} %"
            if s.reading in (f.UP, f.DOWN):
                out.append(f"expect {change} in {what} (95 % interval {prose.num(s.lower_pct)} to "
                           f"{prose.num(s.upper_pct)} %) ({s.test})")
            elif s.reading == f.UNSURE:
                out.append(f"the data cannot tell whether the {what} changes: {change} measured, within the runs' "
                           f"scatter (95 % interval {prose.num(s.lower_pct)} to {prose.num(s.upper_pct)} %)")
            else:
                out.append(f"the {what} showed {change}, {'beyond' if s.reading == f.BEYOND else 'within'} the "
                           f"assumed {prose.num(noise_pct)} % noise, with no interval (one run per release)")
        else:
            lo, hi = min(s.change_pct for s in steps), max(s.change_pct for s in steps)
            sure = sum(s.reading in (f.UP, f.DOWN, f.BEYOND) for s in steps)
            out.append(f"the {what} changed by {prose.num(lo)} % to {prose.num(hi)} % across the workloads, "
                       f"{prose.count(sure, 'of them', 'of them')} beyond the runs' scatter or the assumed noise")
    return head + prose.paragraph(*[o[0].upper() + o[1:] + "." for o in out])


ABOUT = """The three reports are IBM's *MQ V9.1, V9.2 and V9.3 for Linux (x86-64) Performance Reports* (2018,
2021 and 2023). Each prints one peak per workload: the rate at the best client count, the server's CPU
at it and that count; no repeat runs and no spread. The V9.1 and V9.2 measurements ran on the same
server model (their appendices print the same Lenovo System x3550 M5, 2 × 12-core Xeon E5-2690 v3, on
Red Hat 7.4 and 7.7 respectively; the V9.1 report does not describe the server's disks, so its persistent
RR-BB rows may not share V9.2's log disk); the V9.3 report ran on "hardware significantly newer and more powerful
than for the previous V9.2 report" (a ThinkSystem SR630 V2, 2 × 16-core Xeon Gold 6346, NVMe log disks,
100Gb network) and says so itself: "Please bear this in mind should you compare the two reports". Each
report also says "Performance data presented in this report does not include release to release
comparisons" and that all tests "showed equal or better performance" than the previous release, without
numbers. The tables below compare what the tables print; the V9.3 JMS peaks are digits read off the
report's picture of its Table 4 (basis `chart`), the only values not quoted from text.

Slips in these tables, as the errata list them: the V9.1 TLS table is printed twice and its section
compares the CipherSpecs with the wrong baseline ({ref}`erratum E180 <errata-e180>`,
{ref}`erratum E181 <errata-e181>`: the TLS rows here are RR-CC, whose no-TLS peak is the table's own); the
V9.2 TLS table is printed twice too ({ref}`erratum E141 <errata-e141>`), its JMS and TLS text carries V9.1's
figures over ({ref}`erratum E145 <errata-e145>`, {ref}`erratum E146 <errata-e146>`), one CPU % is printed
without decimals ({ref}`erratum E153 <errata-e153>`) and a table prints 2K for 2KB
({ref}`erratum E152 <errata-e152>`); the V9.3 report's list of tables disagrees with its body
({ref}`erratum E100 <errata-e100>`, {ref}`erratum E101 <errata-e101>`, {ref}`erratum E102 <errata-e102>`;
the data use the body's numbers), its TLS tables are headed "V9.3 GM" though measured on V9.3.4
({ref}`erratum E107 <errata-e107>`, {ref}`erratum E112 <errata-e112>`: so the V9.2 → V9.3 TLS step is to
9.3.4), its CBC percentage does not match its table ({ref}`erratum E109 <errata-e109>`), its RR-BB optimum
is said at 100 requesters against the table's 96 ({ref}`erratum E110 <errata-e110>`), a table prints 2K for
2KB ({ref}`erratum E111 <errata-e111>`), section 3.4 refers to itself ({ref}`erratum E114 <errata-e114>`)
and its appendix B misplaces the HA hosts' logs ({ref}`erratum E113 <errata-e113>`; not a table read
here)."""


def about() -> str:
    return ABOUT


def ibm_claim(found: list[f.Step]) -> str:
    """The V9.2 report's "equal or better" beside its own tables (book data only)."""
    step = [s for s in found if s.before == "V9.1" and s.after == "V9.2" and s.quantity == "rate"]
    lower = [s for s in step if s.change_pct < 0]
    if not lower:
        return ""
    big = min(lower, key=lambda s: s.change_pct)
    return (f"The V9.2 report says all its tests \"showed equal or better performance than V9.0 & V9.1\", without "
            f"numbers. On the one step measured on one server model, V9.1 → V9.2, its printed peak rate is lower "
            f"than V9.1's on {_of(len(lower), len(step))}, by up to "
            f"{prose.num(abs(big.change_pct))} % ({md(big.workload)}; the table above). One printed run per release "
            "cannot tell whether that is the release or the run, and the report may rest its sentence on runs it "
            "does not print.")


def changepoint_reading(table: pd.DataFrame, skipped: list[str], n_releases: int) -> str:
    if n_releases < 3:
        return ""
    if table.empty:
        return ""  # the table's own sentence says why
    moved = table[table["from release"] != "none found"]
    text = ("Over all the releases at once, each workload's mean is searched for the release where it moved "
            "(`mqperf.models.changepoint`, as `mqperf compare` searches three or more runs: a change is kept only "
            "when it exceeds what the runs' scatter gives at 95 %). ")
    if moved.empty:
        text += "No workload's peak rate or CPU per round trip moved by more than that."
    else:
        text += prose.paragraph(*[f"{md(r['workload'])}: the {r['quantity']} moved at {md(r['from release'])}, from "
                                  f"{prose.num(r['level before'])} to {prose.num(r['level after'])}."
                                  for _, r in moved.iterrows()])
    if skipped:
        text += f" Not searched (a release without repeat runs, or a machine change): {_names(skipped)}."
    return text
