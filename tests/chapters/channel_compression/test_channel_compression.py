"""Channel compression: the cost line recovers known parameters, the book's data are the report's
printed tables (provenance), planning labels extrapolation, reader files in both compressibility forms."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the shared chapter test helpers (props)
import props  # noqa: E402
from mqperf import parameters
from mqperf.chapters import channel_compression as chapter
from mqperf.data import loader
from mqperf.errors import DataError
from mqperf.models import compression

CHAPTER = "channel_compression"
ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "data" / "examples" / "channel_compression.csv"


def run_book(**over):
    return chapter.analyse({**parameters.effective(CHAPTER, None, {}).values, **over})


@pytest.fixture(scope="module")
def book():
    return run_book()


def generate(truth: dict, *, sizes=(2, 8, 16, 32, 64, 100), pcts=(0, 20, 40, 60, 80), noise=0.0, seed=0,
             reps=1) -> pd.DataFrame:
    """Runs from known lines: truth = {technique: (a, b, c)} for CPU µs; rates from 10⁶ / (20 + 0.5·S)."""
    rng = np.random.default_rng(seed)
    rows = []
    for tech, (a, b, c) in truth.items():
        for s in sizes:
            for p in ((0,) if tech == "NONE" else pcts):
                for _ in range(reps):
                    cpu = (a + b * s + c * s * p / 100) * (1 + rng.normal(0, noise) if noise else 1)
                    rows.append({"technique": tech, "message_bytes": s * 1024, "compressibility_pct": p,
                                 "cpu_us_per_tx": cpu, "rate_tx_s": 1e6 / (20 + 0.5 * s)})
    return pd.DataFrame(rows)


def test_fit_recovers_known_parameters_exactly_and_within_noise():
    s = np.repeat([2.0, 8, 32, 100], 5)
    p = np.tile([0, 0.2, 0.4, 0.6, 0.8], 4)
    y = 120 + 4.5 * s - 1.0 * s * p
    res = compression.fit(s, p, y)
    np.testing.assert_allclose(res.params.to_numpy(), [120, 4.5, -1.0], atol=1e-8)
    rng = np.random.default_rng(1)
    noisy = compression.fit(s, p, y + rng.normal(0, 2, y.size))
    ci = noisy.conf_int()
    for name, true in zip("abc", [120, 4.5, -1.0]):
        assert ci.loc[name, "lower"] <= true <= ci.loc[name, "upper"]


def test_one_compressibility_drops_the_removed_bytes_term():
    res = compression.fit([2, 8, 32, 100], [0, 0, 0, 0], [105, 120, 175, 330])
    assert list(res.params.index) == ["a", "b"] and res.notes
    band = res.band([[32, 0.4]])
    assert band["fit"].iloc[0] == pytest.approx(res.params["a"] + 32 * res.params["b"])


def test_share_from_ratio():
    np.testing.assert_allclose(compression.share_from_ratio([1, 2, 4]), [0, 0.5, 0.75])


def test_book_runs_are_the_printed_tables_with_their_quotes(book):
    """Provenance: every CPU value the runs table shows is a printed cell of Table 1 whose quote holds it,
    and every quote is in the report's text."""
    runs = props.table(book, "runs").set_index(["technique", "message (KB)"])
    cost = loader.load("zos_chcomp_cost")
    a = cost[cost["cipher"] == "unencrypted"]
    seed = ROOT.parent / "shared" / a["seed"].iloc[0]
    text = " ".join(seed.read_text(errors="replace").split()) if seed.exists() else None
    checked = 0
    for (tech, kb), row in runs.iterrows():
        for col, value in row.items():
            if pd.isna(value):
                continue
            pct = float(col.rstrip(" %"))
            hit = a[(a["compmsg"] == tech) & (a["size_kb"] == kb) & (a["compressibility_pct"] == pct)]
            assert len(hit) == 1 and hit["cpu_us"].iloc[0] == pytest.approx(value)
            assert f"{value:.2f}" in hit["quote"].iloc[0]
            if text is not None:
                assert " ".join(hit["quote"].iloc[0].split()) in text
            checked += 1
    assert checked == 6 + 3 * 30  # NONE once per size, the three techniques at five compressibilities


