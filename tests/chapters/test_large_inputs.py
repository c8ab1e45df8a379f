"""Readers' files of tens of thousands of rows (one per measurement interval) through every chapter.

Each chapter's notebook code runs in-process on a generated file: the same calls the
notebook makes, in order, without a kernel. Everything a cell would display is collected
and must stay small (tables, DataFrames, charts), and where rows were averaged the report
says so with the right counts. The counts expected here come from the generators (how
many settings they wrote), not from the code under test.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import altair as alt
import nbformat
import numpy as np
import pandas as pd
import pytest

from mqperf.data import aggregate
from mqperf.present import charts
from mqperf.present.tables import Table, show

ROOT = Path(__file__).resolve().parents[2]
ROWS = 20_000
MAX_TABLE_ROWS = 200  # what show() displays at most (it truncates beyond)
MAX_HTML = 150_000  # bytes of HTML any one displayed object may produce
MAX_CHART_ROWS = 5_000  # Altair's own refusal limit; charts must stay below it


# -- generated files -----------------------------------------------------------------------------

def intervals(settings: pd.DataFrame, noisy: dict[str, float], *, rows: int = ROWS, seed: int = 8) -> pd.DataFrame:
    """``rows`` interval rows spread evenly over ``settings``, each noisy column × lognormal(0, sd)."""
    rng = np.random.default_rng(seed)
    per = np.full(len(settings), rows // len(settings))
    per[: rows % len(settings)] += 1
    out = settings.loc[settings.index.repeat(per)].reset_index(drop=True)
    for col, sd in noisy.items():
        out[col] = np.round(out[col] * rng.lognormal(0.0, sd, len(out)), 6)
    return out


def grid(**columns) -> pd.DataFrame:
    index = pd.MultiIndex.from_product(list(columns.values()), names=list(columns))
    return index.to_frame(index=False)


def usl(n, lam, sigma, kappa):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def task_scaling():
    s = grid(series=["alpha", "beta"], tasks=list(range(1, 9)))
    s["rate_msg_s"] = np.where(s["series"] == "alpha", usl(s["tasks"], 1000, 0.05, 0.01), usl(s["tasks"], 800, 0.1, 0.002))
    return intervals(s, {"rate_msg_s": 0.03}), {"data": len(s)}, {}


def message_size():
    s = grid(msg_size_kb=[1, 2, 4, 8, 16, 32, 64])
    s["rate_msg_s"] = 1 / (50e-6 + s["msg_size_kb"] * 1024 / 200e6)
    return intervals(s, {"rate_msg_s": 0.03}), {"data": len(s)}, {}


def persistent_uow():
    s = grid(msgs_per_commit=[1, 2, 5, 10, 20, 50, 100])
    b = s["msgs_per_commit"]
    s["rate_msg_s"] = b / (2e-3 + b * 20e-6)
    s["log_bytes_per_msg"] = 1500 + 4000 / b
    s["operation"] = "get_commit"
    return intervals(s, {"rate_msg_s": 0.03, "log_bytes_per_msg": 0.02}), {"data": len(s), "log": len(s)}, {"log_bytes": ""}


def idle_trickle():
    s = grid(connector=["source", "sink"], tasks=list(range(1, 9)))
    s["cpu_s_per_hour"] = np.where(s["connector"] == "source", 10.0, 6.0) + 3.0 * s["tasks"]
    return intervals(s, {"cpu_s_per_hour": 0.05}), {"data": len(s)}, {}


def latch_cpus(tmp_path):
    s = grid(gp_cpus=[2, 3, 4, 6, 8])
    s["busy_pct"] = 50.0
    s["sufficient_pct"] = 80.0
    s["rate_msg_s"] = 10000.0 * s["gp_cpus"]
    runs = intervals(s, {"busy_pct": 0.03, "sufficient_pct": 0.02, "rate_msg_s": 0.02})
    runs[["busy_pct", "sufficient_pct"]] = runs[["busy_pct", "sufficient_pct"]].clip(upper=100)
    lat = grid(latch=["19", "24"], tasks=list(range(1, 7)))
    lat["latch_s"] = np.where(lat["latch"] == "19", 0.5, 0.2) * lat["tasks"] ** 2.0
    latch_path = tmp_path / "latches.csv"
    intervals(lat, {"latch_s": 0.05}, seed=9).to_csv(latch_path, index=False)
    return runs, {"latch": len(lat), "data": len(s)}, {"latch_data": str(latch_path)}  # in the order shown


def connection_costs():
    s = grid(sharecnv=[0, 1, 10], listener=["local", "shared"])
    s["cpu_us"] = 500.0 + 50.0 * (s["sharecnv"] > 0) + 120.0 * (s["listener"] == "shared")
    return intervals(s, {"cpu_us": 0.03}), {"data": len(s)}, {}


def tls_costs():
    s = grid(message_size_bytes=[1024, 32768, 1048576], sslrkeyc_bytes=[1048576, 10485760, 104857600])
    size, key = s["message_size_bytes"], s["sslrkeyc_bytes"]
    s["excess"] = 30.0 * (size / key) / (1 + size / 65536)
    out = intervals(s, {"excess": 0.05})
    out["cost_ratio"] = 1 + out.pop("excess")
    return out, {"data": len(s)}, {}


def zedc():
    s = grid(message_size_bytes=[1024, 4096, 16384, 65536, 262144, 1048576])
    kb = s["message_size_bytes"] / 1024
    s["qm_tcb_increase_pct"] = 40 * kb / (kb + 32)
    s["peak_throughput_increase_pct"] = 25 * kb / (kb + 64)
    # Each file row feeds both effects: 6 sizes x 2 effects = 12 means.
    return intervals(s, {"qm_tcb_increase_pct": 0.03, "peak_throughput_increase_pct": 0.03}), {"data": 2 * len(s)}, {}


def nativeha():
    s = pd.DataFrame({"series": ["qm one", "qm two"], "write_latency_us": [900.0, 2500.0], "write_size_bytes": [6000.0, 8000.0],
                      "physical_bytes_s": [400000.0, 300000.0], "logical_bytes_s": [350000.0, 250000.0], "interval_s": 10.0})
    noisy = {c: 0.05 for c in ("write_latency_us", "write_size_bytes", "physical_bytes_s", "logical_bytes_s")}
    return intervals(s, noisy), {"data": len(s)}, {}


def ims():
    s = grid(cpus=[4, 8, 12, 16, 24, 32])
    s["rate_tps"] = 2000 * s["cpus"] / (1 + 0.02 * (s["cpus"] - 1))
    s["cf_busy_pct"] = s["rate_tps"] / 1000
    s["cf_processors"] = 2
    return intervals(s, {"rate_tps": 0.03}), {"data": len(s)}, {}


def qrep():
    s = grid(batch_size=[1, 5, 20, 50, 200])
    s["rtt_ms"], s["tcp_window_bytes"], s["message_bytes"], s["series"] = 1.0, 1048576, 10240, "channel A"
    b = s["batch_size"]
    s["measured_mb_s"] = b / (2e-3 + b * 0.1e-3) * 10240 / 1e6
    return intervals(s, {"measured_mb_s": 0.03}), {"data": len(s)}, {}


def racf():
    rows = [{"class": "MQADMIN", "profile": "QMA.YES.SUBSYS.SECURITY"}]
    rows += [{"class": "MQQUEUE", "profile": f"QMA.APP{i:05d}.**"} for i in range(ROWS - 1)]
    return pd.DataFrame(rows), {}, {}


CHAPTERS = {
    "kafka_task_scaling": task_scaling,
    "kafka_message_size": message_size,
    "kafka_persistent_uow": persistent_uow,
    "kafka_idle_trickle": idle_trickle,
    "kafka_latch_cpus": latch_cpus,
    "client_connection_costs": connection_costs,
    "tls_channel_costs": tls_costs,
    "zedc_compression": zedc,
    "nativeha_storage": nativeha,
    "ims_bridge": ims,
    "qrep_channel": qrep,
    "racf_profiles": racf,
}


# -- running a notebook's code in-process ---------------------------------------------------------

def run_cells(notebook: Path, params: dict) -> list:
    """Execute the notebook's code cells with ``params`` injected; return everything displayed."""
    nb = nbformat.read(notebook, as_version=4)
    shown: list = []

    def display(*objs, **_):
        shown.extend(objs)

    ns: dict = {"__name__": "__main__"}
    for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        name = f"{notebook.name}[{i}]"
        if "parameters" in cell.metadata.get("tags", []):
            exec(compile(cell.source, name, "exec"), ns)
            ns.update(params)
            continue
        ns["display"] = display
        tree = ast.parse(cell.source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, name, "exec"), ns)
        ns["display"] = display
        if last is not None:
            value = eval(compile(ast.Expression(last.value), name, "eval"), ns)
            if value is not None:
                shown.append(value)
    return shown


