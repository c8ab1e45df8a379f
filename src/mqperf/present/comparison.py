"""Two or more runs of a chapter, set side by side: the verdict in words, the tables, the charts.

The numbers come from :mod:`mqperf.models.compare` and :mod:`mqperf.models.changepoint`;
this module only words and draws them. A difference is called real only when its interval
excludes no change (the ``changed`` column); every other sentence says the data cannot
resolve one, or cannot tell at all when a fit has no interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.present import prose

#: Readable names of the derived quantities the models record on their cards.
DERIVED = {"peak_n": "the modelled peak concurrency", "peak_x": "the modelled peak rate"}
#: Series drawn one by one (the tables give every series).
DRAWN = 6


def level_words(alpha: float) -> str:
    return f"{prose.num(100 * (1 - alpha))} % simultaneous"


def _unit(row) -> str:
    return f" {row['unit']}" if row.get("unit") and row["unit"] != "1" else ""


def _amount(row: dict) -> str:
    """How much a changed parameter moved: the ratio with its interval, else the difference with its."""
    unit = _unit(row)
    if np.isfinite(row["ratio_lower"]) and (row["ratio_lower"] > 1 or row["ratio_upper"] < 1):
        return (f"{prose.num(row['ratio'])}× (interval {prose.num(row['ratio_lower'])}–"
                f"{prose.num(row['ratio_upper'])}×)")
    return (f"by {_signed(row['difference'])}{unit} (interval {_signed(row['lower'])} to "
            f"{_signed(row['upper'])}{unit})")


def _signed(value: float) -> str:
    return ("+" if value > 0 else "") + prose.num(value)


def series_verdict(series: str, rows: pd.DataFrame, derived: pd.DataFrame | None, labels: tuple[str, str],
                   *, named: bool = True) -> str:
    """One series' verdict: what changed and by how much, or why no change can be claimed."""
    head = f"{prose.quoted(series, markdown=False)}: " if named else ""
    changed = rows[rows["changed"]]
    if len(changed):
        moves = [f"{prose.symbol(r['parameter'])} {'rose' if r['difference'] > 0 else 'fell'} from "
                 f"{prose.num(r['before'])} to {prose.num(r['after'])}, {_amount(r)}"
                 for r in changed.to_dict("records")]
        text = head + "; ".join(moves) + "."
        if derived is not None and len(derived):
            shifts = [f"{DERIVED.get(d['quantity'], d['quantity'].replace('_', ' '))} moved from "
                      f"{prose.num(d['before'])} to {prose.num(d['after'])}"
                      for d in derived.to_dict("records")
                      if np.isfinite(d["before"]) and np.isfinite(d["after"])]
            if shifts:
                text += " With it, " + prose.listing(shifts) + " (point estimates)."
        return text
    blind = rows[rows["lower"].isna()]
    if len(blind) == len(rows):
        return (head + "the data cannot tell: " + blind["note"].iloc[0]
                + f", so no difference between {prose.quoted(labels[0], markdown=False)} and {prose.quoted(labels[1], markdown=False)} can be "
                  "tested; the estimates are in the table, and any move between them may be noise.")
    tested = rows[rows["lower"].notna()]
    widest = tested.assign(span=(tested["upper"] - tested["lower"]).abs()
                           / tested["before"].abs().where(tested["before"] != 0, 1.0)).sort_values("span").iloc[-1]
    unit = _unit(widest)
    text = (head + "no difference the data can resolve: every tested parameter's interval of the difference "
            f"includes zero (the widest, {prose.symbol(widest['parameter'])}, runs from {_signed(widest['lower'])} "
            f"to {_signed(widest['upper'])}{unit}).")
    if len(blind):
        text += (f" {prose.listing(prose.symbol(p) for p in blind['parameter'])} could not be tested "
                 f"({blind['note'].iloc[0]}).")
    return text


def opening(table: pd.DataFrame, only: dict[str, list[str]], refused: dict[str, str], labels: tuple[str, str],
            chapter: str, alpha: float) -> str:
    """The report's first paragraph: how many series were compared, and how many changed."""
    compared = table["series"].unique().tolist() if len(table) else []
    moved = table.loc[table["changed"], "series"].unique().tolist() if len(table) else []
    out = [f"{prose.quoted(labels[1], markdown=False)} against {prose.quoted(labels[0], markdown=False)} in the chapter {chapter}: "
           f"{prose.count(len(compared), 'fitted series', 'fitted series')} in both runs, "
           f"{'none' if not moved else ('all' if len(moved) == len(compared) and len(moved) > 1 else prose.count(len(moved), 'series', 'series').split(' ')[0])} "
           f"with a change the data resolve ({level_words(alpha)} intervals over each series' parameters and "
           "its curve at the ends of the range both runs measured)."]
    if not compared:
        out = [f"{prose.quoted(labels[1], markdown=False)} against {prose.quoted(labels[0], markdown=False)} in the chapter {chapter}: "
               "no fitted series is in both runs, so no parameter can be compared."]
    for label, names in only.items():
        if names:
            out.append(f"Only in {prose.quoted(label, markdown=False)}: {prose.listing(prose.quoted(n, markdown=False) for n in names[:8])}"
                       + (f" and {len(names) - 8:,} more" if len(names) > 8 else "") + ".")
    for name, why in refused.items():
        out.append(f"{prose.quoted(name, markdown=False)} is not compared: {why}.")
    return " ".join(out)


