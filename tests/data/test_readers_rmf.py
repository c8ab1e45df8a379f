"""RMF Distributed Data Server XML read generically, and the CPU Activity report into the latch chapter's rows.

Expected values are read by eye from the real samples in ../shared/reference-data/formats/rmf/.
"""

import pytest

from mqperf.data import ingest, readers
from mqperf.data.readers import rmf
from mqperf.errors import DataError


@pytest.fixture
def folder(reference_dir):
    return reference_dir / "formats" / "rmf"


def test_every_sample_is_recognised(folder):
    for path in sorted(folder.glob("*.xml")):
        assert readers.detect(path).name == "rmf-dds-xml", path.name
    assert readers.detect(folder / "FORMAT.md") is None


def test_small_cpu_activity_report(folder):
    frame = rmf.read([folder / "pp_cpu_activity_small.xml"])
    var = frame[frame["column"] == "Avg Number of Processors Online and Unparked (N)"].iloc[0]
    assert var["number"] == 2.0 and var["start"] == "2022-04-12T00:00:00"
    assert var["interval_s"] == pytest.approx(29 * 60 + 59.997)  # report-interval 29:59:997
    row = rmf.to_latch(frame).iloc[0]
    # Two CP rows online, TOTAL/AVERAGE MVS busy 0.88, "<=N" 99.7 % of samples.
    assert (row["gp_cpus"], row["busy_pct"], row["sufficient_pct"]) == (2, 0.88, 99.7)
    assert row["label"] == "RPRT 2022-04-12T00:00:00" and row["source"] == "pp_cpu_activity_small.xml:report 1"


def test_large_report_has_one_row_per_interval(folder):
    conv = ingest.convert(ingest.route("kafka_latch_cpus", [folder / "pp_cpu_activity.xml"])["data"], "kafka_latch_cpus")
    assert len(conv.frame) == 263 and set(conv.frame["gp_cpus"]) == {2}
    assert conv.frame["label"].iloc[0] == "RPRT 2022-04-06T12:30:00"


def test_monitor_iii_is_read_but_is_not_the_cpu_report(folder):
    frame = rmf.read([folder / "m3_cpc.xml"])
    assert set(frame["kind"]) == {"Monitor III"} and frame["report"].iloc[0] == "CPC"
    assert ("CPCHPNAM", "VIRPT") in set(zip(frame["column"], frame["value"]))
    with pytest.raises(DataError, match="found RMF Monitor III CPC .*the chapter needs the Postprocessor CPU Activity"):
        rmf.to_latch(frame)


@pytest.mark.parametrize("name, code", [("pp_cpu_error.xml", "GPM0739E"), ("m3_cpc_error.xml", "GPM0731I")])
def test_error_responses_are_one_line(folder, name, code):
    with pytest.raises(DataError, match=f"returned an error instead of a report: {code}") as err:
        rmf.read([folder / name])
    assert "\n" not in str(err.value)


def test_truncated_xml(folder, tmp_path):
    cut = tmp_path / "cut.xml"
    cut.write_text((folder / "pp_cpu_activity_small.xml").read_text()[:3000])
    with pytest.raises(DataError, match="not complete XML"):
        rmf.read([cut])


def test_contract_csvs_are_not_claimed(root):
    for example in sorted((root / "data" / "examples").glob("*.csv")):
        assert readers.detect(example) is None, example.name
