"""Task scaling's columns in a fleet summary (``mqperf fleet``): how near each series is to its limit.

:func:`fleet_columns` adds, per model card, what a capacity planner scans a fleet for: the
largest tasks.max and the best rate measured (the *current* rate), the modelled peak against
the planning target, and whether the peak lies beyond the measurements. The planning answer
is the chapter's own (its ``plan`` table), so the summary and a single ``mqperf run`` on the
same file cannot disagree.
"""

from __future__ import annotations

import math

#: The column :mod:`mqperf.publish.fleet_summary` charts each row's peak against, and its unit.
CURRENT_COLUMN = "current_rate_msg_s"
UNIT = "msg/s"


def fleet_columns(p: dict, r) -> dict[str, dict]:
    """Columns per card name (``kafka_task_scaling__<series>``), plus one entry per unfitted series.

    Parameters
    ----------
    p
        The parameters the chapter ran with (``target_rate_msg_s``, ``max_tasks``).
    r
        The chapter's :class:`~mqperf.present.results.Results`.

    Returns
    -------
    dict
        For a fitted series: ``measured_max_tasks``, ``current_rate_msg_s``, ``target_rate_msg_s``,
        ``peak_over_target`` (peak_x / target), ``tasks_for_target`` (None when the fit does not
        reach the target within ``max_tasks``), ``target_beyond_measured`` and ``extrapolated``
        (the modelled peak lies beyond the largest measured tasks.max; always so for Amdahl's
        law, whose limit is approached only as tasks grow without bound). A series that was not
        fitted is keyed by its own name and carries ``series`` and ``reason``.
    """
    from mqperf.present.cards import card_name

    pts = r.points
    target, max_tasks = float(p["target_rate_msg_s"]), int(p["max_tasks"])
    plan = _frame(r, "plan")
    plan_rows = {row["series"]: row for row in plan.to_dict("records")} if plan is not None else {}
    cards = dict(r.cards)
    out: dict[str, dict] = {}
    for name, rows in pts.groupby("series", sort=False):
        key = card_name("kafka_task_scaling", str(name))
        measured = int(rows["tasks"].max())
        current = float(rows["rate_msg_s"].max())
        card = cards.get(key)
        if card is None:
            continue
        peak_n = float(card.get("derived", {}).get("peak_n", math.nan))
        peak_x = float(card.get("derived", {}).get("peak_x", math.nan))
        need, beyond = _need(plan_rows.get(name), card, target, max_tasks, measured)
        out[key] = {"measured_max_tasks": measured, CURRENT_COLUMN: current, "target_rate_msg_s": target,
                    "peak_over_target": peak_x / target if math.isfinite(peak_x) else math.nan,
                    "tasks_for_target": need, "target_beyond_measured": beyond,
                    "extrapolated": bool(peak_n > measured)}
    fits = _frame(r, "fits")
    if fits is not None and "model" in fits:
        for row in fits.to_dict("records"):
            if row["model"] == "none":
                key = card_name("kafka_task_scaling", str(row["series"]))
                if key not in cards:
                    out[str(row["series"])] = {"series": str(row["series"]), "reason": str(row["identification"])}
    return out


def _frame(r, key: str):
    item = r.items.get(key)
    return getattr(item, "frame", None)


def _need(row, card: dict, target: float, max_tasks: int, measured: int):
    """Tasks for the target as the chapter's plan table gives it; from the card if the table was cut."""
    if row is not None:
        need = row["tasks for the target"]
        return (None, False) if isinstance(need, str) else (int(need), bool(row["beyond the measurements"]))
    from mqperf.models import usl

    est = {k: v["estimate"] for k, v in card["parameters"].items()}
    for n in range(1, max_tasks + 1):
        if usl.throughput(n, est["lam"], est["sigma"], est.get("kappa", 0.0)) >= target:
            return n, n > measured
    return None, False