def chart_rows(chart) -> list[int]:
    spec = chart.to_dict()
    return [len(v) for v in spec.get("datasets", {}).values()]


def check_bounded(shown: list) -> None:
    for obj in shown:
        if isinstance(obj, Table):
            assert len(obj.frame) <= MAX_TABLE_ROWS
            assert len(obj._repr_html_()) <= MAX_HTML
        elif isinstance(obj, pd.DataFrame):
            assert len(obj._repr_html_()) <= MAX_HTML, f"a DataFrame of {len(obj)} rows renders too large"
        elif isinstance(obj, alt.TopLevelMixin):
            rows = chart_rows(obj)
            assert all(r <= MAX_CHART_ROWS for r in rows), rows
            assert len(json.dumps(obj.to_dict())) <= MAX_HTML


def notes(shown: list) -> list[str]:
    from mqperf.present.results import Text

    # Chapters on the Results shape say it as a computed passage rather than an AggregationNote.
    return [obj.text for obj in shown if isinstance(obj, aggregate.AggregationNote) and obj] + [
        obj.markdown for obj in shown if isinstance(obj, Text) and obj.markdown.startswith("Your file's ")]


@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_chapter_accepts_many_interval_rows(chapter, tmp_path):
    make = CHAPTERS[chapter]
    frame, points, extra = make(tmp_path) if chapter == "kafka_latch_cpus" else make()
    path = tmp_path / f"{chapter}.csv"
    frame.to_csv(path, index=False)
    params = {"data": str(path), "cards_dir": str(tmp_path / "cards"), **extra}

    shown = run_cells(ROOT / "chapters" / f"{chapter}.ipynb", params)

    check_bounded(shown)
    said = notes(shown)
    assert len(said) == len(points), said
    for text, k in zip(said, points.values()):
        rows = ROWS
        assert f"Your file's {rows:,} rows were averaged into {k:,} point" in text, text


