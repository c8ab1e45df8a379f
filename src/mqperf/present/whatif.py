"""What-if charts: controls bound to Altair parameters, the answer recomputed by Vega in the page.

Each builder takes fitted numbers from a chapter and returns a chart whose sliders start at
those numbers, whose curve and answers (text marks above the plot) are Vega expressions of
the sliders, and whose fitted curve (with its band, where the fit has one) is fixed data
that does not move. Nothing needs a kernel or the network, and a static render (SVG, PDF)
shows the fitted defaults.

Defaults and slider ranges go through :func:`mqperf.numbers.round_sig` and chart
data through :func:`mqperf.present.charts.rounded`, so a re-executed notebook is
byte-identical. Answers use d3's ``,.4~r`` format: four significant digits, thousands
separators, no trailing zeros, which is :func:`mqperf.numbers.format_number` at
four digits. Quantities spanning decades (κ, SSLRKEYC, message size) are bound as log10:
a range input has no log scale.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from mqperf.present import charts
from mqperf.numbers import CARD_DIGITS, round_sig

#: Significant digits of the answers the controls recompute.
ANSWER_DIGITS = 4
FITTED, WHATIF = "fitted (fixed)", "what-if (controls)"
_COLOURS = alt.Scale(domain=[FITTED, WHATIF], range=["#5c5c5c", charts.PALETTE[0]])
_LINE = 17  # pixels between answer lines


def fmt(expr: str) -> str:
    """A Vega expression formatting ``expr`` by the book's rule at :data:`ANSWER_DIGITS`."""
    return f"format({expr}, ',.{ANSWER_DIGITS}~r')"


def _v(value: float) -> float:
    """A default or bound as the page stores it (the display rule, at card precision)."""
    return round_sig(value, CARD_DIGITS)


def _slider(name: str, value: float, lo: float, hi: float, label: str, steps: int = 200, step=None):
    step = _v((hi - lo) / steps) if step is None else step
    return alt.param(name=name, value=_v(value),
                     bind=alt.binding_range(min=_v(lo), max=_v(hi), step=step, name=label + " "))


def _answers(lines: list[alt.Chart], width: int = 520) -> alt.LayerChart:
    """Text marks stacked from the top, one per answer; ``lines`` carry a ``label`` field."""
    marks = [c.mark_text(align="left", baseline="top", fontSize=13, color=colour).encode(**charts.channels(
        x=alt.value(0), y=alt.value(i * _LINE), text="label:N"))
        for i, (c, colour) in enumerate(lines)]
    return alt.layer(*marks).properties(width=width, height=len(lines) * _LINE)


def _one(label_expr: str) -> alt.Chart:
    """A one-row chart whose ``label`` is a Vega expression of the parameters."""
    return alt.Chart(alt.sequence(0, 1, as_="i")).transform_calculate(label=label_expr)


def _fixed(text: str) -> list[tuple[alt.Chart, str]]:
    """Fixed text, one answer line per "; "-separated part, kept as data (its numbers are chart data)."""
    return [(alt.Chart(pd.DataFrame({"label": [part]})), "#5c5c5c") for part in text.split("; ")]


def _reference(frame: pd.DataFrame, x: str, y: str, *, log_x=False, log_y=False) -> list[alt.Chart]:
    """The fitted curve, dashed, and its band (columns lower/upper) where it has one."""
    xs = alt.Scale(type="log") if log_x else alt.Scale(zero=False)
    ys = alt.Scale(type="log") if log_y else alt.Undefined
    cols = [x, y] + [c for c in ("lower", "upper") if c in frame and frame[c].notna().any()]
    data = charts.rounded(frame, columns=cols).assign(curve=FITTED)
    out = []
    if "lower" in cols:
        out.append(alt.Chart(data).mark_area(opacity=0.15, color="#5c5c5c").encode(**charts.channels(
            x=alt.X(f"{x}:Q", scale=xs), y=alt.Y("lower:Q", scale=ys), y2="upper:Q")))
    out.append(alt.Chart(data).mark_line(strokeDash=[6, 4]).encode(**charts.channels(
        x=alt.X(f"{x}:Q", scale=xs), y=alt.Y(f"{y}:Q", scale=ys),
        color=alt.Color("curve:N", scale=_COLOURS, title=None))))
    return out


def _assemble(params, answers, layers, *, title: str) -> alt.VConcatChart:
    return alt.vconcat(answers, alt.layer(*layers), spacing=8).add_params(*params).properties(title=title)


