"""TLS channel costs: the renegotiation model solved from cost ratios, and SSLRKEYC planning.

The model (:mod:`mqperf.models.tls`): a message of s bytes on a channel renegotiating every K
bytes costs enc(s) + H·s/K, with enc(s) = e0·(1 + s/s0); a cost ratio against SSLRKEYC(0) is
1 + a·(s/K)/(1 + s/s0), a = H/e0. Ratios carry no absolute CPU: pricing negotiations in CPU
seconds needs a handshake cost from elsewhere, which this chapter shows as an assumption.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number, NumberList

# MQ limits: messages up to 100 MB; SSLRKEYC up to 999,999,999 bytes (about 954 MB).
MAX_MESSAGE_BYTES = 104857600
MAX_SSLRKEYC_MB = 999_999_999 / 1048576

PARAMETERS = {
    "data": DataFile(help="channel cost ratio with renegotiation: a CSV with message_size_bytes, sslrkeyc_bytes, "
                          "cost_ratio, or a book dataset", contract="tls_channel_costs"),
    "published": DataFile(help="seed 002's size and CipherSpec comparisons; \"\" for none",
                          contract="tls_cost_changes", files=False, optional=True),
    "connect_costs": DataFile(help="seed 003's TLS increment per client connect; \"\" for none",
                              contract="client_conn_costs", files=False, optional=True),
    "message_size_bytes": Integer(help="planning: the message size on the channel", unit="bytes",
                                  minimum=1, maximum=MAX_MESSAGE_BYTES),
    "target_overhead_pct": Number(help="planning question: renegotiation at most this % of the TLS cost per message",
                                  unit="%", minimum=0, maximum=100, exclusive_minimum=True),
    "channel_mb_s": Number(help="planning: the channel's data rate", unit="MB/s", minimum=0,
                           exclusive_minimum=True, maximum=1e5),
    "sslrkeyc_candidates_mb": NumberList(help="planning: SSLRKEYC values to compare", unit="MB", minimum=0,
                                         exclusive_minimum=True, maximum=round(MAX_SSLRKEYC_MB, 2), max_items=20),
    "handshake_us": Number(help="your CPU of one key negotiation, for the CPU column only (ratios carry no "
                                "absolute cost); none: no CPU column (no source states it for the ratios' machine)",
                           unit="us", minimum=0, exclusive_minimum=True, maximum=1e7, optional=True),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "tls_channel_costs"
KB, MB = 1024, 1024 * 1024
#: Sizes the overhead chart and the plan always show (with the measured ones and the reader's).
PLAN_SIZES = (2 * KB, 10 * KB, 100 * KB, MB)


def size_label(size_bytes: float) -> str:
    """1024 → '1KB', 1048576 → '1MB', others in bytes."""
    s = float(size_bytes)
    for unit, div in (("GB", MB * 1024), ("MB", MB), ("KB", KB)):
        if s >= div and (s / div) == round(s / div, 2):
            v = s / div
            return f"{int(v) if v.is_integer() else v:g}{unit}"
    return f"{int(s):,} bytes"


def _book_only(r, key: str, frame, **options) -> None:
    """A table of published specifics: shown on the book's data, nothing on a reader's."""
    if r.book_data and frame is not None and len(frame):
        r.table(key, frame, **options)
    else:
        r.text(key)


def analyse(p: dict):
    """Load, fit and plan; every sentence, table and chart of the chapter, in order."""
    import warnings

    from mqperf.chapters import _tls_channel_costs_parts as parts
    from mqperf.data import views
    from mqperf.present.results import Results

    source = views.describe(p["data"])
    r = Results(book_data=source.book_data, source=source.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        runs = parts.load_runs(p["data"])
        r.points = runs
        parts.what_was_measured(r, runs)
        parts.size_section(r, p["published"])
        result = parts.renegotiation_section(r, runs, source)
        parts.sensitivity_section(r, runs, result, p)
        increments = parts.load_increments(p["connect_costs"])
        parts.validation_section(r, runs, result, increments)
        sizes = parts.answerable_sizes(result, [*PLAN_SIZES, p["message_size_bytes"]])
        parts.overhead_chart(r, result, sizes)
        from mqperf.chapters import _tls_channel_costs_whatif as whatif

        whatif.add(r, result, p["message_size_bytes"], p["target_overhead_pct"])
        parts.cipher_section(r, p["published"])
        parts.connect_section(r, increments, result)
        plan_section(r, result, sizes, p["target_overhead_pct"], p["message_size_bytes"])
        channel_section(r, result, p, increments)
    r.answers = ("the smallest SSLRKEYC for the target at each message size, and the renegotiation overhead of "
                 "each candidate SSLRKEYC")
    r.card(f"{CHAPTER}__renegotiation",
           result.to_card(name=f"{CHAPTER}: renegotiation amortisation", dataset=source.name), result)
    r.about("errata", "No erratum affects this chapter's data (see the {ref}`errata <errata>`). The ratios it "
                      "rests on are rounded (\"nearly 2x\", \"nearly 3x\", \"nearly 6x\"); the sensitivity table "
                      "above shows what the rounding of the one that matters does to the answers.")
    return r


# -- planning --------------------------------------------------------------------------------------

def plan_section(r, result, sizes, target_pct: float, size: int) -> None:
    """Per message size: the smallest SSLRKEYC keeping renegotiation under the target.

    An answer at a size outside those measured is labelled extrapolated (and recorded), or, when
    the data cannot tell how the TLS cost grows with size (s0 not identified), not given;
    an SSLRKEYC outside the measured ones is labelled too.
    """
    import numpy as np
    import pandas as pd

    from mqperf.chapters import _tls_channel_costs_parts as parts
    from mqperf.errors import ModelError
    from mqperf.models import tls
    from mqperf.present import prose
    from mqperf.present.prose import num, pct

    from mqperf.models import evidence

    keys = result.x[:, 1]
    k_lo, k_hi = float(np.min(keys)), float(np.max(keys))
    rows, ks, beyond, known = [], {}, {}, {}
    for s in sizes:
        standing = parts.size_standing(result, s)
        h, h_lo, h_hi = result.h_interval(s) if standing != "cannot tell" else (np.nan, np.nan, np.nan)
        # Every answer at this size is proportional to h = H / enc(s): it is known as far as h is.
        known[s] = ("exact" if not np.isfinite(h_lo) and np.isfinite(h) else evidence.identified(h_lo, h_hi))
        if standing == "cannot tell":
            k, note = np.nan, ("the data cannot tell how the TLS cost grows with size (s0 not identified), so the "
                               "overhead at a size not measured is unknown")
        else:
            try:
                k = result.sslrkeyc_for(target_pct / 100, s)
                note = "any value up to 32 KB meets it" if k <= tls.SSLRKEYC_FLOOR else ""
                k = max(k, tls.SSLRKEYC_FLOOR)
            except ModelError as exc:
                k, note = np.nan, str(exc)
        reasons = []
        if standing == "extrapolated":
            reasons.append("size outside those measured")
        if np.isfinite(k) and not k_lo <= k <= k_hi and k > tls.SSLRKEYC_FLOOR:
            reasons.append("SSLRKEYC outside those measured")
        ks[s], beyond[s] = k, reasons
        k_of = (lambda hv: max(hv * s / (target_pct / 100), tls.SSLRKEYC_FLOOR) / MB)
        rows.append({"message size": size_label(s), "H / enc(s)": h, "H / enc(s) 95 % lower": h_lo,
                     "H / enc(s) 95 % upper": h_hi,
                     "interval spans (factor)": h_hi / h_lo if np.isfinite(h_lo) and h_lo > 0 else np.nan,
                     "smallest SSLRKEYC (MB)": k / MB,
                     "95 % lower (MB)": k_of(h_lo) if np.isfinite(h_lo) and np.isfinite(k) else np.nan,
                     "95 % upper (MB)": k_of(h_hi) if np.isfinite(h_hi) and np.isfinite(k) else np.nan,
                     "messages between renegotiations": k / s, "extrapolated": "; ".join(reasons) or "no",
                     "note": note})
    table = pd.DataFrame(rows)
    small = sizes[0]
    if len(sizes) > 1 and np.isfinite(ks[small]):
        table[f"overhead at the {size_label(small)} SSLRKEYC (%)"] = [
            float(result.overhead(s, ks[small])) * 100 if parts.size_standing(result, s) != "cannot tell" else np.nan
            for s in sizes]
    said = []
    k = ks.get(size, np.nan)
    row = table.set_index("message size").loc[size_label(size)] if size in ks else None
    if np.isfinite(k) and known[size] == "exact" or np.isfinite(k) and known[size]:
        text = (f"For {size_label(size)} messages, renegotiation stays within {num(target_pct)} % of the TLS "
                f"cost per message with SSLRKEYC of at least {num(k / MB)} MB")
        if beyond[size]:
            r.extrapolated(f"the smallest SSLRKEYC for {size_label(size)} messages ({'; '.join(beyond[size])})")
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
    elif size in ks and parts.size_standing(result, size) == "cannot tell":
        said.append(f"For {size_label(size)} messages, outside the sizes measured, the data cannot tell which "
                    "SSLRKEYC meets the target: how the TLS cost grows with size (s0) is not identified.")
    elif size in ks:
        said.append(f"For {size_label(size)} messages no SSLRKEYC up to MQ's maximum keeps renegotiation within "
                    f"{num(target_pct)} %: only SSLRKEYC(0), no renegotiation, does.")
    else:
        said.append(f"The fit cannot answer for {size_label(size)} messages: it has one message size "
                    f"({size_label(result.sizes[0])}), and the plan covers that size only.")
    big = sizes[-1]
    if (len(sizes) > 1 and np.isfinite(ks[small]) and big != small
            and parts.size_standing(result, big) != "cannot tell"):
        out = beyond[small] or parts.size_standing(result, big) == "extrapolated"
        said.append(prose.extrapolated(f"An SSLRKEYC sized for {size_label(small)} messages ({num(ks[small] / MB)} "
                                       f"MB) gives {size_label(big)} messages "
                                       f"{pct(float(result.overhead(big, ks[small])) * 100)}", bool(out))
                    + f" instead of {num(target_pct)} %.")
        if out:
            r.extrapolated(f"the overhead of {size_label(big)} messages at the SSLRKEYC for {size_label(small)}")
    r.text("plan_text", " ".join(said))
    r.table("plan", table, caption=f"Smallest SSLRKEYC keeping renegotiation within {num(target_pct)} % of the "
                                   "TLS cost per message", digits=4)


def _why(lo: float, hi: float) -> str:
    from mqperf.present.prose import num

    return "reaches zero or below" if lo <= 0 else f"spans a factor {num(hi / lo)}"


def handshake_assumption(p) -> tuple[float | None, str | None]:
    """The CPU of one negotiation the CPU column uses, and whose figure it is, in words.

    Only a cost the reader gives (``handshake_us``): the ratios carry no absolute cost, and no
    source states a negotiation's CPU for the machine they come from. (Seed 003's connect-time
    TLS increment, 380 µs on another machine and year, once priced this column; by the model it
    would put a 1 MB message's TLS work at 76 µs of channel-initiator CPU, so it is not used.)
    """
    from mqperf.present.prose import num

    if p.get("handshake_us"):
        return float(p["handshake_us"]), (
            f"The CPU column prices one negotiation at {num(p['handshake_us'])} µs, the value given as "
            "`handshake_us`: your figure, not something the ratios measure (they carry no absolute cost).")
    return None, None


def channel_section(r, result, p, increments) -> None:
    """For a channel at ``channel_mb_s``: each candidate SSLRKEYC's renegotiations, overhead and CPU."""
    import numpy as np
    import pandas as pd

    from mqperf.errors import ModelError
    from mqperf.present import prose
    from mqperf.present.prose import num, pct

    from mqperf.data import views
    from mqperf.models import costs, tls

    from mqperf.chapters import _tls_channel_costs_parts as parts

    size, rate = p["message_size_bytes"], p["channel_mb_s"]
    hs, provenance = handshake_assumption(p)
    from mqperf.models import evidence

    standing = parts.size_standing(result, size)
    if standing == "extrapolated":
        r.extrapolated(f"the renegotiation overhead of {size_label(size)} messages (a size outside those measured)")
    h, h_lo, h_hi = result.h_interval(size) if standing != "cannot tell" else (np.nan, np.nan, np.nan)
    # The overhead is h·s/K: known as far as h = H / enc(s) is (an exact fit: as the curve says).
    overhead_known = bool(np.isfinite(h) and (not np.isfinite(h_lo) or evidence.identified(h_lo, h_hi)))
    rows = []
    for mb in p["sslrkeyc_candidates_mb"]:
        k = float(mb) * MB
        per_s = rate * MB / max(k, tls.SSLRKEYC_FLOOR)
        try:
            overhead = float(result.overhead(size, k)) * 100 if standing != "cannot tell" else np.nan
        except ModelError:
            overhead = np.nan  # a one-size fit says nothing about this size
        row = {"SSLRKEYC (MB)": float(mb), "renegotiations per s": per_s, "seconds between": 1 / per_s,
               "renegotiation cost (%)": overhead}
        if np.isfinite(h_lo) and np.isfinite(overhead):
            per = float(tls.renegotiations_per_message(size, k)) * 100
            row["95 % lower (%)"], row["95 % upper (%)"] = h_lo * per, h_hi * per
        if standing == "extrapolated":
            row["extrapolated"] = "size outside those measured"
        if hs:
            row["negotiation CPU at your handshake_us (CPU s per hour)"] = float(costs.cpu_seconds_per_hour(per_s, hs))
        rows.append(row)
    table = pd.DataFrame(rows)
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
    r.text("channel_text", f"For {size_label(size)} messages at {num(rate)} MB/s:", " ".join(said),
           provenance or "Ratios carry no absolute cost, and no source states what one negotiation costs in CPU on "
                         "the machine they come from, so the table has no CPU column: give your own (`handshake_us`, "
                         "µs of CPU per negotiation, e.g. from SMF of a channel that renegotiates often) to price "
                         "the negotiations.")
    r.table("channel", table, caption=f"{size_label(size)} messages at {num(rate)} MB/s, by SSLRKEYC", digits=4,
            missing="No SSLRKEYC candidates were given (`sslrkeyc_candidates_mb` is empty)")
    examples = views.open("tls_sslrkeyc_examples", CHAPTER, "examples") if r.book_data else None
    if examples is not None:
        examples = examples.rename(columns={"value_num": "value"})[["example", "quantity", "value", "unit", "quote"]]
    _book_only(r, "examples", examples, caption="The post's SSLRKEYC examples (seed 002)", digits=4)
    r.about("channel_about", (
        "The post's own example asks, for a channel sending 50 MB/s, whether it should renegotiate every 1MB, "
        "50MB or 500MB. A channel that sends less than 1 MB/s would go minutes between renegotiations at 500MB; "
        "the post's point is that its key then lives long, a security rather than a cost consideration."))
