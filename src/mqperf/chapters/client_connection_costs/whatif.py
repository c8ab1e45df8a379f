"""The connection-storm calculator: a connection (or refused-attempt) rate times a cost per
attempt gives CPU seconds per hour and engines kept busy
(:func:`mqperf.models.costs.capacity_table`); the page's what-if control recomputes the same.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.client_connection_costs import METHOD_NAMES
from mqperf.errors import ModelError
from mqperf.models import costs


def scenarios(configs: pd.DataFrame, blocked: pd.DataFrame) -> pd.DataFrame:
    """Every cost per attempt the data give: successful connections and refusals."""
    rows = []
    # Replicated configurations enter once, at their mean cost.
    configs = configs.groupby(["sharecnv", "listener", "tls", "suppress_x511"], sort=False, as_index=False).agg(
        cpu_us=("cpu_us", "mean"), basis=("basis", "first"))
    for r in configs.itertuples():
        opts = [o for o, on in (("TLS", r.tls), ("X511/X512 suppressed", r.suppress_x511)) if on]
        label = f"connect SHARECNV({r.sharecnv}) {r.listener}" + (f", {', '.join(opts)}" if opts else "")
        rows.append({"scenario": label, "kind": "successful", "cpu_us": r.cpu_us, "basis": r.basis})
    for r in blocked.itertuples():
        sharecnv = "" if pd.isna(r.sharecnv) else f" SHARECNV({int(r.sharecnv)})"
        rows.append({"scenario": f"refused: {METHOD_NAMES.get(r.method, r.method)}{sharecnv}", "kind": "refused",
                     "cpu_us": r.cpu_us, "basis": r.basis})
    return pd.DataFrame(rows)


def storm(rate_per_s: float, table: pd.DataFrame, *, max_utilisation: float) -> pd.DataFrame:
    """CPU seconds per hour, busy engines and engines needed for ``rate_per_s`` attempts per second."""
    if rate_per_s < 0:
        raise ModelError(f"the connection rate must be ≥ 0, not {rate_per_s}")
    rows = []
    for r in table.itertuples():
        cap = costs.capacity_table([rate_per_s], r.cpu_us, max_utilisation=max_utilisation).iloc[0]
        rows.append({"scenario": r.scenario, "cpu_us": r.cpu_us, "attempts_per_s": rate_per_s,
                     "cpu_s_per_hour": cap["cpu_s_per_hour"],
                     "busy_engines": cap["busy_engines"], "engines_needed": int(cap["engines_needed"])})
    return pd.DataFrame(rows)


def rate_for_engines(engines: float, cost_us: float) -> float:
    """Attempts per second that keep ``engines`` engines busy at ``cost_us`` per attempt."""
    if engines <= 0 or cost_us <= 0:
        raise ModelError("engines and cost must be greater than zero")
    return engines / (cost_us * 1e-6)


def storm_curves(table: pd.DataFrame, *, max_rate: float, points: int = 21, max_series: int = 8) -> pd.DataFrame:
    """Busy engines against attempts per second (0 to ``max_rate``), for at most ``max_series`` scenarios.

    The lines are straight (busy engines = rate × cost); the chart shows their slopes side by
    side. Scenarios past ``max_series`` are left out so that no two share a colour.
    """
    grid = np.round(np.linspace(0, max(max_rate, 1), points), 3)
    parts = [pd.DataFrame({"attempts_per_s": grid, "busy_engines": grid * r.cpu_us * 1e-6, "scenario": r.scenario})
             for r in table.head(max_series).itertuples()]
    return pd.concat(parts, ignore_index=True)
