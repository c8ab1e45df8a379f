"""Capacity charts: measured points against several model curves, per series.

:func:`models_and_points` draws, for each series in its own colour, every model's curve as a
line told apart by its dash (the USL fitted, an MVA fitted, an MVA from figures, a bound, ...)
and the measured points on top: one chart for throughput against clients, one for response
time, from the same frames.
"""

from __future__ import annotations

from typing import Sequence

import altair as alt
import pandas as pd

from mqperf.present.charts import channels, rounded, sampled


def models_and_points(measured: pd.DataFrame, lines: pd.DataFrame, *, x: str, y: str, x_title: str, y_title: str,
                      title: str, series: str = "series", curve: str = "curve",
                      curve_order: Sequence[str] | None = None) -> alt.LayerChart:
    """Model lines (``lines``: ``series``, ``x``, ``curve``, ``y``) dashed by ``curve`` in ``curve_order``,
    and the measured points (``measured``: ``series``, ``x``, ``y``), one colour per series."""
    colour = alt.Color(f"{series}:N", title=None)
    xenc = alt.X(f"{x}:Q", title=x_title)
    yenc = alt.Y(f"{y}:Q", title=y_title)
    drawn = alt.Chart(rounded(lines, columns=[series, x, curve, y])).mark_line().encode(**channels(
        x=xenc, y=yenc, color=colour, detail=f"{curve}:N",
        strokeDash=alt.StrokeDash(f"{curve}:N", title=None, sort=list(curve_order) if curve_order else "ascending"),
        tooltip=[f"{series}:N", f"{curve}:N", f"{x}:Q", f"{y}:Q"]))
    points = alt.Chart(rounded(sampled(measured, by=[series]), columns=[series, x, y])).mark_point().encode(**channels(
        x=xenc, y=yenc, color=colour, tooltip=[f"{series}:N", f"{x}:Q", f"{y}:Q"]))
    return alt.layer(drawn, points).properties(title=title)
