"""The request/reply chapter: it recovers the example generator's system, flags rows off Little's law,
plans against an independent closed form, runs without the optional columns, and refuses bad files
in one line."""

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from mqperf.present.results import Missing

import props  # noqa: E402

CHAPTER = "request_reply"
EXAMPLE = ROOT / "data" / "examples" / "request_reply.csv"


def _generator():
    spec = importlib.util.spec_from_file_location("make_rr", ROOT / "tools" / "make_request_reply_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def example():
    return props.run(CHAPTER, EXAMPLE)


def test_the_example_is_the_file_the_generator_writes(tmp_path):
    gen = _generator()
    frame = gen.rows(np.random.default_rng(20261201))
    assert frame.to_csv(index=False) == EXAMPLE.read_text(encoding="utf-8")


def test_the_example_recovers_the_generators_system(example):
    gen = _generator()
    r = example
    assert "synthetic" in str(r["read"])
    props.assert_report_is_honest(r, r.fit_results)
    # The default demands, computed from the book's datasets, are the ones the generator states
    # from the same quotes (12 µs CPU, 2,580 log bytes at 22,321,743 bytes/s, a 1 ms round trip).
    demands = props.table(r, "demands").set_index("resource")["demand per request (µs)"]
    for name, seconds in gen.DEMANDS.items():
        assert demands[name] == pytest.approx(seconds * 1e6, rel=1e-9)
    summary = props.table(r, "mva_summary")
    assert (summary["bottleneck"] == gen.BOTTLENECK).all()
    assert gen.BOTTLENECK in str(r["mva_text"])
    # From the measurements alone: one client's response time is the total demand, and the best
    # rate caps the bottleneck's demand; both within the generator's ±2 % noise (two sd, and the
    # best of several noisy rates near the ceiling may exceed it by about two sd more).
    implied = props.table(r, "implied_demands")
    total_ms = sum(gen.DEMANDS.values()) * 1e3
    np.testing.assert_allclose(implied["response there (ms)"], total_ms, rtol=0.05)
    np.testing.assert_allclose(implied["D_max at most (µs)"], gen.DEMANDS[gen.BOTTLENECK] * 1e6, rtol=0.08)
    # The MVA from the defaults meets every measurement to within the noise (4 sd).
    compare = props.table(r, "mva")
    assert compare["rate error %"].abs().max() < 8 and compare["response error %"].abs().max() < 8


def test_the_example_flags_exactly_the_row_put_off_littles_law(example):
    gen = _generator()
    flagged = props.table(example, "flagged")
    assert list(zip(flagged["series"], flagged["clients"])) == [gen.OFF_LITTLE]
    line = EXAMPLE.read_text(encoding="utf-8").splitlines()[int(flagged["line"].iloc[0]) - 1]
    assert line.startswith(f"{gen.OFF_LITTLE[0]},{gen.OFF_LITTLE[1]},")
    assert str(example["little_text"]).startswith("One row disagrees with Little's law by more than 10 %")
    pts = example.points
    assert not ((pts["series"] == gen.OFF_LITTLE[0]) & (pts["clients"] == gen.OFF_LITTLE[1])).any()


def test_a_wider_tolerance_lets_the_row_in():
    r = props.run(CHAPTER, EXAMPLE, tolerance=0.6)
    assert isinstance(r["flagged"], Missing)
    assert str(r["little_text"]).startswith("Every row agrees with Little's law within 60 %")
    assert len(r.points) == len(pd.read_csv(EXAMPLE))
    props.assert_report_is_honest(r, r.fit_results)


# -- a system with an independent closed form ---------------------------------------------------

def _repairman(n: int, d: float, z: float) -> float:
    """One queue and a think time (finite-source M/M/1//N): X = (1 − p0) / d with
    p0 = 1 / Σ_k N!/(N−k)! (d/z)^k (Kleinrock, Queueing Systems vol. 1, §3.10)."""
    return (1 - 1 / sum(math.perm(n, k) * (d / z) ** k for k in range(n + 1))) / d


CPU_ONLY = {"cpu_us_per_msg": 100.0, "log_bytes_per_msg": 0.0, "network_rtt_us": 0.0, "messages_per_request": 2}


def _closed_loop(clients, d=200e-6, z=2e-3, series=None):
    x = np.array([_repairman(n, d, z) for n in clients])
    frame = pd.DataFrame({"clients": clients, "rate_msg_s": x, "response_time_ms": (np.array(clients) / x - z) * 1e3,
                          "think_time_ms": z * 1e3})
    if series:
        frame.insert(0, "series", series)
    return frame


def test_planning_and_sentences_agree_with_the_closed_form(tmp_path):
    clients = [1, 2, 4, 8, 12, 16, 24, 32]
    path = props.write(tmp_path, _closed_loop(clients, series="cpu bound"), "cpu.csv")
    r = props.run(CHAPTER, path, target_rate_msg_s=4000.0, max_response_ms=1.0, max_clients=40, **CPU_ONLY)
    props.assert_report_is_honest(r, r.fit_results)
    assert isinstance(r["flagged"], Missing)  # exact data keep Little's law exactly
    assert props.table(r, "mva_summary")["bottleneck"].tolist() == ["queue manager CPU"]
    assert "by your figures, the queue manager CPU would be the bottleneck" in str(r["mva_text"])
    compare = props.table(r, "mva")
    np.testing.assert_allclose(compare["MVA rate"], compare["measured rate"], rtol=1e-9)
    # Exact data from the figures themselves: the figures' MVA (nothing fitted) wins the ranking,
    # and the planning answers are the closed form's.
    ranking = props.table(r, "ranking")
    assert ranking.loc[ranking["accepted"], "model"].tolist() == ["MVA from your figures"]
    plan = props.table(r, "plan").set_index("model")
    x = np.array([_repairman(n, 200e-6, 2e-3) for n in range(1, 41)])
    resp_ms = (np.arange(1, 41) / x - 2e-3) * 1e3
    need = int(np.argmax(x >= 4000.0)) + 1
    most = int(np.nonzero(resp_ms <= 1.0)[0].max()) + 1
    assert plan.loc["MVA from your figures", "clients for the target"] == need
    assert plan.loc["MVA from your figures", "most clients within the limit"] == most
    text = str(r["plan_text"])
    assert f"by the MVA from your figures reaches 4,000 requests/s with {props_words(need)} client" in text
    assert f"within 1 ms up to {props_words(most)} clients" in text


def props_words(n: int) -> str:
    from mqperf.present import prose

    return prose.count(n, "x").split()[0]


def test_a_row_off_littles_law_is_flagged_and_left_out(tmp_path):
    frame = _closed_loop([1, 2, 4, 8, 16])
    frame.loc[3, "rate_msg_s"] *= 2  # a rate counted over half the window
    path = props.write(tmp_path, frame, "one_off.csv")
    r = props.run(CHAPTER, path, **CPU_ONLY)
    flagged = props.table(r, "flagged")
    assert flagged["line"].tolist() == [5] and flagged["clients"].tolist() == [8]
    assert flagged["ratio to clients"].iloc[0] == pytest.approx(2.0)
    assert 8 not in r.points["clients"].tolist()
    props.assert_report_is_honest(r, r.fit_results)


def test_a_rate_counting_messages_is_named(tmp_path):
    frame = _closed_loop([1, 2, 4, 8])
    frame["rate_msg_s"] *= 2  # request and reply counted as two messages
    r = props.run(CHAPTER, props.write(tmp_path, frame, "messages.csv"), **CPU_ONLY)
    assert "that is every row" in str(r["little_text"])
    assert "may count messages rather than requests" in str(r["little_text"])
    props.assert_report_is_honest(r, r.fit_results)


def test_missing_optional_columns_and_a_single_client_count(tmp_path):
    # One queue and no think time: saturated from the first client, X = 1/d and R = N·d.
    frame = pd.DataFrame({"clients": [1, 2, 4, 8], "rate_msg_s": 5000.0, "response_time_ms": [0.2, 0.4, 0.8, 1.6]})
    r = props.run(CHAPTER, props.write(tmp_path, frame, "bare.csv"))
    props.assert_report_is_honest(r, r.fit_results)
    assert r.points["series"].unique().tolist() == ["all"] and (r.points["think_time_ms"] == 0).all()
    assert props.table(r, "mva_summary")["think (ms)"].tolist() == [0]
    one = props.run(CHAPTER, props.write(tmp_path, frame.iloc[:1], "one.csv"))
    props.assert_report_is_honest(one, one.fit_results)
    assert "single point" in props.table(one, "fits")["identification"].iloc[0]
    assert isinstance(one["implied"], Missing)
    assert len(props.table(one, "mva")) == 1  # the MVA needs no fit


def test_no_queueing_demand_is_one_sentence_per_section(tmp_path):
    path = props.write(tmp_path, _closed_loop([1, 2, 4]), "z.csv")
    r = props.run(CHAPTER, path, cpu_us_per_msg=0.0, log_bytes_per_msg=0.0)
    for key in ("mva_summary", "mva", "utilisation", "implied_demands"):
        assert isinstance(r[key], Missing), key
    props.assert_report_is_honest(r, r.fit_results)


def test_think_times_split_a_series(tmp_path):
    frame = pd.concat([_closed_loop([1, 2, 4], z=1e-3, series="app"), _closed_loop([1, 2, 4], z=4e-3, series="app")])
    r = props.run(CHAPTER, props.write(tmp_path, frame, "split.csv"), **CPU_ONLY)
    assert sorted(r.points["series"].unique()) == ["app, think 1 ms", "app, think 4 ms"]
    assert isinstance(r["flagged"], Missing)


@pytest.mark.parametrize(("text", "column"), [
    ("clients,rate_msg_s\n1,100\n", "response_time_ms"),
    ("clients,rate_msg_s,response_time_ms\n1,100,-2\n", "response_time_ms"),
    ("clients,rate_msg_s,response_time_ms\n0,100,2\n", "clients"),
    ("clients,rate_msg_s,response_time_ms\n1,fast,2\n", "rate_msg_s"),
    ("clients,rate_msg_s,response_time_ms,think_time_ms\n1,100,2,-1\n", "think_time_ms"),
])
def test_bad_input_is_one_line_naming_file_and_column(tmp_path, text, column):
    props.assert_refused_in_one_line(CHAPTER, tmp_path / "bad.csv", text, column)
