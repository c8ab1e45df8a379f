"""The sections of the TLS channel costs chapter: each adds its sentences, tables and charts.

Kept apart from :mod:`mqperf.chapters.tls_channel_costs` so that module imports cheaply
(``PARAMETERS``); every function here takes the :class:`~mqperf.present.results.Results`
being built and adds to it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.tls_channel_costs import CHAPTER, MB, _book_only, size_label
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.models import tls
from mqperf.present import prose
from mqperf.present.prose import num, pct

OVERHEAD_TITLE = "renegotiation cost (% of the TLS cost per message)"


# -- loading ---------------------------------------------------------------------------------

def load_runs(source) -> pd.DataFrame:
    """One point per (message size, SSLRKEYC), rows averaged, with renegotiations per message
    and the handshake in units of that size's message cost."""
    frame = views.open(source, CHAPTER)
    if "qualifier" not in frame:
        frame = frame.assign(qualifier="")
    keys = ["message_size_bytes", "sslrkeyc_bytes"]
    if frame.duplicated(keys).any():
        frame = aggregate.means(frame, keys, ["cost_ratio"]).copy()
        frame["qualifier"] = ""
    frame = frame.astype({"message_size_bytes": "int64", "sslrkeyc_bytes": "int64"})
    frame["cost_ratio"] = frame["cost_ratio"].astype(float)
    frame["renegotiations_per_msg"] = [float(tls.renegotiations_per_message(s, k))
                                       for s, k in zip(frame["message_size_bytes"], frame["sslrkeyc_bytes"])]
    frame["handshake_over_enc"] = [tls.handshake_cost_from_ratio(r, s, k) for r, s, k in
                                   zip(frame["cost_ratio"], frame["message_size_bytes"], frame["sslrkeyc_bytes"])]
    return frame.sort_values(keys).reset_index(drop=True)


def load_increments(source) -> pd.DataFrame | None:
    return views.open(source, CHAPTER, "connect_costs") if source else None


def fit(runs: pd.DataFrame, **kw) -> tls.RenegotiationResult:
    return tls.fit_renegotiation(runs[["message_size_bytes", "sslrkeyc_bytes"]].to_numpy(float), runs["cost_ratio"],
                                 **kw)


# -- what was measured; TLS against no TLS ------------------------------------------------------

def what_was_measured(r, runs) -> None:
    sizes, keys = runs["message_size_bytes"].unique(), runs["sslrkeyc_bytes"].unique()
    if not r.book_data:
        r.text("measured_text", f"Your data gives {len(runs):,} cost ratios (one per message size and SSLRKEYC) at "
                                f"{prose.count(len(sizes), 'message size')} ({prose.listing(map(size_label, sizes))}) "
                                f"and {prose.count(len(keys), 'SSLRKEYC value')} "
                                f"({prose.listing(map(size_label, keys))}).")
    else:
        r.text("measured_text")
    r.about("measured", (
        "The figures come from an IBM blog post of 2014 on MQ's TLS channels on z/OS, written for a customer "
        "who asked whether their channels used the crypto hardware ({ref}`dataset <data-tls_cost_changes>`, "
        "{ref}`Data catalog <data-catalog>`). MQ uses System SSL for both message channels and SVRCONN "
        "channels, in two phases that use different hardware: the *handshake* (secret-key negotiation, at "
        "channel start and again each time SSLRKEYC bytes have flowed) can be offloaded to a Crypto Express "
        "coprocessor or accelerator; the *data transport* (encrypting every message) uses the CPACF on each "
        "core, whose work RMF does not show. The post gives no machine, MQ level or absolute CPU times: only "
        "relative changes, some of them \"nearly\"."))
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
    said = [f"{pct(t['total increase (%)'])} with {t['message size']} messages" for _, t in table.iterrows()]
    shares = [f"{pct(t['channel initiator share of baseline (%)'])} of the {t['message size']} baseline cost"
              for _, t in table.iterrows() if np.isfinite(t["channel initiator share of baseline (%)"])]
    r.text("size_text", prose.paragraph(
        f"Enabling TLS raised the total cost per message by {prose.listing(said)}.",
        f"If TLS changed nothing but the channel initiators, {prose.listing(shares)} "
        f"{'was' if len(shares) == 1 else 'were'} in them (total increase / (factor − 1)): a reading of rounded "
        "statements, not a measurement." if shares else None))
    r.table("size", table, caption="TLS against no TLS, by message size", digits=3)
    bars = pd.concat([
        pd.DataFrame({"message size": table["message size"], "measure": "total cost",
                      "increase_pct": table["total increase (%)"]}),
        pd.DataFrame({"message size": table["message size"],
                      "measure": "channel initiator (" + table["channel initiator scope"] + ")",
                      "increase_pct": (table["channel initiator factor"] - 1) * 100}),
    ], ignore_index=True)
    from mqperf.present import charts

    r.chart("size_chart", charts.bars(bars, x="message size", y="increase_pct", colour="measure",
                                      x_title="message size", y_title="increase with TLS (%)",
                                      title="TLS against no TLS: the channel initiator carries the increase"))


