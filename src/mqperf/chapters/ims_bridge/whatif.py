"""The IMS bridge chapter's what-if chart: Erlang C for the coupling facility under servers and rate controls."""

from __future__ import annotations

from mqperf.chapters.ims_bridge import fits as f
from mqperf.present import precision, whatif
from mqperf.present.prose import num


def add(r, cf: dict, sweep, target: float, need: int) -> None:
    """``cf_whatif`` and ``cf_whatif_text`` on ``r``: the controls start at the measured CF point."""
    per_tx = f.cf_time_per_transaction_us(cf)
    ref = sweep[sweep["cf_processors"] == cf["processors"]][["rate_tps", "wait"]]
    # The point the controls start from, as the CF table shows it (table digits, not a sentence's).
    fitted = (f"measured (fixed): {num(cf['processors'])} CF processors {num(cf['busy_pct'], precision.TABLE)} % "
              f"busy at {num(cf['rate_tps'], precision.TABLE)} tx/s; so {num(per_tx, precision.TABLE)} µs of CF time "
              "per transaction (one point: no interval)")
    chart = whatif.erlang_c(per_tx_us=per_tx, servers=cf["processors"], rate=cf["rate_tps"],
                            max_servers=max(2 * need, cf["processors"] + 8), max_rate=2 * max(target, cf["rate_tps"]),
                            reference=ref, fitted_text=fitted,
                            title="What if: CF processors and transaction rate (M/M/c, Erlang C)")
    r.chart("cf_whatif", chart)
    r.text("cf_whatif_text", (
        f"The controls start at the measured point, {num(cf['processors'])} CF processors at {num(cf['rate_tps'])} "
        "tx/s, with the CF time per transaction held at its measured value. Moving them recomputes the offered "
        "load, the share of requests that wait (Erlang C) and the mean wait in the page; the dashed curve is the "
        f"measured CF size and does not move."))


def missing(r) -> None:
    r.missing("cf_whatif", "No CF figures, so there is no queueing what-if")
    r.text("cf_whatif_text", None)
