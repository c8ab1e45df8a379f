"""What-if charts in a real browser: each control moved, the page's answer checked against Python.

Uses the built book and the headless Chromium of tests/publish/test_browser.py (same fixtures, same
offline rule: any request off 127.0.0.1 fails, and fails the test). The expected
answers come from mqperf.models (usl, tls, queueing, costs) for the value the input holds
after the move (a range input snaps to its step).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from conftest import _need_chromium, off_machine

from mqperf.models import costs, queueing, tls, usl

pytestmark = pytest.mark.browser


def close(shown_value: float, expected: float, digits: int = 4) -> bool:
    """Equal at ``digits`` significant digits (the answers' display rule), within half a unit."""
    if expected == 0:
        return shown_value == 0
    unit = 10 ** (math.floor(math.log10(abs(expected))) - digits + 1)
    return abs(shown_value - expected) <= 0.5 * unit * (1 + 1e-6)


def number_after(lines: list[str], prefix: str) -> float:
    line = next(t for t in lines if t.startswith(prefix))
    return float(re.match(r"-?[\d,]+(?:\.\d+)?", line[len(prefix):]).group(0).replace(",", ""))


class Page:
    """One chapter page, its what-if chart located by title, with inputs to move."""

    def __init__(self, browser, server, chapter: str, title: str):
        _need_chromium()
        self.external = []
        self.tab = browser.new_page()
        self.tab.on("request", self._seen)
        self.tab.goto(f"{server}/chapters/{chapter}.html", wait_until="load")
        self.chart = self.tab.locator("div.mqperf-chart", has_text=title)
        self.chart.locator("svg.marks").wait_for(state="attached", timeout=20_000)
        self.chart.locator("input[type=range]").first.wait_for(state="attached", timeout=20_000)

    def _seen(self, request):
        # Only seen: the browser's flags fail a request for another host (test_browser.py).
        if off_machine(request.url):
            self.external.append(request.url)

    def value(self, name: str) -> float:
        return float(self.chart.locator(f'input[name="{name}"]').input_value())

    def move(self, name: str, value: float) -> float:
        """Set the input as a user would (input and change events); returns the value it holds."""
        before = self.texts()
        self.chart.locator(f'input[name="{name}"]').evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true}));"
            " el.dispatchEvent(new Event('change', {bubbles: true})); }", str(value))
        held = self.value(name)
        # Vega redraws asynchronously: wait until the answer text differs from before.
        self.tab.wait_for_function(
            "([sel, before]) => { const t = [...document.querySelectorAll(sel + ' svg text')].map(e => e.textContent);"
            " return JSON.stringify(t) !== before; }",
            arg=[f'#{self.chart.get_attribute("id")}', _json(before)], timeout=10_000)
        return held

    def texts(self) -> list[str]:
        return self.chart.locator("svg text").all_text_contents()

    def close(self):
        self.tab.close()
        assert self.external == [], f"requests off the machine: {self.external}"


def _json(obj) -> str:
    import json

    return json.dumps(obj, separators=(",", ":"))


@pytest.fixture
def page(browser, server):
    opened = []

    def open_(chapter, title):
        p = Page(browser, server, chapter, title)
        opened.append(p)
        return p

    yield open_
    for p in opened:
        p.close()


def _fit_of(series: str):
    from mqperf import parameters
    from mqperf.chapters import kafka_task_scaling as chapter

    r = chapter.analyse(parameters.defaults("kafka_task_scaling"))
    fits = r.fit_results or {}
    if series in fits:
        return fits[series]
    from mqperf.chapters.kafka_task_scaling import fits as k
    from mqperf.data import views

    p = parameters.defaults("kafka_task_scaling")
    raw = views.open(p["data"], "kafka_task_scaling")
    pts = k.points(raw)
    known = k.statements(views.open(p["constraints"], "kafka_task_scaling", "constraints"), pts, k.base_cpus(raw))
    return k.fit_all(pts, known, p["model"]).results[series]


@pytest.mark.parametrize("control,value", [("lam", 30000), ("sigma", 0.05), ("log10_kappa", -2.5),
                                           ("target", 50000)])
