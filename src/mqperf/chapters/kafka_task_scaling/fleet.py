"""Task scaling's columns in a fleet summary (``mqperf fleet``): how near each series is to its limit.

:func:`fleet_columns` adds, per model card, what a capacity planner scans a fleet for: the
largest tasks.max and the best rate measured (the *current* rate), the modelled peak against
the planning target, and whether the peak lies beyond the measurements. The planning answer
is the chapter's own (its ``plan`` table), so the summary and a single ``mqperf run`` on the
same file cannot disagree.
"""

from __future__ import annotations

import math

from mqperf.chapters.kafka_task_scaling import CHAPTER, CURRENT_COLUMN


def summary(p: dict):
    """What :func:`fleet_columns` and the fleet's card rows read of a run, and nothing else: the
    points, the fits and planning tables and the model cards, made exactly as :func:`.analysis.analyse`
    makes them (the same fits, rankings and frames), without its charts, what-if, leave-one-out and
    sentences, which a fleet summary does not show."""
    from mqperf.chapters.kafka_task_scaling import analysis, fits as k
    from mqperf.present import cards

    f = analysis.fitted(p)
    r = analysis.results(f)
    r.table("fits", k.fits_table(f.fits, f.choices))
    r.table("plan", k.plan_table(f.ranks, f.pts, f.target))
    for name, card, result in cards.of_fits(f.fits, CHAPTER, f.src.name):
        r.card(name, card, result)
    return r


def fleet_columns(p: dict, r) -> dict[str, dict]:
    """Columns per card name (``kafka_task_scaling__<series>``), plus one entry per unfitted series.

    Parameters
    ----------
    p
        The parameters the chapter ran with (``target_rate_msg_s``).
    r
        The chapter's :class:`~mqperf.present.results.Results`.

    Returns
    -------
    dict
        For a fitted series: ``measured_max_tasks``, ``current_rate_msg_s``, ``target_rate_msg_s``,
        ``peak_over_target`` (peak_x / target), ``peak_x`` and ``peak_n`` replaced by the ceiling
        and knee where the comparison accepts the bottleneck alone (``peak_from`` says which),
        ``planning_model`` (the reading the
        chapter's comparison accepts, or both when the data cannot rank them),
        ``tasks_for_target`` (the answer, never capped; empty when there is none, or when two
        readings the data cannot rank give different answers), ``tasks_for_target_note`` (why
        the cell is empty, or that the answer is extrapolated), ``target_beyond_measured`` (the
        answer lies outside the measured counts) and ``extrapolated`` (the modelled peak lies
        beyond the largest measured tasks.max, always so for Amdahl's law, or the answer does).
        A series that was not fitted is keyed by its own name and carries ``series`` and ``reason``.
    """
    from mqperf.present.cards import card_name

    pts = r.points
    target = float(p["target_rate_msg_s"])
    plan = _frame(r, "plan")
    by_series = {}
    if plan is not None:
        for row in plan.to_dict("records"):
            by_series.setdefault(row["series"], []).append(row)
    cards = dict(r.cards)
    out: dict[str, dict] = {}
    for name, rows in pts.groupby("series", sort=False):
        key = card_name(CHAPTER, str(name))
        measured = int(rows["tasks"].max())
        current = float(rows["rate_msg_s"].max())
        card = cards.get(key)
        if card is None:
            continue
        peak_n = float(card.get("derived", {}).get("peak_n", math.nan))
        peak_x = float(card.get("derived", {}).get("peak_x", math.nan))
        rows_ = by_series.get(name, [])
        answer = _answer(rows_, target)
        extra = {}
        if len(rows_) == 1 and rows_[0]["model"] == "bottleneck":
            # The comparison rejects the fit on the card: the fleet's peak is the accepted ceiling.
            peak_x, peak_n = float(rows_[0]["modelled peak or ceiling (msg/s)"]), float(rows_[0]["at (tasks)"])
            extra = {"peak_x": peak_x, "peak_n": peak_n}
        out[key] = {"measured_max_tasks": measured, CURRENT_COLUMN: current, "target_rate_msg_s": target,
                    "peak_over_target": peak_x / target if math.isfinite(peak_x) else math.nan, **answer, **extra,
                    "peak_from": _peak_from(rows_),
                    "extrapolated": bool(peak_n > measured or answer["target_beyond_measured"])}
    fits = _frame(r, "fits")
    if fits is not None and "model" in fits:
        for row in fits.to_dict("records"):
            if row["model"] == "none":
                key = card_name(CHAPTER, str(row["series"]))
                if key not in cards:
                    out[str(row["series"])] = {"series": str(row["series"]), "reason": str(row["identification"])}
    return out


def _peak_from(rows: list[dict]) -> str:
    """Which reading ``peak_x`` and ``peak_n`` come from."""
    if len(rows) == 1 and rows[0]["model"] == "bottleneck":
        return "the bottleneck's ceiling and knee (AICc rejects the fit on the card)"
    if len(rows) > 1:
        return f"the {rows[0]['model']} fit (the data cannot rank it against the bottleneck)"
    return f"the {rows[0]['model']} fit" if rows else "the fit on the card"


def _frame(r, key: str):
    item = r.items.get(key)
    return getattr(item, "frame", None)


def _number(value) -> int | None:
    return None if isinstance(value, str) or value is None or value != value else int(value)


def _answer(rows: list[dict], target: float) -> dict:
    """The planning answer of a series as the chapter's plan table gives it, with why a blank is blank."""
    from mqperf.present import prose

    if not rows:
        return {"planning_model": "", "tasks_for_target": None, "target_beyond_measured": False,
                "tasks_for_target_note": "the chapter's planning table has no row for this series"}
    models = " or ".join(row["model"] for row in rows)
    if len(rows) > 1:
        models += " (the data cannot rank them)"
    needs = [_number(row["tasks for the target"]) for row in rows]
    beyond = any(row["extrapolated"] and "tasks for the target" in row["beyond the measured counts"] for row in rows)
    if len(set(needs)) == 1 and needs[0] is not None:
        note = (f"extrapolated: outside the measured counts, which end at {rows[0]['largest measured (tasks)']:,}"
                if beyond else "")
        if len(rows) > 1:
            note = "; ".join(x for x in ("both readings agree", note) if x)
        return {"planning_model": models, "tasks_for_target": needs[0], "target_beyond_measured": beyond,
                "tasks_for_target_note": note}
    parts = []
    for row, need in zip(rows, needs):
        if need is None:
            why = str(row["tasks for the target"]).split(": ", 1)[-1]
            top = row["modelled peak or ceiling (msg/s)"]
            parts.append(f"{row['model']}: none, {prose.num(target, 12)} msg/s is {why}"
                         + (f" ({prose.num(top)} msg/s)" if top == top else ""))
        else:
            parts.append(f"{row['model']}: {need:,} tasks")
    lead = ("" if len(rows) == 1 else "the data cannot rank the readings, and neither reaches the target: "
            if all(n is None for n in needs) else "the data cannot rank the readings, which differ: ")
    return {"planning_model": models, "tasks_for_target": None, "target_beyond_measured": beyond,
            "tasks_for_target_note": lead + "; ".join(parts)}
