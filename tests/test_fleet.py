"""``mqperf fleet``: many kafka_task_scaling datasets on a local Dask cluster, one summary.

The datasets are generated here from the USL with known parameters plus 1 % noise; the
summary is held to the chapter run in this process on the same files (``chapters.preflight``),
to the known parameters (roughly), and to its own numbers (headroom, flags, planning answer).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from mqperf import chapters
from mqperf.errors import DataError, MQPerfError, OutputError, ParameterError
from mqperf.cli import fleet as fleet_cli
from mqperf.publish import fleet

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "kafka_task_scaling"
TASKS = (1, 2, 3, 4, 6, 8)
TARGET = 60000.0  # the chapter's default target_rate_msg_s


def usl(n, lam, sigma, kappa):
    n = np.asarray(n, dtype=float)
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def truth(i: int) -> dict:
    """Known parameters of dataset ``i``: a spread of rates and contention, reproducible."""
    rng = np.random.default_rng(1000 + i)
    return {"lam": float(rng.uniform(3000, 30000)), "sigma": float(rng.uniform(0.02, 0.12)),
            "kappa": float(rng.uniform(0.0005, 0.008))}


def write_good(path: Path, i: int, *, two_series: bool = False, lone_point: bool = False) -> dict:
    """A dataset of USL points with 1 % noise; returns its known parameters and measured extremes."""
    rng = np.random.default_rng(i)
    t = truth(i)
    rates = usl(TASKS, **t) * (1 + rng.normal(0, 0.01, len(TASKS)))
    rows = [{"series": "main", "tasks": n, "rate_msg_s": round(float(x), 1)} for n, x in zip(TASKS, rates)]
    if two_series:
        rows += [{"series": "half", "tasks": n, "rate_msg_s": round(float(x) / 2, 1)} for n, x in zip(TASKS, rates)]
    if lone_point:
        rows.append({"series": "lone", "tasks": 4, "rate_msg_s": 1234.0})
    pd.DataFrame(rows).to_csv(path, index=False)
    return {**t, "max_tasks": max(TASKS), "max_rate": max(r["rate_msg_s"] for r in rows if r["series"] == "main")}


def make_fleet(folder: Path, n: int = 50) -> tuple[Path, dict]:
    """A manifest of ``n`` datasets, six of them bad in different ways; returns it and what each row is."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data").mkdir(exist_ok=True)
    kinds = {}
    lines = []
    for i in range(n):
        ident = f"qm{i:03d}"
        rel = f"data/{ident}.csv"
        path = folder / rel
        target = ""
        if i == 3:
            kinds[ident] = ("missing", None)  # no file written
        elif i == 7:
            pd.DataFrame({"tasks": TASKS, "rate": [1000.0 * k for k in TASKS]}).to_csv(path, index=False)
            kinds[ident] = ("wrong column", None)
        elif i == 11:
            pd.DataFrame({"tasks": [4], "rate_msg_s": [5000.0]}).to_csv(path, index=False)
            kinds[ident] = ("too few points", None)
        elif i == 13:
            pd.DataFrame({"tasks": TASKS, "rate_msg_s": [1000.0, 1900.0, -5.0, 3300.0, 4000.0, 4400.0]}).to_csv(
                path, index=False)
            kinds[ident] = ("negative rate", None)
        elif i == 17:
            kinds[ident] = ("lone series", write_good(path, i, lone_point=True))
        elif i == 19:
            kinds[ident] = ("two series", write_good(path, i, two_series=True))
        else:
            kinds[ident] = ("good", write_good(path, i))
            if i % 10 == 5:
                target = "20000"  # a per-row parameter value
        lines.append((ident, rel, target))
    manifest = folder / "manifest.csv"
    with open(manifest, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "data", "target_rate_msg_s"])
        w.writerows(lines)
    return manifest, kinds


def args_for(manifest: Path, out: Path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mqperf")
    fleet_cli.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["fleet", str(manifest), "--chapter", CHAPTER, "--out", str(out), "-j", "2", *extra])


