"""Bar charts of one quantity per labelled row: each row a horizontal bar, coloured by a category.

For tables of runs whose labels are long (a series and its configuration): the labels read along
the vertical axis, the chart grows with the rows (up to :data:`MAX_BARS` rows' height).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from mqperf.present.charts import channels, rounded, sampled

#: Rows beyond this many do not make the chart taller.
MAX_BARS = 60


def horizontal_bars(frame: pd.DataFrame, *, label: str, value: str, colour: str, value_title: str,
                    colour_title: str, title: str, row_height: int = 16, min_height: int = 160) -> alt.Chart:
    """One horizontal bar per row of ``frame``: ``label`` on the vertical axis in the frame's order,
    ``value`` along it, coloured by ``colour``; rows sampled and rounded as every chart's are."""
    data = rounded(sampled(frame), columns=[label, value, colour])
    return alt.Chart(data).mark_bar().encode(**channels(
        y=alt.Y(f"{label}:N", sort=None, title=None, axis=alt.Axis(labelLimit=300)),
        x=alt.X(f"{value}:Q", title=value_title),
        color=alt.Color(f"{colour}:N", title=colour_title),
        tooltip=[f"{label}:N", f"{value}:Q", f"{colour}:N"],
    )).properties(title=title, height=max(min_height, row_height * min(len(frame), MAX_BARS)))
