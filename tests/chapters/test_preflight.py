"""`check` and `run` agree: preflight applies the chapter's own checks before any kernel starts.

Preflight calls the loading, fitting and planning functions each notebook calls. These tests
run the Bring-your-own-data example of every chapter through it, then odd variants of it
(no rows, one row, a non-finite value, one x value, a companion file that is bad), and a few
full `mqperf run`s (slow) to show that a file preflight accepts runs to a report and a file
it rejects fails the run with the same line.
"""

from dataclasses import dataclass
from pathlib import Path

import pytest

from mqperf import parameters
from mqperf.chapters import check_inputs, preflight
from mqperf.errors import DataError, ModelError, MQPerfError, ParameterError
from conftest import ROOT

EXAMPLES = ROOT / "data" / "examples"
#: Every chapter that reads a reader's file, with its example (tests/chapters/test_byod_examples.py runs them).
SECTIONS = {p.stem: p for p in EXAMPLES.glob("*.csv") if "." not in p.stem}

pytestmark = pytest.mark.filterwarnings("ignore")

#: Per chapter, the x and y columns of its main contract (the variants change them).
XY = {
    "kafka_task_scaling": ("tasks", "rate_msg_s"), "kafka_message_size": ("msg_size_kb", "rate_msg_s"),
    "kafka_persistent_uow": ("msgs_per_commit", "rate_msg_s"), "kafka_idle_trickle": ("tasks", "cpu_s_per_hour"),
    "kafka_latch_cpus": ("gp_cpus", "sufficient_pct"), "client_connection_costs": ("sharecnv", "cpu_us"),
    "tls_channel_costs": ("message_size_bytes", "cost_ratio"), "zedc_compression": ("message_size_bytes", "qm_tcb_increase_pct"),
    "nativeha_storage": ("write_size_bytes", "write_latency_us"), "ims_bridge": ("cpus", "rate_tps"),
    "qrep_channel": ("rtt_ms", "tcp_window_bytes"), "request_reply": ("clients", "rate_msg_s"),
}
#: Chapters whose models need at least two distinct x values: one row cannot be fitted.
#: (client_connection_costs runs on one configuration: its regressions become one sentence and
#: the storm calculator still prices the one cost; tests/chapters/test_client_connection_costs*.)
FITTING = {"kafka_task_scaling", "kafka_message_size", "kafka_persistent_uow", "kafka_idle_trickle",
           "zedc_compression", "ims_bridge"}


def _rows(chapter):
    lines = SECTIONS[chapter].read_text(encoding="utf-8").strip().splitlines()
    return lines[0], [ln.split(",") for ln in lines[1:]]


def _write(path: Path, header: str, rows) -> Path:
    path.write_text("\n".join([header, *(",".join(r) for r in rows)]) + "\n", encoding="utf-8")
    return path


def test_every_chapter_with_reader_data_has_a_preflight():
    assert sorted(SECTIONS) == sorted(c for c in parameters.chapter_names() if parameters.reader_defaults(c)[1])


# (That every documented example passes, and runs to a report: tests/chapters/test_byod_examples.py.)


@pytest.mark.parametrize("chapter", sorted(SECTIONS))
def test_header_only_is_bad_data(tmp_path, chapter):
    header, _ = _rows(chapter)
    with pytest.raises(DataError, match="no data rows"):
        preflight(chapter, _write(tmp_path / "empty.csv", header, []), {})


@pytest.mark.parametrize("chapter", sorted(XY))
def test_a_non_finite_value_names_file_column_and_line(tmp_path, chapter):
    header, rows = _rows(chapter)
    y = header.split(",").index(XY[chapter][1])
    rows[0][y] = "inf"
    path = _write(tmp_path / "inf.csv", header, rows)
    with pytest.raises(DataError) as info:
        preflight(chapter, path, {})
    assert str(path) in str(info.value) and f"column '{XY[chapter][1]}', line 2" in str(info.value)


@pytest.mark.parametrize("chapter", sorted(FITTING))
def test_one_row_cannot_be_fitted(tmp_path, chapter):
    header, rows = _rows(chapter)
    with pytest.raises(ModelError):
        preflight(chapter, _write(tmp_path / "one.csv", header, rows[:1]), {})


@pytest.mark.parametrize("variant", ["local only", "one SHARECNV"])
def test_client_connections_with_one_level_of_a_factor_are_fitted(tmp_path, variant):
    # Used to pass check and then stop inside the chapter with a PatsyError (leave-one-cell-out
    # predicted a level no other cell had).
    rows = [["0", "local", "505"], ["0", "local", "515"], ["1", "local", "600"], ["10", "local", "640"]]
    if variant == "one SHARECNV":
        rows = [["0", "local", "505"], ["0", "shared", "1090"], ["0", "local", "515"]]
    r = preflight("client_connection_costs", _write(tmp_path / "c.csv", "sharecnv,listener,cpu_us", rows), {})
    assert len(r.points) == len({(row[0], row[1]) for row in rows})  # repeated configurations are averaged


def test_idle_data_without_a_connector_column_plans_its_only_series(tmp_path):
    path = _write(tmp_path / "idle.csv", "tasks,cpu_s_per_hour", [["1", "10"], ["2", "14"], ["4", "22"]])
    assert len(preflight("kafka_idle_trickle", path, {}).points) == 3


