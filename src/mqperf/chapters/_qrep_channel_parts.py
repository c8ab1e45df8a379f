"""The Q Replication chapter's computations and sentences (imported by :func:`qrep_channel.analyse`).

Kept apart so that ``mqperf list`` can read the chapter's PARAMETERS without importing pandas.
Frames here hold full-precision numbers under human column names with units; the table layer
rounds them, and sentences quote them through :func:`mqperf.present.prose.num`, so a number a
sentence states is a rounding of one a table shows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import channel
from mqperf.present import prose
from mqperf.present.prose import num

MB, KB = 1e6, 1024
MAX_BATCHSZ, MAX_BATCHLIM_KB = 9999, 999999
KEYS = ["series", "rtt_ms", "tcp_window_bytes", "message_bytes", "batch_size", "batchlim_kb", "link_mb_s", "commit_ms"]
MEASURED = "measured_mb_s"
#: Below this share of each batch's time spent sending, the confirmations limit the channel more
#: than the bandwidth does.
SENDING_MAJORITY = 0.5


# -- the article's settings ------------------------------------------------------------------

def settings_table(settings: pd.DataFrame) -> pd.DataFrame:
    rows = settings[settings["value_num"].notna()]
    return pd.DataFrame({"area": rows["area"], "setting": rows["setting"],
                         "relation": rows["relation"].str.replace("_", " "), "value": rows["value_num"],
                         "unit": rows["unit"], "as printed": rows["quote"]})


# -- scenarios -------------------------------------------------------------------------------

def scenarios(frame: pd.DataFrame, defaults: dict) -> pd.DataFrame:
    """Contract-shaped rows with missing optional settings from the parameters; repeated rows of
    one channel and setting averaged (``measured_mb_s`` mean, ``n`` and sd kept)."""
    out = pd.DataFrame(index=frame.index)
    if "series" in frame:
        out["series"] = frame["series"].astype("string").fillna("").astype(str)
    for col in KEYS[1:]:
        values = frame[col].astype(float) if col in frame else pd.Series(np.nan, index=frame.index)
        out[col] = values.fillna(float(defaults[col])) if col in defaults else values
    if MEASURED in frame:
        out[MEASURED] = frame[MEASURED].astype(float)
    keys = [c for c in KEYS if c in out]
    out = aggregate.means(out, keys, [MEASURED]).reset_index(drop=True)
    if "series" not in out:
        label = "scenario" if aggregate.aggregated(out) else "row"
        out.insert(0, "series", [f"{label} {i + 1}" for i in range(len(out))])
    return out


#: Columns a reader's rows may lack, with the parameter that fills them (and its unit).
FILLED = {"tcp_window_bytes": ("tcp_buffer_bytes", "bytes"), "message_bytes": ("message_kb", "bytes")}


def filled_from_parameters(given: pd.DataFrame, defaults: dict) -> str:
    """The sentence saying which required-looking settings came from parameters, not the data."""
    from mqperf.present import prose

    parts = []
    for col, (param, unit) in FILLED.items():
        missing = int(given[col].isna().sum()) if col in given else len(given)
        if missing:
            parts.append(f"`{col}` in {prose.count(missing, 'row')} (`{param}`, {prose.num(defaults[col], 7)} {unit})")
    return ("Not in the data, so taken from the parameters: " + prose.listing(parts) + ". ") if parts else ""


def rows_note(sc: pd.DataFrame) -> str:
    return aggregate.note(sc, per="series and channel settings", value=MEASURED)


def evaluate(sc: pd.DataFrame) -> pd.DataFrame:
    """The bounds, the batch and the modelled rate of each scenario, at full precision."""
    rtt = sc["rtt_ms"].to_numpy(float) / 1e3
    window = sc["tcp_window_bytes"].to_numpy(float)
    size = sc["message_bytes"].to_numpy(float)
    link = sc["link_mb_s"].to_numpy(float) * MB
    bound = channel.window_bound(window, rtt)
    eff = np.minimum(bound, link)
    b = channel.messages_per_batch(sc["batch_size"], sc["batchlim_kb"].to_numpy(float) * KB, size)
    overhead = rtt + sc["commit_ms"].to_numpy(float) / 1e3
    msgs = channel.batch_throughput(b, size, eff, overhead)
    send = b * size / eff
    out = sc.copy()
    out["window_mb_s"] = bound / MB
    out["effective_mb_s"] = eff / MB
    out["sending_limit"] = np.where(link < bound, "link", "window")
    out["mpb"] = b
    out["ends_on"] = np.where(b < sc["batch_size"].to_numpy(float), "BATCHLIM", "BATCHSZ")
    out["windows_per_batch"] = b * size / window
    out["wait_pct"] = 100 * overhead / (overhead + send)
    out["modelled_mb_s"] = msgs * size / MB
    out["share_pct"] = 100 * out["modelled_mb_s"] / out["effective_mb_s"]
    out["b90"] = [math.ceil(channel.batch_size_for_fraction(0.9, s, e, o) - 1e-9)
                  for s, e, o in zip(size, eff, overhead)]
    out["main_limit"] = np.where(out["wait_pct"] > 100 * SENDING_MAJORITY, "batch confirmations",
                                 out["sending_limit"])
    return out


def scenario_table(ev: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "scenario": ev["series"], "messages per batch": ev["mpb"].astype(int), "batch ends on": ev["ends_on"],
        "window bound (MB/s)": ev["window_mb_s"], "link (MB/s)": ev["link_mb_s"],
        "waiting (% of time)": ev["wait_pct"], "modelled (MB/s)": ev["modelled_mb_s"],
        "share of bound (%)": ev["share_pct"], "BATCHSZ for 90 %": ev["b90"], "main limit": ev["main_limit"]})


def scenario_caption(sc: pd.DataFrame) -> str:
    text = "Each scenario's bound, batch and modelled rate"
    if aggregate.aggregated(sc):
        text += f" ({int(sc[aggregate.COUNT].sum()):,} rows averaged into {len(sc):,} scenarios)"
    return text


def measured_batches(ev: pd.DataFrame) -> dict:
    """Per series with measured rates, the largest batch (messages) measured."""
    if MEASURED not in ev or ev[MEASURED].isna().all():
        return {}
    return ev[ev[MEASURED].notna()].groupby("series")["mpb"].max().to_dict()


def b90_beyond(ev: pd.DataFrame) -> list[str]:
    """The scenarios whose "BATCHSZ for 90 %" lies past the largest batch measured on their channel."""
    top = measured_batches(ev)
    return [f"{row['series']}: BATCHSZ {num(row['b90'])} for 90 %, past the largest measured batch "
            f"({num(top[row['series']])} messages)" for _, row in ev.iterrows()
            if row["series"] in top and row["b90"] > top[row["series"]] and row["b90"] > row["mpb"]
            and row["share_pct"] < 90]


def scenario_reading(ev: pd.DataFrame, bullets: int) -> list[str]:
    """Per scenario (up to ``bullets``): its rate, what bounds it and by how much."""
    if len(ev) > bullets:
        by = ev["main_limit"].value_counts()
        worst = ev.loc[ev["share_pct"].idxmin()]
        return [f"The table below counts the scenarios by what limits them most. The lowest share of its bound, "
                f"{prose.pct(worst['share_pct'])}, is in {prose.quoted(worst['series'])} at "
                f"{_messages(worst['mpb'])} per batch: {_limit_phrase(worst)}."
                if len(by) else ""]
    top = measured_batches(ev)
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


def limit_counts(ev: pd.DataFrame) -> pd.DataFrame:
    by = ev.groupby("main_limit", sort=False)
    return pd.DataFrame({"main limit": list(by.groups), "scenarios": by.size().to_numpy(),
                         "lowest share of bound (%)": by["share_pct"].min().to_numpy()})


def batch_curve(plan: dict, sizes: dict, batch_sizes) -> pd.DataFrame:
    """Modelled MB/s against BATCHSZ at the planning round trip, window, link and BATCHLIM."""
    parts = []
    for label, size in sizes.items():
        rows = pd.DataFrame({"series": label, "rtt_ms": plan["rtt_ms"], "tcp_window_bytes": plan["window"],
                             "message_bytes": float(size), "batch_size": np.asarray(batch_sizes, float),
                             "batchlim_kb": plan["batchlim_kb"], "link_mb_s": plan["link_mb_s"],
                             "commit_ms": plan["commit_ms"]})
        ev = evaluate(rows)
        parts.append(pd.DataFrame({"BATCHSZ": ev["batch_size"].astype(int), "rate (MB/s)": ev["modelled_mb_s"],
                                   "messages": label}))
    return pd.concat(parts, ignore_index=True)


def batch_chart(curve: pd.DataFrame, rtt_ms: float):
    from mqperf.present import charts

    return charts.lines(curve, x="BATCHSZ", y="rate (MB/s)", colour="messages", log_x=True,
                        x_title="BATCHSZ (messages, log scale)", y_title="modelled rate (MB/s)",
                        title=f"One channel at {rtt_ms:g} ms round trip: rate against batch size")


# -- the bandwidth-delay bound ---------------------------------------------------------------

def rtt_grid(*, windows, rtts_ms, link_mb_s: float) -> pd.DataFrame:
    parts = []
    for w in windows:
        bound = channel.window_bound(w, np.asarray(rtts_ms, float) / 1e3) / MB
        parts.append(pd.DataFrame({"round trip (ms)": rtts_ms, "rate (MB/s)": np.minimum(bound, link_mb_s),
                                   "window": f"{w:,} bytes"}))
    return pd.concat(parts, ignore_index=True)


def rtt_chart(grid: pd.DataFrame, plan: dict):
    """Log–log rate against round trip: each window a line of slope −1 until the link caps it."""
    import altair as alt

    from mqperf.present import charts

    x = alt.X("round trip (ms):Q", scale=alt.Scale(type="log"), title="round-trip time (ms, log scale)")
    y = alt.Y("rate (MB/s):Q", scale=alt.Scale(type="log"), title="most one channel can carry (MB/s, log scale)")
    lines = alt.Chart(charts.rounded(grid)).mark_line().encode(
        x=x, y=y, color=alt.Color("window:N", title="TCP window", sort=None),
        tooltip=["window:N", "round trip (ms):Q", "rate (MB/s):Q"])
    mark = pd.DataFrame([{"round trip (ms)": plan["rtt_ms"], "rate (MB/s)": plan["effective_mb_s"],
                          "label": "the planning round trip and window"}])
    point = alt.Chart(charts.rounded(mark)).mark_point(shape="diamond", size=120, color="#333").encode(
        x=x, y=y, tooltip=["label:N", "round trip (ms):Q", "rate (MB/s):Q"])
    return alt.layer(lines, point).properties(title="The bandwidth-delay bound: window / round trip")


def bound_reading(plan: dict, grid: pd.DataFrame) -> str:
    w, rtt = plan["window"], plan["rtt_ms"]
    at10 = plan["window_mb_s"] / 10
    text = (f"At the planning round trip of {num(rtt, unit='ms')} a {num(w, 6)}-byte window carries at most "
            f"{num(plan['window_mb_s'], unit='MB/s')}, and at ten times that round trip ({num(10 * rtt, unit='ms')}) "
            f"{num(at10, unit='MB/s')}: the bound falls in proportion to the round trip. ")
    if plan["window_mb_s"] > plan["link_mb_s"]:
        text += (f"Here the link ({num(plan['link_mb_s'], unit='MB/s')}) is the tighter limit; the window would "
                 f"allow more.")
    else:
        text += (f"The link ({num(plan['link_mb_s'], unit='MB/s')}) would allow more: the window, not the link, "
                 f"is the limit.")
    return text


# -- planning --------------------------------------------------------------------------------

def plan(*, rtt_ms, window, message_bytes, batch_size, batchlim_kb, link_mb_s, commit_ms, target_mb_s) -> dict:
    """The bound at the planning parameters, the modelled rate, and what the target needs."""
    row = pd.DataFrame([{"series": "plan", "rtt_ms": rtt_ms, "tcp_window_bytes": window,
                         "message_bytes": message_bytes, "batch_size": batch_size, "batchlim_kb": batchlim_kb,
                         "link_mb_s": link_mb_s, "commit_ms": commit_ms}])
    ev = evaluate(row).iloc[0]
    out = {"rtt_ms": rtt_ms, "window": window, "message_bytes": message_bytes, "batch_size": batch_size,
           "batchlim_kb": batchlim_kb, "link_mb_s": link_mb_s, "commit_ms": commit_ms, "target_mb_s": target_mb_s,
           "window_mb_s": ev["window_mb_s"], "effective_mb_s": ev["effective_mb_s"], "mpb": ev["mpb"],
           "modelled_mb_s": ev["modelled_mb_s"], "sending_limit": ev["sending_limit"],
           "window_needed": float(channel.window_needed(target_mb_s * MB, rtt_ms / 1e3))}
    overhead = (rtt_ms + commit_ms) / 1e3
    out["batch_needed"] = batch_for_target(target_mb_s * MB, message_bytes, ev["effective_mb_s"] * MB, overhead)
    b = out["batch_needed"]
    out["batchlim_needed_kb"] = math.ceil(b * message_bytes / KB) if b else None
    out["channels"] = (math.ceil(target_mb_s / ev["modelled_mb_s"] - 1e-12) if target_mb_s <= link_mb_s else None)
    return out


def batch_for_target(target, size, bandwidth, overhead) -> int | None:
    """The smallest whole batch whose modelled rate reaches ``target`` bytes/s (None: none does)."""
    if target >= bandwidth:
        return None
    f = target / bandwidth
    b = max(1, math.ceil(f / (1 - f) * overhead * bandwidth / size))
    rate = lambda n: float(channel.batch_throughput(n, size, bandwidth, overhead)) * size  # noqa: E731
    while rate(b) < target:
        b += 1
    while b > 1 and rate(b - 1) >= target:
        b -= 1
    return b


def plan_table(plan: dict) -> pd.DataFrame:
    rows = [("round trip", plan["rtt_ms"], "ms"), ("TCP window", int(plan["window"]), "bytes"),
            ("message size", _whole(plan["message_bytes"]), "bytes"),
            ("window bound (window / round trip)", plan["window_mb_s"], "MB/s"),
            ("window bound at ten times the round trip", plan["window_mb_s"] / 10, "MB/s"),
            ("link", plan["link_mb_s"], "MB/s"), ("messages per batch", plan["mpb"], "messages"),
            ("modelled rate of one channel", plan["modelled_mb_s"], "MB/s"),
            ("target", plan["target_mb_s"], "MB/s"),
            ("window the target needs (target × round trip)", plan["window_needed"], "bytes"),
            ("BATCHSZ that reaches the target", plan["batch_needed"], "messages"),
            ("BATCHLIM that holds that batch", plan["batchlim_needed_kb"], "KB"),
            ("channels at these settings", plan["channels"], "channels")]
    return pd.DataFrame(rows, columns=["quantity", "value", "unit"]).astype({"value": object})


def _whole(x):
    """A whole number of bytes as an int, so tables show every digit."""
    return int(x) if float(x).is_integer() else x


def plan_coverage(plan: dict, ev: pd.DataFrame) -> str:
    """Why the plan's answers leave the measured data ("" when a measured channel covers them).

    The plan is for one channel at the planning parameters; a measured channel covers it when it
    has those settings (round trip, window, message size, link, commit), its rates reach the
    target and its measured batch sizes span the batch the plan names.
    """
    if MEASURED not in ev or ev[MEASURED].isna().all():
        return "no measured rate checks it"
    same = ev[ev[MEASURED].notna() & np.isclose(ev["rtt_ms"], plan["rtt_ms"])
              & np.isclose(ev["tcp_window_bytes"], plan["window"]) & np.isclose(ev["message_bytes"], plan["message_bytes"])
              & np.isclose(ev["link_mb_s"], plan["link_mb_s"]) & np.isclose(ev["commit_ms"], plan["commit_ms"])]
    if same.empty:
        return "no measured channel has the planning settings"
    if same[MEASURED].max() < plan["target_mb_s"]:
        return "the target is above every rate measured at these settings"
    b = plan["batch_needed"]
    if b is not None and not same["mpb"].min() <= b <= same["mpb"].max():
        return f"BATCHSZ {num(b)} lies outside the batches measured at these settings"
    return ""


def plan_reading(plan: dict, beyond: str = "", reader: bool = False) -> list[str]:
    target, eff, model = plan["target_mb_s"], plan["effective_mb_s"], plan["modelled_mb_s"]
    t = num(target, unit="MB/s")
    label = f" (extrapolated: {beyond})" if beyond else ""
    whose = (" (parameters, not read from your file: `-p` sets them)" if reader else "")
    first = (f"One channel at the planning parameters{whose} carries {num(model, unit='MB/s')} of the "
             f"{num(eff, unit='MB/s')} its {plan['sending_limit']} allows; the target of {t} needs a window of "
             f"{num(plan['window_needed'])} bytes at a {num(plan['rtt_ms'], unit='ms')} round trip{label}")
    first += (", which the planning window covers." if plan["window_needed"] <= plan["window"]
              else f", more than the planning window of {num(plan['window'], 6)} bytes.")
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
        batch = (f"a batch of {num(b, 4)} messages (BATCHLIM {num(lim, 6)} KB to hold it) would reach it on one "
                 "channel" + (", " + " and ".join(limits) if limits else ""))
        second = (f"It is not met at BATCHSZ {num(plan['batch_size'], 4)}: {batch}; or "
                  f"{prose.count(plan['channels'], 'channel')} at these settings carry it in parallel{label}.")
    return [first, second]


# -- pings -----------------------------------------------------------------------------------

def pings(ping_bytes, small_ms, large_ms, link_mb_s):
    """(table, why-not): the base round trip and link speed from the article's two pings."""
    if small_ms is None or large_ms is None:
        return None, ("No ping times were given (parameters ping_small_ms and ping_large_ms), so there is no "
                      "estimate of the round trip and link from pings")
    try:
        rtt0, bandwidth = channel.link_from_pings(ping_bytes[0], small_ms / 1e3, ping_bytes[1], large_ms / 1e3)
    except ModelError as exc:
        return None, f"The two pings give no estimate: {exc}"
    return pd.DataFrame([{"small ping (bytes)": ping_bytes[0], "round trip (ms)": small_ms,
                          "large ping (bytes)": ping_bytes[1], "round trip, large (ms)": large_ms,
                          "base round trip (ms)": rtt0 * 1e3, "link estimate (MB/s)": bandwidth / MB,
                          "link parameter (MB/s)": link_mb_s}]), None


