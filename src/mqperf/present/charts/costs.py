"""Two chart kinds the shared builders do not draw: lines on log-log axes with one marked point
(a bound against a delay, with the planning point), and a grid of labelled cells (a category
for each pair of two other categories, with a short mark in each cell).

Generic builders: a frame, its field names and titles in, a chart out; data rounded by
:func:`mqperf.present.charts.rounded`, colours from the theme's palette.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from mqperf.present.charts import PALETTE, channels, rounded


def log_lines(frame: pd.DataFrame, *, x: str, y: str, colour: str, colour_title: str, x_title: str, y_title: str,
              title: str, mark: dict | None = None) -> alt.LayerChart:
    """One line per ``colour`` value on log-log axes, and optionally one point marked as a diamond.

    ``mark`` holds the point's ``x`` and ``y`` values under the frame's field names and its
    ``label`` (shown in the tooltip).
    """
    ex = alt.X(f"{x}:Q", scale=alt.Scale(type="log"), title=x_title)
    ey = alt.Y(f"{y}:Q", scale=alt.Scale(type="log"), title=y_title)
    lines = alt.Chart(rounded(frame)).mark_line().encode(**channels(
        x=ex, y=ey, color=alt.Color(f"{colour}:N", title=colour_title, sort=None),
        tooltip=[f"{colour}:N", f"{x}:Q", f"{y}:Q"]))
    if mark is None:
        return lines.properties(title=title)
    point = alt.Chart(rounded(pd.DataFrame([mark]))).mark_point(shape="diamond", size=120, color="#333").encode(**channels(
        x=ex, y=ey, tooltip=["label:N", f"{x}:Q", f"{y}:Q"]))
    return alt.layer(lines, point).properties(title=title)


def labelled_grid(frame: pd.DataFrame, *, x: str, y: str, colour: str, label: str, x_title: str, y_title: str,
                  colour_title: str, title: str, tooltip=(), width: int = 420, height: int = 300) -> alt.LayerChart:
    """Cells coloured by ``colour`` for each pair of ``x`` and ``y`` (in the frame's order), each
    with the short text ``label`` in it; ``tooltip`` names the fields a cell's tooltip shows."""
    order_y = list(dict.fromkeys(frame[y]))
    order_x = list(dict.fromkeys(frame[x]))
    base = alt.Chart(frame).encode(**channels(
        x=alt.X(f"{x}:N", sort=order_x, title=x_title, axis=alt.Axis(labelAngle=-40)),
        y=alt.Y(f"{y}:N", sort=order_y, title=y_title),
        tooltip=[f"{t}:N" for t in tooltip]))
    cells = base.mark_rect(stroke="white").encode(**channels(color=alt.Color(f"{colour}:N", title=colour_title,
                                                                  scale=alt.Scale(range=PALETTE))))
    text = base.mark_text(fontSize=14, color="black").encode(**channels(text=f"{label}:N"))
    return alt.layer(cells, text).properties(title=title, width=width, height=height)
