"""The TLS channel costs chapter's analysis: every sentence, table and chart, in order.

Orchestration only: the renegotiation model and the frames behind each table are :mod:`.fits`,
the sentences and passages :mod:`.text`, the what-if chart :mod:`.whatif`, the charts builders
of :mod:`mqperf.present.charts`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from mqperf.chapters.tls_channel_costs import CHAPTER, MB, PLAN_SIZES, fits, size_label, text, whatif
from mqperf.data import aggregate, views
from mqperf.models import tls
from mqperf.present import charts
from mqperf.present.charts import storage as storage_charts
from mqperf.present.prose import num
from mqperf.present.results import Results

OVERHEAD_TITLE = "renegotiation cost (% of the TLS cost per message)"

# digits= where a table needs other digits than its columns' units give: the published comparisons
# (size, cipher, connect) with three, as printed ("nearly 6x", 30 %); tables with a column in percent
# beside ratios and sizes (sensitivity, leave-one-out, plan, channel) with four, the unit rule giving "%" three.


def analyse(p: dict) -> Results:
    """Load, fit and plan; every sentence, table and chart of the chapter, in order."""
    source = views.describe(p["data"])
    r = Results(book_data=source.book_data, source=source.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        runs = fits.load_runs(p["data"])
        r.points = runs
        what_was_measured(r, runs)
        size_section(r, p["published"])
        result = renegotiation_section(r, runs, source)
        sensitivity_section(r, runs, result, p)
        increments = fits.load_increments(p["connect_costs"])
        validation_section(r, runs, result, increments)
        sizes = fits.answerable_sizes(result, [*PLAN_SIZES, p["message_size_bytes"]])
        r.chart("overhead_chart", storage_charts.log_lines(
            fits.overhead_curves(result, sizes), x="sslrkeyc_mb", y="overhead_pct", colour="message size",
            x_title="SSLRKEYC (MB)", y_title=OVERHEAD_TITLE,
            title="Renegotiation cost against SSLRKEYC, by message size"))
        whatif.add(r, result, p["message_size_bytes"], p["target_overhead_pct"])
        cipher_section(r, p["published"])
        connect_section(r, increments, result)
        plan_section(r, result, sizes, p["target_overhead_pct"], p["message_size_bytes"])
        channel_section(r, result, p)
    r.answers = ("the smallest SSLRKEYC for the target at each message size, and the renegotiation overhead of "
                 "each candidate SSLRKEYC")
    r.card(f"{CHAPTER}__renegotiation",
           result.to_card(name=f"{CHAPTER}: renegotiation amortisation", dataset=source.name), result)
    text.errata(r)
    return r


def _book_only(r, key: str, frame, **options) -> None:
    """A table of published specifics: shown on the book's data, nothing on a reader's."""
    if r.book_data and frame is not None and len(frame):
        r.table(key, frame, **options)
    else:
        r.text(key)


def what_was_measured(r, runs) -> None:
    r.text("measured_text", None if r.book_data else text.measured_text(runs))
    text.measured(r)
    frame = views.open("tls_crypto_hardware", CHAPTER, "hardware") if r.book_data else None
    _book_only(r, "hardware", frame, caption="Which hardware does what in a TLS channel (seed 002)")


def size_section(r, published) -> None:
    """TLS against no TLS by message size: total increase and the channel initiator's factor."""
    rows = views.open(published, CHAPTER, "published") if published else None
    rows = rows[rows["kind"] == "size"] if rows is not None else None
    if rows is None or rows.empty:
        r.missing("size", "No TLS-against-no-TLS comparison was given (`published` is empty), so there is no "
                          "cost increase by message size")
        r.text("size_text")
        r.text("size_chart")
        return
    out = []
    for size, g in rows.groupby("message_size_bytes", sort=True):
        total = g[g["scope"] == "total"]["increase_pct"].dropna()
        chin = g[g["scope"] != "total"]
        factor = float(chin["cost_ratio"].iloc[0]) if len(chin) else np.nan
        inc = float(total.iloc[0]) if len(total) else np.nan
        out.append({"message size": size_label(size), "total increase (%)": inc,
                    "channel initiator scope": chin["scope"].iloc[0].replace("_", " ") if len(chin) else "",
                    "channel initiator factor": factor,
                    "as printed": f"{chin['qualifier'].iloc[0]} {factor:g}x".strip() if len(chin) else "",
                    "channel initiator share of baseline (%)": inc / (factor - 1) if factor > 1 else np.nan})
    table = pd.DataFrame(out)
    r.text("size_text", text.size_text(table))
    r.table("size", table, caption="TLS against no TLS, by message size", digits=3)
    bars = pd.concat([
        pd.DataFrame({"message size": table["message size"], "measure": "total cost",
                      "increase_pct": table["total increase (%)"]}),
        pd.DataFrame({"message size": table["message size"],
                      "measure": "channel initiator (" + table["channel initiator scope"] + ")",
                      "increase_pct": (table["channel initiator factor"] - 1) * 100}),
    ], ignore_index=True)
    r.chart("size_chart", charts.bars(bars, x="message size", y="increase_pct", colour="measure",
                                      x_title="message size", y_title="increase with TLS (%)",
                                      title="TLS against no TLS: the channel initiator carries the increase"))