def _over(reference: list[alt.Chart], curve: alt.Chart) -> list[alt.Chart]:
    """Band under the moving curve, the fitted dashes over it: at the defaults both show."""
    return [*reference[:-1], curve, reference[-1]]


# -- Universal Scalability Law ------------------------------------------------------------------

def usl(*, lam: float, sigma: float, kappa: float, target: float, n_max: int, reference: pd.DataFrame,
        fitted_text: str, unit: str = "msg/s", x_title: str, y_title: str, title: str) -> alt.VConcatChart:
    """X(N) = λN / (1 + σ(N−1) + κN(N−1)) under λ, σ, log10 κ and a target rate.

    Answers: N* = sqrt((1 − σ)/κ), X* = X(N*), and the smallest whole N ≤ ``n_max`` with
    X(N) ≥ target (as :func:`mqperf.models.planning.first_reaching`). ``reference`` has
    ``x``, ``fit`` and optionally ``lower``/``upper``: the fitted curve, fixed.
    """
    if not kappa > 0:
        raise ValueError("the USL what-if needs κ > 0 (it binds log10 κ)")
    lk = math.log10(kappa)
    top = max(target, float(np.nanmax(reference["fit"])), lam)
    params = [_slider("lam", lam, 0, 2 * lam, f"λ ({unit} per task)"),
              _slider("sigma", sigma, 0, 1, "σ (contention)", step=0.001),
              _slider("log10_kappa", lk, min(-6, math.floor(lk) - 1), 0, "log10 κ (coherency)", step=0.01),
              _slider("target", target, 0, 2 * top, f"target ({unit})")]
    x_of = "lam * datum.n / (1 + sigma * (datum.n - 1) + pow(10, log10_kappa) * datum.n * (datum.n - 1))"
    peak = "sqrt(max(1 - sigma, 0) / pow(10, log10_kappa))"
    peak_x = f"lam * {peak} / (1 + sigma * ({peak} - 1) + pow(10, log10_kappa) * {peak} * ({peak} - 1))"
    need = (alt.Chart(alt.sequence(1, n_max + 1, as_="n")).transform_calculate(x=x_of)
            .transform_calculate(hit=f"datum.x >= target ? datum.n : {n_max + 1}")
            .transform_aggregate(need="min(hit)")
            .transform_calculate(label=f"'tasks for ' + {fmt('target')} + ' {unit}: ' + "
                                       f"(datum.need <= {n_max} ? datum.need : (target > {peak_x} ? "
                                       f"'none: above the modelled peak at any count' : 'more than the {n_max} drawn'))"))
    answers = _answers([*_fixed(fitted_text),
                        (_one(f"'N* = ' + {fmt(peak)} + ' tasks'"), charts.PALETTE[0]),
                        (_one(f"'X* = ' + {fmt(peak_x)} + ' {unit}'"), charts.PALETTE[0]),
                        (need, charts.PALETTE[0])])
    step = (n_max - 1) / 120
    curve = (alt.Chart(alt.sequence(1, n_max + step / 2, step, as_="n"))
             .transform_calculate(x=x_of, curve=f"'{WHATIF}'")
             .mark_line().encode(**charts.channels(x=alt.X("n:Q", title=x_title), y=alt.Y("x:Q", title=y_title),
                                 color=alt.Color("curve:N", scale=_COLOURS, title=None))))
    rule = _one("0").transform_calculate(t="target").mark_rule(strokeDash=[2, 2], color=charts.PALETTE[1]).encode(**charts.channels(
        y="t:Q"))
    return _assemble(params, answers, [*_over(_reference(reference, "x", "fit"), curve), rule], title=title)


# -- TLS renegotiation ------------------------------------------------------------------------

SSLRKEYC_FLOOR, SSLRKEYC_MAX = 32 * 1024, 999_999_999