def side_by_side(table: pd.DataFrame, labels: tuple[str, str]) -> pd.DataFrame:
    """The display table: both estimates, the difference with its interval, changed or not."""
    shown = table.assign(parameter=table["parameter"].map(prose.symbol), unit=table["unit"].replace("1", ""),
                         changed=table["changed"].map({True: "yes", False: "no"}))
    shown.loc[table["lower"].isna(), "changed"] = "cannot tell"
    cols = {"series": "series", "parameter": "parameter", "unit": "unit", "before": labels[0], "after": labels[1],
            "difference": "difference", "lower": "lower", "upper": "upper", "ratio": "ratio", "changed": "changed",
            "note": "note"}
    return shown[list(cols)].rename(columns=cols)


def overlay(results: dict, labels: tuple[str, str], series: str):
    """Both runs' curves with their 95 % bands, and the measured points; None for a model of two inputs."""
    from mqperf.models.compare import axes
    from mqperf.present import charts

    before, after = results[labels[0]], results[labels[1]]
    if np.ndim(before.x) != 1 or np.ndim(after.x) != 1:
        return None
    grid = np.linspace(float(min(before.x.min(), after.x.min())), float(max(before.x.max(), after.x.max())), 60)
    curves = pd.concat([results[lab].conf_band(grid).assign(run=lab) for lab in labels], ignore_index=True)
    points = pd.concat([pd.DataFrame({"x": results[lab].x, "y": results[lab].y, "run": lab, "basis": "measured"})
                        for lab in labels], ignore_index=True)
    x_title, y_title = axes(before)
    return charts.measured_vs_fitted(points, curves, x="x", y="y", series="run", x_title=x_title, y_title=y_title,
                                     title=f"{series}: both fits with their 95 % confidence bands, and the points")


def runs_chart(estimates: pd.DataFrame, changes: pd.DataFrame, series: str, parameter: str):
    """A parameter's estimate and interval run by run, with a rule where a change point was confirmed."""
    import altair as alt

    from mqperf.present import charts

    data = charts.rounded(estimates, columns=["order", "run", "estimate", "lower", "upper"])
    x = alt.X("run:N", sort=list(estimates["run"]), title="run (in the order given)")
    layers = [alt.Chart(data).mark_rule().encode(**charts.channels(
                  x=x, y=alt.Y("lower:Q", title=prose.symbol(parameter)), y2="upper:Q")),
              alt.Chart(data).mark_point().encode(**charts.channels(
                  x=x, y="estimate:Q", tooltip=["run:N", "estimate:Q", "lower:Q", "upper:Q"]))]
    if len(changes):
        marks = charts.rounded(changes[["run"]].assign(label="change"), columns=["run", "label"])
        layers.append(alt.Chart(marks).mark_rule(color="#d1495b", strokeDash=[5, 3], strokeWidth=2)
                      .encode(**charts.channels(x=x, tooltip=["label:N", "run:N"])))
    return alt.layer(*layers).properties(
        title=f"{series}: {prose.symbol(parameter)} by run (95 % intervals; dashed: a confirmed change point)")


def changepoint_method(alpha: float) -> str:
    """How the change points were found and checked, in one paragraph (the page's and the methods' words)."""
    return ("Each parameter's estimates over the runs, oldest first, are searched for shifts in their level (the "
            "optimal partition under a penalty of 2 s̄² ln n, as ruptures' PELT finds it); a shift is reported only "
            "when it is larger than the same search finds in 999 simulated series of unchanged runs, each run drawn "
            "with its own standard error and that error redrawn from its residual degrees of freedom (an error "
            "estimated from a few points is itself uncertain). The level is "
            f"{level_words(alpha)} over each series' parameters and its curve at the largest concurrency every run "
            "measured (Bonferroni), so a series of unchanged runs shows a change at most about "
            f"{prose.num(100 * alpha)} % of the time. A parameter that a bound holds in some runs and not in others "
            "is not tested: its estimates are not of the same quantity in every run.")


def changepoint_sentence(series: str, parameter: str, found: list, runs: list[str], unit: str, why: str | None) -> str:
    sym = prose.symbol(parameter)
    if why:
        return f"{prose.quoted(series, markdown=False)}, {sym}: no change point can be tested: {why}."
    if not found:
        return (f"{prose.quoted(series, markdown=False)}, {sym}: no change point the runs' intervals can resolve over "
                f"{prose.count(len(runs), 'run')}.")
    unit = f" {unit}" if unit and unit != "1" else ""
    parts = [f"at {prose.quoted(runs[c.index], markdown=False)} it moved from {prose.num(c.before)} to {prose.num(c.after)}{unit} "
             f"(interval of the shift {_signed(c.lower)} to {_signed(c.upper)}{unit})" for c in found]
    return f"{prose.quoted(series, markdown=False)}, {sym}: " + "; ".join(parts) + "."