def test_nativeha_without_series_is_one_averaged_series(tmp_path):
    from mqperf import chapters, parameters

    frame, _, _ = nativeha()
    path = tmp_path / "amqsrua.csv"
    frame.drop(columns="series").to_csv(path, index=False)
    r = chapters.module("nativeha_storage").analyse(
        parameters.effective("nativeha_storage", str(path), parameters.run_overrides("nativeha_storage", str(path))).values)
    stats = r.points
    assert list(stats["series"]) == ["your data"] and int(stats["n"].iloc[0]) == ROWS
    assert stats["write_latency_us"].iloc[0] == pytest.approx(frame["write_latency_us"].mean())
    assert f"Your file's {ROWS:,} rows were averaged into 1 point" in r.sentences()["aggregation"]


def test_small_files_are_not_aggregated_and_say_nothing(tmp_path):
    from mqperf.chapters import preflight

    path = tmp_path / "small.csv"
    pd.DataFrame({"tasks": [1, 2, 3, 4], "rate_msg_s": [100.0, 180.0, 240.0, 280.0]}).to_csv(path, index=False)
    r = preflight("kafka_task_scaling", path, {})
    assert len(r.points) == 4 and "n" not in r.points
    assert r["aggregation"] is None


def test_means_keep_count_and_spread():
    frame = pd.DataFrame({"x": [1, 1, 1, 2, 2], "y": [1.0, 2.0, 3.0, 10.0, 14.0], "label": ["a", "a", "a", "b", "b"]})
    out = aggregate.means(frame, ["x"], ["y"])
    assert list(out["x"]) == [1, 2] and list(out["n"]) == [3, 2]
    assert list(out["y"]) == [2.0, 12.0]
    assert out["y_sd"].tolist() == pytest.approx([1.0, np.sqrt(8.0)])
    assert list(out["label"]) == ["a", "b"]


