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

pytestmark = pytest.mark.slow

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


# -- change points over many runs, through the command's own step ----------------------------

def _line_run(rng, label: str, level: float, *, held: bool = False):
    """One run: y = a + b·x fitted to 7 points (5 residual df), or with b held at a bound (6 df)."""
    from mqperf.models._base import FitResult, covariance
    from mqperf.present.results import Results
    from mqperf.publish.compare import Run

    x = np.arange(1.0, 8.0)
    y = level + 2.0 * x + rng.normal(0, 3.0, x.size)
    design = np.column_stack([np.ones_like(x), x])
    if held:
        theta = np.array([float(np.mean(y - 2.0 * x)), 2.0])
        cov = covariance(design[:, :1], y - design @ theta, 6, ["a"]).reindex(index=["a", "b"], columns=["a", "b"])
    else:
        theta, *_ = np.linalg.lstsq(design, y, rcond=None)
        cov = covariance(design, y - design @ theta, 5, ["a", "b"])
    import pandas as pd

    class Line(FitResult):
        def conf_int(self, alpha=0.05):  # Wald always: the runs' intervals are not what is tested here
            from mqperf.models import pvalues

            q = pvalues.t_ppf(1 - alpha / 2, self.df_resid)
            return pd.DataFrame({"lower": self.params - q * self.bse, "upper": self.params + q * self.bse})

    fit = Line(model="line", formula="Y(x) = a + b*x", params=pd.Series(theta, index=["a", "b"]), cov=cov,
                    x=x, y=y, fn=lambda v, a, b: a + b * np.asarray(v, dtype=float), units={"a": "1", "b": "1"},
                    active_bounds=("b",) if held else ())
    res = Results(book_data=False)
    res.card("line", {"name": "test: A"}, fit)
    return Run(label, [], "test", res)


def test_unchanged_series_of_six_runs_rarely_show_a_change():
    # Each series: two parameters and the curve at x = 7, every run's errors from 5 residual df.
    # Tested together at 5 % (Bonferroni over the three), with the errors' own uncertainty in
    # the check: at most 10 % of unchanged series may show a change (the target).
    from mqperf.publish.compare import compare

    rng = np.random.default_rng(3)
    flagged = 0
    for _ in range(100):
        out = compare("test", [_line_run(rng, f"R{i}", 100.0) for i in range(6)])
        flagged += len(out.changes) > 0
    assert flagged / 100 <= 0.10


def test_a_shift_is_found_at_its_run_by_the_command():
    from mqperf.publish.compare import compare

    rng = np.random.default_rng(4)
    at = []
    for _ in range(20):
        out = compare("test", [_line_run(rng, f"R{i}", 100.0 if i < 3 else 85.0) for i in range(6)])
        at.append(set(out.changes["run"]))
    assert sum(a == {"R3"} for a in at) >= 16  # 80 %


def test_a_parameter_a_bound_holds_in_some_runs_is_not_tested():
    # Where b is held at its bound, a absorbs what b would have taken: its estimates are not of
    # one quantity across the runs, so no change point is claimed on it, and the note says why.
    from mqperf.publish.compare import compare

    rng = np.random.default_rng(5)
    out = compare("test", [_line_run(rng, f"R{i}", 100.0, held=i % 2 == 0) for i in range(6)])
    notes = {p: n for _, p, n in out.change_notes}
    assert "not of the same quantity" in notes["a"]
    assert "no change point the runs' intervals can resolve" in notes["Y(x) at x = 7"] or "moved" in notes["Y(x) at x = 7"]
