"""The chapter's model and fits: scenarios evaluated against the bandwidth-delay bound and the
batch protocol (:mod:`mqperf.models.channel`), the planning answer, and a reader's measured
rates checked against the bound and fitted with the units-of-work model of
:mod:`mqperf.models.batching`, per channel, with leave-one-out. Frames hold full-precision numbers
under human column names with units; the table layer rounds them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.qrep_channel import KB, KEYS, MB, MEASURED, SENDING_MAJORITY
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import batching, channel
from mqperf.models.fitset import FitSet
from mqperf.present.precision import TABLE_BY_UNIT
from mqperf.present.prose import num


# -- the article's settings and the scenarios --------------------------------------------------

def settings_table(settings: pd.DataFrame) -> pd.DataFrame:
    rows = settings[settings["value_num"].notna()]
    return pd.DataFrame({"area": rows["area"], "setting": rows["setting"],
                         "relation": rows["relation"].str.replace("_", " "), "value": rows["value_num"],
                         "unit": rows["unit"], "as printed": rows["quote"]})


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


def measured_batches(ev: pd.DataFrame) -> dict:
    """Per series with measured rates, the largest batch (messages) measured."""
    if MEASURED not in ev or ev[MEASURED].isna().all():
        return {}
    return ev[ev[MEASURED].notna()].groupby("series")["mpb"].max().to_dict()


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


def rtt_grid(*, windows, rtts_ms, link_mb_s: float) -> pd.DataFrame:
    parts = []
    for w in windows:
        bound = channel.window_bound(w, np.asarray(rtts_ms, float) / 1e3) / MB
        parts.append(pd.DataFrame({"round trip (ms)": rtts_ms, "rate (MB/s)": np.minimum(bound, link_mb_s),
                                   "window": f"{w:,} bytes"}))
    return pd.concat(parts, ignore_index=True)


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
    out["batch_needed"] = channel.batch_for_rate(target_mb_s * MB, message_bytes, ev["effective_mb_s"] * MB, overhead)
    b = out["batch_needed"]
    out["batchlim_needed_kb"] = math.ceil(b * message_bytes / KB) if b else None
    out["channels"] = (math.ceil(target_mb_s / ev["modelled_mb_s"] - 1e-12) if target_mb_s <= link_mb_s else None)
    return out


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


# -- measured rates and the batch model fitted to them ---------------------------------------

def measured_check(ev: pd.DataFrame) -> pd.DataFrame:
    if MEASURED not in ev or ev[MEASURED].isna().all():
        return ev.iloc[0:0]
    out = ev[ev[MEASURED].notna()].copy()
    out["of_bound_pct"] = 100 * out[MEASURED] / out["effective_mb_s"]
    out["error_pct"] = 100 * (out["modelled_mb_s"] - out[MEASURED]) / out[MEASURED]
    out["above"] = out[MEASURED] > out["effective_mb_s"] * 1.0001
    # Above by more than the replicates' scatter (t-test, 5 % over the rows tested); rows measured
    # once have no scatter, and "" says so.
    out["beyond_test"], out["beyond"] = "", False
    sd = aggregate.sd_column(MEASURED)
    if aggregate.COUNT in out and sd in out:
        from mqperf.models.differences import against

        tested = out[(out[aggregate.COUNT] >= 2) & out[sd].notna()]
        for i, row in tested.iterrows():
            n = int(row[aggregate.COUNT])
            v = against(float(row[MEASURED]), float(row["effective_mb_s"]), float(row[sd]) / n**0.5, n - 1,
                        alpha=0.05 / len(tested), what="the measured rate against the bound")
            out.loc[i, "beyond_test"] = v.test
            out.loc[i, "beyond"] = bool(v.holds and row["above"])
    return out


def measured_table(check: pd.DataFrame) -> pd.DataFrame | None:
    if check.empty:
        return None
    out = pd.DataFrame({"scenario": check["series"], "messages per batch": check["mpb"].astype(int)})
    if aggregate.COUNT in check:
        out["n"] = check[aggregate.COUNT]
    out["measured (MB/s)"] = check[MEASURED]
    if aggregate.sd_column(MEASURED) in check:
        out["sd (MB/s)"] = check[aggregate.sd_column(MEASURED)]
    out["modelled (MB/s)"] = check["modelled_mb_s"]
    out["bound (MB/s)"] = check["effective_mb_s"]
    out["measured / bound (%)"] = check["of_bound_pct"]
    out["model error (%)"] = check["error_pct"]
    out["above the bound"] = check["above"].astype(bool)
    return out


def _fitter(data_name, data_hash):
    def fit(rows: pd.DataFrame):
        if rows["message_bytes"].nunique() != 1:
            raise ModelError("more than one message size: the batch model needs one size per channel")
        if rows["mpb"].nunique() < 3:
            raise ModelError(f"{rows['mpb'].nunique()} distinct batch size(s); the fit needs three or more")
        msgs = rows[MEASURED].to_numpy(float) * MB / rows["message_bytes"].to_numpy(float)
        return batching.fit_throughput(rows["mpb"].to_numpy(float), msgs, data_name=data_name, data_hash=data_hash)
    return fit


def fit_batches(check: pd.DataFrame, *, data_name=None, data_hash=None) -> FitSet:
    if check.empty:
        return FitSet([])
    return FitSet.fit(check, "series", _fitter(data_name, data_hash))


def message_size(check: pd.DataFrame, group: str) -> float:
    return float(check.loc[check["series"].astype(str) == group, "message_bytes"].iloc[0])


def overhead_ms(check: pd.DataFrame, group: str) -> float:
    row = check.loc[check["series"].astype(str) == group].iloc[0]
    return float(row["rtt_ms"] + row["commit_ms"])


def fit_table(fits: FitSet, check: pd.DataFrame) -> pd.DataFrame | None:
    if not fits.results:
        return None
    rows = []
    for f in fits:
        if not f.ok:
            continue
        res, size = f.result, message_size(check, f.group)
        ci = res.conf_int() if res.df_resid > 0 else None
        t_c, t_m = float(res.params["t_c"]), float(res.params["t_m"])
        lo_bw, hi_bw = bandwidth_interval(res, size)
        rows.append({"channel": f.group, "points": res.nobs, "residual df": res.df_resid,
                     "per batch t_c (ms)": 1e3 * t_c,
                     "t_c 95 % interval (ms)": interval(ci, "t_c", 1e3),
                     "assumed per batch (ms)": overhead_ms(check, f.group),
                     "per message t_m (ms)": 1e3 * t_m,
                     "implied bandwidth (MB/s)": size / t_m / MB if t_m > 0 else math.inf,
                     "bandwidth 95 % interval (MB/s)": (f"{num(lo_bw, TABLE_BY_UNIT['MB/s'])} to "
                                                        + (num(hi_bw, TABLE_BY_UNIT["MB/s"]) if math.isfinite(hi_bw)
                                                           else "no upper limit")
                                                        if math.isfinite(lo_bw) else "none (no residual df)"),
                     "bound (MB/s)": float(check.loc[check["series"].astype(str) == f.group, "effective_mb_s"].iloc[0]),
                     "identification": res.identification})
    return pd.DataFrame(rows)


def bandwidth_interval(res, size: float) -> tuple[float, float]:
    """The implied bandwidth's 95 % interval, size / t_m at t_m's interval ends (MB/s); an end of
    t_m at or below 0 leaves no upper limit. NaN without residual degrees of freedom."""
    if res.df_resid <= 0 or "t_m" in res.active_bounds:
        return math.nan, math.nan
    ci = res.conf_int().loc["t_m"]
    lo_t, hi_t = float(ci["lower"]), float(ci["upper"])
    if not (math.isfinite(lo_t) and math.isfinite(hi_t)) or hi_t <= 0:
        return math.nan, math.nan
    return size / hi_t / MB, (size / lo_t / MB if lo_t > 0 else math.inf)


def interval(ci, param, scale) -> str:
    if ci is None or param not in ci.index:
        return "none (no residual df)"
    lo, hi = (float(v) * scale for v in ci.loc[param].iloc[:2])
    d = TABLE_BY_UNIT["ms"]  # a table cell (or its quote): the table's digits for ms
    return f"{num(lo, d)} to {num(hi, d)}"


def fit_loo(fits: FitSet, check: pd.DataFrame) -> pd.DataFrame | None:
    if not fits.results:
        return None
    fitted = check[check["series"].astype(str).isin(list(fits.results))].copy()
    fitted["rate"] = fitted[MEASURED] * MB / fitted["message_bytes"]
    table = fits.leave_one_out(fitted, "series", x="mpb", y="rate", fitter=_fitter(None, None))
    size = table["series"].map(lambda g: message_size(check, g))
    return pd.DataFrame({"channel": table["series"], "messages per batch": table["mpb"].astype(int),
                         "measured (MB/s)": table["measured"] * size / MB,
                         "predicted (MB/s)": table["predicted"] * size / MB,
                         "error (%)": table["error %"], "note": table["note"].replace("", "–")})