def renegotiation_section(r, runs: pd.DataFrame, source) -> tls.RenegotiationResult:
    text.runs(r)
    table = pd.DataFrame({"message size": [size_label(s) for s in runs["message_size_bytes"]],
                          "SSLRKEYC": [size_label(k) for k in runs["sslrkeyc_bytes"]],
                          "cost ratio": runs["cost_ratio"]})
    if aggregate.aggregated(runs):
        table["n"] = runs[aggregate.COUNT].to_numpy()
        table["sd"] = runs[aggregate.sd_column("cost_ratio")].to_numpy()
    if (runs["qualifier"] != "").any():
        table["as printed"] = runs["qualifier"].to_numpy()
    table["renegotiations per message"] = runs["renegotiations_per_msg"].to_numpy()
    table["H / TLS cost of a message this size"] = runs["handshake_over_enc"].to_numpy()
    note = aggregate.note(runs, per="message size and SSLRKEYC", value="cost ratio")
    r.text("aggregation", note)
    caption = (f"Cost ratio with renegotiation against SSLRKEYC(0): means of {int(runs[aggregate.COUNT].sum()):,} rows"
               if note else "Cost ratio with renegotiation against SSLRKEYC(0), per measurement")
    r.text("runs_text", text.runs_text(runs))
    r.table("runs", table, caption=caption)

    result = fits.fit(runs, data_name=source.name, data_hash=source.sha256)
    r.text("fit_text", text.fit_text(result))
    r.table("parameters", fits.parameter_table(result), caption="Renegotiation model: parameters")
    r.table("derived", fits.derived_table(result, runs), caption="The fit at the measured sizes",
            missing="With one message size there is nothing to compare across sizes")
    return result


def sensitivity_section(r, runs, result, p) -> None:
    """Refit with "nearly N×" read as N − 0.5: how much the answers rest on the rounding."""
    if (runs["qualifier"] != "nearly").all() or not result.size_model:
        r.text("sensitivity_text")
        r.missing("sensitivity", "Your ratios carry no \"nearly\" qualifiers, so there is no other reading to try; "
                                 "the fit's intervals (where it has residual degrees of freedom) show how far the "
                                 "data leave the parameters uncertain")
        return
    size, target = p["message_size_bytes"], p["target_overhead_pct"]
    table = fits.sensitivity(runs, size, target)
    r.text("sensitivity_text", text.sensitivity(table, result, size, target))
    r.table("sensitivity", table, caption="The fit under each reading of the imprecise ratios", digits=4)


def validation_section(r, runs, result, increments) -> None:
    """Leave-one-out over the points when the fit has points to spare; else why no check exists."""
    why_connect = text.why_connect(increments)
    if result.df_resid <= 0:
        r.missing("loo", text.no_check(result))
        r.text("loo_text", why_connect)
        return
    table = fits.leave_one_out(runs)
    r.table("loo", table, caption="Leave-one-out: each point predicted by a fit without it", digits=4)
    r.text("loo_text", text.leave_one_out(table), why_connect)


