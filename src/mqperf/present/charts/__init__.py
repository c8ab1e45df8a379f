"""The book's Altair theme, an offline renderer, and the chart builders chapters share.

The renderer (enabled on import) emits a ``<div>`` with a deterministic id and a script
that calls ``vegaEmbed`` from the page: the book and the standalone reports ship vega,
vega-lite and vega-embed themselves (see :mod:`mqperf.publish.assets`), so no chart loads
anything from a CDN, and re-executing a notebook gives byte-identical output (nbval).

Builders round the data they plot (to :data:`CHART_DIGITS` significant digits) and take
aggregated frames: a reader's file of a million rows still yields a small page.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re

import altair as alt
import numpy as np
import pandas as pd

from mqperf import numbers

CHART_DIGITS = 5
MAX_ROWS = 5000

PALETTE = ["#1f5fa8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#5c5c5c"]

_counter = itertools.count(1)


def _reset_run_state() -> None:
    """Number a new notebook's charts from 1 again: the ids are stored in the notebook."""
    global _counter
    _counter = itertools.count(1)


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "view": {"continuousWidth": 520, "continuousHeight": 300, "stroke": None},
            "font": "DejaVu Sans, Helvetica, Arial, sans-serif",
            # Labels closer than 6 px are dropped (greedy), so dense ticks never print "280300".
            "axis": {"labelFontSize": 12, "titleFontSize": 13, "gridColor": "#e6e6e6",
                     "labelOverlap": "greedy", "labelSeparation": 6},
            "legend": {"labelFontSize": 12, "titleFontSize": 12, "orient": "bottom", "labelLimit": 360, "columns": 2},
            "title": {"fontSize": 15, "anchor": "start"},
            "range": {"category": PALETTE},
            "point": {"size": 70, "filled": True},
            "line": {"strokeWidth": 2},
        }
    }


alt.theme.register("mqperf", enable=True)(_theme)


def _channel_class(name: str, suffix: str = ""):
    return getattr(alt, name[0].upper() + name[1:] + suffix)


def channels(**encoding) -> dict:
    """``encoding`` for ``Chart.encode`` with every shorthand already a typed channel.

    Given a string (``y2="upper:Q"``), a list of them (a tooltip) or ``alt.value(v)``, Altair finds
    the channel's class by hashing every class's JSON schema, about 3 ms a channel; given
    ``alt.Y2("upper:Q")`` it takes the object as it is. The spec is the same either way.
    """
    def typed(name, value):
        if isinstance(value, str):
            return _channel_class(name)(value)
        if isinstance(value, list):
            return [typed(name, v) for v in value]
        if isinstance(value, dict) and value.keys() == {"value"}:
            return _channel_class(name, "Value")(value["value"])
        return value

    return {name: typed(name, value) for name, value in encoding.items()}


#: A title longer than this many characters is set on several lines: Vega draws a title on one line
#: however wide its chart, and past the chart's edge it is cut (in print, and in narrow windows).
TITLE_CHARS = 64


def _wrapped(title):
    import textwrap

    if isinstance(title, str) and len(title) > TITLE_CHARS:
        return textwrap.wrap(title, TITLE_CHARS, break_on_hyphens=False)
    if isinstance(title, dict) and isinstance(title.get("text"), str) and len(title["text"]) > TITLE_CHARS:
        return {**title, "text": textwrap.wrap(title["text"], TITLE_CHARS, break_on_hyphens=False)}
    return title


_DIGITS = re.compile(r"\d")


def _numbered_datasets(spec: dict) -> dict:
    """The spec with Altair's data set names (hashes of their contents) replaced by data-1, data-2, ...

    A name that hashes the values would change with a value's last digit; a number does not."""
    names = list((spec.get("datasets") or {}).keys())
    if not names:
        return spec
    rename = {old: f"data-{i}" for i, old in enumerate(names, start=1)}

    def walk(node):
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "name" and isinstance(v, str) and v in rename:
                    out[k] = rename[v]
                else:
                    out[k] = walk(v)
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out = walk({k: v for k, v in spec.items() if k != "datasets"})
    out["datasets"] = {rename[k]: v for k, v in spec["datasets"].items()}
    return out


