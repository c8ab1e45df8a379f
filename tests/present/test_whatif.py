"""What-if chart specs: controls bound to inputs, starting at the fitted values, answers computed in Vega.

The answers are checked by rendering the spec with vl-convert (Vega itself, offline) at the
defaults and comparing with the formulas evaluated here; the browser test moves the controls.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from mqperf.present import whatif

LAM, SIGMA, KAPPA = 44996.0, 0.19179, 0.13470


def params(chart) -> dict:
    return {p["name"]: p for p in chart.to_dict()["params"]}


def texts(chart) -> list[str]:
    import vl_convert

    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    return [t.replace("&amp;", "&") for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def shown(lines, prefix: str) -> float:
    line = next(t for t in lines if t.startswith(prefix))
    return float(re.search(r"-?[\d,]+(?:\.\d+)?", line[len(prefix):]).group(0).replace(",", ""))


def close(shown_value: float, expected: float, digits: int = 4) -> bool:
    """Equal to ``digits`` significant digits: within half a unit of the last shown digit."""
    unit = 10 ** (math.floor(math.log10(abs(expected))) - digits + 1)
    return abs(shown_value - expected) <= 0.5 * unit * (1 + 1e-6)


def check_bound(p, value):
    bind = p["bind"]
    assert bind["input"] == "range"
    assert bind["min"] <= p["value"] <= bind["max"]
    assert p["value"] == pytest.approx(value, rel=1e-5)


@pytest.fixture(scope="module")
def usl_chart():
    grid = np.linspace(1, 8, 20)
    ref = pd.DataFrame({"x": grid, "fit": LAM * grid / (1 + SIGMA * (grid - 1) + KAPPA * grid * (grid - 1))})
    ref["lower"], ref["upper"] = ref["fit"] * 0.97, ref["fit"] * 1.03
    return whatif.usl(lam=LAM, sigma=SIGMA, kappa=KAPPA, target=60000, n_max=8, reference=ref,
                      fitted_text="fitted (fixed): test", x_title="tasks", y_title="rate", title="t")


def test_usl_controls_start_at_the_fit(usl_chart):
    p = params(usl_chart)
    check_bound(p["lam"], LAM)
    check_bound(p["sigma"], SIGMA)
    check_bound(p["log10_kappa"], math.log10(KAPPA))  # κ spans decades: the slider is log10 κ
    check_bound(p["target"], 60000)
    assert p["sigma"]["bind"]["min"] == 0 and p["sigma"]["bind"]["max"] == 1


def test_usl_answers_at_the_defaults(usl_chart):
    lines = texts(usl_chart)
    n_star = math.sqrt((1 - SIGMA) / KAPPA)
    x_star = LAM * n_star / (1 + SIGMA * (n_star - 1) + KAPPA * n_star * (n_star - 1))
    n = np.arange(1, 9)
    x = LAM * n / (1 + SIGMA * (n - 1) + KAPPA * n * (n - 1))
    assert close(shown(lines, "N* = "), n_star)
    assert close(shown(lines, "X* = "), x_star)
    assert shown(lines, "tasks for 60,000 msg/s: ") == n[np.argmax(x >= 60000)]
    assert "fitted (fixed): test" in lines


def test_usl_reference_is_fixed_data_and_the_curve_is_an_expression(usl_chart):
    spec = usl_chart.to_dict()
    rows = [r for d in spec["datasets"].values() for r in d if "fit" in r]
    assert rows and all("lower" in r and "upper" in r for r in rows)
    calcs = [t["calculate"] for layer in spec["vconcat"][1]["layer"] for t in layer.get("transform", [])
             if "calculate" in t]
    assert any("pow(10, log10_kappa)" in c and "lam" in c for c in calcs)


def test_usl_refuses_a_fit_without_coherency():
    with pytest.raises(ValueError, match="κ > 0"):
        whatif.usl(lam=1, sigma=0.1, kappa=0.0, target=1, n_max=4, reference=pd.DataFrame({"x": [1], "fit": [1]}),
                   fitted_text="", x_title="", y_title="", title="")


def test_tls_answers_at_the_defaults():
    a, s0, size, k = 217.285714, 24697.281292, 10240, 30 * 1048576
    ref = pd.DataFrame({"sslrkeyc_mb": [0.5, 10, 900], "overhead_pct": [1.0, 0.5, 0.1]})
    chart = whatif.tls_renegotiation(a=a, s0=s0, size=size, sslrkeyc=k, reference=ref, fitted_text="f", title="t")
    p = params(chart)
    check_bound(p["log10_size"], math.log10(size))
    check_bound(p["log10_sslrkeyc"], math.log10(k))
    assert p["log10_sslrkeyc"]["bind"]["min"] == pytest.approx(math.log10(32 * 1024), abs=1e-5)
    lines = texts(chart)
    overhead = 100 * a * (size / k) / (1 + size / s0)
    assert close(shown(lines, "renegotiation overhead = "), overhead)
    assert close(shown(lines, "cost ratio = "), 1 + overhead / 100)
    assert close(shown(lines, "messages between renegotiations = "), k / size)


def test_tls_sslrkeyc_below_32kb_counts_as_32kb():
    chart = whatif.tls_renegotiation(a=100.0, s0=1e4, size=1024, sslrkeyc=40000, reference=pd.DataFrame(
        {"sslrkeyc_mb": [1.0], "overhead_pct": [1.0]}), fitted_text="f", title="t")
    spec = chart.to_dict()
    spec["params"] = [dict(p, value=3.0) if p["name"] == "log10_sslrkeyc" else p for p in spec["params"]]
    import vl_convert

    svg = vl_convert.vegalite_to_svg(spec)
    line = next(t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if t.startswith("renegotiation overhead"))
    assert close(float(line.split("= ")[1].split(" ")[0]), 100 * 100.0 * (1024 / 32768) / (1 + 1024 / 1e4))


def test_storm_answers_at_the_defaults():
    sc = pd.DataFrame({"scenario": ["cheap", "dear"], "cpu_us": [510.0, 1350.0]})
    chart = whatif.connection_storm(scenarios=sc, rate=1000, max_rate=4000, max_utilisation=0.8, title="t")
    check_bound(params(chart)["rate"], 1000)
    lines = texts(chart)
    for name, cost in (("cheap", 510.0), ("dear", 1350.0)):
        line = next(t for t in lines if t.startswith(name + ":"))
        busy = 1000 * cost * 1e-6
        assert close(shown([line], name + ": "), busy)
        assert line.endswith(f": {math.ceil(busy / 0.8)}")


@pytest.mark.parametrize("servers,rate", [(4, 21400), (2, 5000), (9, 60000)])
def test_erlang_c_answers_match_the_textbook_sum(servers, rate):
    per_us = 140.186916
    chart = whatif.erlang_c(per_tx_us=per_us, servers=servers, rate=rate, max_servers=20, max_rate=80000,
                            reference=pd.DataFrame({"rate_tps": [1000.0], "wait": [0.1]}), fitted_text="m",
                            title="t")
    p = params(chart)
    check_bound(p["servers"], servers)
    assert p["servers"]["bind"]["step"] == 1
    lines = texts(chart)
    a = rate * per_us * 1e-6
    # Erlang's delay formula written out, independent of the Vega form and of models.queueing.
    top = a**servers / math.factorial(servers) * servers / (servers - a)
    c = top / (sum(a**k / math.factorial(k) for k in range(servers)) + top)
    assert close(shown(lines, "offered load = "), a)
    assert close(shown(lines, "requests that wait = "), 100 * c)
    assert close(shown(lines, "mean wait = "), c / (servers - a))