def run_fleet(manifest: Path, out: Path, *extra: str) -> tuple[int, str]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = fleet_cli.command(args_for(manifest, out, *extra))
    return status, buffer.getvalue()


@pytest.fixture(scope="module")
def fleet_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("fleet")
    manifest, kinds = make_fleet(base / "in")
    out = base / "out"
    started = time.perf_counter()
    status, printed = run_fleet(manifest, out)
    summary = pd.read_csv(out / "summary.csv", keep_default_na=False, na_values=[""])
    return {"manifest": manifest, "kinds": kinds, "out": out, "status": status, "printed": printed,
            "summary": summary, "seconds": time.perf_counter() - started}


# -- the summary ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_every_row_is_summarised_and_bad_rows_say_why(fleet_run):
    s, kinds = fleet_run["summary"], fleet_run["kinds"]
    assert fleet_run["status"] == 0, fleet_run["printed"]
    assert sorted(set(s["id"])) == sorted(kinds), "every manifest row has a summary row"
    assert list(s["id"]) == sorted(s["id"]), "rows sorted by id"
    expected_reason = {"missing": r"no such file", "wrong column": r"rate_msg_s",
                       "too few points": r"(enough points|distinct tasks)", "negative rate": r"rate_msg_s"}
    for ident, (kind, _) in kinds.items():
        rows = s[s["id"] == ident]
        if kind in expected_reason:
            assert len(rows) == 1, ident
            row = rows.iloc[0]
            assert row["status"] == "bad input", (ident, row["reason"])
            assert re.search(expected_reason[kind], row["reason"]), (ident, row["reason"])
            assert "\n" not in row["reason"]
            assert pd.isna(row["lam"])
        else:
            assert set(rows["status"]) == {"ok"}, (ident, rows["reason"].tolist())
    assert "4 bad input, 0 failed" in fleet_run["printed"].splitlines()[-1]
    lone = s[(s["id"] == "qm017") & (s["series"] == "lone")].iloc[0]
    assert lone["flags"] == "fit failed" and "one tasks value" in lone["reason"]
    assert set(s.loc[s["id"] == "qm019", "series"]) == {"main", "half"}


@pytest.mark.slow
def test_progress_lines_count_up_to_the_total(fleet_run):
    lines = [l for l in fleet_run["printed"].splitlines() if l.startswith("fleet: ")]
    assert lines, fleet_run["printed"]
    done = [int(re.match(r"fleet: (\d+)/50 done, [\d.]+ datasets/s, (ETA \d+ s|finished)", l).group(1))
            for l in lines]
    assert done == sorted(done) and done[-1] == 50