# -- the renegotiation model ---------------------------------------------------------------------

def renegotiation_section(r, runs: pd.DataFrame, source) -> tls.RenegotiationResult:
    r.about("runs_about", (
        "The post measured the ratio with renegotiation every 1MB: 2.5× for 10KB messages and \"nearly 6×\" for "
        "1MB messages, \"i.e. renegotiating every message\" (the book reads 1MB as 1,048,576 bytes)."))
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
    each = [f"{num(h, 4)} times the TLS cost of a {size_label(s)} message at SSLRKEYC {size_label(k)}"
            for s, k, h in zip(runs["message_size_bytes"], runs["sslrkeyc_bytes"], runs["handshake_over_enc"])]
    if len(each) <= 4:
        r.text("runs_text", f"Each ratio gives H in units of that size's own message cost: {prose.listing(each)}.")
    else:
        h = runs["handshake_over_enc"]
        lo, hi = runs.loc[h.idxmin()], runs.loc[h.idxmax()]
        r.text("runs_text", f"Each ratio gives H in units of that size's own message cost: from "
                            f"{num(lo['handshake_over_enc'], 4)} times (a {size_label(lo['message_size_bytes'])} "
                            f"message) to {num(hi['handshake_over_enc'], 4)} times (a "
                            f"{size_label(hi['message_size_bytes'])} message) over the {len(runs):,} points.")
    r.table("runs", table, caption=caption, digits=4)

    result = fit(runs, data_name=source.name, data_hash=source.sha256)
    said = [prose.identification({"renegotiation model": result})]
    if result.size_model:
        said += _size_model_reading(result)
    else:
        only = size_label(result.sizes[0])
        said.append(f"Your data has one message size ({only}): the fit gives h = H / enc(s) = "
                    f"{num(result.handshake)} at that size only, and says nothing about other sizes; "
                    "two sizes would separate the fixed and per-byte parts of the TLS cost.")
    r.text("fit_text", " ".join(said))
    r.table("parameters", parameter_table(result), caption="Renegotiation model: parameters", digits=4)
    r.table("derived", derived_table(result, runs), caption="The fit at the measured sizes", digits=4,
            missing="With one message size there is nothing to compare across sizes")
    return result


def growth_interval(result) -> tuple[float, float]:
    """enc(largest)/enc(smallest) at the ends of s0's 95 % interval (NaN without one).

    The ratio (1 + B/s0)/(1 + A/s0) falls as s0 grows, from B/A (s0 → 0) to 1 (s0 → ∞), so its
    interval is the ratio at the interval's upper and lower ends; an end at or below zero is
    the limit B/A.
    """
    if result.cov is None or result.df_resid <= 0:
        return np.nan, np.nan
    ci = result.conf_int()
    lo_s0, hi_s0 = float(ci.loc["s0", "lower"]), float(ci.loc["s0", "upper"])
    a, b = float(result.sizes[0]), float(result.sizes[-1])

    def growth(s0):
        if not np.isfinite(s0):
            return 1.0 if s0 > 0 else b / a
        return b / a if s0 <= 0 else (1 + b / s0) / (1 + a / s0)

    return growth(hi_s0), growth(lo_s0)