def tls_renegotiation(*, a: float, s0: float, size: float, sslrkeyc: float, reference: pd.DataFrame,
                      fitted_text: str, title: str) -> alt.VConcatChart:
    """Renegotiation overhead 100·a·(s/max(K, 32 KB))/(1 + s/s0) % under log10 s and log10 K.

    ``reference``: ``sslrkeyc_mb``, ``overhead_pct`` (and optionally ``lower``/``upper``), the
    fitted curve at the chapter's message size. Answers: the overhead, the cost ratio
    (1 + overhead) and the messages between renegotiations (K/s).
    """
    params = [_slider("log10_size", math.log10(size), 2, math.log10(100 * 1024 * 1024), "log10 message size (bytes)",
                      step=0.01),
              _slider("log10_sslrkeyc", math.log10(sslrkeyc), math.log10(SSLRKEYC_FLOOR), math.log10(SSLRKEYC_MAX),
                      "log10 SSLRKEYC (bytes)", step=0.01)]
    s, k = "pow(10, log10_size)", "pow(10, log10_sslrkeyc)"

    def over(kk: str) -> str:
        return f"100 * {a!r} * ({s} / max({kk}, {SSLRKEYC_FLOOR})) / (1 + {s} / {s0!r})"

    answers = _answers([
        *_fixed(fitted_text),
        (_one(f"'message size = ' + {fmt(s + ' / 1024')} + ' KB, SSLRKEYC = ' + {fmt(k + ' / 1048576')} + ' MB'"),
         charts.PALETTE[0]),
        (_one(f"'renegotiation overhead = ' + {fmt(over(k))} + ' %'"), charts.PALETTE[0]),
        (_one(f"'cost ratio = ' + {fmt('1 + ' + over(k) + ' / 100')} + '×'"), charts.PALETTE[0]),
        (_one(f"'messages between renegotiations = ' + {fmt(f'max({k}, {SSLRKEYC_FLOOR}) / {s}')}"),
         charts.PALETTE[0])])
    lo, hi = math.log10(SSLRKEYC_FLOOR), math.log10(SSLRKEYC_MAX)
    curve = (alt.Chart(alt.sequence(lo, hi + 0.01, 0.05, as_="lk"))
             .transform_calculate(k_mb="pow(10, datum.lk) / 1048576", pct=over("pow(10, datum.lk)"),
                                  curve=f"'{WHATIF}'")
             .mark_line().encode(**charts.channels(x=alt.X("k_mb:Q", title="SSLRKEYC (MB)", scale=alt.Scale(type="log")),
                                 y=alt.Y("pct:Q", title="renegotiation cost (% of the TLS cost per message)",
                                         scale=alt.Scale(type="log")),
                                 color=alt.Color("curve:N", scale=_COLOURS, title=None))))
    ref = _reference(reference, "sslrkeyc_mb", "overhead_pct", log_x=True, log_y=True)
    return _assemble(params, answers, _over(ref, curve), title=title)


# -- connection storm ---------------------------------------------------------------------------

def connection_storm(*, scenarios: pd.DataFrame, rate: float, max_rate: float, max_utilisation: float,
                     title: str) -> alt.VConcatChart:
    """Busy engines = rate × CPU per attempt, engines needed = ⌈busy / max_utilisation⌉.

    ``scenarios``: ``scenario``, ``cpu_us`` (one answer line and one fixed line each). A rule
    marks the chapter's rate (fixed); a second rule and the answers follow the slider.
    """
    params = [_slider("rate", rate, 0, max_rate, "connection attempts per second")]
    util = _v(max_utilisation)
    table = charts.rounded(scenarios[["scenario", "cpu_us"]].reset_index(drop=True))
    busy = "rate * datum.cpu_us * 1e-6"
    answers = alt.Chart(table).transform_window(i="row_number()").transform_calculate(
        busy=busy,
        label=f"datum.scenario + ': ' + {fmt('datum.busy')} + ' engines busy, ' + {fmt('datum.busy * 3600')} + "
              f"' CPU s per hour; engines needed at ≤ ' + {fmt(str(util * 100))} + ' % busy: ' + "
              f"ceil(round(datum.busy / {util!r} * 1e9) / 1e9)",
        y=f"(datum.i - 1) * {_LINE}").mark_text(align="left", baseline="top", fontSize=13,
                                                 color=charts.PALETTE[0]).encode(**charts.channels(
        x=alt.value(0), y=alt.Y("y:Q", axis=None, scale=None), text="label:N")).properties(
        width=520, height=len(table) * _LINE)
    grid = np.linspace(0, max_rate, 21)
    lines = pd.concat([pd.DataFrame({"attempts_per_s": grid, "busy_engines": grid * c * 1e-6, "scenario": s})
                       for s, c in zip(table["scenario"], table["cpu_us"])], ignore_index=True)
    fixed = alt.Chart(charts.rounded(lines)).mark_line().encode(**charts.channels(
        x=alt.X("attempts_per_s:Q", title="connection attempts per second"),
        y=alt.Y("busy_engines:Q", title="engines kept busy"), color=alt.Color("scenario:N", title=None)))
    at = alt.Chart(pd.DataFrame({"rate": [_v(rate)]})).mark_rule(strokeDash=[6, 4], color="#5c5c5c").encode(**charts.channels(
        x="rate:Q"))
    moving = _one("0").transform_calculate(r="rate").mark_rule(color=charts.PALETTE[1]).encode(**charts.channels(x="r:Q"))
    return _assemble(params, answers, [fixed, at, moving], title=title)


