"""Every real tool sample in ../shared/reference-data/formats/ is recognised as its own tool's
output, by exactly one format, and every format's documentation names a chapter it feeds."""

from pathlib import Path

import pytest

from mqperf import catalog
from mqperf.data import ingest, readers

#: Sample folders (or files) and the tool whose output they hold.
TOOLS = {"mqldt": "mqldt", "fio": "fio", "amqsrua": "amqsrua", "amqsevt": "amqsevt", "mqsmfcsv": "MQSMFCSV",
         "rmf": "RMF", "kafka": "Kafka perf-test", "cphtestp_results_readme_sample.txt": "cphtestp"}
#: Files in those folders that are documentation or tool input, not tool output.
NOT_OUTPUT = {"FORMAT.md", "mqlog.fio", "element_datatypes_mq94.tsv", "headers_all_tables_all_runs.txt",
              "README.md", "vm_run_3bsizes_C_locale.stderr.txt"}


def _samples(formats_dir: Path):
    for name, tool in TOOLS.items():
        target = formats_dir / name
        files = [target] if target.is_file() else sorted(p for p in target.rglob("*") if p.is_file())
        for path in files:
            if path.name in NOT_OUTPUT or path.name.startswith("formatter_log") or path.suffix == ".ddl":
                continue
            yield path, tool


def test_every_sample_is_one_tools_output(reference_dir):
    seen = 0
    for path, tool in _samples(reference_dir / "formats"):
        text = readers.head(path)
        claimed = [f.name for f in readers.formats() if f.sniff(text, path)]
        assert len(claimed) == 1, f"{path.name}: claimed by {claimed}"
        assert readers.by_name(claimed[0]).tool == tool, path.name
        seen += 1
    assert seen >= 50


def test_documentation_and_inputs_are_no_tools_output(reference_dir):
    for path in sorted((reference_dir / "formats").rglob("*")):
        if path.is_file() and (path.name in NOT_OUTPUT - {"vm_run_3bsizes_C_locale.stderr.txt"} or path.suffix in (".md", ".ddl")):
            assert readers.detect(path) is None, path.name


def test_every_format_feeds_a_chapter_of_the_book():
    chapters = {c.name for c in catalog.chapters()}
    for fmt in readers.formats():
        assert fmt.command and fmt.title
        assert {key.split(".")[0] for key in fmt.feeds} <= chapters, fmt.name
    fed = {key.split(".")[0] for f in readers.formats() for key in f.feeds}
    assert {"nativeha_storage", "qm_statistics", "qrep_channel", "kafka_latch_cpus", "kafka_task_scaling",
            "kafka_message_size"} <= fed


def test_accepted_formats_per_chapter_input():
    names = {name: [f.name for f in fmts] for name, fmts in ingest.accepted("nativeha_storage").items()}
    assert names["data"] == ["amqsrua"]
    assert set(names["mqldt"]) == {"mqldt-text", "mqldt-csv", "fio-json", "fio-text"}
    assert all(not fmts for fmts in ingest.accepted("racf_profiles").values())


@pytest.mark.parametrize("tool", sorted(set(TOOLS.values()) | {"cph"}))
def test_every_tool_has_a_format(tool):
    assert any(f.tool == tool for f in readers.formats())