def test_usl_control(page, control, value):
    p = page("kafka_task_scaling", "What if: the USL")
    fixed = next(t for t in p.texts() if t.startswith("fitted (fixed): "))
    res = _fit_of(fixed.split(": ")[1])
    from mqperf import parameters

    target = float(parameters.defaults("kafka_task_scaling")["target_rate_msg_s"])
    inputs = {"lam": res.lam, "sigma": res.sigma, "kappa": res.kappa, "target": target}
    held = p.move(control, value)
    if control == "log10_kappa":
        inputs["kappa"] = 10 ** held
    else:
        inputs[control] = held
    lines = p.texts()
    lam, sigma, kappa = inputs["lam"], inputs["sigma"], inputs["kappa"]
    n_star = usl.peak_concurrency(sigma, kappa)
    assert close(number_after(lines, "N* = "), n_star)
    assert close(number_after(lines, "X* = "), float(usl.throughput(n_star, lam, sigma, kappa)))
    n = np.arange(1, 9)
    reach = np.nonzero(usl.throughput(n, lam, sigma, kappa) >= inputs["target"])[0]
    need = next(t for t in lines if t.startswith("tasks for "))
    peak_x = float(usl.throughput(n_star, lam, sigma, kappa))
    expected = (f": {n[reach[0]]}" if reach.size else
                ": none: above the modelled peak at any count" if inputs["target"] > peak_x else ": more than the 8 drawn")
    assert need.endswith(expected), (need, expected)


@pytest.mark.parametrize("control,value", [("log10_sslrkeyc", 6.5), ("log10_size", 4.0)])
def test_tls_control(page, control, value):
    from mqperf import parameters
    from mqperf.chapters.tls_channel_costs import fits as parts

    book = parameters.defaults("tls_channel_costs")
    result = parts.fit(parts.load_runs(book["data"]))
    p = page("tls_channel_costs", "What if: renegotiation")
    # The control not moved keeps its start: the planning size and the plan's SSLRKEYC for the target.
    size = float(book["message_size_bytes"])
    k = min(max(result.sslrkeyc_for(book["target_overhead_pct"] / 100, size), tls.SSLRKEYC_FLOOR), tls.SSLRKEYC_MAX)
    held = p.move(control, value)
    size, k = (10 ** held, k) if control == "log10_size" else (size, 10 ** held)
    lines = p.texts()
    expected = float(result.overhead(size, k)) * 100
    assert close(number_after(lines, "renegotiation overhead = "), expected)
    assert close(number_after(lines, "cost ratio = "), 1 + expected / 100)
    assert close(number_after(lines, "messages between renegotiations = "), max(k, tls.SSLRKEYC_FLOOR) / size)


def test_storm_control(page):
    from mqperf import parameters

    util = parameters.defaults("client_connection_costs")["max_utilisation"]
    p = page("client_connection_costs", "What if: your own storm rate")
    held = p.move("rate", 2500)
    for line in p.texts():
        m = re.match(r"(.+): ([\d,.]+) engines busy, [\d,.]+ CPU s per hour; .*: (\d+)$", line)
        if not m:
            continue
        cost = {"connect SHARECNV(0) local, X511/X512 suppressed": 380.0, "connect SHARECNV(1) shared, TLS": 1750.0,
                "refused: CHLAUTH block SHARECNV(1)": 1500.0}[m.group(1)]
        busy, engines = costs.engines_needed(held, cost, max_utilisation=util)
        assert close(float(m.group(2).replace(",", "")), float(busy))
        assert int(m.group(3)) == int(engines)


@pytest.mark.parametrize("control,value", [("servers", 6), ("rate", 25000), ("rate", 30000)])
def test_erlang_c_control(page, control, value):
    p = page("ims_bridge", "What if: CF processors")
    # The book's measured CF point (data/ims_bridge_tuning): 4 processors 75 % busy at 21,400 tx/s.
    per_tx = 0.75 * 4 / 21400
    servers, rate = 4, 21400.0
    held = p.move(control, value)
    servers, rate = (int(held), rate) if control == "servers" else (servers, held)
    load = rate * per_tx
    lines = p.texts()
    assert close(number_after(lines, "offered load = "), load)
    if load >= servers:  # 30,000 tx/s on 4 processors: no steady state
        assert "unstable: the load needs more servers" in lines and "mean wait: unbounded" in lines
        return
    assert close(number_after(lines, "requests that wait = "), 100 * queueing.erlang_c(servers, load))
    assert close(number_after(lines, "mean wait = "), queueing.mmc_wait(load, 1.0, servers))
