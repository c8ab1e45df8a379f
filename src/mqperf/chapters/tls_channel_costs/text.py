"""The TLS channel costs chapter's words: what the renegotiation model may say, the sentences of
every section, made from the results, and the passages about the published measurements
(seed 002's blog post, seed 003's connect costs).

A quantity is said only as far as its interval identifies it (:func:`estimate`); the passages
(:meth:`Results.about`) are shown only on the book's own data.
"""

from __future__ import annotations

import numpy as np

from mqperf import numbers
from mqperf.chapters.tls_channel_costs import MB, fits, size_label
from mqperf.models import evidence, tls
from mqperf.present import prose
from mqperf.present.prose import num, pct


# -- about the published measurements ----------------------------------------------------------------

def measured(r) -> None:
    r.about("measured", (
        "The figures come from an IBM blog post of 2014 on MQ's TLS channels on z/OS, written for a customer "
        "who asked whether their channels used the crypto hardware ({ref}`dataset <data-tls_cost_changes>`, "
        "{ref}`Data catalog <data-catalog>`). MQ uses System SSL for both message channels and SVRCONN "
        "channels, in two phases that use different hardware: the *handshake* (secret-key negotiation, at "
        "channel start and again each time SSLRKEYC bytes have flowed) can be offloaded to a Crypto Express "
        "coprocessor or accelerator; the *data transport* (encrypting every message) uses the CPACF on each "
        "core, whose work RMF does not show. The post gives no machine, MQ level or absolute CPU times: only "
        "relative changes, some of them \"nearly\"."))


def runs(r) -> None:
    r.about("runs_about", (
        "The post measured the ratio with renegotiation every 1MB: 2.5× for 10KB messages and \"nearly 6×\" for "
        "1MB messages, \"i.e. renegotiating every message\" (the book reads 1MB as 1,048,576 bytes)."))


def cipher(r) -> None:
    r.about("cipher_about", (
        "With 1MB messages and no renegotiation, the channel initiator's transfer cost with TRIPLE_DES_SHA_US "
        "was 30 % higher than with ECDHE_RSA_AES_256_CBC_SHA384, measured with System SSL trace (GSK_TRACE) on, "
        "which adds cost of its own to both. Triple DES is also a weak cipher, listed among the deprecated "
        "CipherSpecs of current MQ releases; the cheaper AES CipherSpec is the one to prefer on both counts."))


def connect(r, big: float | None) -> None:
    """The connect-time increment, and (given the model's H / enc(1 MB) as ``big``) why it is no negotiation's cost."""
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


def channel(r) -> None:
    r.about("channel_about", (
        "The post's own example asks, for a channel sending 50 MB/s, whether it should renegotiate every 1MB, "
        "50MB or 500MB. A channel that sends less than 1 MB/s would go minutes between renegotiations at 500MB; "
        "the post's point is that its key then lives long, a security rather than a cost consideration."))


def errata(r) -> None:
    r.about("errata", "No erratum affects this chapter's data (see the {ref}`errata <errata>`). The ratios it "
                      "rests on are rounded (\"nearly 2x\", \"nearly 3x\", \"nearly 6x\"); the sensitivity table "
                      "above shows what the rounding of the one that matters does to the answers.")


# -- what the model may say --------------------------------------------------------------------------

def _n(value: float, unit: str | None = None) -> str:
    """:func:`~mqperf.present.prose.num`, in powers of ten beyond 1e12 (a fit's interval on a size it
    cannot tell runs to ±1e16 bytes, which digit grouping does not print well)."""
    if np.isfinite(value) and abs(value) >= 1e12:
        text = f"{value:.3g}".replace("e+", "e")
        return f"{text} {unit}" if unit else text
    return num(value, unit=unit)


def estimate(name: str, value: float, lo: float, hi: float, unit: str | None = None) -> str:
    """A quantity said only when its interval identifies it (:func:`mqperf.models.evidence.identified`).

    ``name`` starts the sentence ("The renegotiation cost a ..."): "<name> is about X (95 % interval ...)",
    or "The data cannot tell <name, lower case>: ...".
    """
    if evidence.identified(lo, hi):
        return f"{name} is about {_n(value, unit)} ({prose.interval(lo, hi, unit)})."
    lower = name[0].lower() + name[1:]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"The data cannot tell {lower}: it has no finite interval."
    why = "reaches zero or below" if lo <= 0 else f"spans a factor {num(hi / lo)}"
    return f"The data cannot tell {lower}: its 95 % interval ({_n(lo)} to {_n(hi, unit)}) {why}."


