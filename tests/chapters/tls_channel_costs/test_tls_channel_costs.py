"""TLS channel costs: the renegotiation model solved from seed 002's ratios, readers' files,
SSLRKEYC planning, and what the report says (and does not say) on each."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.chapters.tls_channel_costs import fits as tfits
from mqperf.chapters import tls_channel_costs as chapter
from mqperf.errors import DataError, ModelError
from mqperf.models import tls
import props  # noqa: E402

KB, MB = 1024, 1024 * 1024
BOOK = "tls_channel_costs"
#: The book's dataset of the article's cost ratios (named apart from the chapter and its contract).
RATIOS = "tls_cost_changes"


def write(tmp_path, frame, name="mine.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def ratios(a, s0, sizes, ks):
    """ratio = 1 + a (s/K) / (1 + s/s0), computed here."""
    s, k = np.asarray(sizes, float), np.asarray(ks, float)
    return 1 + a * (s / k) / (1 + s / s0)


@pytest.fixture(scope="module")
def book():
    from mqperf import parameters

    return chapter.analyse(parameters.effective(BOOK, None, {}).values)


def frame_of(r, key):
    return r.items[key].frame


def test_book_renegotiation_rows():
    runs = tfits.load_runs(RATIOS)
    assert list(runs["message_size_bytes"]) == [10 * KB, MB]
    # Renegotiating every 1MB: a 10KB message carries 10/1024 of one; a 1MB message one ("every message").
    assert_allclose(runs["renegotiations_per_msg"], [10 / 1024, 1.0])
    # H in units of that size's cost: (2.5 - 1) * 1024/10 and (6 - 1) * 1.
    assert_allclose(runs["handshake_over_enc"], [153.6, 5.0])
    assert list(runs["qualifier"]) == ["", "nearly"]


def test_book_fit_solves_the_two_ratios_exactly(book):
    res = tfits.fit(tfits.load_runs(RATIOS))
    assert res.exactly_identified and res.size_model
    # Closed form: h_i (1 + s_i/s0) = a for both sizes.
    h1, h2, s1, s2 = 153.6, 5.0, 10 * KB, MB
    s0 = (h2 * s2 - h1 * s1) / (h1 - h2)
    assert_allclose(res.params["s0"], s0, rtol=1e-6)
    assert_allclose(res.params["a"], h1 * (1 + s1 / s0), rtol=1e-6)
    assert_allclose(res.fittedvalues, [2.5, 6.0], rtol=1e-8)
    assert_allclose(res.derived()["enc_1MB_over_enc_10KB"], 153.6 / 5, rtol=1e-6)
    # The report says so, and says why there is no leave-one-out table.
    assert "exactly identified" in book.sentences()["fit_text"]
    assert "No independent check exists" in book.sentences()["loo"]
    derived = frame_of(book, "derived").set_index("message size")
    assert_allclose(derived.loc["1MB", "over the 10KB cost"], 153.6 / 5, rtol=1e-6)


def test_sslrkeyc_for_target_at_the_measured_sizes(book):
    res = tfits.fit(tfits.load_runs(RATIOS))
    # 5 % at 10KB: K = H s / (0.05 enc) = 153.6 * 10240 / 0.05 bytes = 30 MB.
    assert_allclose(res.sslrkeyc_for(0.05, 10 * KB), 153.6 * 10 * KB / 0.05, rtol=1e-6)
    assert_allclose(res.sslrkeyc_for(0.05, MB), 5 * MB / 0.05, rtol=1e-6)
    plan = frame_of(book, "plan").set_index("message size")
    assert_allclose(plan.loc[["10KB", "1MB"], "smallest SSLRKEYC (MB)"], [30, 100], rtol=1e-6)
    assert "at least 100 MB" in book.sentences()["plan_text"]


def test_channel_plan_renegotiations_per_second(book):
    plan = frame_of(book, "channel")
    assert_allclose(plan["renegotiations per s"], [50, 1, 0.1])
    assert_allclose(plan["renegotiation cost (%)"], [500, 10, 1], rtol=1e-6)
    # Issue 21, §2.3: seed 003's 380 µs (another machine and year) no longer prices a CPU column; no source
    # states a negotiation's CPU for the ratios' machine, so the book's own run prints none.
    assert not any("CPU" in c for c in plan.columns)
    text = book.sentences()["channel_text"]
    assert "no CPU column" in text and "380" not in text
    # By the model a renegotiation is 5 times a 1MB message's TLS work, so 380 µs would put that work at 76 µs.
    connect = frame_of(book, "connect")
    assert_allclose(connect["1MB message's TLS cost if this were H (µs)"].iloc[0], 380 / 5, rtol=1e-9)


def test_handshake_given_is_the_assumption_and_none_drops_the_column(tmp_path):
    path = data_file(tmp_path)
    given = props.run(BOOK, path, handshake_us=250)
    plan = frame_of(given, "channel")
    assert_allclose(plan["negotiation CPU at your handshake_us (CPU s per hour)"],
                    plan["renegotiations per s"] * 250e-6 * 3600, rtol=1e-9)
    assert "`handshake_us`" in given.sentences()["channel_text"]
    none = props.run(BOOK, path)
    assert not any("CPU" in c for c in frame_of(none, "channel").columns)
    assert "no CPU column" in none.sentences()["channel_text"]


def data_file(tmp_path, a=300, s0=50_000):
    sizes = [4 * KB, 4 * KB, 64 * KB, 64 * KB, MB, MB]
    ks = [MB, 10 * MB, MB, 10 * MB, 10 * MB, 100 * MB]
    return write(tmp_path, pd.DataFrame({"message_size_bytes": sizes, "sslrkeyc_bytes": ks,
                                         "cost_ratio": ratios(a, s0, sizes, ks)}))


def test_reader_file_recovers_parameters_and_validates(tmp_path):
    r = props.run(BOOK, data_file(tmp_path))
    params = frame_of(r, "parameters").set_index("parameter")
    assert_allclose(params.loc[["a", "s0"], "estimate"], [300, 50_000], rtol=1e-5)
    loo = frame_of(r, "loo")
    assert len(loo) == 6
    assert_allclose(loo["error (%)"].astype(float), 0, atol=1e-3)
    assert "exactly identified" not in " ".join(r.sentences().values())
    props.assert_report_is_honest(r)


def test_reader_report_has_no_published_specifics(tmp_path):
    r = props.run(BOOK, data_file(tmp_path))
    text = " ".join(r.sentences().values())
    for published in ("380", "nearly 6", "2014", "z14", "TRIPLE_DES"):
        assert published not in text
    assert r.items["hardware"] is None and r.items["examples"] is None
    assert "`published` is empty" in r.sentences()["size"]
    assert "6 cost ratios" in r.sentences()["measured_text"]


def test_one_size_gives_h_at_that_size_only(tmp_path):
    frame = pd.DataFrame({"message_size_bytes": [10 * KB, 10 * KB], "sslrkeyc_bytes": [MB, 4 * MB],
                          "cost_ratio": [1 + 0.5 * 10 / 1024 * 100, 1 + 0.5 * 10 / 4096 * 100]})
    runs = tfits.load_runs(write(tmp_path, frame))
    res = tfits.fit(runs)
    assert not res.size_model
    assert_allclose(res.params["h"], 50, rtol=1e-9)
    with pytest.raises(ModelError, match="one message size"):
        res.enc(MB)
    r = props.run(BOOK, write(tmp_path, frame), message_size_bytes=MB)
    assert "one message size" in r.sentences()["fit_text"]
    assert "cannot answer for 1MB" in r.sentences()["plan_text"]
    assert list(frame_of(r, "plan")["message size"]) == ["10KB"]


def test_bad_ratios_and_files(tmp_path):
    with pytest.raises(ModelError, match="cheaper"):
        tls.fit_renegotiation([[10 * KB, MB]], [0.9])
    path = write(tmp_path, pd.DataFrame({"message_size_bytes": [10], "cost_ratio": [2.0]}))
    with pytest.raises(DataError, match="sslrkeyc_bytes"):
        tfits.load_runs(path)


def test_sensitivity_to_nearly_six(book):
    s = frame_of(book, "sensitivity").set_index("reading")
    alt = s.index[1]
    assert "5.5" in alt
    # With 5.5 the 1MB message carries H = 4.5 enc(1MB): K for 5 % = 4.5 MB / 0.05 = 90 MB.
    assert_allclose(s.loc[alt, "SSLRKEYC for 5 % at 1MB (MB)"], 90, rtol=1e-6)
    assert_allclose(s.loc[alt, "SSLRKEYC change (%)"], -10, rtol=1e-6)
    assert_allclose(s.loc[alt, "H / TLS cost of 1MB"], 4.5, rtol=1e-9)
    assert "falls by 10 %" in book.sentences()["sensitivity_text"]


def test_size_and_cipher_tables(book):
    size = frame_of(book, "size").set_index("message size")
    # 42 % total with the channel initiator doubling: 42 % of the baseline was channel initiator.
    assert_allclose(size.loc["10KB", "channel initiator share of baseline (%)"], 42 / (2 - 1))
    assert_allclose(size.loc["1MB", "channel initiator share of baseline (%)"], 64 / (3 - 1))
    cipher = frame_of(book, "cipher").set_index("CipherSpec")
    assert cipher.loc["TRIPLE_DES_SHA_US", "relative transfer cost"] == pytest.approx(1.3)


def test_connect_increments_are_not_presented_as_a_check(book):
    inc = frame_of(book, "connect")
    assert list(inc["TLS increment (µs)"]) == [380, 400, 380, 400]
    # The increments are printed alike for both SHARECNV values: no held-out check is claimed.
    assert "would test nothing" in book.sentences()["loo_text"]
    assert not any("predict" in k for k in book.items)
    assert [name for name, _ in book.cards] == ["tls_channel_costs__renegotiation"]


def test_size_labels():
    assert [chapter.size_label(v) for v in (1024, 10 * KB, MB, 1500)] == ["1KB", "10KB", "1MB", "1,500 bytes"]


def test_leave_one_out_says_when_a_size_cannot_be_predicted(tmp_path):
    # Two sizes, one with a single row: without it only one size is left, which says nothing about the other.
    sizes, ks = [10 * KB, 10 * KB, MB], [MB, 4 * MB, 10 * MB]
    frame = pd.DataFrame({"message_size_bytes": sizes, "sslrkeyc_bytes": ks, "cost_ratio": ratios(200, 25_000, sizes, ks)})
    r = props.run(BOOK, write(tmp_path, frame))
    loo = frame_of(r, "loo")
    last = loo[loo["message size"] == "1MB"].iloc[0]
    assert np.isnan(last["predicted"]) and "one message size" in last["note"]
    assert "could not be predicted" in r.sentences()["loo_text"]


def test_example_file_runs_honestly():
    from pathlib import Path

    example = Path(__file__).resolve().parents[3] / "data" / "examples" / "tls_channel_costs.csv"
    r = props.run(BOOK, example)
    props.assert_report_is_honest(r, {"renegotiation": tfits.fit(tfits.load_runs(str(example)))})
    assert len(frame_of(r, "loo")) == len(pd.read_csv(example))
