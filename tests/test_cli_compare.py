"""``mqperf compare`` end to end: two runs with a known change, none, many runs, and bad input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mqperf.cli import main

MQPERF = str(Path(sys.executable).with_name("mqperf"))
CHAPTER = "kafka_task_scaling"
CSV_COLUMNS = ["series", "parameter", "before", "after", "difference", "lower", "upper", "changed"]


def _usl(n, lam, sigma, kappa):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def _write(path: Path, seed: int, lam: float = 27000.0, kappa: float = 0.002) -> Path:
    """A sweep of 1–12 tasks for two series, with noise of the same size at every point."""
    rng = np.random.default_rng(seed)
    rows = [(series, n, round(_usl(n, lam * scale, 0.05, kappa) + rng.normal(0, 600)))
            for series, scale in (("A", 1.0), ("B", 0.6)) for n in range(1, 13)]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["series", "tasks", "rate_msg_s"])
        w.writerows(rows)
    return path


def _rows(out: Path, name: str = "comparison.csv") -> list[dict]:
    with (out / name).open() as f:
        return list(csv.DictReader(f))


def test_a_known_change_is_reported_with_its_size(tmp_path, capsys):
    before = _write(tmp_path / "z15.csv", 1)
    after = _write(tmp_path / "z16.csv", 2, lam=27000.0 * 0.8)  # every rate 20 % lower
    out = tmp_path / "cmp"
    assert main(["compare", CHAPTER, "--data", str(before), "--data", str(after), "--label", "z15", "--label", "z16",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = _rows(out)
    assert list(rows[0])[:8] == CSV_COLUMNS
    changed = [r for r in rows if r["changed"] == "True"]
    # The curve at 12 tasks fell in both series, by about the 20 % that was generated.
    for series in ("A", "B"):
        top = next(r for r in rows if r["series"] == series and r["parameter"] == "X(N) at N = 12")
        assert top["changed"] == "True" and float(top["upper"]) < 0
        assert 0.72 < float(top["ratio"]) < 0.88
    assert all(float(r["lower"]) > 0 or float(r["upper"]) < 0 for r in changed)  # claims only outside zero
    assert "“A”: " in printed and "fell" in printed and "2 series compared, 2 changed" in printed
    page = (out / "index.html").read_text()
    assert page.count('class="mqperf-chart"') == 2 and "cdn.jsdelivr" not in page
    assert json.loads((out / ".mqperf-report.json").read_text())["chapter"] == "compare"


def test_identical_runs_say_no_difference(tmp_path, capsys):
    data = _write(tmp_path / "same.csv", 3)
    out = tmp_path / "cmp"
    assert main(["compare", CHAPTER, "--data", str(data), "--data", str(data), "--out", str(out), "-q"]) == 0
    rows = _rows(out)
    assert rows and all(r["changed"] == "False" and float(r["difference"]) == 0 for r in rows)
    page = (out / "index.html").read_text()
    assert page.count("no difference the data can resolve") == 2  # one per series
    assert "0 changed" in capsys.readouterr().out


def test_many_runs_mark_the_run_where_it_moved(tmp_path):
    runs = [_write(tmp_path / f"r{i}.csv", 10 + i, lam=27000.0 * (0.75 if i >= 3 else 1.0)) for i in range(5)]
    out = tmp_path / "cmp"
    args = ["compare", CHAPTER, "--out", str(out), "-q"]
    for i, path in enumerate(runs):
        args += ["--data", str(path), "--label", f"R{i + 1}"]
    assert main(args) == 0
    moved = {(r["series"], r["run"]) for r in _rows(out, "changepoints.csv") if r["parameter"] == "X(N) at N = 12"}
    assert moved == {("A", "R4"), ("B", "R4")}
    assert {r["run"] for r in _rows(out, "runs.csv")} == {f"R{i}" for i in range(1, 6)}
    assert len({(r["before_run"], r["after_run"]) for r in _rows(out)}) == 4  # each consecutive pair


def test_a_chapter_without_a_fitted_model_says_so(tmp_path, capsys, root):
    example = root / "data" / "examples" / "racf_profiles.csv"
    status = main(["compare", "racf_profiles", "--data", str(example), "--data", str(example),
                   "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert status == 2 and "fitted no model" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("extra, message", [
    ([], "two or more runs"),
    (["--data", "{b}", "--label", "one"], "--label given 1 times for 2 runs"),
    (["--data", "{b}", "--level", "150"], "confidence level in percent"),
])
def test_bad_requests_are_one_line(tmp_path, capsys, extra, message):
    a = _write(tmp_path / "a.csv", 4)
    b = _write(tmp_path / "b.csv", 5)
    args = ["compare", CHAPTER, "--data", str(a), *[e.format(b=b) for e in extra], "--out", str(tmp_path / "o")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_bad_data_names_the_file_and_leaves_an_earlier_comparison_as_it_was(tmp_path):
    a, b = _write(tmp_path / "a.csv", 6), _write(tmp_path / "b.csv", 7)
    out = tmp_path / "o"
    assert main(["compare", CHAPTER, "--data", str(a), "--data", str(b), "--out", str(out), "-q"]) == 0
    (out / "mine.txt").write_text("a reader's note beside the report")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = tmp_path / "bad.csv"
    bad.write_text("series,tasks,rate_msg_s\nA,1,fast\n")
    proc = subprocess.run([MQPERF, "compare", CHAPTER, "--data", str(a), "--data", str(bad), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "bad.csv" in proc.stderr and "rate_msg_s" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_help_names_the_method_and_the_csv():
    text = " ".join(subprocess.run([MQPERF, "compare", "--help"], capture_output=True, text=True).stdout.split())
    assert "comparison.csv" in text and "Welch–Satterthwaite" in text and "Bonferroni" in text