def size_model(result) -> list[str]:
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
    said.append(estimate("The renegotiation cost a (H / e0: a renegotiation in units of the size-independent "
                          "part of a message's TLS cost)", a, a_lo, a_hi))
    said.append(estimate("The size s0 at which the per-byte part of a message's TLS cost equals the fixed part",
                          s0, s_lo, s_hi, "bytes"))
    g_lo, g_hi = fits.growth_interval(result)
    if evidence.identified(s_lo, s_hi):
        said.append(f"If H is the same handshake at every size, the TLS cost of a {big} message is {num(growth)} "
                    f"times that of a {small} one ({prose.interval(g_lo, g_hi)}), for {num(hi / lo)} times the bytes.")
    else:
        said.append(f"So the data cannot tell how the TLS cost per message grows with size: from {small} to {big} "
                    f"it grows between {num(g_lo)} and {num(g_hi)} times, for {num(hi / lo)} times the bytes.")
    return [s[0].upper() + s[1:] for s in said]


def _why(lo: float, hi: float) -> str:
    return "reaches zero or below" if lo <= 0 else f"spans a factor {num(hi / lo)}"


def handshake_assumption(p) -> tuple[float | None, str | None]:
    """The CPU of one negotiation the CPU column uses, and whose figure it is, in words.

    Only a cost the reader gives (``handshake_us``): the ratios carry no absolute cost, and no
    source states a negotiation's CPU for the machine they come from. (Seed 003's connect-time
    TLS increment, 380 µs on another machine and year, once priced this column; by the model it
    would put a 1 MB message's TLS work at 76 µs of channel-initiator CPU, so it is not used.)
    """
    if p.get("handshake_us"):
        return float(p["handshake_us"]), (
            f"The CPU column prices one negotiation at {num(p['handshake_us'])} µs, the value given as "
            "`handshake_us`: your figure, not something the ratios measure (they carry no absolute cost).")
    return None, None


# -- sentences ---------------------------------------------------------------------------------------

def measured_text(runs) -> str:
    sizes, keys = runs["message_size_bytes"].unique(), runs["sslrkeyc_bytes"].unique()
    return (f"Your data gives {len(runs):,} cost ratios (one per message size and SSLRKEYC) at "
            f"{prose.count(len(sizes), 'message size')} ({prose.listing(map(size_label, sizes))}) "
            f"and {prose.count(len(keys), 'SSLRKEYC value')} ({prose.listing(map(size_label, keys))}).")


def size_text(table) -> str:
    said = [f"{pct(t['total increase (%)'])} with {t['message size']} messages" for _, t in table.iterrows()]
    shares = [f"{pct(t['channel initiator share of baseline (%)'])} of the {t['message size']} baseline cost"
              for _, t in table.iterrows() if np.isfinite(t["channel initiator share of baseline (%)"])]
    return prose.paragraph(
        f"Enabling TLS raised the total cost per message by {prose.listing(said)}.",
        f"If TLS changed nothing but the channel initiators, {prose.listing(shares)} "
        f"{'was' if len(shares) == 1 else 'were'} in them (total increase / (factor − 1)): a reading of rounded "
        "statements, not a measurement." if shares else None)


def runs_text(runs) -> str:
    each = [f"{num(h, 4)} times the TLS cost of a {size_label(s)} message at SSLRKEYC {size_label(k)}"
            for s, k, h in zip(runs["message_size_bytes"], runs["sslrkeyc_bytes"], runs["handshake_over_enc"])]
    if len(each) <= 4:
        return f"Each ratio gives H in units of that size's own message cost: {prose.listing(each)}."
    h = runs["handshake_over_enc"]
    lo, hi = runs.loc[numbers.idxmin(h)], runs.loc[numbers.idxmax(h)]
    return (f"Each ratio gives H in units of that size's own message cost: from "
            f"{num(lo['handshake_over_enc'], 4)} times (a {size_label(lo['message_size_bytes'])} "
            f"message) to {num(hi['handshake_over_enc'], 4)} times (a "
            f"{size_label(hi['message_size_bytes'])} message) over the {len(runs):,} points.")