def render(spec: dict, **_meta) -> dict:
    """Altair renderer: HTML that draws with the page's own vegaEmbed (no CDN, stable id)."""
    if "title" in spec:
        spec = {**spec, "title": _wrapped(spec["title"])}
    spec = _numbered_datasets(spec)
    payload = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    # The id names the chart, not its values: a last digit that differs between two CPUs'
    # BLAS kernels must not change the page's text (publish.drift's rule compares numbers only).
    shape = json.dumps({k: v for k, v in spec.items() if k != "datasets"}, sort_keys=True)
    digest = hashlib.sha256(_DIGITS.sub("0", shape).encode()).hexdigest()[:12]
    div_id = f"mqchart-{digest}-{next(_counter)}"
    # The spec is JSON inside a <script> element: "<", ">" and "&" are written as JSON escapes,
    # so no string in the data (a reader's series name) can end the element or open a comment.
    safe = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    markup = (
        f'<div class="mqperf-chart" id="{div_id}"></div>\n'
        '<script type="text/javascript">\n'
        "(function () {\n"
        f"  var spec = {safe};\n"
        f'  function draw() {{ vegaEmbed("#{div_id}", spec, {{renderer: "svg", actions: false}})'
        ".catch(function (e) { console.error(e); }); }\n"
        '  if (window.vegaEmbed) { draw(); } else { window.addEventListener("load", draw); }\n'
        "})();\n"
        "</script>"
    )
    title = spec.get("title")
    text = title if isinstance(title, (str, list)) else (title or {}).get("text", "chart") if isinstance(title, dict) else "chart"
    text = " ".join(text) if isinstance(text, list) else text
    return {"text/html": markup, "text/plain": f"<chart: {html.escape(str(text))}>"}


alt.renderers.register("mqperf", render)
alt.renderers.enable("mqperf")


def rounded(frame: pd.DataFrame, digits: int = CHART_DIGITS, columns=None) -> pd.DataFrame:
    """Numeric columns shown by the book's display rule (:mod:`mqperf.numbers`).

    ``columns`` keeps only those (the ones a chart encodes), so a page does not carry
    every column of a dataset.
    """
    if columns is not None:
        frame = frame[[c for c in dict.fromkeys(c for c in columns if c) if c in frame]]
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_float_dtype(out[col]):
            # One rule for tables and charts: noise relative to the column is 0, then rounded.
            out[col] = [v if pd.notna(v) else None for v in numbers.round_column(out[col], digits)]
    if len(out) > MAX_ROWS:
        raise ValueError(f"{len(out)} rows to plot: aggregate before plotting (limit {MAX_ROWS})")
    return out


SAMPLE_ROWS = 2000


def sampled(frame: pd.DataFrame, limit: int = SAMPLE_ROWS, *, by=()) -> pd.DataFrame:
    """At most ``limit`` rows of ``frame`` to draw, evenly spaced within each ``by`` group.

    Deterministic (no random state), so a re-executed chapter draws the same points. A
    chart of aggregated means never reaches the limit; this bounds what a chart carries
    when a chapter draws raw rows, well below Altair's own 5,000-row refusal.
    """
    from mqperf.data.aggregate import sample

    return sample(frame, limit, by=[c for c in by if c and c in frame])


def fitted_curve(result, x_max: float | None = None, points: int = 60, x_min: float = 1.0) -> pd.DataFrame:
    """The fitted curve with its 95 % confidence and prediction bands on a grid of ``points`` x values."""
    hi = float(x_max if x_max is not None else max(result.x.max() * 1.6, result.x.max() + 2))
    grid = np.linspace(x_min, hi, points)
    return result.bands(grid)


