"""The mqperf command end to end: list, check, run on a reader's CSV, and its failures.

Runs the installed console script in a subprocess with a plain (non-terminal) stdout,
as a reader's shell would.
"""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

MQPERF = str(Path(sys.executable).with_name("mqperf"))


def run(*args, cwd=None):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run([MQPERF, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_help_and_version():
    out = run("--help")
    assert out.returncode == 0 and "build" in out.stdout and "run" in out.stdout and "Exit status" in out.stdout
    assert run("--version").stdout.startswith("mqperf ")
    text = " ".join(run("run", "--help").stdout.split())
    assert ".mqperf-report.json" in text and "files you added beside them stay" in text
    assert "the one line `mqperf check` would print" in text


def test_list_shows_chapters_parameters_and_contract():
    out = run("list")
    assert out.returncode == 0
    assert "kafka_task_scaling" in out.stdout and "-p target_rate_msg_s 60000" in out.stdout
    assert "rate_msg_s [msg/s] (number, required)" in out.stdout
    listed = json.loads(run("list", "--json").stdout)
    assert any(c["name"] == "kafka_task_scaling" and c["contract"] == "kafka_task_scaling" for c in listed)


def test_the_script_exits_fast_yet_as_a_normal_exit_would(capsys):
    """``mqperf`` (``cli.console``) skips the interpreter's tear-down, not what a normal exit does:
    atexit handlers run, every line is written, and the status is the command's."""
    from mqperf.cli import main

    assert main(["list", "--json"]) == 0
    listed = capsys.readouterr().out
    script = ("import atexit, sys\n"
              "atexit.register(lambda: print('atexit ran', file=sys.stderr))\n"
              "from mqperf.cli import console\n"
              "sys.argv = ['mqperf', *sys.argv[1:]]\n"
              "console()\n")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", script, "list", "--json"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert (done.returncode, done.stdout) == (0, listed) and "atexit ran" in done.stderr
    bad = subprocess.run([sys.executable, "-c", script, "run", "no_such_chapter", "--data", "x.csv", "--out", "o"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("error:") == 1 and "atexit ran" in bad.stderr
    # A pipe its reader closed early (`mqperf list | head -1`): the status of the command, and quiet.
    # Quoted: a clone's path may hold spaces.
    piped = subprocess.run(f"{shlex.quote(MQPERF)} list | head -c 10", shell=True, capture_output=True, text=True,
                           env=env, timeout=120, executable="/bin/bash")
    assert piped.stdout and piped.stderr == ""


@pytest.fixture
def reader_csv(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("series,tasks,rate_msg_s\nmine,1,1000\nmine,2,1850\nmine,3,2500\nmine,4,2950\nmine,6,3300\n")
    return path


def test_run_writes_notebook_report_and_cards_only_into_out(tmp_path, reader_csv, root):
    # By content: another test's nbval run of a chapter rewrites the book's cards with the same bytes.
    before = {p: p.read_bytes() for p in (root / "models").glob("*.json")}
    chapter_before = (root / "chapters" / "kafka_task_scaling.ipynb").read_bytes()
    out = tmp_path / "report"
    res = run("run", "kafka_task_scaling", "--data", str(reader_csv), "-p", "target_rate_msg_s", "2800", "--out", str(out))
    assert res.returncode == 0, res.stderr
    html = (out / "kafka_task_scaling.html").read_text()
    assert "mqchart-" in html and "window.vegaEmbed" in html  # charts with the bundle inlined
    assert "cdn.jsdelivr" not in html and "unpkg.com" not in html
    assert "mine" in html and "2800" in html  # the reader's series and parameter were used
    cards = list((out / "models").glob("*.json"))
    assert len(cards) == 1 and json.loads(cards[0].read_text())["fit"]["df_resid"] == 2
    manifest = json.loads((out / ".mqperf-report.json").read_text())
    assert sorted(manifest["files"]) == sorted(["kafka_task_scaling.html", "kafka_task_scaling.ipynb", f"models/{cards[0].name}"])
    # The parameters name the report folder, not the staging folder that is gone by now.
    notebook = (out / "kafka_task_scaling.ipynb").read_text()
    assert f'cards_dir = \\"{(out / "models").resolve()}\\"' in notebook and ".mqperf-stage" not in notebook + html
    # The book's own chapter and cards are untouched.
    assert (root / "chapters" / "kafka_task_scaling.ipynb").read_bytes() == chapter_before
    assert {p: p.read_bytes() for p in (root / "models").glob("*.json")} == before


def test_a_home_it_cannot_write_puts_no_library_warning_on_the_terminal(tmp_path, reader_csv):
    """A CI runner's or a service account's home may be unwritable. The run still works, and the
    terminal shows mqperf's own lines only: no warning from a library about where it keeps its files
    (IPython's, raised while the kernel spec was looked up, did)."""
    (tmp_path / "a file").write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "IPYTHONDIR")}
    env["HOME"] = str(tmp_path / "a file" / "home")  # below a file: a folder nobody can make
    res = subprocess.run([MQPERF, "run", "kafka_task_scaling", "--data", str(reader_csv), "--out",
                          str(tmp_path / "report"), "-q"], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stderr == "" and res.stdout.count("\n") <= 1, res.stderr + res.stdout
    assert (tmp_path / "report" / "kafka_task_scaling.html").exists()


@pytest.mark.parametrize("text,fragment", [
    ("tasks,throughput\n1,10\n2,19\n3,27\n", "column 'rate_msg_s': required column is missing"),
    ("tasks,rate_msg_s\n1,10\n2,n/a\n3,27\n", "column 'rate_msg_s', line 3: expected a number, found 'n/a'"),
    ("tasks,rate_msg_s\n0,10\n2,19\n3,27\n", "column 'tasks', line 2: must be at least 1, found '0'"),
    ("tasks,rate_msg_s\n-1,10\n2,19\n3,27\n", "column 'tasks', line 2: must be at least 1, found '-1'"),
    ("tasks,rate_msg_s\n4,10\n4,11\n", "no series has enough points"),
])
def test_bad_reader_data_one_line_exit_2_and_out_untouched(tmp_path, text, fragment, warm_mqperf):
    # The first case through the console script; the others in this process (no kernel runs
    # on bad data, so a process of its own would add nothing but its start-up).
    src = tmp_path / "bad.csv"
    src.write_text(text)
    out = tmp_path / "report"
    args = ("run", "kafka_task_scaling", "--data", str(src), "--out", str(out))
    if "required column is missing" in fragment:
        res = run(*args)
        status, stdout, stderr = res.returncode, res.stdout, res.stderr
    else:
        status, stdout, stderr = warm_mqperf(*args)
    assert status == 2, (status, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], stderr
    assert "Traceback" not in stderr + stdout
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"], "staging folder left behind"


def test_unknown_chapter_and_parameter(tmp_path, reader_csv):
    res = run("run", "nope", "--data", str(reader_csv), "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and "no chapter named 'nope'" in res.stderr
    res = run("run", "kafka_task_scaling", "--data", str(reader_csv), "-p", "colour", "red", "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and "'colour': chapter 'kafka_task_scaling' has no such parameter" in res.stderr
    assert not (tmp_path / "o").exists()


def test_check_command(tmp_path, reader_csv):
    res = run("check", str(reader_csv), "--contract", "kafka_task_scaling")
    assert res.returncode == 0 and "ok against chapter kafka_task_scaling" in res.stdout and "5 rows" in res.stdout
    # A contract that is not a chapter's main input is checked on its own.
    latches = tmp_path / "latches.csv"
    latches.write_text("tasks,latch_s\n1,0.5\n2,2.1\n")
    res = run("check", str(latches), "--contract", "kafka_latch_cpus.latch_data")
    assert res.returncode == 0 and "ok against contract kafka_latch_cpus.latch_data" in res.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("tasks\n1\n")
    res = run("check", str(bad), "--contract", "kafka_task_scaling")
    assert res.returncode == 2 and "rate_msg_s" in res.stderr