def fit_text(result) -> str:
    said = [prose.identification({"renegotiation model": result})]
    if result.size_model:
        said += size_model(result)
    else:
        only = size_label(result.sizes[0])
        said.append(f"Your data has one message size ({only}): the fit gives h = H / enc(s) = "
                    f"{num(result.handshake)} at that size only, and says nothing about other sizes; "
                    "two sizes would separate the fixed and per-byte parts of the TLS cost.")
    return " ".join(said)


def sensitivity(table, result, size: int, target: float) -> str:
    """What reading the imprecise ratio otherwise does to H, s0 and the SSLRKEYC answer."""
    base, alt_row = table.iloc[0], table.iloc[1]
    big = size_label(result.sizes[-1])
    change = alt_row["SSLRKEYC change (%)"]
    return prose.paragraph(
        f"Read as {alt_row['reading'].split(' read as ')[1]} instead of as printed, the same handshake is "
        f"{num(alt_row[f'H / TLS cost of {big}'])} times the cost of a {big} message instead of "
        f"{num(base[f'H / TLS cost of {big}'])}, s0 moves from {num(base['s0 (bytes)'])} to "
        f"{num(alt_row['s0 (bytes)'])} bytes,",
        (f"and the SSLRKEYC that keeps renegotiation at {num(target)} % for {size_label(size)} messages "
         f"{'falls' if change < 0 else 'rises'} by {pct(abs(change))}." if np.isfinite(change) else
         "and the SSLRKEYC question has no answer under one of the readings."),
        "The answers below move by that much with the reading.")


def why_connect(increments) -> str | None:
    """Why the connect-time increments are no check of the renegotiation model (None without them)."""
    if increments is None or not len(increments):
        return None
    if fits.connect_shared(increments):
        return ("The connect-time TLS increments cannot serve as a check either: they are per connect, "
                "not per renegotiation, and the source prints the same increments for every SHARECNV "
                "value, so fitting them on one SHARECNV and \"predicting\" another would test nothing.")
    return ("The connect-time TLS increments cannot serve as a check: they are per connect, not per "
            "renegotiation, and carry no SSLRKEYC.")


def no_check(result) -> str:
    return (f"No independent check exists: {prose.count(result.nobs, 'point')} for "
            f"{prose.count(result.df_model, 'parameter')} leave no measurement over to test a "
            "prediction on; a third ratio (another size or SSLRKEYC) would")


def leave_one_out(table) -> str:
    ok = table.dropna(subset=["error (%)"])
    if ok.empty:
        return "No point could be predicted without it: each size's points are needed to fit that size."
    worst = ok.loc[numbers.idxmax(ok["error (%)"].abs())]
    said = (f"Leaving each point out in turn, the refit predicts it within {pct(abs(worst['error (%)']))} "
            f"(the largest error, at {worst['message size']} and SSLRKEYC {worst['SSLRKEYC']}).")
    if len(ok) < len(table):
        said += (f" {prose.count(len(table) - len(ok), 'point').capitalize()} could not be predicted: "
                 "the note says why.")
    return said


def stated(k, known) -> bool:
    """Whether the plan's answer at a size is said: it exists, and h's interval identifies it (or the fit is exact)."""
    return bool(np.isfinite(k) and known == "exact" or np.isfinite(k) and known)