#: How the bands a curve chart draws are labelled in its legend.
CONF_BAND = "95 % confidence band (the curve)"
PRED_BAND = "95 % prediction band (a new measurement)"
_BAND_OPACITY = {PRED_BAND: 0.12}


def band_rows(curves: pd.DataFrame, series: str = "series") -> pd.DataFrame:
    """The bands of ``curves`` in long form, one row per series, x and band, each labelled.

    ``lower``/``upper`` are the confidence band, or whatever the optional ``band`` column
    names (e.g. a sensitivity band); ``pred_lower``/``pred_upper`` (optional) the prediction
    band. Rows without a band, or with one of no width, are dropped.
    """
    cols = [series, "x", "lower", "upper", "band"]
    named = curves.assign(band=curves["band"] if "band" in curves else CONF_BAND)
    parts = [named.reindex(columns=cols)]
    if "pred_lower" in curves and "pred_upper" in curves:
        pred = curves.rename(columns={"lower": "_l", "upper": "_u", "pred_lower": "lower", "pred_upper": "upper"})
        # First, so the wide pale band lies under the confidence band.
        parts.insert(0, pred.assign(band=PRED_BAND).reindex(columns=cols))
    long = pd.concat(parts, ignore_index=True).dropna(subset=["lower", "upper"])
    # A band of no width (a chapter filled a missing band with the curve) is no band to label.
    return long[long["lower"] != long["upper"]].reset_index(drop=True)


def measured_vs_fitted(
    measured: pd.DataFrame,
    curves: pd.DataFrame,
    *,
    x: str,
    y: str,
    series: str = "series",
    x_title: str,
    y_title: str,
    title: str,
    constraints: pd.DataFrame | None = None,
) -> alt.LayerChart:
    """Points as measured, fitted lines, and shaded bands where the fit has them, labelled.

    ``measured`` has columns ``x``, ``y``, ``series`` and ``basis``; ``curves`` has ``x``,
    ``fit``, ``lower``, ``upper`` and ``series`` (from :func:`fitted_curve`), optionally
    ``pred_lower``/``pred_upper`` (the prediction band, drawn paler around the confidence
    band) and ``band`` (what ``lower``/``upper`` are, when not the confidence band); see
    :func:`band_rows`.
    ``constraints`` (optional) marks published statements with columns ``x``, ``series``,
    ``label`` as vertical rules.
    """
    colour = alt.Color(f"{series}:N", title=None)
    xenc = alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(zero=False))
    base_curves = alt.Chart(rounded(curves, columns=["x", "fit", series]))
    bands = band_rows(curves, series)
    labels = sorted(dict.fromkeys(bands["band"]), key=lambda label: label == PRED_BAND)  # the curve's band first
    band = alt.Chart(rounded(bands)).mark_area().encode(**channels(
        x=alt.X("x:Q", title=x_title), y=alt.Y("lower:Q", title=y_title), y2="upper:Q", color=colour,
        detail="band:N",
        # An ordinal (discrete) scale: the default point scale needs two range values, so one band drew opaque.
        # Above the plot: beside the series legend at the bottom it ran past the page's width.
        opacity=alt.Opacity("band:N", title=None, legend=alt.Legend(symbolType="square", orient="top"),
                            scale=alt.Scale(type="ordinal",
            domain=labels, range=[_BAND_OPACITY.get(label, 0.28) for label in labels])),
        tooltip=[f"{series}:N", "band:N", "x:Q", "lower:Q", "upper:Q"],
    ))
    line = base_curves.mark_line().encode(**channels(x=alt.X("x:Q", title=x_title), y=alt.Y("fit:Q", title=y_title),
                                                     color=colour))
    points = (
        alt.Chart(rounded(sampled(measured, by=[series]), columns=[x, y, series, "basis"]))
        .mark_point()
        .encode(**channels(
            x=xenc,
            y=alt.Y(f"{y}:Q", title=y_title),
            color=colour,
            shape=alt.Shape("basis:N", title="basis", scale=alt.Scale(domain=["measured", "derived"], range=["circle", "diamond"])),
            tooltip=[f"{series}:N", f"{x}:Q", f"{y}:Q", "basis:N"],
        ))
    )
    layers = ([band] if labels else []) + [line, points]
    if constraints is not None and len(constraints):
        rules = alt.Chart(rounded(constraints)).mark_rule(strokeDash=[4, 3], opacity=0.6).encode(**channels(
            x="x:Q", color=colour, tooltip=["label:N"]
        ))
        layers.append(rules)
    return alt.layer(*layers).properties(title=title)


