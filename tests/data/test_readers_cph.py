"""cph raw output and cphtestp results.csv read into the task-scaling chapter's rows.

No public raw cph output exists (../shared/reference-data/formats/cph/FORMAT.md), so the raw lines
here are written by the tests in cph's printf formats: ``rate=%.2f,threads=%u`` (optionally
``id=N,`` first) and ``totalIterations=%u,totalSeconds=%.2f,avgRate=%.2f``. The cphtestp snippet
is the real README sample; the sweep built from it adds rows written in the same format.
"""

import pytest

from mqperf.data import ingest, readers
from mqperf.data.readers import cph
from mqperf.errors import DataError


def _run(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_one_file_per_thread_count_is_a_sweep(tmp_path):
    files = [_run(tmp_path, f"cph-{t}.txt", [f"rate={r * 0.5:.2f},threads={t}", f"rate={r:.2f},threads={t}",
                                              f"totalIterations={int(r * 60)},totalSeconds=60.00,avgRate={r:.2f}"])
             for t, r in ((1, 1000.0), (2, 1900.0), (4, 3400.0))]
    assert all(readers.detect(f).name == "cph-raw" for f in files)
    frame = ingest.convert(ingest.route("kafka_task_scaling", files)["data"], "kafka_task_scaling").frame
    assert frame["tasks"].tolist() == [1, 2, 4] and frame["rate_msg_s"].tolist() == [1000.0, 1900.0, 3400.0]
    assert frame["source"].tolist() == ["cph-1.txt:3", "cph-2.txt:3", "cph-4.txt:3"]


def test_processes_add_up_and_intervals_stand_in_for_a_missing_total(tmp_path):
    two = _run(tmp_path, "two.txt", ["id=1,rate=500.00,threads=4", "id=2,rate=520.00,threads=4",
                                     "id=1,totalIterations=30000,totalSeconds=60.00,avgRate=500.00",
                                     "id=2,totalIterations=31200,totalSeconds=60.00,avgRate=520.00"])
    row = cph.read_raw([two]).iloc[0]
    assert (row["tasks"], row["rate_msg_s"], row["processes"]) == (8, 1020.0, 2)
    cut = _run(tmp_path, "cut.txt", ["rate=100.00,threads=2", "rate=300.00,threads=2", "rate=310.00,threads=2"])
    frame = cph.read_raw([cut])
    assert frame.iloc[0]["rate_msg_s"] == pytest.approx(305.0)  # the ramp-up interval is left out
    assert any("ramp-up" in n for n in readers.notes(frame))
    per_thread = _run(tmp_path, "sp.txt", ["(250\t251\t249\t250) rate=1000.00,threads=4"])
    assert cph.read_raw([per_thread]).iloc[0]["tasks"] == 4


def test_cphtestp_readme_sample(reference_dir, tmp_path):
    path = reference_dir / "formats" / "cphtestp_results_readme_sample.txt"
    assert readers.detect(path).name == "cphtestp-results"
    row = cph.read_cphtestp([path]).iloc[0]  # "1,2048,1,1150.56,1.35,0.00,0.00,0.06,0.05,2.70"
    assert (row["series"], row["tasks"], row["rate_msg_s"], row["qm_cpu_pct"]) == ("persistent 2048 bytes", 1, 1150.56, 2.70)
    # A sweep: the real snippet's lines, then rows written in the same format.
    lines = path.read_text().splitlines()
    more = ["1,2048,2,2150.10,2.40,0.00,0.00,0.11,0.09,5.10", "1,2048,4,3790.00,4.20,0.00,0.00,0.20,0.16,9.30"]
    sweep = _run(tmp_path, "results.csv", lines + more)
    frame = ingest.convert(ingest.route("kafka_task_scaling", [sweep])["data"], "kafka_task_scaling").frame
    assert frame["tasks"].tolist() == [1, 2, 4]


def test_bad_cph_files(tmp_path):
    with pytest.raises(DataError, match="thread count is unknown"):
        cph.read_raw([_run(tmp_path, "t.txt", ["totalIterations=10,totalSeconds=1.00,avgRate=10.00"])])
    bad = _run(tmp_path, "r.csv", ["# Persistence, Msg Size, Threads, Rate (RT/s), Client CPU, IO Read (MB/s), "
                                    "IO Write (MB/s), Net Recv (Gb/s), Net Send (Gb/s), QM CPU", "1,2048,x,5,1,0,0,0,0,1"])
    with pytest.raises(DataError, match="not a number"):
        cph.read_cphtestp([bad])


def test_contract_csvs_are_not_claimed(root):
    for example in sorted((root / "data" / "examples").glob("*.csv")):
        assert readers.detect(example) is None, example.name


def test_the_rate_keeps_its_unit_round_trips_per_second(reference_dir, tmp_path):
    path = reference_dir / "formats" / "cphtestp_results_readme_sample.txt"
    rows = ingest.convert(ingest.route("kafka_task_scaling", [path])["data"], "kafka_task_scaling")
    assert rows.frame["series"].tolist() == ["persistent 2048 bytes, round trips/s"]
    assert any("round trips per second" in n for n in rows.notes)
    assert rows.frame.attrs["setup"]["run started"] == "Tue Oct 16 15:47:52 UTC 2018"
    raw = cph.read_raw([_run(tmp_path, "c.txt", ["rate=10.00,threads=1",
                                                 "totalIterations=600,totalSeconds=60.00,avgRate=10.00"])])
    assert raw["rate_unit"].tolist() == ["cph iterations/s"] and raw.attrs["setup"]["run length"] == "60 s"
    assert any("Requester" in n for n in readers.notes(raw))


def test_cphtestp_feeds_request_reply_with_littles_law_response_times(reference_dir, tmp_path):
    lines = (reference_dir / "formats" / "cphtestp_results_readme_sample.txt").read_text().splitlines()
    sweep = _run(tmp_path, "results.csv", lines + ["1,2048,4,3790.00,4.20,0.00,0.00,0.20,0.16,9.30"])
    conv = ingest.convert(ingest.route("request_reply", [sweep])["data"], "request_reply")
    frame = conv.frame
    assert frame["clients"].tolist() == [1, 4] and frame["rate_msg_s"].tolist() == [1150.56, 3790.0]
    # No response time in the file: threads / rate, in ms (1 / 1150.56 s = 0.869 ms).
    assert frame["response_time_ms"].tolist() == pytest.approx([1000 / 1150.56, 4000 / 3790.0])
    assert any("Little's law" in n for n in conv.notes)