# -- Erlang C (M/M/c) -------------------------------------------------------------------------

def _erlang_c_steps(chart: alt.Chart, load: str, by: list[str]) -> alt.Chart:
    """Erlang C from Poisson terms p_k = exp(k ln A − A − ln k!) over rows k = 0..c:
    C = p_c·c/(c − A) / (Σ_{k<c} p_k + p_c·c/(c − A)). ln k! is a running sum of ln k."""
    return (chart.transform_calculate(lnk="log(max(datum.k, 1))")
            .transform_window(lnfact="sum(lnk)", sort=[alt.SortField("k")], groupby=by or alt.Undefined,
                              frame=[None, 0])
            .transform_calculate(p=f"exp(datum.k * log({load}) - {load} - datum.lnfact)")
            .transform_calculate(below="datum.k < servers ? datum.p : 0", at="datum.k == servers ? datum.p : 0")
            .transform_aggregate(sum_below="sum(below)", p_c="sum(at)", groupby=by or alt.Undefined)
            .transform_calculate(term=f"datum.p_c * servers / (servers - {load})")
            .transform_calculate(c=f"{load} >= servers ? 1 : datum.term / (datum.sum_below + datum.term)"))


def erlang_c(*, per_tx_us: float, servers: int, rate: float, max_servers: int, max_rate: float,
             reference: pd.DataFrame, fitted_text: str, cap: float = 3.0, title: str) -> alt.VConcatChart:
    """M/M/c queueing of a resource costing ``per_tx_us`` per transaction: servers and rate.

    Offered load A = rate × per_tx; answers: utilisation A/c, Erlang C (the share of requests
    that wait) and the mean wait C/(c − A) in service times (unstable when A ≥ c).
    ``reference``: ``rate_tps``, ``wait``, the measured size's curve, fixed.
    """
    per = _v(per_tx_us) * 1e-6
    params = [_slider("servers", servers, 1, max_servers, "servers (CF processors)", step=1),
              _slider("rate", rate, max_rate / 200, max_rate, "transactions per second")]
    load = f"(rate * {per!r})"
    ks = alt.Chart(alt.sequence(0, max_servers + 1, as_="k")).transform_filter("datum.k <= servers")
    c = _erlang_c_steps(ks, load, [])
    unstable = f"{load} >= servers"
    answers = _answers([
        *_fixed(fitted_text),
        (_one(f"'offered load = ' + {fmt(load)} + ' erlangs, utilisation = ' + {fmt(load + ' / servers * 100')} + ' %'"),
         charts.PALETTE[0]),
        (c.transform_calculate(label=f"{unstable} ? 'unstable: the load needs more servers' : "
                                     f"'requests that wait = ' + {fmt('datum.c * 100')} + ' %'"), charts.PALETTE[0]),
        (c.transform_calculate(label=f"{unstable} ? 'mean wait: unbounded' : "
                                     f"'mean wait = ' + {fmt(f'datum.c / (servers - {load})')} + ' service times'"),
         charts.PALETTE[0])])
    rates = (alt.Chart(alt.sequence(max_rate / 120, max_rate * (1 + 1e-9), max_rate / 120, as_="r"))
             .transform_calculate(a=f"datum.r * {per!r}", k="sequence(0, servers + 1)").transform_flatten(["k"]))
    curve = (_erlang_c_steps(rates, "datum.a", ["r", "a"])
             .transform_filter("datum.a < servers")
             .transform_calculate(wait="datum.c / (servers - datum.a)", curve=f"'{WHATIF}'")
             .transform_filter(f"datum.wait <= {cap!r}")
             .mark_line().encode(**charts.channels(x=alt.X("r:Q", title="transactions per second (tx/s)"),
                                 y=alt.Y("wait:Q", title="mean queueing (service times)"),
                                 color=alt.Color("curve:N", scale=_COLOURS, title=None))))
    ref = reference[reference["wait"] <= cap]
    return _assemble(params, answers, _over(_reference(ref, "rate_tps", "wait"), curve), title=title)