def test_task_scaling_without_a_usl_fit_says_so_instead_of_drawing(tmp_path):
    # Two task counts give Amdahl's law only: the chapter runs, the USL curve becomes one sentence
    # (it used to stop the notebook with an empty concat), and the marginal gains come from the
    # model the report accepts, Amdahl's law here.
    path = _write(tmp_path / "two.csv", "tasks,rate_msg_s", [["1", "100"], ["2", "180"]])
    r = preflight("kafka_task_scaling", path, {})
    assert list(r["fits"].frame["model"]) == ["Amdahl"]
    assert "no USL curve to draw" in str(r["curves"])
    assert hasattr(r["gains"], "to_dict")
    header, rows = _rows("kafka_task_scaling")
    preflight("kafka_task_scaling", _write(tmp_path / "ex.csv", header, rows), {"model": "amdahl"})


@pytest.mark.parametrize(("chapter", "name", "text", "error", "match"), [
    ("kafka_latch_cpus", "latch_data", "latch,tasks,latch_s\n", DataError, "no data rows"),
    ("kafka_latch_cpus", "latch_data", "latch,tasks,latch_s\n19,2,inf\n19,3,4\n", DataError, "column 'latch_s', line 2"),
    ("kafka_latch_cpus", "latch_data", "latch,tasks\n19,2\n", DataError, "column 'latch_s'"),
    ("nativeha_storage", "mqldt", "hello\nworld\n", DataError, "required column is missing"),
    ("kafka_persistent_uow", "log_bytes", "msgs_per_commit,log_bytes_per_msg\n1,-5\n", DataError, "log_bytes_per_msg"),
])
@pytest.mark.parametrize("check", [preflight, check_inputs], ids=["preflight", "check_inputs"])
def test_every_data_parameter_is_checked_against_its_contract(tmp_path, chapter, name, text, error, match, check):
    header, rows = _rows(chapter)
    main = _write(tmp_path / "main.csv", header, rows)
    extra = tmp_path / f"{name}.csv"
    extra.write_text(text, encoding="utf-8")
    params = parameters.parse_cli(chapter, [(name, str(extra))])
    with pytest.raises(error, match=match):
        check(chapter, main, params)


@pytest.mark.parametrize("check", [preflight, check_inputs], ids=["preflight", "check_inputs"])
def test_parameter_values_are_checked_too(tmp_path, check):
    header, rows = _rows("kafka_task_scaling")
    with pytest.raises(ParameterError, match="max_tasks"):
        check("kafka_task_scaling", _write(tmp_path / "ex.csv", header, rows), {"max_tasks": 0})


def test_check_inputs_leaves_the_analysis_to_the_notebook(tmp_path, monkeypatch):
    """What ``mqperf run`` checks before its notebook: parameters and contracts, not the fits. A file
    the contract accepts and the fits cannot use passes here; the notebook refuses it (see
    test_preflight_and_run_agree), and preflight refuses it with the line the notebook prints."""
    from mqperf import chapters

    one = _write(tmp_path / "one.csv", "tasks,rate_msg_s", [["1", "100"]])
    with pytest.raises(ModelError):
        preflight("kafka_task_scaling", one, {})
    monkeypatch.setattr(chapters.module("kafka_task_scaling"), "analyse",
                        lambda values: pytest.fail("check_inputs ran the analysis"))
    assert check_inputs("kafka_task_scaling", one, {}) is None


# -- check and run agree, end to end (in the session's warm kernel: slow) -----------------------

@dataclass
class _Done:
    returncode: int
    stdout: str
    stderr: str


def _verdict(chapter, path):
    try:
        preflight(chapter, path, {})
    except MQPerfError as exc:
        return str(exc)
    return None


@pytest.mark.slow
@pytest.mark.parametrize(("chapter", "header", "rows"), [
    ("client_connection_costs", "sharecnv,listener,cpu_us", [["0", "local", "505"], ["1", "local", "600"], ["10", "local", "640"]]),
    ("kafka_idle_trickle", "tasks,cpu_s_per_hour", [["1", "10"], ["2", "14"], ["4", "22"]]),
    ("kafka_task_scaling", "tasks,rate_msg_s", [["1", "100"], ["2", "180"]]),
    ("tls_channel_costs", "message_size_bytes,sslrkeyc_bytes,cost_ratio", [["1048576", "1048576", "2.5"]]),
])
def test_preflight_and_run_agree(tmp_path, chapter, header, rows, warm_mqperf):
    path = _write(tmp_path / "data.csv", header, rows)
    expected = _verdict(chapter, path)
    check = _Done(*warm_mqperf("check", str(path), "--contract", chapter, cwd=tmp_path))
    run = _Done(*warm_mqperf("run", chapter, "--data", str(path), "--out", str(tmp_path / "report"), "-q",
                             cwd=tmp_path))
    if expected is None:
        assert check.returncode == 0, check.stderr
        assert run.returncode == 0, run.stderr
        assert (tmp_path / "report" / f"{chapter}.html").is_file()
    else:
        line = f"error: {' '.join(expected.split())}"
        assert check.returncode == run.returncode == 2
        assert check.stderr.strip() == run.stderr.strip() == line
        assert not (tmp_path / "report").exists()


@pytest.mark.parametrize("chapter", sorted(SECTIONS))
def test_every_chapter_checks_its_answers_against_the_measured_range(chapter, untyped_channels):
    """Results.answers says what a chapter's answers are: "How this report was made" then states
    whether any left the measured range, instead of saying the chapter does not check. (Its
    charts are built from typed channels: see tests/present/test_charts_channels.py.)"""
    results = preflight(chapter, SECTIONS[chapter])
    assert not untyped_channels, f"{chapter}: channels built from shorthand: {untyped_channels[:5]}"
    assert results.answers, f"{chapter}: Results.answers is not set"
    made = dict(results["how_made"].frame.itertuples(index=False))
    assert "does not check" not in made["Extrapolations"], made["Extrapolations"]
