"""The report's own sections: "This run" and "How this report was made"."""

import json

from mqperf import chapters
from mqperf.present import howmade


def test_conversion_notes_and_setup_reach_this_run(tmp_path):
    """A tool's files read for a chapter leave inputs/conversion.json beside the CSV the chapter reads;
    its notes go into "This run" and its stated setup into "How this report was made"."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    data = inputs / "data.csv"
    data.write_text("series,tasks,rate_msg_s\nA,1,100\nA,2,190\nA,3,270\nA,4,330\n", encoding="utf-8")
    (inputs / "conversion.json").write_text(json.dumps([{
        "input": "kafka_task_scaling", "files": ["run1.txt"], "formats": ["cph raw lines"], "sha256": ["0" * 64],
        "notes": ["cph rates are round trips per second"], "setup": {"MQ version": "9.4.0.0"}}]), encoding="utf-8")
    r = chapters.preflight("kafka_task_scaling", data)
    run = r["this_run"].frame
    assert "cph rates are round trips per second" in set(run["value"])
    assert "run1.txt (cph raw lines)" in set(run["value"])
    made = dict(zip(*(r["how_made"].frame[c] for c in r["how_made"].frame.columns)))
    assert "MQ version: 9.4.0.0" in made["Setup stated in the files"]
    assert "platform: not stated" in made["Setup stated in the files"]


def test_one_extrapolation_is_one_answer_that_leaves():
    from mqperf.present.results import Results

    r = Results(book_data=False)
    r.answers = "tasks for the target"
    r.extrapolated("12 tasks for 60,000 msg/s in A, measured to 8")
    rows = dict(howmade.section(r).itertuples(index=False))
    assert rows["Extrapolations"].startswith("one answer leaves the measured range")