def test_fit_through_means_counts_distinct_tasks_not_rows(tmp_path):
    from mqperf.chapters import preflight

    frame, _, _ = task_scaling()
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    fits = preflight("kafka_task_scaling", path, {})["fits"].frame
    # 8 distinct tasks values, 3 USL parameters: 5 residual degrees of freedom per series.
    assert list(fits["residual df"]) == [5, 5]
    assert list(fits["points"]) == [8, 8]


def test_show_truncates_long_tables_deterministically():
    frame = pd.DataFrame({"i": range(10_000), "v": np.linspace(0, 1, 10_000)})
    first, again = show(frame), show(frame)
    html = first._repr_html_()
    assert html == again._repr_html_()
    assert len(first.frame) < 10_000 and list(first.frame["i"]) == list(range(len(first.frame)))
    left_out = 10_000 - len(first.frame)
    assert f"{left_out:,} more rows" in html and "10,000 in all" in html
    assert f"{left_out:,} more rows" in repr(first)
    assert show(frame.head(150)).frame.shape[0] == 150


def test_chart_sample_is_deterministic_and_bounded():
    frame = pd.DataFrame({"series": ["a"] * 9000 + ["b"] * 1000, "x": np.arange(10_000.0), "y": 1.0})
    picked = charts.sampled(frame, 2000, by=["series"])
    assert len(picked) <= 2000 and set(picked["series"]) == {"a", "b"}
    assert picked.equals(charts.sampled(frame, 2000, by=["series"]))
    assert picked["x"].iloc[0] == 0 and picked["x"].max() == 9999


@pytest.mark.slow
def test_mqperf_run_on_100k_rows_makes_a_small_report(tmp_path, warm_mqperf):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_large
    finally:
        sys.path.pop(0)
    data = tmp_path / "big.csv"
    bench_large.write_file(data, 100_000)
    out = tmp_path / "report"
    status, stdout, stderr = warm_mqperf("run", "kafka_task_scaling", "--data", data, "--out", out, cwd=ROOT)
    assert status == 0, stdout + stderr
    html = sorted(out.glob("*.html"))
    assert html, list(out.iterdir())
    for report in [*html, *out.glob("*.ipynb")]:
        assert report.stat().st_size < 2_000_000, report
    points = len(bench_large.SERIES) * len(bench_large.TASKS)
    assert f"Your file's 100,000 rows were averaged into {points} points" in html[0].read_text(encoding="utf-8")


@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_book_data_is_not_aggregated(chapter, tmp_path):
    # The book's datasets hold one row per setting: their chapters must say nothing new.
    shown = run_cells(ROOT / "chapters" / f"{chapter}.ipynb", {"cards_dir": str(tmp_path / "cards")})
    assert notes(shown) == []