def cipher_section(r, published) -> None:
    rows = views.open(published, CHAPTER, "published") if published else None
    rows = rows[rows["kind"] == "cipher"] if rows is not None else None
    if rows is None or rows.empty:
        r.missing("cipher", "No CipherSpec comparison was given (`published` is empty), so there is no "
                            "CipherSpec table")
        r.text("cipher_about")
        return
    out = []
    for row in rows.itertuples():
        a, b = row.comparison.split("_vs_")
        out.append({"CipherSpec": b, "message size": row.message_size, "relative transfer cost": 1.0,
                    "note": "baseline"})
        out.append({"CipherSpec": a, "message size": row.message_size,
                    "relative transfer cost": 1 + row.increase_pct / 100, "note": row.note})
    r.table("cipher", pd.DataFrame(out), caption="Channel initiator transfer cost by CipherSpec (cheapest = 1)",
            digits=3)
    text.cipher(r)


def connect_section(r, increments, result=None) -> None:
    if increments is None or increments.empty:
        r.missing("connect", "No connect-time TLS data was given (`connect_costs` is empty), so there is no "
                             "absolute cost of a key negotiation beside the ratios")
        r.text("connect_about")
        return
    table = pd.DataFrame({"SHARECNV": increments["sharecnv"], "listener": increments["listener"],
                          "basic CPU (µs)": increments["basic_us"],
                          "TLS increment (µs)": increments["tls_increment_us"],
                          "increase (%)": 100 * increments["tls_increment_us"] / increments["basic_us"]})
    big = None
    if result is not None and result.size_model and (MB in set(result.sizes)
                                                      or fits.size_standing(result, MB) != "cannot tell"):
        # If the increment were one negotiation H, the model's H / enc(1 MB) puts a 1 MB message's TLS
        # work at H / (H / enc): the check that shows the increment cannot be the ratios' negotiation.
        big = float(result.handshake / result.enc(MB))
        table["1MB message's TLS cost if this were H (µs)"] = increments["tls_increment_us"] / big
    r.table("connect", table, caption="TLS increment per client connect and disconnect (seed 003)", digits=3)
    text.connect(r, big)


def plan_section(r, result, sizes, target_pct: float, size: int) -> None:
    """Per message size: the smallest SSLRKEYC keeping renegotiation under the target (:func:`.fits.plan`)."""
    table, ks, beyond, known = fits.plan(result, sizes, target_pct)
    if size in ks and text.stated(ks[size], known[size]) and beyond[size]:
        r.extrapolated(f"the smallest SSLRKEYC for {size_label(size)} messages ({'; '.join(beyond[size])})")
    small, big = sizes[0], sizes[-1]
    if text.mismatch(result, ks, sizes) and (beyond[small] or fits.size_standing(result, big) == "extrapolated"):
        r.extrapolated(f"the overhead of {size_label(big)} messages at the SSLRKEYC for {size_label(small)}")
    r.text("plan_text", text.plan(result, table, ks, beyond, known, sizes, target_pct, size))
    r.table("plan", table, caption=f"Smallest SSLRKEYC keeping renegotiation within {num(target_pct)} % of the "
                                   "TLS cost per message", digits=4)


def channel_section(r, result, p) -> None:
    """For a channel at ``channel_mb_s``: each candidate SSLRKEYC's renegotiations, overhead and CPU."""
    size, rate = p["message_size_bytes"], p["channel_mb_s"]
    hs, provenance = text.handshake_assumption(p)
    if fits.size_standing(result, size) == "extrapolated":
        r.extrapolated(f"the renegotiation overhead of {size_label(size)} messages (a size outside those measured)")
    table = fits.channel(result, size, rate, p["sslrkeyc_candidates_mb"], hs)
    r.text("channel_text", *text.channel_text(table, result, size, rate, provenance))
    r.table("channel", table, caption=f"{size_label(size)} messages at {num(rate)} MB/s, by SSLRKEYC", digits=4,
            missing="No SSLRKEYC candidates were given (`sslrkeyc_candidates_mb` is empty)")
    examples = views.open("tls_sslrkeyc_examples", CHAPTER, "examples") if r.book_data else None
    if examples is not None:
        examples = examples.rename(columns={"value_num": "value"})[["example", "quantity", "value", "unit", "quote"]]
    _book_only(r, "examples", examples, caption="The post's SSLRKEYC examples (seed 002)")
    text.channel(r)