def _n(value: float, unit: str | None = None) -> str:
    """:func:`~mqperf.present.prose.num`, in powers of ten beyond 1e12 (a fit's interval on a size it
    cannot tell runs to ±1e16 bytes, which digit grouping does not print well)."""
    if np.isfinite(value) and abs(value) >= 1e12:
        text = f"{value:.3g}".replace("e+", "e")
        return f"{text} {unit}" if unit else text
    return num(value, unit=unit)


def _estimate(name: str, value: float, lo: float, hi: float, unit: str | None = None) -> str:
    """A quantity said only when its interval identifies it (:func:`mqperf.models.evidence.identified`).

    ``name`` starts the sentence ("The renegotiation cost a ..."): "<name> is about X (95 % interval ...)",
    or "The data cannot tell <name, lower case>: ...".
    """
    from mqperf.models import evidence

    if evidence.identified(lo, hi):
        return f"{name} is about {_n(value, unit)} ({prose.interval(lo, hi, unit)})."
    lower = name[0].lower() + name[1:]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"The data cannot tell {lower}: it has no finite interval."
    why = "reaches zero or below" if lo <= 0 else f"spans a factor {num(hi / lo)}"
    return f"The data cannot tell {lower}: its 95 % interval ({_n(lo)} to {_n(hi, unit)}) {why}."


def _size_model_reading(result) -> list[str]:
    """a, s0 and the growth of the TLS cost with size, each said only as far as the data identify it.

    Rules (issue 21): a quantity's value is stated only when its 95 % interval identifies it
    (:func:`mqperf.present.prose.estimate`); an exactly identified fit has no interval, so its
    values are the curve through the ratios and the data cannot tell how far they are from the
    truth; s0 held at its bound is not identified.
    """
    lo, hi = float(result.sizes[0]), float(result.sizes[-1])
    a, s0 = float(result.params["a"]), float(result.params["s0"])
    growth = float(result.enc(hi) / result.enc(lo))
    big, small = size_label(hi), size_label(lo)
    if "s0" in result.active_bounds or "s0" in result.at_bound:
        return [f"s0 sits on its bound: the ratios do not show a per-message cost growing more slowly than size, so "
                f"the data cannot tell the fixed part of the TLS cost; a renegotiation is {num(a)} times it in the "
                "fit, conditional on that bound."]
    if result.cov is None or result.df_resid <= 0:
        return [f"Through the ratios exactly, a = {num(a)} and s0 = {num(s0)} bytes, so that if H is the same "
                f"handshake at every size the TLS cost of a {big} message would be {num(growth)} times that of a "
                f"{small} one, for {num(hi / lo)} times the bytes; with no residual degrees of freedom the data cannot "
                "tell how far these are from the truth."]
    ci = result.conf_int()
    said = []
    a_lo, a_hi = float(ci.loc["a", "lower"]), float(ci.loc["a", "upper"])
    s_lo, s_hi = float(ci.loc["s0", "lower"]), float(ci.loc["s0", "upper"])
    said.append(_estimate("The renegotiation cost a (H / e0: a renegotiation in units of the size-independent "
                          "part of a message's TLS cost)", a, a_lo, a_hi))
    said.append(_estimate("The size s0 at which the per-byte part of a message's TLS cost equals the fixed part",
                          s0, s_lo, s_hi, "bytes"))
    g_lo, g_hi = growth_interval(result)
    from mqperf.models import evidence

    if evidence.identified(s_lo, s_hi):
        said.append(f"If H is the same handshake at every size, the TLS cost of a {big} message is {num(growth)} "
                    f"times that of a {small} one ({prose.interval(g_lo, g_hi)}), for {num(hi / lo)} times the bytes.")
    else:
        said.append(f"So the data cannot tell how the TLS cost per message grows with size: from {small} to {big} "
                    f"it grows between {num(g_lo)} and {num(g_hi)} times, for {num(hi / lo)} times the bytes.")
    return [s[0].upper() + s[1:] for s in said]