def ping_reading(table, link_mb_s) -> str | None:
    if table is None:
        return None
    est = float(table["link estimate (MB/s)"].iloc[0])
    return (f"The pings put the base round trip at {num(table['base round trip (ms)'].iloc[0], unit='ms')} and the "
            f"link at {num(est, unit='MB/s')}, {'below' if est < link_mb_s else 'above'} the "
            f"{num(link_mb_s, unit='MB/s')} of the link parameter. On a fast link the extra bytes of the larger ping "
            "take less time than ping resolves, so read the link estimate as a lower bound at best.")


# -- the scenarios against the article's advice ----------------------------------------------

def advice_table(ev: pd.DataFrame, rec: dict) -> pd.DataFrame:
    """How many scenarios depart from each numeric piece of channel advice."""
    size, b = ev["message_bytes"], ev["batch_size"]
    rows = [("message size", f"{rec['message_bytes_low']:,.0f} to {rec['message_bytes_high']:,.0f} bytes",
             int(((size < rec["message_bytes_low"]) | (size > rec["message_bytes_high"])).sum())),
            ("BATCHSZ", f"{rec['batch_size']:,.0f} messages", int((b != rec["batch_size"]).sum())),
            ("BATCHLIM", f"at least {rec['batchlim_kb']:,.0f} KB", int((ev["batchlim_kb"] < rec["batchlim_kb"]).sum())),
            ("TCP buffers", f"{rec['tcp_window_bytes']:,.0f} bytes, growing dynamically",
             int((ev["tcp_window_bytes"] < rec["tcp_window_bytes"]).sum())),
            ("round trip (NETTIME)", f"at most {rec['nettime_problem_ms']:g} ms",
             int((ev["rtt_ms"] > rec["nettime_problem_ms"]).sum()))]
    return pd.DataFrame(rows, columns=["advice", "recommended", "scenarios that depart from it"])


def advice_reading(table: pd.DataFrame, scenarios: int) -> str:
    off = table[table["scenarios that depart from it"] > 0]
    if off.empty:
        return f"All {prose.count(scenarios, 'scenario')} follow the article's numeric channel advice."
    return (f"Of the article's numeric channel advice, the scenarios depart from "
            f"{prose.listing(off['advice'])}; the table counts how many do.")
