"""The chapter's words: its sentences, made from the scenarios, the plan and the fits (through
:func:`mqperf.present.prose.num`, so a number a sentence states is a rounding of one a table
shows), and its passages about the article (``r.about``: shown on the book's data only).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf import numbers
from mqperf.chapters.qrep_channel import MAX_BATCHLIM_KB, MAX_BATCHSZ, MB, MEASURED
from mqperf.chapters.qrep_channel import fits as fitting
from mqperf.data import aggregate
from mqperf.models.fitset import FitSet
from mqperf.present import prose
from mqperf.present.precision import TABLE_BY_UNIT
from mqperf.present.prose import num

ABOUT_ARTICLE = (
    "The source is a list of advice for QREP over MQ on z/OS ({ref}`dataset <data-qrep_settings>`; the "
    "{ref}`Data catalog <data-catalog>` gives every quote): a dedicated queue manager, a transmission queue "
    "per consistency group on its own page set and buffer pool, read ahead, many requests per MQ message "
    "(`transbatchsize`) with messages of 10 KB to 1 MB, fast striped logs on modern DASD with zHPF, and for "
    "the channel the numbers below. None of them comes with a measured rate. The scenarios below are the "
    "channels this advice describes: the smallest and the largest recommended message, at the recommended "
    "buffers and `BATCHSZ`, at the 1 ms round trip above which the article suspects a network problem, and "
    "the largest message once more with the largest `BATCHLIM` the article suggests.")

ABOUT_RIGHTSIZING = (
    "The article asks for TCP buffers of 65536 bytes \"to allow dynamic rightsizing\": with it the stack may "
    "grow the window for a long, fast path, so 64 KB is where the window starts, not necessarily where it "
    "ends. A measured rate above the bound is the sign that it grew.")

ABOUT_NO_RATES = (
    "The article prints no channel rates, so nothing in the book can check this model: it rests on TCP's "
    "window rule and on the channel's batch protocol, not on a fit. Run the chapter on your own channel's "
    "rates (column `measured_mb_s`) to check it.")

ABOUT_APPLY = (
    "The bound is a ceiling: log writes at both ends, the apply side's DB2 work and the capture program can "
    "each hold the rate below it. If the apply queues grow deep, the article's advice is to tune QREP (more "
    "apply threads, less DB2 contention), not the channel.")

ABOUT_ERRATA = (
    "No erratum affects this chapter. Two units are not printed in the source and are read as the products "
    "define them: `BATCHLIM` in kilobytes, and the recommended TCP buffers in bytes.")


#: Columns a reader's rows may lack, with the parameter that fills them (and its unit).
FILLED = {"tcp_window_bytes": ("tcp_buffer_bytes", "bytes"), "message_bytes": ("message_kb", "bytes")}


def filled_from_parameters(given: pd.DataFrame, defaults: dict) -> str:
    """The sentence saying which required-looking settings came from parameters, not the data."""
    parts = []
    for col, (param, unit) in FILLED.items():
        missing = int(given[col].isna().sum()) if col in given else len(given)
        if missing:
            parts.append(f"`{col}` in {prose.count(missing, 'row')} (`{param}`, {prose.given(defaults[col])} {unit})")
    return ("Not in the data, so taken from the parameters: " + prose.listing(parts) + ". ") if parts else ""


def rows_note(sc: pd.DataFrame) -> str:
    return aggregate.note(sc, per="series and channel settings", value=MEASURED)


def scenario_caption(sc: pd.DataFrame) -> str:
    text = "Each scenario's bound, batch and modelled rate"
    if aggregate.aggregated(sc):
        text += f" ({int(sc[aggregate.COUNT].sum()):,} rows averaged into {len(sc):,} scenarios)"
    return text


def b90_beyond(ev: pd.DataFrame) -> list[str]:
    """The scenarios whose "BATCHSZ for 90 %" lies past the largest batch measured on their channel."""
    top = fitting.measured_batches(ev)
    return [f"{row['series']}: BATCHSZ {num(row['b90'])} for 90 %, past the largest measured batch "
            f"({num(top[row['series']])} messages)" for _, row in ev.iterrows()
            if row["series"] in top and row["b90"] > top[row["series"]] and row["b90"] > row["mpb"]
            and row["share_pct"] < 90]


def scenario_reading(ev: pd.DataFrame, bullets: int) -> list[str]:
    """Per scenario (up to ``bullets``): its rate, what bounds it and by how much."""
    if len(ev) > bullets:
        by = ev["main_limit"].value_counts()
        worst = ev.loc[numbers.idxmin(ev["share_pct"])]
        return [f"The table below counts the scenarios by what limits them most. The lowest share of its bound, "
                f"{prose.pct(worst['share_pct'])}, is in {prose.quoted(worst['series'])} at "
                f"{_messages(worst['mpb'])} per batch: {_limit_phrase(worst)}."
                if len(by) else ""]
    top = fitting.measured_batches(ev)
    return [prose.bullets(_scenario_sentence(row, top.get(row["series"])) for _, row in ev.iterrows())]


def _messages(n) -> str:
    """``n`` messages, singular for one (the number as sentences show it)."""
    return f"{num(n)} message{'' if n == 1 else 's'}"


def _limit_phrase(row) -> str:
    if row["main_limit"] == "batch confirmations":
        return (f"waiting for batch confirmations takes {prose.pct(row['wait_pct'])} of its time, more than "
                f"sending does")
    return f"sending is held by the {row['sending_limit']}"


def _scenario_sentence(row, measured_top=None) -> str:
    name = prose.quoted(row["series"])
    window, link = row["window_mb_s"], row["link_mb_s"]
    if row["sending_limit"] == "window":
        sending = (f"the window allows {num(window, unit='MB/s')}, less than the link's {num(link, unit='MB/s')}, "
                   f"so the window limits sending")
    else:
        sending = (f"the link allows {num(link, unit='MB/s')}, less than the window's {num(window, unit='MB/s')}, "
                   f"so the link limits sending")
    ends = (f"BATCHLIM ends each batch after {_messages(row['mpb'])}, before BATCHSZ ({num(row['batch_size'])}); "
            if row["ends_on"] == "BATCHLIM" else "")
    waiting = (f"waiting for each batch's confirmation takes {prose.pct(row['wait_pct'])} of the time, so the channel "
               f"reaches {prose.pct(row['share_pct'])} of that bound")
    if row["main_limit"] == "batch confirmations":
        waiting += ": the confirmations, not the bandwidth, limit it most"
    past = measured_top is not None and row["b90"] > measured_top
    more = (f"; BATCHSZ {num(row['b90'])} would reach 90 %" + (" (extrapolated: past the largest batch measured)"
                                                                if past else "")
            if row["b90"] > row["mpb"] and row["share_pct"] < 90 else "")
    return f"{name}: {num(row['modelled_mb_s'], unit='MB/s')}. {sending[0].upper() + sending[1:]}; {ends}{waiting}{more}."


def bound_reading(plan: dict, grid: pd.DataFrame) -> str:
    w, rtt = plan["window"], plan["rtt_ms"]
    at10 = plan["window_mb_s"] / 10
    text = (f"At the planning round trip of {prose.given(rtt, unit='ms')} a {prose.given(w)}-byte window carries at most "
            f"{num(plan['window_mb_s'], unit='MB/s')}, and at ten times that round trip ({num(10 * rtt, unit='ms')}) "
            f"{num(at10, unit='MB/s')}: the bound falls in proportion to the round trip. ")
    if plan["window_mb_s"] > plan["link_mb_s"]:
        text += (f"Here the link ({num(plan['link_mb_s'], unit='MB/s')}) is the tighter limit; the window would "
                 f"allow more.")
    else:
        text += (f"The link ({num(plan['link_mb_s'], unit='MB/s')}) would allow more: the window, not the link, "
                 f"is the limit.")
    return text


def plan_reading(plan: dict, beyond: str = "", reader: bool = False) -> list[str]:
    target, eff, model = plan["target_mb_s"], plan["effective_mb_s"], plan["modelled_mb_s"]
    t = prose.given(target, unit="MB/s")
    label = f" (extrapolated: {beyond})" if beyond else ""
    whose = (" (parameters, not read from your file: `-p` sets them)" if reader else "")
    first = (f"One channel at the planning parameters{whose} carries {num(model, unit='MB/s')} of the "
             f"{num(eff, unit='MB/s')} its {plan['sending_limit']} allows; the target of {t} needs a window of "
             f"{num(plan['window_needed'])} bytes at a {prose.given(plan['rtt_ms'], unit='ms')} round trip{label}")
    first += (", which the planning window covers." if plan["window_needed"] <= plan["window"]
              else f", more than the planning window of {prose.given(plan['window'])} bytes.")
    if target > plan["link_mb_s"]:
        return [first, f"The link's {num(plan['link_mb_s'], unit='MB/s')} is below the target: no window, batch "
                       "or number of channels reaches it over this link."]
    if model >= target:
        second = (f"The target is met by one channel (BATCHSZ {num(plan['batch_needed'])} would already reach it"
                  + (f"; extrapolated: {beyond}" if beyond else "") + ").")
    elif plan["batch_needed"] is None:
        second = (f"No batch size reaches it on one channel, since the {plan['sending_limit']} bound itself is "
                  f"below it: {prose.count(plan['channels'], 'channel')} at these settings carry it in parallel"
                  + (", or a larger window on one" if plan["sending_limit"] == "window" else "") + label + ".")
    else:
        b, lim = plan["batch_needed"], plan["batchlim_needed_kb"]
        limits = []
        if b > MAX_BATCHSZ:
            limits.append("beyond the largest BATCHSZ MQ allows")
        if lim is not None and lim > MAX_BATCHLIM_KB:
            limits.append("beyond the largest BATCHLIM MQ allows")
        batch = (f"a batch of {int(b):,} messages (BATCHLIM {int(lim):,} KB to hold it) would reach it on one "
                 "channel" + (", " + " and ".join(limits) if limits else ""))
        second = (f"It is not met at BATCHSZ {prose.given(plan['batch_size'])}: {batch}; or "
                  f"{prose.count(plan['channels'], 'channel')} at these settings carry it in parallel{label}.")
    return [first, second]


def ping_reading(table, link_mb_s) -> str | None:
    if table is None:
        return None
    est = float(table["link estimate (MB/s)"].iloc[0])
    return (f"The pings put the base round trip at {num(table['base round trip (ms)'].iloc[0], unit='ms')} and the "
            f"link at {num(est, unit='MB/s')}, {'below' if est < link_mb_s else 'above'} the "
            f"{num(link_mb_s, unit='MB/s')} of the link parameter. On a fast link the extra bytes of the larger ping "
            "take less time than ping resolves, so read the link estimate as a lower bound at best.")


def advice_reading(table: pd.DataFrame, scenarios: int) -> str:
    off = table[table["scenarios that depart from it"] > 0]
    if off.empty:
        return f"All {prose.count(scenarios, 'scenario')} follow the article's numeric channel advice."
    return (f"Of the article's numeric channel advice, the scenarios depart from "
            f"{prose.listing(off['advice'])}; the table counts how many do.")


def measured_caption(check: pd.DataFrame) -> str | None:
    if check.empty:
        return None
    return (f"Measured rates against the bound and the batch model: {int(check['above'].sum()):,} of "
            f"{len(check):,} above the bound")


def measured_reading(check: pd.DataFrame) -> str | None:
    if check.empty:
        return None
    above = check[check["above"]]
    beyond = check[check["beyond"]]
    if above.empty:
        top = check.loc[numbers.idxmax(check["of_bound_pct"])]
        first = (f"No measured rate lies above its bound; the closest, {prose.quoted(top['series'])}, reaches "
                 f"{prose.pct(top['of_bound_pct'])} of it.")
    elif len(beyond):
        top = beyond.loc[numbers.idxmax(beyond["of_bound_pct"])]
        first = (f"{prose.count(len(beyond), 'measured rate').capitalize()} "
                 f"{'exceeds' if len(beyond) == 1 else 'exceed'} the bound by more than the replicates' scatter "
                 f"({top['beyond_test']}): the most, {prose.quoted(top['series'])}, reaches "
                 f"{prose.pct(top['of_bound_pct'])} of it, so the window in force was larger than the file says "
                 "(dynamic right-sizing) or the round trip shorter.")
    else:
        top = above.loc[numbers.idxmax(above["of_bound_pct"])]
        tested = (above["beyond_test"] != "").any()
        first = (f"{prose.count(len(above), 'measured rate').capitalize()} "
                 f"{'lies' if len(above) == 1 else 'lie'} above the bound (the most, {prose.quoted(top['series'])}, "
                 f"at {prose.pct(top['of_bound_pct'])} of it), "
                 + (f"within the replicates' scatter ({top['beyond_test']})." if tested and top["beyond_test"] else
                    "each measured once, so whether by more than their scatter cannot be tested. A rate truly above "
                    "the bound means the window in force was larger than the file says (dynamic right-sizing) or "
                    "the round trip shorter."))
    lo, hi = check["error_pct"].min(), check["error_pct"].max()
    second = (f"The model's error against the measurements runs from {prose.pct(lo)} to {prose.pct(hi)} "
              f"({'it over-predicts every one' if lo > 0 else 'it under-predicts every one' if hi < 0 else 'over and under'}).")
    return f"{first} {second}"


def no_fit_reason(check: pd.DataFrame) -> str:
    if check.empty:
        return "With no measured rates there is no batch model to fit"
    return "No channel has three or more measured batch sizes at one message size, so the batch model is not fitted"


def fit_status(fits: FitSet, check: pd.DataFrame) -> str | None:
    if check.empty:
        return None
    text = prose.identification(fits.results) if fits.results else ""
    if fits.failures:
        text += " " + " ".join(f"{prose.quoted(g)} is not fitted: {why}." for g, why in fits.failures.items())
    return text.strip()


def fit_reading(fits: FitSet, check: pd.DataFrame) -> list[str]:
    out = []
    for group, res in fits.results.items():
        size = fitting.message_size(check, group)
        t_c, t_m = 1e3 * float(res.params["t_c"]), float(res.params["t_m"])
        bound = float(check.loc[check["series"].astype(str) == group, "effective_mb_s"].iloc[0])
        assumed = fitting.overhead_ms(check, group)
        ci = res.conf_int() if res.df_resid > 0 else None
        per_batch = (f"each batch costs {num(t_c, unit='ms')} beyond sending"
                     + (f" (95 % interval {fitting.interval(ci, 't_c', 1e3)} ms)" if ci is not None and "t_c" in ci.index
                        and np.isfinite(ci.loc["t_c"]).all() else "")
                     + f", against the {num(assumed, unit='ms')} the model assumes (round trip plus commit)")
        if t_m > 0:
            bw = size / t_m / MB
            lo, hi = fitting.bandwidth_interval(res, size)
            # The interval as the fits table shows it (its digits for MB/s), not rounded further.
            d = TABLE_BY_UNIT["MB/s"]
            span = (f"95 % interval {num(lo, d)} to {num(hi, d)} MB/s" if math.isfinite(hi) else
                    f"95 % interval from {num(lo, d)} MB/s with no upper limit")
            if not math.isfinite(lo):
                sending = (f"the messages move at {num(bw, unit='MB/s')}; with no interval the data cannot tell "
                           f"that from the {num(bound, unit='MB/s')} bound")
            elif lo > bound or hi < bound:
                sending = (f"the messages move at {num(bw, unit='MB/s')}, "
                           f"{'above' if lo > bound else 'below'} the {num(bound, unit='MB/s')} bound ({span})")
            else:
                sending = (f"the messages move at {num(bw, unit='MB/s')}, which the data cannot tell from the "
                           f"{num(bound, unit='MB/s')} bound ({span})")
        else:
            sending = "the per-message time is held at 0: the data show no bandwidth limit"
        out.append(f"In {prose.quoted(group)} {per_batch}; {sending}.")
    return [prose.bullets(out)] if out else []


def loo_reading(loo: pd.DataFrame | None) -> str | None:
    if loo is None or loo["error (%)"].isna().all():
        return None if loo is None else "No refit without a point succeeded: the predictions cannot be checked."
    worst = loo.loc[numbers.idxmax(loo["error (%)"].abs())]
    return (f"Left out one at a time, the refits predict each measurement within "
            f"{prose.pct(abs(worst['error (%)']))}; the largest miss is {prose.quoted(worst['channel'])} at "
            f"{_messages(worst['messages per batch'])} per batch.")