def residuals(frame: pd.DataFrame, *, x: str, series: str = "series", x_title: str, title: str) -> alt.Chart:
    """Relative residuals (measured − fitted) / fitted, in percent, per series."""
    return (
        alt.Chart(rounded(sampled(frame, by=[series]), columns=[x, "resid_pct", series]))
        .mark_point()
        .encode(**channels(
            x=alt.X(f"{x}:Q", title=x_title),
            y=alt.Y("resid_pct:Q", title="residual (% of fitted)"),
            color=alt.Color(f"{series}:N", title=None),
            tooltip=[f"{series}:N", f"{x}:Q", "resid_pct:Q"],
        ))
        .properties(title=title, height=180)
        + alt.Chart(pd.DataFrame({"zero": [0]})).mark_rule(color="#888").encode(**channels(y="zero:Q"))
    )


def bars(frame: pd.DataFrame, *, x: str, y: str, colour: str | None = None, x_title: str, y_title: str, title: str) -> alt.Chart:
    """A plain bar chart (categories on x), e.g. cost by configuration."""
    enc = {
        "x": alt.X(f"{x}:N", title=x_title, sort=None),
        "y": alt.Y(f"{y}:Q", title=y_title),
        "tooltip": [f"{x}:N", f"{y}:Q"],
    }
    if colour:
        enc["color"] = alt.Color(f"{colour}:N", title=None)
        enc["xOffset"] = f"{colour}:N"
    return alt.Chart(rounded(frame, columns=[x, y, colour])).mark_bar().encode(**channels(**enc)).properties(title=title)


def lines(frame: pd.DataFrame, *, x: str, y: str, colour: str | None = None, x_title: str, y_title: str, title: str,
          log_x: bool = False, points: bool = True) -> alt.Chart:
    """A what-if curve (or several, coloured), e.g. throughput against batch size."""
    scale = alt.Scale(type="log") if log_x else alt.Scale(zero=False)
    enc = {"x": alt.X(f"{x}:Q", title=x_title, scale=scale), "y": alt.Y(f"{y}:Q", title=y_title),
           "tooltip": [f"{x}:Q", f"{y}:Q"]}
    if colour:
        enc["color"] = alt.Color(f"{colour}:N", title=None)
    return (alt.Chart(rounded(frame, columns=[x, y, colour])).mark_line(point=points).encode(**channels(**enc))
            .properties(title=title))


def timeline(frame: pd.DataFrame, *, time: str, y: str, colour: str, y_title: str, title: str,
             bands: pd.DataFrame | None = None) -> alt.Chart:
    """Rates over time (one line per ``colour`` value), with shaded bands (columns ``start``,
    ``end``) marking periods the chapter found, e.g. busy periods. Times are ISO strings."""
    data = rounded(frame, columns=[time, y, colour])
    lines_ = alt.Chart(data).mark_line(point=len(data) <= 200).encode(**channels(
        x=alt.X(f"{time}:T", title="time"), y=alt.Y(f"{y}:Q", title=y_title),
        color=alt.Color(f"{colour}:N", title=None), tooltip=[f"{time}:T", f"{colour}:N", f"{y}:Q"]))
    if bands is None or bands.empty:
        return lines_.properties(title=title)
    shade = alt.Chart(bands).mark_rect(opacity=0.15, color="#edae49").encode(**channels(
        x=alt.X("start:T"), x2="end:T", tooltip=["start:T", "end:T"]))
    return alt.layer(shade, lines_).properties(title=title)