def parameter_table(result) -> pd.DataFrame:
    ci = result.conf_int()
    meaning = {"a": "H / e0: handshake over the size-independent TLS cost per message",
               "s0": "message size at which the per-byte part equals the fixed part (bytes)",
               "h": "H / enc(s) at the one measured size"}
    lo, hi = ci["lower"].to_numpy(float), ci["upper"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        span = np.where(lo > 0, hi / lo, np.nan)
    return pd.DataFrame({"parameter": list(result.params.index),
                         "meaning": [meaning[p] for p in result.params.index],
                         "estimate": result.params.to_numpy(float), "std err": result.bse.to_numpy(float),
                         "95 % lower": lo, "95 % upper": hi, "interval spans (factor)": span,
                         "held at bound": [p in result.active_bounds for p in result.params.index]})


def derived_table(result, runs) -> pd.DataFrame | None:
    if not result.size_model:
        return None
    sizes = result.sizes
    enc = result.enc(sizes)
    out = pd.DataFrame({"message size": [size_label(s) for s in sizes],
                        "TLS cost per message / e0": enc,
                        f"over the {size_label(sizes[0])} cost": enc / enc[0],
                        "bytes over the smallest": sizes / sizes[0],
                        "H / TLS cost per message": result.handshake / enc})
    g_lo, g_hi = growth_interval(result)
    if np.isfinite(g_lo):
        # The growth's interval from s0's, at the largest size (the sentence quotes it).
        out[f"over the {size_label(sizes[0])} cost, 95 % lower"] = [np.nan] * (len(sizes) - 1) + [g_lo]
        out[f"over the {size_label(sizes[0])} cost, 95 % upper"] = [np.nan] * (len(sizes) - 1) + [g_hi]
    return out


def sensitivity_section(r, runs, result, p) -> None:
    """Refit with "nearly N×" read as N − 0.5: how much the answers rest on the rounding."""
    nearly = runs[runs["qualifier"] == "nearly"]
    if nearly.empty or not result.size_model:
        r.text("sensitivity_text")
        r.missing("sensitivity", "Your ratios carry no \"nearly\" qualifiers, so there is no other reading to try; "
                                 "the fit's intervals (where it has residual degrees of freedom) show how far the "
                                 "data leave the parameters uncertain")
        return
    size, target = p["message_size_bytes"], p["target_overhead_pct"]
    readings = {"as printed": {}}
    for row in nearly.itertuples():
        readings[f"\"nearly {row.cost_ratio:g}x\" read as {row.cost_ratio - 0.5:g}"] = \
            {(row.message_size_bytes, row.sslrkeyc_bytes): row.cost_ratio - 0.5}
    rows = []
    for label, changes in readings.items():
        alt = runs.copy()
        for (s, k), ratio in changes.items():
            alt.loc[(alt["message_size_bytes"] == s) & (alt["sslrkeyc_bytes"] == k), "cost_ratio"] = ratio
        res = fit(alt)
        row = {"reading": label, "a": float(res.params["a"]), "s0 (bytes)": float(res.params["s0"])}
        for s in res.sizes:
            row[f"H / TLS cost of {size_label(s)}"] = res.handshake / float(res.enc(s))
        try:
            row[f"SSLRKEYC for {prose.num(target)} % at {size_label(size)} (MB)"] = res.sslrkeyc_for(target / 100, size) / MB
        except ModelError:
            row[f"SSLRKEYC for {prose.num(target)} % at {size_label(size)} (MB)"] = np.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    kcol = table.columns[-1]
    table["SSLRKEYC change (%)"] = 100 * (table[kcol] / table[kcol].iloc[0] - 1)
    base, alt_row = table.iloc[0], table.iloc[1]
    big = size_label(result.sizes[-1])
    change = alt_row["SSLRKEYC change (%)"]
    r.text("sensitivity_text", prose.paragraph(
        f"Read as {alt_row['reading'].split(' read as ')[1]} instead of as printed, the same handshake is "
        f"{num(alt_row[f'H / TLS cost of {big}'])} times the cost of a {big} message instead of "
        f"{num(base[f'H / TLS cost of {big}'])}, s0 moves from {num(base['s0 (bytes)'])} to "
        f"{num(alt_row['s0 (bytes)'])} bytes,",
        (f"and the SSLRKEYC that keeps renegotiation at {num(target)} % for {size_label(size)} messages "
         f"{'falls' if change < 0 else 'rises'} by {pct(abs(change))}." if np.isfinite(change) else
         "and the SSLRKEYC question has no answer under one of the readings."),
        "The answers below move by that much with the reading."))
    r.table("sensitivity", table, caption="The fit under each reading of the imprecise ratios", digits=4)


# -- checks ----------------------------------------------------------------------------------------

def validation_section(r, runs, result, increments) -> None:
    """Leave-one-out over the points when the fit has points to spare; else why no check exists."""
    why_connect = None
    if increments is not None and len(increments):
        same = increments.pivot_table(index="listener", columns="sharecnv", values="tls_increment_us")
        if same.shape[1] > 1 and (same.nunique(axis=1) == 1).all():
            why_connect = ("The connect-time TLS increments cannot serve as a check either: they are per connect, "
                           "not per renegotiation, and the source prints the same increments for every SHARECNV "
                           "value, so fitting them on one SHARECNV and \"predicting\" another would test nothing.")
        else:
            why_connect = ("The connect-time TLS increments cannot serve as a check: they are per connect, not per "
                           "renegotiation, and carry no SSLRKEYC.")
    if result.df_resid <= 0:
        r.missing("loo", f"No independent check exists: {prose.count(result.nobs, 'point')} for "
                         f"{prose.count(result.df_model, 'parameter')} leave no measurement over to test a "
                         "prediction on; a third ratio (another size or SSLRKEYC) would")
        r.text("loo_text", why_connect)
        return
    x = runs[["message_size_bytes", "sslrkeyc_bytes"]].to_numpy(float)
    y = runs["cost_ratio"].to_numpy(float)
    rows = []
    for i in range(y.size):
        keep = np.arange(y.size) != i
        try:
            pred, note = float(tls.fit_renegotiation(x[keep], y[keep]).predict(x[i:i + 1])[0]), ""
        except ModelError as exc:
            pred, note = np.nan, str(exc)
        rows.append({"message size": size_label(x[i, 0]), "SSLRKEYC": size_label(x[i, 1]), "measured": y[i],
                     "predicted": pred, "error (%)": (pred - y[i]) / y[i] * 100, "note": note})
    table = pd.DataFrame(rows)
    ok = table.dropna(subset=["error (%)"])
    if ok.empty:
        said = "No point could be predicted without it: each size's points are needed to fit that size."
    else:
        worst = ok.loc[ok["error (%)"].abs().idxmax()]
        said = (f"Leaving each point out in turn, the refit predicts it within {pct(abs(worst['error (%)']))} "
                f"(the largest error, at {worst['message size']} and SSLRKEYC {worst['SSLRKEYC']}).")
        if len(ok) < len(table):
            said += (f" {prose.count(len(table) - len(ok), 'point').capitalize()} could not be predicted: "
                     "the note says why.")
    r.table("loo", table, caption="Leave-one-out: each point predicted by a fit without it", digits=4)
    r.text("loo_text", said, why_connect)


def size_standing(result, size) -> str:
    """Where an answer at ``size`` stands: "within" the sizes measured, "extrapolated" beyond them
    (the size model carries it), or "cannot tell" (beyond them, with s0 not identified: how the TLS
    cost grows with size is unknown, so the renegotiation overhead at another size is too).

    An exactly identified fit (no interval at all) extrapolates, labelled; a fit with intervals
    extrapolates only when s0's interval identifies it (:func:`mqperf.models.evidence.identified`).
    """
    from mqperf.models import evidence

    lo, hi = float(np.min(result.sizes)), float(np.max(result.sizes))
    if lo <= float(size) <= hi:
        return "within"
    if not result.size_model:
        return "cannot tell"
    if result.cov is None or result.df_resid <= 0:
        return "extrapolated"
    ci = result.conf_int()
    return "extrapolated" if evidence.identified(float(ci.loc["s0", "lower"]), float(ci.loc["s0", "upper"])) \
        else "cannot tell"


def answerable_sizes(result, sizes) -> list[int]:
    """The sizes the fit can speak about: any size with a size model, else the measured one."""
    measured = {int(v) for v in result.sizes}
    return sorted({int(s) for s in sizes} | measured) if result.size_model else sorted(measured)


def overhead_chart(r, result, sizes) -> None:
    from mqperf.present import charts

    grid = np.unique(np.round(np.geomspace(MB / 4, tls.SSLRKEYC_MAX, 40)))
    parts = [pd.DataFrame({"sslrkeyc_mb": grid / MB, "overhead_pct": [float(result.overhead(s, k)) * 100 for k in grid],
                           "message size": size_label(s)}) for s in sizes]
    curves = pd.concat(parts, ignore_index=True)
    import altair as alt

    chart = charts.lines(curves, x="sslrkeyc_mb", y="overhead_pct", colour="message size", x_title="SSLRKEYC (MB)",
                         y_title=OVERHEAD_TITLE, title="Renegotiation cost against SSLRKEYC, by message size",
                         log_x=True, points=False)
    r.chart("overhead_chart", chart.encode(y=alt.Y("overhead_pct:Q", title=OVERHEAD_TITLE,
                                                   scale=alt.Scale(type="log"))))


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
    r.about("cipher_about", (
        "With 1MB messages and no renegotiation, the channel initiator's transfer cost with TRIPLE_DES_SHA_US "
        "was 30 % higher than with ECDHE_RSA_AES_256_CBC_SHA384, measured with System SSL trace (GSK_TRACE) on, "
        "which adds cost of its own to both. Triple DES is also a weak cipher, listed among the deprecated "
        "CipherSpecs of current MQ releases; the cheaper AES CipherSpec is the one to prefer on both counts."))


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
    if result is not None and result.size_model and (MB in set(result.sizes) or size_standing(result, MB) != "cannot tell"):
        # If the increment were one negotiation H, the model's H / enc(1 MB) puts a 1 MB message's TLS
        # work at H / (H / enc): the check that shows the increment cannot be the ratios' negotiation.
        big = float(result.handshake / result.enc(MB))
        table["1MB message's TLS cost if this were H (µs)"] = increments["tls_increment_us"] / big
    r.table("connect", table, caption="TLS increment per client connect and disconnect (seed 003)", digits=3)
    implied = (f" By the renegotiation model, a renegotiation costs {num(big)} times the TLS work of a 1MB message, "
               f"so if 380 µs were one negotiation the channel initiator would do a megabyte's TLS work in "
               f"{num(380 / big)} µs: implausibly little for encrypting and moving a megabyte, so the increment is "
               "not a negotiation's cost on the ratios' machine, and the book prices no CPU with it."
               if big else "")
    r.about("connect_about", (
        "A TLS client connection (TLS_RSA_AES_128_CBC_SHA256, IBM z14 with Crypto Express6S, 2018) cost about "
        "380 µs more per connect and disconnect with a local listener and 400 µs with a shared one, mostly in "
        "the channel initiator: +75 % on the cheapest connection. The article adds that the client machine "
        "limited the connection rate, because most of the cipher work was on the client. A channel start "
        "includes a full key negotiation, but this increment comes from another machine, CipherSpec and year "
        "than the ratios, and a connect also sets up the session." + implied))