def plan(result, table, ks, beyond, known, sizes, target_pct: float, size: int) -> str:
    """The planning answer at the reader's size, and what the smallest size's SSLRKEYC gives the largest."""
    said = []
    k = ks.get(size, np.nan)
    row = table.set_index("message size").loc[size_label(size)] if size in ks else None
    if size in ks and stated(k, known[size]):
        text = (f"For {size_label(size)} messages, renegotiation stays within {num(target_pct)} % of the TLS "
                f"cost per message with SSLRKEYC of at least {num(k / MB)} MB")
        band = (f"; {prose.interval(row['95 % lower (MB)'], row['95 % upper (MB)'], 'MB')}"
                if known[size] != "exact" and k > tls.SSLRKEYC_FLOOR else "")
        label = f"extrapolated: {'; '.join(beyond[size])}; " if beyond[size] else ""
        said.append(f"{text} ({label}{num(k / size)} messages between renegotiations{band})."
                    + (" The fit passes exactly through the ratios, so the data cannot tell how far that is from the "
                       "truth." if known[size] == "exact" else ""))
    elif np.isfinite(k):
        said.append(f"For {size_label(size)} messages the data cannot tell which SSLRKEYC keeps renegotiation within "
                    f"{num(target_pct)} % of the TLS cost per message: the renegotiation cost at that size (H / enc) "
                    f"has a 95 % interval from {num(row['H / enc(s) 95 % lower'])} to "
                    f"{num(row['H / enc(s) 95 % upper'])}, which {_why(row['H / enc(s) 95 % lower'], row['H / enc(s) 95 % upper'])}"
                    f" (at the fitted value the answer would be {num(k / MB)} MB).")
    elif size in ks and fits.size_standing(result, size) == "cannot tell":
        said.append(f"For {size_label(size)} messages, outside the sizes measured, the data cannot tell which "
                    "SSLRKEYC meets the target: how the TLS cost grows with size (s0) is not identified.")
    elif size in ks:
        said.append(f"For {size_label(size)} messages no SSLRKEYC up to MQ's maximum keeps renegotiation within "
                    f"{num(target_pct)} %: only SSLRKEYC(0), no renegotiation, does.")
    else:
        said.append(f"The fit cannot answer for {size_label(size)} messages: it has one message size "
                    f"({size_label(result.sizes[0])}), and the plan covers that size only.")
    small, big = sizes[0], sizes[-1]
    if mismatch(result, ks, sizes):
        out = beyond[small] or fits.size_standing(result, big) == "extrapolated"
        said.append(prose.extrapolated(f"An SSLRKEYC sized for {size_label(small)} messages ({num(ks[small] / MB)} "
                                       f"MB) gives {size_label(big)} messages "
                                       f"{pct(float(result.overhead(big, ks[small])) * 100)}", bool(out))
                    + f" instead of {num(target_pct)} %.")
    return " ".join(said)


def mismatch(result, ks, sizes) -> bool:
    """Whether the plan says what the smallest size's SSLRKEYC gives the largest size."""
    small, big = sizes[0], sizes[-1]
    return bool(len(sizes) > 1 and np.isfinite(ks[small]) and big != small
                and fits.size_standing(result, big) != "cannot tell")


def channel_text(table, result, size: int, rate: float, provenance: str | None) -> list[str]:
    """Each end of the candidates: its renegotiations and what they add, as far as h is known."""
    standing = fits.size_standing(result, size)
    h, h_lo, h_hi = result.h_interval(size) if standing != "cannot tell" else (np.nan, np.nan, np.nan)
    # The overhead is h·s/K: known as far as h = H / enc(s) is (an exact fit: as the curve says).
    overhead_known = bool(np.isfinite(h) and (not np.isfinite(h_lo) or evidence.identified(h_lo, h_hi)))
    said = []
    if len(table):
        first, last = table.iloc[0], table.iloc[-1]
        for row in (first, last) if len(table) > 1 else (first,):
            if np.isfinite(row["renegotiation cost (%)"]) and overhead_known:
                band = (f" ({prose.interval(row['95 % lower (%)'], row['95 % upper (%)'], '%')})"
                        if "95 % lower (%)" in row else "")
                cost = prose.extrapolated(f"renegotiation adds {pct(row['renegotiation cost (%)'])}{band} to the TLS "
                                          "cost per message", standing == "extrapolated")
            elif np.isfinite(row["renegotiation cost (%)"]):
                cost = (f"the data cannot tell what renegotiation adds to the TLS cost per message (95 % interval "
                        f"{pct(row['95 % lower (%)'])} to {pct(row['95 % upper (%)'])})")
            elif standing == "cannot tell" and result.size_model:
                cost = ("the data cannot tell what renegotiation adds at this size (outside the sizes measured, "
                        "with s0 not identified)")
            else:
                cost = "the fit cannot price renegotiation at this message size"
            said.append(f"Every {num(row['SSLRKEYC (MB)'])} MB means {num(row['renegotiations per s'])} "
                        f"renegotiations a second (one every {num(row['seconds between'])} s) and {cost}.")
    return [f"For {size_label(size)} messages at {num(rate)} MB/s:", " ".join(said),
            provenance or "Ratios carry no absolute cost, and no source states what one negotiation costs in CPU on "
                          "the machine they come from, so the table has no CPU column: give your own (`handshake_us`, "
                          "µs of CPU per negotiation, e.g. from SMF of a channel that renegotiates often) to price "
                          "the negotiations."]
