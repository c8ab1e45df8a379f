"""Chapter parameters: declared once, equal to the notebooks, parsed strictly, listed with real types."""

import json
import math
import subprocess
import sys

import pytest

from conftest import ROOT
from mqperf import parameters
from mqperf.publish import pages
from mqperf.errors import ParameterError

CHAPTERS = parameters.chapter_names()


def test_every_notebook_has_a_chapter_package():
    home = ROOT / "src" / "mqperf" / "chapters"
    assert CHAPTERS and all((home / c / "__init__.py").is_file() or (home / f"{c}.py").is_file() for c in CHAPTERS)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_declared_names_equal_the_parameters_cell(chapter):
    import papermill  # the reader the build uses, not ours

    cell = papermill.inspect_notebook(str(ROOT / "chapters" / f"{chapter}.ipynb"))
    assert list(parameters.declarations(chapter)) == list(cell)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_default_validates(chapter):
    values = parameters.defaults(chapter)
    parameters.validate(chapter, values)
    reader, data_param = parameters.reader_defaults(chapter)
    parameters.validate(chapter, {**values, **reader})
    assert data_param in values


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_declaration_has_help_and_a_range(chapter):
    for row in parameters.describe(chapter):
        assert row["help"] and row["range"], row["name"]
        assert row["type"] not in ("None", "", None)


def _error(chapter, name, value) -> str:
    with pytest.raises(ParameterError) as info:
        parameters.parse_cli(chapter, [(name, value)])
    text = str(info.value)
    assert "\n" not in text and len(text) < 400
    return text


@pytest.mark.parametrize(("value", "expect"), [
    ("50,000", "write 50000 without thousands separators"),
    ("fast", "not a number"),
    ("50k", "not a number"),
    ("-5", "too small"),
    ("0", "too small"),
    ("inf", "not a finite number"),
    ("nan", "not a finite number"),
])
def test_hostile_numbers_are_refused_in_one_line(value, expect):
    text = _error("kafka_task_scaling", "target_rate_msg_s", value)
    assert text.startswith(f"-p target_rate_msg_s {value!r}: {expect}")
    assert "> 0 and ≤ 1e9" in text and "msg/s" in text


def test_max_tasks_bounds_protect_the_machine():
    decl = parameters.declarations("kafka_task_scaling")["max_tasks"]
    assert "too small" in _error("kafka_task_scaling", "max_tasks", "0")
    assert "too large" in _error("kafka_task_scaling", "max_tasks", "1000000000")
    assert "not a whole number" in _error("kafka_task_scaling", "max_tasks", "2.5")
    assert f"≤ {decl.maximum}" in _error("kafka_task_scaling", "max_tasks", "1000000000")


def test_bad_yaml_list_is_refused_in_one_line():
    text = _error("tls_channel_costs", "sslrkeyc_candidates_mb", "[1, 2")
    assert text.startswith("-p sslrkeyc_candidates_mb '[1, 2': not a valid YAML list")
    assert "in MB" in text


@pytest.mark.parametrize(("name", "value", "expect"), [
    ("nosuch", "1", "has no such parameter (it has: constraints, costs, model, target_rate_msg_s, max_tasks)"),
    ("cards_dir", "/tmp/x", "set by mqperf run itself"),
    ("data", "my.csv", "with --data FILE"),
    ("model", "USL", 'one of "auto", "usl", "amdahl"'),
    ("constraints", "my.csv", "takes a book dataset name, not a file"),
    ("costs", "no_such_dataset", "neither a file nor a book dataset"),
])
def test_names_choices_and_datasets(name, value, expect):
    text = _error("kafka_task_scaling", name, value)
    assert expect in text


def test_long_values_and_names_are_cut():
    text = _error("kafka_task_scaling", "x" * 100_000, "1")
    assert len(text) < 300 and "…" in text
    text = _error("racf_profiles", "queues", "Q," * 50_000)
    assert len(text) < 300 and "longer than 10000 characters" in text


@pytest.mark.parametrize(("chapter", "name", "text", "value"), [
    ("kafka_task_scaling", "target_rate_msg_s", "50000", 50000),
    ("kafka_task_scaling", "target_rate_msg_s", "5e4", 50000),
    ("kafka_task_scaling", "target_rate_msg_s", "50_000", 50000),
    ("kafka_task_scaling", "max_tasks", "16", 16),
    ("kafka_task_scaling", "max_tasks", "1.6e1", 16),
    ("kafka_task_scaling", "constraints", "", ""),
    ("kafka_latch_cpus", "run_s", "none", None),
    ("tls_channel_costs", "sslrkeyc_candidates_mb", "[1, 50, 500]", [1, 50, 500]),
    ("tls_channel_costs", "sslrkeyc_candidates_mb", "1,50,500", [1, 50, 500]),
    ("racf_profiles", "generic_switches", "yes", True),
    ("racf_profiles", "ssid", "123", None),  # text stays text, but 123 is no subsystem name
])
def test_good_values_parse_to_their_type(chapter, name, text, value):
    if value is None and name == "ssid":
        assert "not 1 to 4 letters" in _error(chapter, name, text)
        return
    got = parameters.parse_cli(chapter, [(name, text)])[name]
    assert got == value and type(got) is type(value) or (isinstance(value, int) and math.isclose(got, value))


def test_a_data_file_parameter_becomes_an_absolute_path(tmp_path, monkeypatch):
    (tmp_path / "latches.csv").write_text("tasks,latch_s\n2,40\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    got = parameters.parse_cli("kafka_latch_cpus", [("latch_data", "latches.csv")])["latch_data"]
    assert got == str(tmp_path / "latches.csv")
    assert "no such file" in _error("kafka_latch_cpus", "latch_data", "missing.csv")


def test_list_json_has_real_types_for_every_parameter():
    proc = subprocess.run([sys.executable, "-m", "mqperf.cli", "list", "--json"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert sorted(c["name"] for c in listed) == CHAPTERS
    for chapter in listed:
        declared = parameters.declarations(chapter["name"])
        assert [p["name"] for p in chapter["parameters"]] == list(declared)
        for p in chapter["parameters"]:
            assert p["type"] == declared[p["name"]].kind and p["range"]
            assert p["settable"] == (declared[p["name"]].settable and p["name"] != chapter["data_parameter"])
    cards = [p for c in listed for p in c["parameters"] if p["name"] == "cards_dir"]
    assert cards and not any(p["settable"] for p in cards)


def test_parsing_imports_nothing_heavy():
    code = ("import sys; from mqperf import parameters; import mqperf.chapters.kafka_task_scaling; "
            "parameters.parse_cli('kafka_task_scaling', [('max_tasks', '8'), ('target_rate_msg_s', '5e4')]); "
            "print(sorted(m for m in ('pandas', 'papermill', 'numpy', 'scipy', 'nbformat', 'altair') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_docs_list_every_parameter_with_its_range():
    text = pages.parameters()
    byod = (ROOT / "chapters" / "bring_your_own_data.md").read_text(encoding="utf-8")
    assert "```{include} _generated/parameters.md" in byod
    for chapter in CHAPTERS:
        assert f"### Parameters of {chapter}" in text
        for row in parameters.describe(chapter):
            line = next((ln for ln in text.splitlines() if ln.startswith(f"| `{row['name']}`")
                         and row["help"].replace("|", "\\|") in ln), None)
            assert line is not None, (chapter, row["name"])
            assert row["range"].replace("|", "\\|") in line
