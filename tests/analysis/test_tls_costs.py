"""Chapter analysis for TLS channel costs: the renegotiation model solved from seed 002's
ratios, readers' files, SSLRKEYC planning, and the other TLS tables."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.analysis import tls_costs as tc
from mqperf.errors import DataError, ModelError

KB, MB = 1024, 1024 * 1024


def write(tmp_path, frame, name="mine.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def ratios(a, s0, sizes, ks):
    """ratio = 1 + a (s/K) / (1 + s/s0), computed here."""
    s, k = np.asarray(sizes, float), np.asarray(ks, float)
    return 1 + a * (s / k) / (1 + s / s0)


def test_book_renegotiation_rows():
    runs = tc.load_renegotiation("tls_channel_costs")
    assert list(runs["message_size_bytes"]) == [10 * KB, MB]
    # Renegotiating every 1MB: a 10KB message carries 10/1024 of one; a 1MB message one ("every message").
    assert_allclose(runs["renegotiations_per_msg"], [10 / 1024, 1.0])
    # H in units of that size's cost: (2.5 - 1) * 1024/10 and (6 - 1) * 1.
    assert_allclose(runs["handshake_over_enc"], [153.6, 5.0])


def test_book_fit_solves_the_two_ratios_exactly():
    res = tc.fit_from_frame(tc.load_renegotiation("tls_channel_costs"))
    assert res.exactly_identified and res.size_model
    # Closed form: h_i (1 + s_i/s0) = a for both sizes.
    h1, h2, s1, s2 = 153.6, 5.0, 10 * KB, MB
    s0 = (h2 * s2 - h1 * s1) / (h1 - h2)
    assert_allclose(res.params["s0"], s0, rtol=1e-6)
    assert_allclose(res.params["a"], h1 * (1 + s1 / s0), rtol=1e-6)
    assert_allclose(res.fittedvalues, [2.5, 6.0], rtol=1e-8)
    # Same handshake at both sizes: enc(1MB)/enc(10KB) = 153.6 / 5.
    assert_allclose(res.derived()["enc_1MB_over_enc_10KB"], 153.6 / 5, rtol=1e-6)
    table, why = tc.validation(tc.load_renegotiation("tls_channel_costs"))
    assert table.empty and "exactly identified" in why


def test_sslrkeyc_for_target_at_the_measured_sizes():
    res = tc.fit_from_frame(tc.load_renegotiation("tls_channel_costs"))
    # 5 % at 10KB: K = H s / (0.05 enc) = 153.6 * 10240 / 0.05 bytes = 30 MB.
    assert_allclose(res.sslrkeyc_for(0.05, 10 * KB), 153.6 * 10 * KB / 0.05, rtol=1e-6)
    assert_allclose(res.sslrkeyc_for(0.05, MB), 5 * MB / 0.05, rtol=1e-6)
    plan = tc.sslrkeyc_plan(res, [10 * KB, MB], 5)
    assert_allclose(plan["min_sslrkeyc_mb"], [30, 100], rtol=1e-3)


def test_channel_plan_renegotiations_per_second():
    res = tc.fit_from_frame(tc.load_renegotiation("tls_channel_costs"))
    plan = tc.channel_plan(res, size=MB, channel_mb_s=50, candidates_mb=[1, 50, 500], handshake_us=380)
    assert_allclose(plan["renegotiations_per_s"], [50, 1, 0.1])
    assert_allclose(plan["overhead_pct"], [500, 10, 1], rtol=1e-3)
    assert_allclose(plan["handshake_cpu_s_per_hour"].iloc[0], 50 * 380e-6 * 3600, rtol=1e-3)


def test_reader_file_recovers_parameters_and_validates(tmp_path):
    sizes = [4 * KB, 4 * KB, 64 * KB, 64 * KB, MB, MB]
    ks = [MB, 10 * MB, MB, 10 * MB, 10 * MB, 100 * MB]
    frame = pd.DataFrame({"message_size_bytes": sizes, "sslrkeyc_bytes": ks, "cost_ratio": ratios(300, 50_000, sizes, ks)})
    runs = tc.load_renegotiation(write(tmp_path, frame))
    res = tc.fit_from_frame(runs)
    assert not res.exactly_identified
    assert_allclose([res.params["a"], res.params["s0"]], [300, 50_000], rtol=1e-5)
    table, why = tc.validation(runs)
    assert len(table) == 6 and "leave-one-out" in why
    assert_allclose(table["error_pct"].astype(float), 0, atol=1e-3)


def test_one_size_gives_h_at_that_size_only(tmp_path):
    frame = pd.DataFrame({"message_size_bytes": [10 * KB, 10 * KB], "sslrkeyc_bytes": [MB, 4 * MB],
                          "cost_ratio": [1 + 0.5 * 10 / 1024 * 100, 1 + 0.5 * 10 / 4096 * 100]})
    res = tc.fit_from_frame(tc.load_renegotiation(write(tmp_path, frame)))
    assert not res.size_model
    assert_allclose(res.params["h"], 50, rtol=1e-9)
    with pytest.raises(ModelError, match="one message size"):
        res.enc(MB)


def test_bad_ratios_and_files(tmp_path):
    with pytest.raises(ModelError, match="cheaper"):
        tc.fit_renegotiation([[10 * KB, MB]], [0.9])
    path = write(tmp_path, pd.DataFrame({"message_size_bytes": [10], "cost_ratio": [2.0]}))
    with pytest.raises(DataError, match="sslrkeyc_bytes"):
        tc.load_renegotiation(path)


def test_sensitivity_to_nearly_six():
    runs = tc.load_renegotiation("tls_channel_costs")
    s = tc.sensitivity(runs, {"printed": {}, "5.5": {MB: 5.5}}, size=MB, target_pct=5).set_index("reading")
    # With 5.5 the 1MB message carries H = 4.5 enc(1MB): K for 5 % = 4.5 MB / 0.05 = 90 MB.
    assert_allclose(s.loc["5.5", "min_sslrkeyc_mb_1MB"], 90, rtol=1e-3)
    assert_allclose(s.loc["5.5", "enc_1MB_over_enc_10KB"], 153.6 / 4.5, rtol=1e-3)


def test_size_and_cipher_tables():
    size = tc.size_increase("tls_channel_costs").set_index("message_size")
    # 42 % total with the channel initiator doubling: 42 % of the baseline was channel initiator.
    assert_allclose(size.loc["10KB", "chin_share_of_baseline_pct"], 42 / (2 - 1))
    assert_allclose(size.loc["1MB", "chin_share_of_baseline_pct"], 64 / (3 - 1))
    cipher = tc.cipher_table("tls_channel_costs").set_index("cipher_spec")
    assert cipher.loc["TRIPLE_DES_SHA_US", "relative_transfer_cost"] == 1.3


def test_connect_increment_holdout():
    inc = tc.connect_increment("client_conn_costs")
    assert list(inc["tls_increment_us"]) == [380, 400, 380, 400]
    res, table = tc.connect_holdout(inc)
    assert res.exactly_identified
    assert list(table["predicted_us"]) == [380, 400] and (table["error_pct"] == 0).all()
    assert tc.handshake_us_from(inc) == 380


def test_size_labels():
    assert [tc.size_label(v) for v in (1024, 10 * KB, MB, 1500)] == ["1KB", "10KB", "1MB", "1,500 bytes"]


def test_leave_one_out_says_when_a_size_cannot_be_predicted(tmp_path):
    # Two sizes, one with a single row: without it only one size is left, which says nothing about the other.
    sizes, ks = [10 * KB, 10 * KB, MB], [MB, 4 * MB, 10 * MB]
    frame = pd.DataFrame({"message_size_bytes": sizes, "sslrkeyc_bytes": ks, "cost_ratio": ratios(200, 25_000, sizes, ks)})
    table, _ = tc.validation(tc.load_renegotiation(write(tmp_path, frame)))
    last = table[table["message_size"] == "1MB"].iloc[0]
    assert np.isnan(last["predicted"]) and "one message size" in last["note"]