@pytest.mark.slow
def test_parameters_agree_with_the_chapter_run_in_process(fleet_run):
    s, manifest = fleet_run["summary"], fleet_run["manifest"]
    for ident in ("qm000", "qm015", "qm019", "qm042"):
        data = manifest.parent / "data" / f"{ident}.csv"
        params = {"target_rate_msg_s": 20000.0} if ident == "qm015" else {}
        from mqperf import parameters

        r = chapters.preflight(CHAPTER, str(data), parameters.run_overrides(CHAPTER, str(data), params))
        cards = {card["name"].split(": ", 1)[1]: card for _, card in r.cards}
        rows = s[s["id"] == ident].set_index("series")
        assert set(rows.index) == set(cards), ident
        for series, card in cards.items():
            for name, par in card["parameters"].items():
                assert rows.loc[series, name] == pytest.approx(par["estimate"], rel=1e-5), (ident, series, name)
                lo, hi = par["ci95"]
                if lo is not None:
                    assert rows.loc[series, f"{name}_lower"] == pytest.approx(lo, rel=1e-5, abs=1e-9)
                    assert rows.loc[series, f"{name}_upper"] == pytest.approx(hi, rel=1e-5, abs=1e-9)
            plan = r.items["plan"].frame
            accepted = list(plan.loc[plan["series"] == series, "model"])
            if accepted == ["bottleneck"]:  # the card's fit is rejected: the fleet's peak is the ceiling
                ceiling = plan.loc[plan["series"] == series, "modelled peak or ceiling (msg/s)"].iloc[0]
                assert rows.loc[series, "peak_x"] == pytest.approx(ceiling, rel=1e-5)
                assert "bottleneck" in rows.loc[series, "peak_from"]
            else:
                assert rows.loc[series, "peak_x"] == pytest.approx(card["derived"]["peak_x"], rel=1e-5)
            assert rows.loc[series, "mape_pct"] == pytest.approx(card["fit"]["mape_pct"], rel=1e-4, abs=1e-6)
        # The chapter's own planning table says the same about the target; a blank cell says why.
        plan = r.items["plan"].frame
        for series in cards:
            needs = {n for n in plan.loc[plan["series"] == series, "tasks for the target"] if not isinstance(n, str)}
            answered = len(needs) == 1 and not (plan.loc[plan["series"] == series, "tasks for the target"]
                                                 .map(lambda v: isinstance(v, str)).any())
            got = rows.loc[series, "tasks_for_target"]
            assert (got == needs.pop() if answered else pd.isna(got)), (ident, series, needs, got)
            if pd.isna(got):
                assert str(rows.loc[series, "tasks_for_target_note"]).strip(), (ident, series)
            assert rows.loc[series, "planning_model"] in (
                " or ".join(plan.loc[plan["series"] == series, "model"]),
                " or ".join(plan.loc[plan["series"] == series, "model"]) + " (the data cannot rank them)")


@pytest.mark.slow
def test_a_row_agrees_with_the_model_cards_of_a_single_mqperf_run(fleet_run, tmp_path, warm_mqperf):
    data = fleet_run["manifest"].parent / "data" / "qm019.csv"  # two series
    status, _, err = warm_mqperf("run", CHAPTER, "--data", data, "--out", tmp_path / "run", "--quiet")
    assert status == 0, err
    cards = [json.loads(p.read_text()) for p in sorted((tmp_path / "run" / "models").glob("*.json"))]
    rows = fleet_run["summary"].query("id == 'qm019'").set_index("series")
    assert sorted(c["name"].split(": ", 1)[1] for c in cards) == sorted(rows.index)
    for card in cards:
        row = rows.loc[card["name"].split(": ", 1)[1]]
        for name, par in card["parameters"].items():
            assert row[name] == pytest.approx(par["estimate"], rel=1e-5)
        if "bottleneck" not in str(row["peak_from"]):  # else the accepted ceiling (checked above)
            assert row["peak_x"] == pytest.approx(card["derived"]["peak_x"], rel=1e-5)
        assert row["df_resid"] == card["fit"]["df_resid"]


@pytest.mark.slow
def test_parameters_recover_the_known_ones_roughly(fleet_run):
    s, kinds = fleet_run["summary"], fleet_run["kinds"]
    good = [(i, k[1]) for i, k in kinds.items() if k[0] == "good"]
    assert len(good) >= 40
    for ident, t in good:
        row = s[(s["id"] == ident) & (s["series"] == "main")].iloc[0]
        assert row["lam"] == pytest.approx(t["lam"], rel=0.1), ident
        # Within the measured range the fitted curve and the true one agree to a few percent.
        fitted = usl(TASKS, row["lam"], row["sigma"], row["kappa"])
        assert np.allclose(fitted, usl(TASKS, t["lam"], t["sigma"], t["kappa"]), rtol=0.06), ident


