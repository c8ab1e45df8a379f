"""The log disk chapter on the book's data and on every tool format it reads.

Provenance: every book number the chapter shows is recomputed here from the datasets (the
derived time per write from the MQ vs MQLDT readings, MQ's write figures from Tables 12–14, the
V9.3 RR-BB rows of Table 7), and the numbers its about-passages state are found in the data or
the report's text.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the shared chapter test helpers (props)
import props  # noqa: E402
from mqperf.chapters.log_disk import fits as f
from mqperf.chapters.log_disk import text as words
from mqperf.data import ingest, loader, views
from mqperf.present.results import Missing

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT.parent / "shared" / "sources" / "ibm-mqperf" / "mqio_v1.txt"


@pytest.fixture(scope="module")
def book():
    from mqperf import chapters, parameters

    return chapters.module("log_disk").analyse(parameters.effective("log_disk", None, {}).values)


def test_the_view_derives_each_time_per_write_from_the_chart_readings():
    raw = loader.load("mqio_mq_vs_mqldt_chart")
    view = views.open("mqio_mq_vs_mqldt_chart", "log_disk")
    assert len(view) == len(raw) == 121
    expected = raw["block_size_bytes"] / (raw["mqldt_mb_s"] * 1e6) * 1e6
    assert np.allclose(view["avg_latency_us"], expected)
    assert np.allclose(view["mq_bytes_s"], raw["mq_mb_s"] * 1e6)
    assert set(raw["basis"]) == {"chart"} and set(view["basis"]) == {"derived"}
    assert view["series"].nunique() == raw["figure"].nunique() == 11


def test_mqs_log_writes_are_the_printed_tables_12_to_14():
    raw = loader.load("mqio_log_device_results")
    view = views.open("mqio_log_device_results", "log_disk", "amqsrua")
    rows = raw[raw["table_no"].isin([12, 13, 14]) & raw["device"].isin(["Local HDD", "SAN", "NFS-1G", "NFS-10G"])]
    assert len(view) == len(rows) == 36
    assert set(rows["basis"]) == {"measured"}
    assert np.array_equal(view["write_latency_us"].to_numpy(), rows["latency_us"].to_numpy(dtype=float))
    assert np.allclose(view["write_size_bytes"], rows["write_size_kb"] * 1000)
    # Each device is matched to its own 1GiB-log MQLDT figure.
    for device, figure in (("Local HDD", 7), ("SAN", 14), ("NFS-1G", 20), ("NFS-10G", 21)):
        assert all(s.endswith(f"(Figure {figure})") for s in view.loc[rows["device"].to_numpy() == device, "series"])


def test_the_published_table_is_table_7_and_its_derived_columns_recompute(book):
    raw = loader.load("xlinux93_rr_bb_peak")
    t7 = raw[raw["table_no"] == 7]
    shown = book["published"].frame
    assert len(shown) == len(t7) == 12
    assert list(shown["round trips/s"]) == list(t7["rate_rt_s"].astype(float))
    assert list(shown["CPU %"]) == list(t7["cpu_pct"].astype(float))
    ssd = t7[t7["log_device"] == "SSD"].set_index("size_bytes")["rate_rt_s"]
    for row, (_, src) in zip(shown.to_dict("records"), t7.iterrows()):
        assert row["% of SSD"] == pytest.approx(100 * src["rate_rt_s"] / ssd[src["size_bytes"]])
        assert row["log bytes/s at least (MB/s)"] == pytest.approx(2 * src["rate_rt_s"] * src["size_bytes"] / 1e6)
    # The sentence's 2KB SSD rate is the printed 171,103.
    assert "171,000 per second with the log on SSD" in book.sentences()["published_reading"]


def test_the_about_passages_state_only_numbers_in_the_data():
    chart = loader.load("mqio_mq_vs_mqldt_chart")
    assert chart["chart_uncertainty"].str.contains("one drawing unit of the vector chart").all()
    assert sorted(chart["figure"].unique()) == [7, 8, 11, 12, 14, 15, 16, 17, 18, 20, 21]
    setup = loader.load("mqio_test_setup")
    assert setup["value"].str.contains("V9.0.4").any() and setup["value"].str.contains("x3550, 2x14 Cores").any()
    if SOURCE.exists():
        assert "Paul Harris" in SOURCE.read_text(encoding="utf-8")


def test_every_erratum_on_the_chapters_datasets_is_linked():
    errata = pd.read_csv(ROOT / "data" / "errata.csv")
    read = ("mqio_mq_vs_mqldt_chart", "mqio_log_device_results", "xlinux93_rr_bb_peak")
    hits = errata[errata["affects"].fillna("").apply(lambda a: any(d in a.split() for d in read))]
    linked = words.ABOUT + words.ABOUT_V93
    for eid in hits["erratum_id"]:
        assert f"errata-{eid.lower()}" in linked, eid


def test_the_book_run_is_honest_and_fits_every_figure(book):
    props.assert_report_is_honest(book, book.fit_results)
    assert len(book.fit_results) == 11
    assert not isinstance(book["mq_check"], Missing) and len(book["mq_check"].frame) == 36
    plan = book["plan"].frame
    assert (plan["write size (bytes)"] == 60 * 2048).all()


@pytest.mark.parametrize("name", ["mqldt/vm_run_6bsizes.csv", "mqldt/vm_run_3bsizes_C_locale.stdout.txt",
                                  "mqldt/vm_run_mqldt-c_style_qm1-3.csv", "fio/vm_run_mqlog_5bsizes.json",
                                  "fio/vm_run_mqlog_5bsizes.txt"])
def test_each_tool_file_alone_makes_a_report(reference_dir, name):
    path = reference_dir / "formats" / name
    routed = ingest.route("log_disk", [path])
    assert list(routed) == ["data"]
    r = props.run("log_disk", path)
    props.assert_report_is_honest(r, r.fit_results)
    assert not r.book_data and r["about"] is None and r["about_v93"] is None
    assert isinstance(r["mq_check"], Missing)


def test_one_block_size_per_series_gives_a_range_not_a_fit(reference_dir):
    r = props.run("log_disk", reference_dir / "formats" / "mqldt" / "vm_run_mqldt-c_style_qm1-3.csv")
    assert not r.fit_results
    plan = r["plan"].frame
    assert plan["persistent msg/s"].isna().all() and (plan["msg/s lower"] < plan["msg/s upper"]).all()
    assert "cannot be split" in r.sentences()["fit_reading"]
    assert r.extrapolations  # 122,880-byte writes against a 131,072-byte test


def test_amqsrua_beside_mqldt_checks_the_model(reference_dir, tmp_path):
    mqldt = reference_dir / "formats" / "mqldt" / "vm_run_6bsizes.csv"
    amqsrua = reference_dir / "formats" / "amqsrua" / "devibm_2018-04-12_colinpaice_DISK_Log.txt"
    values, _ = ingest.prepare("log_disk", [mqldt, amqsrua], tmp_path)
    assert set(values) == {"data", "amqsrua"}
    r = props.run("log_disk", values["data"], amqsrua=values["amqsrua"])
    check = r["mq_check"].frame
    assert len(check) >= 1 and (check["disk model"] == f.ALL).all()
    props.assert_report_is_honest(r, r.fit_results)


def test_the_example_is_said_to_be_synthetic():
    r = props.run("log_disk", ROOT / "data" / "examples" / "log_disk.csv")
    assert "**synthetic**" in r.sentences()["read"]
    assert set(r.fit_results) == {"local NVMe", "SAN volume"}


def test_the_printed_sample_is_mqldts_printed_output(book):
    raw = loader.load("mqio_mqldt_sample").set_index("statistic")
    view = views.open("mqio_mqldt_sample", "log_disk", "sample").iloc[0]
    assert view["blocksize_bytes"] == 131072 and view["duration_s"] == 20
    assert view["avg_latency_us"] == raw.loc["Avg latency of write (ns)", "latency_ns"] / 1000 == 415.704
    assert view["avg_bytes_s"] == raw.loc["Avg bytes/sec written to files", "bytes_s"]
    shown = book["sample"].frame
    assert list(shown["fitted sweep"]) == ["SAN, 1GiB log, 2KiB messages (Figure 14)",
                                           "SAN, 4GiB log, 2KiB messages (Figure 15)"]
    assert (shown["one block: msg/s lower"] < shown["one block: msg/s upper"]).all()
    assert "416 µs each (printed)" in book.sentences()["sample_reading"]
