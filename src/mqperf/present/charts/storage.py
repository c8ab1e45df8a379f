"""Chart builders the shared ones cannot draw: dots by category, stacked bars, curves with bands
and an extrapolated stretch on a log axis, side-by-side bars, lines on log-log axes.

Generic like every builder (a frame, field names, titles -> chart), rounded by the book's rule
(:func:`mqperf.present.charts.rounded`) under the book's theme; first drawn for the NativeHA
storage, zEDC compression and TLS channel chapters.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from mqperf.present.charts import channels, lines, rounded, sampled

#: Long category labels (a configuration's description) are shown whole up to this many pixels.
LABEL_LIMIT = 320


def dots(frame: pd.DataFrame, *, x: str, y: str, colour: str, x_title: str, title: str,
         log_x: bool = False) -> alt.Chart:
    """One filled dot per row: a quantity (``x``) for each category (``y``, in the frame's order),
    coloured by where it comes from (``colour``); the height grows with the rows."""
    frame = sampled(rounded(frame))
    scale = alt.Scale(type="log") if log_x else alt.Undefined
    return alt.Chart(frame).mark_point(size=140, filled=True).encode(**channels(
        y=alt.Y(f"{y}:N", sort=None, title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT)),
        x=alt.X(f"{x}:Q", scale=scale, title=x_title),
        color=alt.Color(f"{colour}:N", title=None),
        tooltip=[f"{y}:N", f"{x}:Q"],
    )).properties(title=title, height=max(150, 18 * len(frame)))


def stacked_bars(frame: pd.DataFrame, *, y: str, x: str, part: str, order: str, parts: list[str], x_title: str,
                 title: str, counts: bool = False, height: int = 170) -> alt.Chart:
    """Horizontal bars per category (``y``, in the frame's order), each the sum of its ``x`` over
    ``part`` (stacked in ``order``, coloured in the order ``parts``); ``counts``: whole-number ticks."""
    axis = alt.Axis(tickMinStep=1, format="d") if counts else alt.Undefined
    return alt.Chart(rounded(frame)).mark_bar().encode(**channels(
        y=alt.Y(f"{y}:N", sort=None, title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT)),
        x=alt.X(f"sum({x}):Q", title=x_title, axis=axis),
        color=alt.Color(f"{part}:N", title=None, sort=parts),
        order=alt.Order(f"{order}:Q"),
        tooltip=[f"{y}:N", f"{part}:N", f"{x}:Q"],
    )).properties(title=title, height=height)


def curves_beyond(curves: pd.DataFrame, points: pd.DataFrame, *, y: str, series: str,
                  x_domain: tuple[float, float], x_title: str, y_title: str, title: str) -> alt.LayerChart:
    """Fitted curves on a log x axis: the confidence band (``lower``/``upper``) where the fits have
    one, the curve (``fit``) solid within the measured range and dashed where ``beyond`` is true,
    and the measured ``points`` (columns ``x``, ``y`` and ``series``)."""
    lo, hi = (float(rounded(pd.DataFrame({"v": [v]}))["v"][0]) for v in x_domain)
    colour = alt.Color(f"{series}:N", title=None)
    x = alt.X("x:Q", title=x_title, scale=alt.Scale(type="log", domain=[lo, hi], nice=False))
    base = alt.Chart(rounded(curves))
    layers = []
    if curves["lower"].notna().any():
        layers.append(base.mark_area(opacity=0.15).encode(**channels(x=x, y=alt.Y("lower:Q", title=y_title), y2="upper:Q",
                                                            color=colour)))
    layers.append(base.transform_filter("!datum.beyond").mark_line().encode(**channels(x=x, y=alt.Y("fit:Q", title=y_title),
                                                                             color=colour)))
    layers.append(base.transform_filter("datum.beyond").mark_line(strokeDash=[5, 4]).encode(**channels(
        x=x, y=alt.Y("fit:Q", title=y_title), color=colour)))
    pts = sampled(points, by=[series])
    layers.append(alt.Chart(rounded(pts)).mark_point().encode(**channels(
        x=x, y=alt.Y(f"{y}:Q", title=y_title), color=colour, tooltip=[f"{series}:N", "x:Q", f"{y}:Q"])))
    return alt.layer(*layers).properties(title=title)


def bars_side_by_side(frame: pd.DataFrame, *, y: str, panels: list[tuple[str, str]], title: str,
                      width: int = 240, height: int = 90) -> alt.HConcatChart:
    """One horizontal bar chart per (field, axis title) in ``panels``, side by side, bars coloured by
    the category ``y`` (no legend: the axis names them)."""
    base = alt.Chart(rounded(frame)).encode(**channels(y=alt.Y(f"{y}:N", title=None, sort=None),
                                            color=alt.Color(f"{y}:N", legend=None)))
    charts = [base.mark_bar().encode(**channels(x=alt.X(f"{field}:Q", title=axis_title), tooltip=[f"{y}:N", f"{field}:Q"]))
              .properties(width=width, height=height) for field, axis_title in panels]
    return alt.hconcat(*charts).properties(title=title)


def log_lines(frame: pd.DataFrame, *, x: str, y: str, colour: str | None = None, x_title: str, y_title: str,
              title: str, points: bool = False) -> alt.Chart:
    """Curves on log-log axes (:func:`mqperf.present.charts.lines` with a log y scale too)."""
    chart = lines(frame, x=x, y=y, colour=colour, x_title=x_title, y_title=y_title, title=title, log_x=True,
                  points=points)
    return chart.encode(**channels(y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(type="log"))))
