"""Contracts are Table Schema files named by chapter; shared fields are defined once."""

import json

from mqperf import parameters
from mqperf.data import contracts
from mqperf.paths import data_dir


def test_every_chapter_has_a_contract_named_like_it():
    names = set(contracts.CONTRACTS)
    for chapter in parameters.chapter_names():
        assert chapter in names, f"data/contracts/{chapter}.json is missing"
    for name in names:
        assert name.split(".")[0] in parameters.chapter_names(), f"contract {name} names no chapter"


def test_contract_files_are_table_schemas_and_refs_resolve():
    folder = data_dir() / "contracts"
    shared = json.loads((folder / contracts.SHARED).read_text())
    for path in folder.glob("*.json"):
        if path.name == contracts.SHARED:
            continue
        raw = json.loads(path.read_text())
        assert set(raw) >= {"title", "fields"}, path.name
        refs = [f["$ref"] for f in raw["fields"] if "$ref" in f]
        assert all(r in shared for r in refs), path.name
        resolved = contracts.CONTRACTS[path.stem]
        for f in resolved["fields"]:
            assert {"name", "type"} <= set(f), (path.name, f)
            assert f["type"] in {"integer", "number", "string", "boolean", "date"}, (path.name, f)
        # Every shared field is the same everywhere it is used.
        for ref in refs:
            assert next(f for f in resolved["fields"] if f["name"] == shared[ref]["name"]) == shared[ref]


def test_describe_lists_columns_with_units():
    text = contracts.describe("kafka_task_scaling")
    assert "tasks [tasks] (integer, required)" in text and "rate_msg_s [msg/s]" in text


def test_each_contract_lists_the_inputs_its_chapter_declares():
    """The data wing reads a chapter's inputs from its contract; the chapter declares them as
    parameters. The two must say the same."""
    from mqperf import parameters
    from mqperf.data.contracts import inputs
    from mqperf.declarations import DataFile

    for chapter in parameters.chapter_names():
        declared = {name: {"contract": d.contract or (chapter if name == "data" else f"{chapter}.{name}"),
                           "files": bool(d.files)}
                    for name, d in parameters.declarations(chapter).items() if isinstance(d, DataFile)}
        assert inputs(chapter) == declared, chapter