@pytest.mark.slow
def test_headroom_and_flags_follow_the_numbers(fleet_run):
    s, kinds = fleet_run["summary"], fleet_run["kinds"]
    ok = s[(s["status"] == "ok") & (s["model"].notna())]
    assert len(ok) >= 45
    for row in ok.to_dict("records"):
        kind, t = kinds[row["id"]]
        target = 20000.0 if row["id"] in ("qm005", "qm015", "qm025", "qm035", "qm045") else TARGET
        assert row["target_rate_msg_s"] == target
        if row["series"] == "main":
            assert row["measured_max_tasks"] == t["max_tasks"]
            # summary.csv keeps six significant digits (the model cards' rule)
            assert row["current_rate_msg_s"] == pytest.approx(t["max_rate"], rel=1e-5)
        assert row["peak_over_target"] == pytest.approx(row["peak_x"] / target, rel=1e-4)
        assert row["peak_used_pct"] == pytest.approx(row["current_rate_msg_s"] / row["peak_x"] * 100, rel=1e-4)
        assert row["extrapolated"] == (row["peak_n"] > row["measured_max_tasks"] or row["target_beyond_measured"])
        flags = str(row["flags"] or "").split("; ") if isinstance(row["flags"], str) else []
        assert ("extrapolated" in flags) == bool(row["extrapolated"])
        assert ("exactly identified" in flags) == (row["df_resid"] == 0) == bool(row["exactly_identified"])
        assert ("at bound" in flags) == bool(row["at_bound"])
        need = row["tasks_for_target"]
        if pd.isna(need):  # a blank cell says why
            assert str(row["tasks_for_target_note"]).strip() not in ("", "nan"), row
        else:
            n = int(need)
            assert row["target_beyond_measured"] == (n > row["measured_max_tasks"])
            assert ("extrapolated" in str(row["tasks_for_target_note"])) == bool(row["target_beyond_measured"])
        if row["planning_model"] == "USL":  # the answer follows the USL, not capped at max_tasks = 8
            curve = usl(np.arange(1, 400), row["lam"], row["sigma"], row["kappa"])
            if pd.isna(need):
                assert curve.max() < target * (1 + 1e-5)
            else:
                assert curve[n - 1] >= target * (1 - 1e-5) and (n == 1 or curve[n - 2] < target * (1 + 1e-5))


@pytest.mark.slow
def test_page_is_offline_with_the_fleet_chart(fleet_run):
    out = fleet_run["out"]
    page = (out / "index.html").read_text(encoding="utf-8")
    body = page[page.index("</head>"):]
    assert 'class="mqperf-chart"' in body and "vegaEmbed" in body
    spec = json.loads(re.search(r"var spec = (\{.*?\});\n", body).group(1))
    points = [v for d in spec["datasets"].values() for v in d if "id" in v]
    s = fleet_run["summary"]
    fitted = s[(s["status"] == "ok") & s["model"].notna()]
    assert sorted((p["id"], p["series"]) for p in points) == sorted(zip(fitted["id"], fitted["series"]))
    assert {p["flag"] for p in points} <= {"none", "extrapolated", "exactly identified", "at bound",
                                           "extrapolated; at bound", "exactly identified; extrapolated"}
    assert {"id", "series", "flag"} <= {t["field"] for t in spec["layer"][1]["encoding"]["tooltip"]}
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)\s*=\s*[\"']?(https?:)?//", page, re.I)
    assert not re.search(r"url\(\s*[\"']?(https?:)?//", page, re.I)
    assert "window.vegaEmbed" in page, "the vega bundle is inlined"
    # The opening paragraph counts what the table shows.
    para = re.search(r"<h1>.*?</h1>\s*<p>(.*?)</p>", body, re.S).group(1)
    assert para.startswith("50 datasets ran through kafka_task_scaling") and "four datasets with bad input" in para
    assert "<table" in body and body.count("<tr>") >= 50
    manifest = json.loads((out / ".mqperf-report.json").read_text())
    assert manifest["chapter"] == "fleet" and set(manifest["files"]) == {"summary.csv", "index.html"}


# -- resume, interruption, refusal ---------------------------------------------------------------

