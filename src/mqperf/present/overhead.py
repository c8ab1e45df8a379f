"""Where a USL fit's lost throughput goes: the overhead decomposition, as a chart and sentences.

λ/X(N) = 1/C(N), the time a unit of work takes at concurrency N relative to one unit alone,
splits into an ideal part 1/N, a contention part σ(N−1)/N and a coherency part κ(N−1)
(:func:`mqperf.models.usl.overhead`, R ``usl::overhead``). A stacked bar per N shows the
three; the sentences (:func:`mqperf.present.prose.usl_overhead_reading`) say where coherency
overtakes contention for the data at hand. Scaling chapters call :func:`show` once.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf import numbers

#: Bars per series at most: past this the grid is thinned (always keeping N = 1 and the largest measured N).
MAX_BARS = 40

PARTS = {"ideal": "ideal 1/N", "contention": "contention σ(N−1)/N", "coherency": "coherency κ(N−1)"}
MEASURED, BEYOND = "within the measured range", "beyond the measurements"


def grid(n_max: float, measured_max: float) -> np.ndarray:
    """Whole N from 1 to ``n_max`` (thinned to about :data:`MAX_BARS`), plus the largest measured N."""
    top = max(1, math.floor(n_max))
    whole = np.arange(1, top + 1, dtype=float)
    if whole.size > MAX_BARS:
        whole = np.unique(np.round(np.linspace(1, top, MAX_BARS)))
    return np.unique(np.append(whole, float(measured_max)))


def frame(results: dict, measured_max: dict, n_max: float) -> pd.DataFrame:
    """One row per series, N and part: the part's size, the whole λ/X(N), and σ/κ.

    ``results`` maps a series to a fitted :class:`~mqperf.models.usl.USLResult`,
    ``measured_max`` a series to its largest measured N.
    """
    from mqperf.models import usl

    parts = []
    for series, res in results.items():
        top = float(measured_max[series])
        table = usl.overhead(grid(max(n_max, top), top), res.sigma, res.kappa)
        cross = res.coherency_crossover()
        cross = 0.0 if math.isfinite(cross) and numbers.is_noise(cross, scale=1.0) else cross  # as the sentences
        long = table.melt(id_vars="n", var_name="part", value_name="share")
        long["total"] = long["n"].map(table.set_index("n")[["ideal", "contention", "coherency"]].sum(axis=1))
        long["order"] = long["part"].map({p: i for i, p in enumerate(PARTS)})
        long["part"] = long["part"].map(PARTS)
        long["range"] = np.where(long["n"] <= top, MEASURED, BEYOND)
        long["crossover"] = cross if math.isfinite(cross) else np.nan
        long.insert(0, "series", series)
        parts.append(long)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def chart(data: pd.DataFrame, *, x_title: str, columns: int = 2):
    """Stacked bars of the three parts per N, one panel per series; bars past the data are paler."""
    import altair as alt

    from mqperf.present import charts

    ranges = [r for r in (MEASURED, BEYOND) if (data["range"] == r).any()]
    shown = charts.rounded(data, columns=["series", "n", "part", "share", "total", "order", "range", "crossover"])
    bars = alt.Chart(shown).mark_bar().encode(**charts.channels(
        x=alt.X("n:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("share:Q", title="λ/X(N), by part", stack="zero"),
        color=alt.Color("part:N", title=None, sort=list(PARTS.values()),
                        scale=alt.Scale(domain=list(PARTS.values()), range=[charts.PALETTE[i] for i in (0, 3, 1)])),
        order=alt.Order("order:Q"),
        # Ordinal (discrete): Vega-Lite's default point scale cannot map a single range value.
        # No legend: the text beside the chart says paler bars lie beyond the measurements.
        opacity=alt.Opacity("range:N", legend=None,
                            scale=alt.Scale(type="ordinal", domain=ranges, range=[1.0, 0.4][:len(ranges)])),
        tooltip=["series:N", alt.Tooltip("n:Q", title="N"), "part:N", "share:Q", alt.Tooltip("range:N", title="N is"),
                 alt.Tooltip("total:Q", title="λ/X(N)"),
                 alt.Tooltip("crossover:Q", title="coherency > contention past N")],
    )).properties(width=250, height=200)
    order = list(dict.fromkeys(data["series"]))
    # Each panel its own x axis: a shared one is drawn under an empty last cell too.
    return bars.facet(facet=alt.Facet("series:N", title=None, sort=order), columns=columns).resolve_axis(
        x="independent").properties(
        title="Where the throughput goes: the USL overhead by concurrency")


def show(r, results: dict, measured_max: dict, *, n_max: float, x_title: str, missing: str,
         limit: int = 8) -> None:
    """Add the chart ``overhead`` and the sentences ``overhead_text`` to the Results ``r``.

    ``results`` holds the USL fits only (an Amdahl fit has no coherency part by assumption);
    the first ``limit`` are drawn and read, and a sentence says how many more there are.
    """
    from mqperf.present import prose

    named = dict(list(results.items())[:limit])
    r.chart("overhead", chart(frame(named, measured_max, n_max), x_title=x_title) if named else None,
            missing=missing)
    rest = len(results) - len(named)
    more = f"The chart and sentences show the first {limit:,} of {len(results):,} USL fits." if rest > 0 else ""
    r.text("overhead_text", prose.bullets(prose.usl_overhead_reading(s, res, measured_max_n=float(measured_max[s]))
                                          for s, res in named.items()), more)
