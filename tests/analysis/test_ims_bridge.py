"""IMS bridge chapter analysis: tuning table, rates against CPUs, CF headroom."""

import numpy as np
import pandas as pd
import pytest

from mqperf.analysis import ims_bridge as ims
from mqperf.errors import DataError, ModelError


def test_tuning_table_before_after():
    table = ims.tuning_table().set_index("setting")
    # "increasing the value of the PSBW from 24 to 200 (KB)"
    assert (table.loc["PSBW", "ims_v13_before"], table.loc["PSBW", "ims_v13_after"]) == ("24 KB", "200 KB")
    assert table.loc["QBUF", "ims_v13_before"] == "5 buffers"
    assert "IMS 12: 255" in table.loc["QBUF", "other_versions"]


def test_parity_statement_becomes_a_derived_point():
    points = ims.load_points("ims_bridge_rates")
    tuned = ims.scaling_points(points).set_index("cpus")
    assert tuned.loc[3, "rate_tps"] == 11000 and tuned.loc[3, "basis"] == "derived"
    assert tuned.loc[9, "rate_tps"] == 21400


def test_book_fits_degrees_of_freedom():
    fits = ims.fit_models(ims.scaling_points(ims.load_points("ims_bridge_rates")))
    assert fits["amdahl"].df_resid == 1 and fits["bottleneck"].df_resid == 1
    # Three points, but sigma is pressed against 0 (SSR far above zero): one degree of freedom.
    assert fits["usl"].active_bounds == ("sigma",) and fits["usl"].df_resid == 1
    assert not fits["usl"].exactly_identified


def test_amdahl_recovers_known_parameters():
    n = np.arange(1, 9)
    frame = pd.DataFrame({"cpus": n, "rate_tps": 1000 * n / (1 + 0.1 * (n - 1))})
    r = ims.fit_models(frame)["amdahl"]
    assert r.lam == pytest.approx(1000, rel=1e-6) and r.sigma == pytest.approx(0.1, rel=1e-6)


def test_holdout_of_the_largest_by_hand():
    table = ims.holdout_largest(ims.scaling_points(ims.load_points("ims_bridge_rates"))).set_index("model")
    # Amdahl through (3, 11000) and (6, 19000): sigma = 3000/51000, lam = 11000 (1 + 2 sigma) / 3.
    sigma = 3000 / 51000
    lam = 11000 * (1 + 2 * sigma) / 3
    assert table.loc["amdahl", "predicted_tps"] == pytest.approx(9 * lam / (1 + 8 * sigma), rel=1e-3)
    assert table.loc["amdahl", "measured_tps"] == 21400


def test_cf_time_and_processors_by_hand():
    cf = ims.load_cf("ims_bridge_rates")
    assert cf == {"busy_pct": 75.0, "processors": 4, "rate_tps": 21400.0}
    assert ims.cf_time_per_transaction_us(cf) == pytest.approx(0.75 * 4 / 21400 * 1e6)
    assert ims.cf_processors_needed(cf, 30000, 0.5) == 9  # 30000 x 140.2 us = 4.21 CF processors busy; / 0.5
    head = ims.cf_headroom(cf, [21400], processors=[4], max_utilisation=0.5).iloc[0]
    assert head["utilisation"] == pytest.approx(0.75)
    assert head["p_wait"] == pytest.approx(0.5094, abs=1e-3)  # Erlang C(4 servers, 3 erlangs)
    with pytest.raises(ModelError):
        ims.cf_headroom(cf, [21400], processors=[4], max_utilisation=1.5)


def test_reader_file(tmp_path):
    path = tmp_path / "cpus.csv"
    path.write_text("cpus,rate_tps,cf_busy_pct,cf_processors\n2,5000,,\n4,9000,,\n8,14000,60,2\n")
    points = ims.load_points(str(path))
    assert len(ims.scaling_points(points)) == 3
    assert ims.load_cf(str(path)) == {"busy_pct": 60.0, "processors": 2, "rate_tps": 14000.0}
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"cpus": [2]}).to_csv(bad, index=False)
    with pytest.raises(DataError, match="rate_tps"):
        ims.load_points(str(bad))
    one = tmp_path / "one.csv"
    pd.DataFrame({"cpus": [2, 2], "rate_tps": [5000, 5100]}).to_csv(one, index=False)
    with pytest.raises(ModelError):
        ims.fit_models(ims.load_points(str(one)))