def test_book_rates_join_their_runs():
    frame = chapter.fits.views.open("zos_chcomp_cost", CHAPTER)
    rate = loader.load("zos_chcomp_rate")
    assert frame["rate_tx_s"].notna().all()
    row = frame[(frame["channel"] == "unencrypted") & (frame["technique"] == "ZLIBFAST")
                & (frame["message_bytes"] == 100 * 1024) & (frame["compressibility_pct"] == 0)]
    printed = rate[(rate["cipher"] == "unencrypted") & (rate["compmsg"] == "ZLIBFAST") & (rate["size_kb"] == 100)
                   & (rate["compressibility_pct"] == 0)]["rate_tx_s"]
    assert float(row["rate_tx_s"].iloc[0]) == float(printed.iloc[0]) == 7264


def test_book_plan_and_errata(book):
    props.assert_report_is_honest(book, book.fit_results)
    plan = props.table(book, "plan")
    assert plan["technique"].iloc[0] == "NONE"  # unencrypted, 32 KB at 40 %: no technique beats no compression
    assert "NONE costs least" in str(book["plan_text"])
    for e in ("e270", "e272", "e274", "e277", "e278", "e279"):
        assert f"errata-{e}" in str(book["errata"])


def test_tls_channel_makes_compression_pay_for_large_messages():
    r = run_book(channel="TLS_CHACHA20_POLY1305_SHA256", message_size_kb=100, compressibility_pct=80)
    plan = props.table(r, "plan")
    assert plan["technique"].iloc[0] != "NONE"
    props.assert_report_is_honest(r)


def test_planning_beyond_the_sizes_is_labelled(tmp_path):
    r = props.run(CHAPTER, EXAMPLE, message_size_kb=500)
    assert (props.table(r, "plan")["extrapolated"] != "").all()
    assert "(extrapolated)" in str(r["plan_text"]) and r.extrapolations
    props.assert_report_is_honest(r)


def test_ratio_and_pct_forms_agree(tmp_path):
    frame = generate({"NONE": (100, 2, 0), "ZLIBFAST": (120, 4, -1)}, noise=0.02)
    pct = props.run(CHAPTER, props.write(tmp_path, frame, "pct.csv"))
    ratio = frame.assign(compression_ratio=1 / (1 - frame["compressibility_pct"] / 100)).drop(columns="compressibility_pct")
    rat = props.run(CHAPTER, props.write(tmp_path, ratio, "ratio.csv"))
    pd.testing.assert_frame_equal(props.table(pct, "parameters"), props.table(rat, "parameters"))


def test_reader_file_without_compressibility_is_refused(tmp_path):
    frame = generate({"NONE": (100, 2, 0)}).drop(columns="compressibility_pct")
    with pytest.raises(DataError, match="compressibility_pct"):
        props.run(CHAPTER, props.write(tmp_path, frame, "no_pct.csv"))


def test_reader_report_has_no_published_specifics():
    r = props.run(CHAPTER, EXAMPLE)
    assert r["measured"] is None and r["errata"] is None and r["software"] is None
    assert "synthetic" in str(r["read"])
    props.assert_report_is_honest(r, r.fit_results)


def test_repeated_runs_give_a_lack_of_fit_test(tmp_path):
    frame = generate({"NONE": (100, 2, 0), "RLE": (110, 5, -1)}, noise=0.03, reps=2, seed=3)
    r = props.run(CHAPTER, props.write(tmp_path, frame, "reps.csv"))
    assert "F-test" in str(r["single_runs"])
    props.assert_report_is_honest(r)


@pytest.mark.slow
def test_mqperf_run_and_check_on_a_ratio_file(tmp_path, warm_mqperf):
    """`mqperf check` accepts what `mqperf run` turns into a report, here a file with compression ratios and a
    channel column of two set-ups, planned for the second."""
    frame = generate({"NONE": (100, 2, 0), "ZLIBFAST": (120, 4, -1)}, noise=0.02)
    frame = frame.assign(compression_ratio=1 / (1 - frame["compressibility_pct"] / 100)).drop(
        columns="compressibility_pct")
    both = pd.concat([frame.assign(channel="plain"), frame.assign(channel="TLS <1.3>")], ignore_index=True)
    path = props.write(tmp_path, both, "runs.csv")
    status, out, err = warm_mqperf("check", "--contract", CHAPTER, path)
    assert status == 0, err
    status, out, err = warm_mqperf("run", CHAPTER, "--data", path, "-p", "channel", "TLS <1.3>",
                                   "--out", tmp_path / "report")
    assert status == 0, err
    html = (tmp_path / "report" / f"{CHAPTER}.html").read_text()
    assert "TLS &lt;1.3&gt;" in html and "TLS <1.3>" not in html
