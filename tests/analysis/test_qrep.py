"""Q Replication chapter analysis: recommended settings, bandwidth-delay bound, batches."""

import numpy as np
import pandas as pd
import pytest

from mqperf.analysis import qrep
from mqperf.errors import DataError, ModelError

DEFAULTS = dict(rtt_ms=1.0, tcp_window_bytes=65536, message_bytes=102400, batch_size=200, batchlim_kb=5000,
                link_mb_s=1250.0, commit_ms=0.0)


def test_recommended_settings_as_printed():
    rec = qrep.recommended(qrep.load_settings())
    assert rec["tcp_window_bytes"] == 65536 and rec["batch_size"] == 200  # "TCPSENDBFRSIZE 65536", "200 messages"
    assert rec["batchlim_kb"] == 5000 and rec["batchlim_kb_max"] == 100000
    assert rec["message_bytes_low"] == 10 * 1024 and rec["message_bytes_high"] == 1024 * 1024
    assert rec["ping_bytes"] == [256, 4096]


def test_batchlim_ends_batches_of_large_messages():
    assert qrep.messages_per_batch(200, 5000, 1024 * 1024) == 5  # ceil(5000 KB / 1024 KB)
    assert qrep.messages_per_batch(200, 5000, 10 * 1024) == 200
    assert qrep.messages_per_batch(200, 100000, 1024 * 1024) == 98
    with pytest.raises(ModelError):
        qrep.messages_per_batch(0, 5000, 1024)


def test_bandwidth_delay_and_batch_model_by_hand():
    row = pd.DataFrame([{**DEFAULTS, "series": "x", "message_bytes": 10240}])
    ev = qrep.evaluate(row).iloc[0]
    assert ev["window_bound_mb_s"] == pytest.approx(65536 / 0.001 / 1e6, rel=1e-3)
    batch_time = 0.001 + 200 * 10240 / (65536 / 0.001)
    assert ev["modelled_mb_s"] == pytest.approx(200 * 10240 / batch_time / 1e6, rel=1e-3)
    linked = qrep.evaluate(pd.DataFrame([{**DEFAULTS, "series": "x", "link_mb_s": 10.0}])).iloc[0]
    assert linked["limited_by"] == "link" and linked["effective_mb_s"] == 10


def test_window_needed_and_planning_answer():
    assert qrep.window_needed_bytes(50, 10) == pytest.approx(500000)
    ans = qrep.planning_answer(rtt_ms=10, window_bytes=65536, link_mb_s=1250, target_mb_s=50)
    assert not ans["target_within_bound"] and ans["channels_needed_at_this_window"] == 8  # 50 / 6.55


def test_book_scenarios_cover_the_recommended_sizes():
    sc = qrep.load_scenarios("qrep_settings", defaults=DEFAULTS)
    assert sorted(sc["message_bytes"]) == [10240, 102400, 1048576]


def test_fit_batches_recovers_known_times(tmp_path):
    b = np.array([1, 5, 20, 50, 200])
    t_c, t_m, size = 2e-3, 10240 / 50e6, 10240
    rate = b / (t_c + b * t_m) * size / 1e6
    path = tmp_path / "ch.csv"
    pd.DataFrame({"series": "ch1", "rtt_ms": 1, "tcp_window_bytes": 65536, "message_bytes": size, "batch_size": b,
                  "measured_mb_s": rate}).to_csv(path, index=False)
    sc = qrep.load_scenarios(str(path), defaults=DEFAULTS)
    fits = qrep.fit_batches(sc)
    table = qrep.batch_fit_table(fits).iloc[0]
    assert table["per_batch_ms"] == pytest.approx(2.0, rel=1e-3)
    assert table["implied_bandwidth_mb_s"] == pytest.approx(50, rel=1e-3)
    check = qrep.measured_check(sc)
    assert not check["above_bound"].any()
    loo = qrep.batch_loo(sc, fits)
    assert loo["error_pct"].abs().max() < 1e-3


def test_measured_above_the_bound_is_flagged(tmp_path):
    path = tmp_path / "fast.csv"
    pd.DataFrame({"rtt_ms": [10], "tcp_window_bytes": [65536], "message_bytes": [10240], "measured_mb_s": [20]}).to_csv(path, index=False)
    check = qrep.measured_check(qrep.load_scenarios(str(path), defaults=DEFAULTS))
    assert check["above_bound"].iloc[0]  # 20 MB/s > 6.55 MB/s: the window must have grown (dynamic right sizing)


def test_pings():
    assert qrep.link_from_pings([256, 4096], None, 0.6) is None
    link = qrep.link_from_pings([256, 4096], 0.5, 0.6)
    assert link["link_mb_s"] == pytest.approx(2 * 3840 / 0.0001 / 1e6, rel=1e-3)


def test_reader_file_needs_the_rtt(tmp_path):
    path = tmp_path / "r.csv"
    pd.DataFrame({"tcp_window_bytes": [65536], "message_bytes": [1024]}).to_csv(path, index=False)
    with pytest.raises(DataError, match="rtt_ms"):
        qrep.load_scenarios(str(path), defaults=DEFAULTS)
