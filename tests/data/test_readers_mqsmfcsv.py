"""MQSMFCSV output (SMF 115/116 as CSV) read into the statistics chapter's rows.

Expected values are read by eye from the real samples in ../shared/reference-data/formats/mqsmfcsv/.
"""

import pytest

from mqperf.data import ingest, readers
from mqperf.data.readers import mqsmfcsv
from mqperf.errors import DataError


@pytest.fixture
def folder(reference_dir):
    return reference_dir / "formats" / "mqsmfcsv"


def _stats(path):
    files = [p for p in readers.expand([path]) if readers.detect(p) is not None]
    return mqsmfcsv.to_statistics(mqsmfcsv.read(files))


def test_every_csv_of_every_sample_folder_is_recognised(folder):
    for sub in ("csv_SMF_MQ1000", "csv_TESTCHL", "csv_TEST115_TEST116"):
        for path in sorted((folder / sub).iterdir()):
            assert readers.detect(path).name == "mqsmfcsv", path.name
    assert readers.detect(folder / "formatter_log_TESTCHL.txt") is None
    assert readers.detect(folder / "headers_all_tables_all_runs.txt") is None


def test_mq10_sample(folder):
    frame = _stats(folder / "csv_SMF_MQ1000")
    assert len(frame) == 48 and set(frame["qmgr"]) == {"MQ1O", "MQ31", "MQ1A", "MQ51", "MQ52", "MQ53"}
    # SMF-QMST.csv line 5: MQ1O, interval start 16:29:10,006619, Put 4, Put1 0, Get 55, PersPuts 1;
    # SMF-QJST.csv line 5: Log_CI 22 (× 4096 bytes); the record's time is 16:30:10,000000.
    row = frame[(frame["qmgr"] == "MQ1O") & (frame["start"] == "2026-05-21T16:29:10.006619")].iloc[0]
    assert (row["puts"], row["gets"], row["persistent_puts"], row["log_write_bytes"]) == (4, 55, 1, 22 * 4096)
    assert row["interval_s"] == pytest.approx(59.993381)
    assert row["source"] == "SMF-QMST.csv:5"


def test_mq8_samples_and_fields_older_records_lack(folder):
    one = _stats(folder / "csv_TEST115_TEST116")
    row = one.iloc[0]  # TEST115_SMF-QMST.csv: Put 474421, Put1 147, Get 1185931, PersPuts -1 (absent in MQ 8)
    assert (row["qmgr"], row["puts"], row["gets"]) == ("MQPC", 474568, 1185931)
    assert "persistent_puts" not in one
    assert any("-1" in n for n in one.attrs["notes"])
    chl = _stats(folder / "csv_TESTCHL")
    assert len(chl) == 16 and chl.iloc[3]["puts"] == 103


def test_a_blank_interval_start_is_not_data(folder, tmp_path):
    lines = (folder / "csv_TESTCHL" / "SMF-QMST.csv").read_text().splitlines()
    lines[2] = lines[2].replace('"2016/02/27","18:01:33,545616"', '"",""')
    edited = tmp_path / "SMF-QMST.csv"
    edited.write_text("\n".join(lines) + "\n")
    frame = mqsmfcsv.to_statistics(mqsmfcsv.read([edited]))
    assert len(frame) == 15 and any("zero STCK" in n for n in frame.attrs["notes"])


def test_durations_are_seconds_plus_microseconds(folder):
    wtas = mqsmfcsv.read([folder / "csv_TEST115_TEST116" / "TEST116_SMF-WTAS.csv"]).attrs["structures"]["WTAS"]
    import pandas as pd

    s = mqsmfcsv.duration_s(wtas, "Commit_CT")
    expected = pd.to_numeric(wtas["Commit_CT(S)"]) + pd.to_numeric(wtas["Commit_CT(US)"]) / 1e6
    assert s.tolist() == expected.tolist()


def test_a_folder_without_statistics_and_sql_mode_say_what_they_are(folder, tmp_path):
    only = tmp_path / "smf"
    only.mkdir()
    (only / "SMF-QCST.csv").write_text((folder / "csv_TESTCHL" / "SMF-QCST.csv").read_text())
    with pytest.raises(DataError, match="found MQSMFCSV QCST files; the chapter needs SMF 115 statistics"):
        ingest.convert(ingest.route("qm_statistics", [only])["data"], "qm_statistics")
    with pytest.raises(DataError, match=r"found MQSMFCSV SQL-mode rows \(-f sql; run mqsmfcsv without it\)"):
        ingest.convert(ingest.route("qm_statistics", [folder / "ddl" / "sqlmode_SMF-QJST.first5rows.csv"])["data"],
                       "qm_statistics")


def test_a_truncated_row_is_one_line(folder, tmp_path):
    text = (folder / "csv_TESTCHL" / "SMF-QMST.csv").read_text().splitlines()
    bad = tmp_path / "SMF-QMST.csv"
    bad.write_text("\n".join(text[:3] + [text[3] + ',1,2,3,4']) + "\n")
    with pytest.raises(DataError) as err:
        mqsmfcsv.read([bad])
    assert "\n" not in str(err.value)


def test_contract_csvs_are_not_claimed(root):
    for example in sorted((root / "data" / "examples").glob("*.csv")):
        assert readers.detect(example) is None, example.name


def test_the_setup_the_smf_records_state_goes_with_the_rows(folder):
    # Every SMF-*.csv row: LPAR "MV4A", MQ_Version ="100000" (10.0.0); Interval_Duration 59 to 1799,
    # most rows 60 (the 1-minute statistics). TEST115: MQ_Version ="800", LPAR H019, one 1792 s interval.
    setup = _stats(folder / "csv_SMF_MQ1000").attrs["setup"]
    assert setup["MQ version"] == "MQ 10.0.0" and setup["platform"] == "z/OS (SMF records), LPAR MV4A"
    assert setup["interval length"] == "59 to 1,799 s (most often 60 s)"
    assert "MQ51" in setup["queue managers"]
    old = _stats(folder / "csv_TEST115_TEST116").attrs["setup"]
    assert (old["MQ version"], old["interval length"], old["queue managers"]) == ("MQ 8.0.0", "1,792 s", "MQPC")
