"""Every tool format runs through a chapter to a report from its real sample (cph from lines this
test writes in cph's printf formats: no public raw sample exists)."""

import json

import pytest

F = "formats/"
AMQSRUA = F + "amqsrua/devibm_2018-04-12_colinpaice_DISK_Log.txt"
CASES = [
    ("amqsrua", "nativeha_storage", [AMQSRUA]),
    ("mqldt-text", "nativeha_storage", [AMQSRUA, F + "mqldt/vm_run_6bsizes_en_US_locale.stdout_stderr.txt"]),
    ("mqldt-csv", "nativeha_storage", [AMQSRUA, F + "mqldt/vm_run_mqldt-c_style_qm1-3.csv"]),
    ("fio-json", "nativeha_storage", [AMQSRUA, F + "fio/vm_run_mqlog_5bsizes.json"]),
    ("fio-text", "nativeha_storage", [AMQSRUA, F + "fio/vm_run_mqlog_5bsizes.txt"]),
    ("amqsevt-json", "qrep_channel", [F + "amqsevt/statistics_channel_datadog_sandbox.json"]),
    ("amqsevt-json", "qm_statistics", [F + "amqsevt/statistics_mqi_datadog_sandbox.json"]),
    ("mqsmfcsv", "qm_statistics", [F + "mqsmfcsv/csv_SMF_MQ1000"]),
    ("rmf-dds-xml", "kafka_latch_cpus", [F + "rmf/pp_cpu_activity.xml"]),
    ("kafka-perf-test", "kafka_message_size",
     [F + "kafka/producer_ably77_DCOS-Kafka-Performance_README_c723e1b_recordsize_sweep.txt"]),
    ("cphtestp-results", "kafka_task_scaling", ["cphtestp"]),
    ("cph-raw", "kafka_task_scaling", ["cph"]),
]


def _written(kind, reference_dir, tmp_path):
    if kind == "cph":  # printf formats of mq-cph ControlThread.cpp (formats/cph/FORMAT.md)
        out = []
        for threads, rate in ((1, 1150.0), (2, 2150.0), (4, 3800.0), (8, 5600.0), (16, 6400.0)):
            path = tmp_path / f"cph-{threads}.txt"
            path.write_text(f"rate={rate * 0.7:.2f},threads={threads}\nrate={rate:.2f},threads={threads}\n"
                            f"totalIterations={int(rate * 60)},totalSeconds=60.00,avgRate={rate:.2f}\n")
            out.append(path)
        return out
    # The real cphtestp snippet, then rows written in the same results.csv format.
    lines = (reference_dir / "formats" / "cphtestp_results_readme_sample.txt").read_text().splitlines()
    more = [f"1,2048,{t},{r:.2f},1.0,0.00,0.00,0.10,0.10,5.0" for t, r in ((2, 2150.1), (4, 3790.0), (8, 5540.0), (16, 6310.0))]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(lines + more) + "\n")
    return [path]


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "chapter", "files"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_tools_real_output_runs_to_a_report(tmp_path, reference_dir, warm_mqperf, fmt, chapter, files):
    paths = _written(files[0], reference_dir, tmp_path) if files[0] in ("cph", "cphtestp") else \
        [reference_dir / f for f in files]
    out = tmp_path / "report"
    status, stdout, err = warm_mqperf("run", chapter, "--data", *paths, "--out", out)
    assert status == 0, err
    assert (out / f"{chapter}.html").is_file()
    record = json.loads((out / "inputs" / "conversion.json").read_text())
    assert fmt in [name for entry in record for name in entry["formats"]]
    assert "read as" in stdout