@pytest.fixture(scope="module")
def shared_cluster():
    """One warm worker process for the tests below, through --scheduler (each fleet's own
    LocalCluster is tested above): a test pays for its rows, not for a cluster's start-up."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=50) as cluster:
        yield ["--scheduler", cluster.scheduler_address]


@pytest.mark.slow
def test_rerun_reuses_rows_and_recomputes_only_a_changed_file(tmp_path, shared_cluster):
    manifest, _ = make_fleet(tmp_path / "in", n=4)
    out = tmp_path / "out"
    assert run_fleet(manifest, out, *shared_cluster)[0] == 0
    first = (out / "summary.csv").read_bytes()
    status, printed = run_fleet(manifest, out)
    assert status == 0 and "reused 3; 0 to compute" in printed, printed  # the missing file is no cached row
    assert "cluster" not in printed, "nothing to compute starts no cluster"
    assert (out / "summary.csv").read_bytes() == first
    write_good(tmp_path / "in" / "data" / "qm002.csv", 99)
    status, printed = run_fleet(manifest, out, *shared_cluster)
    assert status == 0 and "reused 2; 1 to compute" in printed, printed
    after = pd.read_csv(out / "summary.csv")
    before = pd.read_csv(io.BytesIO(first))
    changed = after.compare(before)
    assert set(after.loc[changed.index, "id"]) == {"qm002"}
    assert after.loc[after["id"] == "qm002", "lam"].iloc[0] == pytest.approx(truth(99)["lam"], rel=0.1)


@pytest.mark.slow
def test_ctrl_c_keeps_finished_rows_and_leaves_dir_alone(tmp_path, shared_cluster):
    manifest, _ = make_fleet(tmp_path / "in", n=10)
    out = tmp_path / "out"
    cache = fleet.cache_dir(out)
    proc = subprocess.Popen([sys.executable, "-m", "mqperf.cli", "fleet", str(manifest), "--chapter",
                             CHAPTER, "--out", str(out), *shared_cluster], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(cache.glob("*.json"))) < 2 and proc.poll() is None:
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C does: the whole foreground group
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert stderr.strip().splitlines()[-1] == "error: interrupted (SIGINT)", stderr
    assert not out.exists(), "an interrupted run publishes nothing"
    kept = len(list(cache.glob("*.json")))
    assert kept >= 2
    status, printed = run_fleet(manifest, out, *shared_cluster)
    assert status == 0 and f"reused {kept};" in printed, printed
    assert not [p for p in tmp_path.iterdir() if ".mqperf-" in p.name and "fleet-cache" not in p.name]


def test_a_strangers_folder_is_refused_before_anything_runs(tmp_path):
    manifest, _ = make_fleet(tmp_path / "in", n=3)
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match=r"notes\.txt") as err:
        run_fleet(manifest, out)
    assert "\n" not in str(err.value)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert not fleet.cache_dir(out).exists()


@pytest.mark.slow
def test_an_existing_scheduler_carries_the_run(tmp_path):
    from distributed import LocalCluster

    manifest, _ = make_fleet(tmp_path / "in", n=3)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        status, printed = run_fleet(manifest, tmp_path / "out", "--scheduler", cluster.scheduler_address)
        assert status == 0, printed
        assert f"on the Dask scheduler at {cluster.scheduler_address} (-j is ignored with --scheduler)" in printed
        assert cluster.scheduler.workers, "the fleet leaves a cluster it did not start running"
    assert len(pd.read_csv(tmp_path / "out" / "summary.csv")) == 3


def test_a_bad_scheduler_address_is_one_line(tmp_path):
    manifest, _ = make_fleet(tmp_path / "in", n=1)
    with pytest.raises(MQPerfError, match=r"^--scheduler nonsense://x: cannot connect \(unknown address scheme") as err:
        run_fleet(manifest, tmp_path / "out", "--scheduler", "nonsense://x")
    assert "\n" not in str(err.value) and not (tmp_path / "out").exists()


# -- rows of any chapter (no cluster) --------------------------------------------------------------

def test_rows_of_a_chapter_without_fleet_columns_come_from_its_cards():
    from mqperf import parameters
    from mqperf.publish import fleet_summary

    data = str(ROOT / "data" / "examples" / "kafka_message_size.csv")
    params = parameters.run_overrides("kafka_message_size", data, {})
    result = fleet_summary.run_row("kafka_message_size", data, params)
    assert result["status"] == "ok", result["reason"]
    r = chapters.preflight("kafka_message_size", data, params)
    assert len(result["rows"]) == len(r.cards) >= 1
    for row, (_, card) in zip(result["rows"], r.cards):
        assert card["name"].endswith(": " + row["series"]) and row["model"] == card["model"]
        for name, par in card["parameters"].items():
            assert row[name] == par["estimate"]
            assert [row[f"{name}_lower"], row[f"{name}_upper"]] == par["ci95"]
        assert row["exactly_identified"] == card["fit"]["exactly_identified"]
    frame = fleet_summary.summary_frame(
        fleet_summary.summary_rows({"id": "x", "chapter": "kafka_message_size", "data": "d.csv"}, result))
    names = list(r.cards[0][1]["parameters"])
    assert list(frame.columns[:8]) == fleet_summary.BASE_COLUMNS
    assert list(frame.columns[8:8 + 3 * len(names)]) == [c for n in names for c in (n, f"{n}_lower", f"{n}_upper")]


def test_a_run_without_cards_gets_one_row_saying_why():
    from mqperf.present.results import Results
    from mqperf.publish import fleet_summary

    rows = fleet_summary.card_rows("kafka_message_size", {}, Results(book_data=False))
    assert len(rows) == 1 and rows[0]["flags"] == "fit failed" and "no model" in rows[0]["reason"]


# -- the manifest --------------------------------------------------------------------------------

def _manifest(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "manifest.csv"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "a.csv").write_text("tasks,rate_msg_s\n1,100\n2,190\n3,270\n")
    return path


@pytest.mark.parametrize("text, column, problem", [
    ("id,file\nqm1,a.csv\n", None, "no column 'data'"),
    ("data\na.csv\n", None, "no column 'id'"),
    ("id,data\nqm1,a.csv\nqm1,a.csv\n", "id", "repeats line 2"),
    ("id,data,colour\nqm1,a.csv,red\n", "colour", "no chapter parameter of that name"),
    ("id,data,cards_dir\nqm1,a.csv,x\n", "cards_dir", "set by mqperf itself"),
    ("id,data\n../qm1,a.csv\n", "id", "not safe as a file name"),
    ("id,data\n,a.csv\n", "id", "empty id"),
    ("id,data\n", None, "no rows"),
])
def test_manifest_errors_are_one_line_naming_file_and_column(tmp_path, text, column, problem):
    path = _manifest(tmp_path, text)
    with pytest.raises(DataError) as err:
        fleet.read_manifest(path, [CHAPTER])
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(path)) and problem in message, message
    if column:
        assert f"column '{column}'" in message


def test_a_bad_cell_or_missing_file_is_a_row_problem_not_a_manifest_error(tmp_path):
    path = _manifest(tmp_path, "id,data,max_tasks\nqm1,a.csv,0\nqm2,gone.csv,\nqm3,a.csv,12\n")
    jobs = {j.id: j for j in fleet.read_manifest(path, [CHAPTER], [("target_rate_msg_s", "500")])}
    assert "column 'max_tasks', line 2" in jobs["qm1"].problem
    assert "gone.csv: no such file" in jobs["qm2"].problem
    assert not jobs["qm3"].problem
    assert jobs["qm3"].params["max_tasks"] == 12 and jobs["qm3"].params["target_rate_msg_s"] == 500
    assert jobs["qm3"].params["data"] == str((tmp_path / "a.csv").resolve())


def test_an_unknown_p_is_a_parameter_error(tmp_path):
    path = _manifest(tmp_path, "id,data\nqm1,a.csv\n")
    with pytest.raises(ParameterError, match="no such parameter"):
        fleet.read_manifest(path, [CHAPTER], [("colour", "red")])


def test_manifest_error_exits_2_with_one_line(tmp_path):
    path = _manifest(tmp_path, "id,data\nqm1,a.csv\nqm1,a.csv\n")
    proc = subprocess.run([sys.executable, "-m", "mqperf.cli", "fleet", str(path), "--chapter", CHAPTER,
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "column 'id', line 3" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


# -- through the real CLI ----------------------------------------------------------------------

@pytest.mark.slow
def test_through_the_cli_with_reports(tmp_path, warm_mqperf, shared_cluster):
    manifest, kinds = make_fleet(tmp_path / "in", n=4)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "mqperf.cli", "fleet", str(manifest), "--chapter", CHAPTER,
                           "--out", str(out), "-j", "1", "--reports"], capture_output=True, text=True, timeout=300)
    # (its own one-worker LocalCluster: the worker's warm kernel is started and closed with it)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", "Dask's logging stays off the terminal"
    assert "1 bad input, 0 failed" in proc.stdout.splitlines()[-1]
    summary = pd.read_csv(out / "summary.csv", keep_default_na=False)
    assert len(summary) == 4
    # --reports: each good dataset's own report, the very notebook `mqperf run` makes on its file.
    good = summary[summary["status"] == "ok"]
    assert sorted(p.name for p in (out / "reports").iterdir()) == sorted(good["id"])
    assert (summary["report"] == [f"reports/{i}/{CHAPTER}.html" if s == "ok" else "" for i, s in
                                  zip(summary["id"], summary["status"])]).all()
    row = good.iloc[0]
    status, _, err = warm_mqperf("run", CHAPTER, "--data", manifest.parent / row["data"], "--out", tmp_path / "single",
                                 "-q")
    assert status == 0, err
    fleet_nb = nbformat.read(out / "reports" / row["id"] / f"{CHAPTER}.ipynb", as_version=4)
    single_nb = nbformat.read(tmp_path / "single" / f"{CHAPTER}.ipynb", as_version=4)
    injected = [c for c in fleet_nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert str(out / "reports" / row["id"] / "models") in injected[0].source  # the published folder, not the cache
    shown = lambda nb: [c.get("outputs") for c in nb.cells if "injected-parameters" not in c.metadata.get("tags", [])]
    assert shown(fleet_nb) == shown(single_nb)
    assert (out / "reports" / row["id"] / f"{CHAPTER}.html").stat().st_size > 10_000
    # The summary read from the reports' notebooks is the summary computed without them.
    assert run_fleet(manifest, tmp_path / "plain", *shared_cluster)[0] == 0
    plain = pd.read_csv(tmp_path / "plain" / "summary.csv", keep_default_na=False)
    pd.testing.assert_frame_equal(summary.drop(columns="report"), plain)
    bad = subprocess.run([sys.executable, "-m", "mqperf.cli", "fleet", str(manifest), "--chapter", "nope",
                          "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("after_s", [1.0, 2.5])
def test_ctrl_c_while_the_cluster_starts_is_one_line(tmp_path, after_s):
    """Ctrl-C reaches the whole foreground group, Dask's worker processes too: none of them may
    print a traceback on the reader's terminal, and the run ends with one line, exit 130."""
    manifest, _ = make_fleet(tmp_path / "in", n=2)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "mqperf.cli", "fleet", str(manifest), "--chapter", CHAPTER,
                             "--out", str(out), "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path, start_new_session=True)
    time.sleep(after_s)  # the cluster starts after about 1 s and is up after about 3 s here
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip(f"the fleet finished within {after_s} s, before the interrupt (a fast machine)")
    assert proc.returncode == 130, (stdout, stderr)
    assert stderr.strip().splitlines() == ["error: interrupted (SIGINT)"], stderr
    assert not out.exists()
