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


def test_other_xml_and_an_empty_response(tmp_path):
    other = tmp_path / "other.xml"
    other.write_text("<?xml version='1.0'?><catalog><book/></catalog>")
    assert readers.detect(other) is None
    with pytest.raises(DataError, match="not an RMF DDS response"):
        rmf.read([other])
    empty = tmp_path / "empty.xml"
    empty.write_text("<ddsml><server><name>RMF-DDS-Server</name></server></ddsml>")
    with pytest.raises(DataError, match="holds no report data"):
        rmf.read([empty])


def test_an_unknown_report_is_read_generically(tmp_path):
    # A Postprocessor report of another kind, in the generic segment/part/table shape.
    xml = ("<ddsml><postprocessor><metric id='WLMGL'><description>Workload Activity</description></metric>"
           "<resource><resname>SYS1</resname></resource><time-data><display-start>11/02/2026-10.00.00</display-start>"
           "<report-interval>15:00:000</report-interval></time-data><segment id='1'><name>Service Class</name>"
           "<part id='2'><table id='3'><column-headers><col type='T'>Class</col><col type='N'>Trans Rate</col>"
           "</column-headers><row refno='1'><col>MQSTC</col><col>1,234.5</col></row></table></part></segment>"
           "</postprocessor></ddsml>")
    path = tmp_path / "wlm.xml"
    path.write_text(xml)
    frame = rmf.read([path])
    cell = frame[frame["column"] == "Trans Rate"].iloc[0]
    assert cell["number"] == 1234.5 and cell["interval_s"] == 900 and cell["start"] == "2026-11-02T10:00:00"
    with pytest.raises(DataError, match="found RMF Postprocessor Workload Activity; the chapter needs"):
        rmf.to_latch(frame)


def test_the_setup_the_responses_state(folder):
    # From the sample's own headers: <smf-data>z/OS V2R5</smf-data>, <resname>RPRT</resname>,
    # <report-interval>29:59:997</report-interval>, CPU 8562 model Z02. RMF names no MQ version.
    frame = rmf.read([folder / "pp_cpu_activity_small.xml"])
    want = {"platform": "z/OS V2R5", "interval length": "1,800 s", "system": "RPRT",
            "RMF report": "CPU Activity Report", "machine": "8562 model Z02"}
    assert frame.attrs["setup"] == want and "MQ version" not in want
    assert rmf.to_latch(frame).attrs["setup"] == want


def test_the_setup_is_of_the_reports_the_chapter_reads(folder):
    # A Monitor III CPC report (100-second range) beside the CPU Activity report: the converted
    # rows come from the CPU report, and so does the setup they carry into conversion.json.
    frame = rmf.read([folder / "pp_cpu_activity_small.xml", folder / "m3_cpc.xml"])
    assert frame.attrs["setup"]["interval length"] == "100 s to 1,800 s (2 lengths)"
    conv = ingest.convert([(folder / "pp_cpu_activity_small.xml", readers.by_name("rmf-dds-xml")),
                           (folder / "m3_cpc.xml", readers.by_name("rmf-dds-xml"))], "kafka_latch_cpus")
    assert conv.frame.attrs["setup"]["interval length"] == "1,800 s"
    assert conv.frame.attrs["setup"]["RMF report"] == "CPU Activity Report"
