"""Q Replication channel planning: what one sender channel can carry, from the recommended
settings (seed 002) and the channel models of :mod:`mqperf.models.channel`.

* Bandwidth–delay bound: at most one TCP window in flight, so B_eff = min(link, W / RTT).
* Batches: a batch of b messages of s bytes takes t_batch + b·s/B_eff, where t_batch is the
  confirmation round trip plus the receiver's commit; the batch ends at BATCHSZ messages or
  after the message that reaches BATCHLIM kilobytes, whichever comes first.
* A reader's own channel measurements (``measured_mb_s``) are compared with the bound, and
  with three or more batch sizes in one series the units-of-work model
  (:func:`mqperf.models.batching.fit_throughput`) is fitted and checked by leave-one-out.

Units: sizes in bytes (KB = 1024 bytes, as BATCHLIM counts them), rates in MB/s with
MB = 10⁶ bytes (as networks count them), times in milliseconds.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from mqperf.present import charts
from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.data import identity as dataset_identity  # noqa: F401 (the chapter calls it from here)
from mqperf.data import is_path as _is_path
from mqperf.errors import ModelError
from mqperf.models import batching, channel
from mqperf.models._base import round_sig
from mqperf.models.validation import leave_one_out as _loo

MB = 1e6
KB = 1024




def load_settings(source: str = "qrep_settings") -> pd.DataFrame:
    return mqdata.load(source)


def _value(settings: pd.DataFrame, setting: str, relation: str) -> float:
    row = settings[(settings["setting"] == setting) & (settings["relation"] == relation)]
    if row.empty:
        raise ModelError(f"qrep settings: no {setting} ({relation}) row")
    return float(row["value_num"].iloc[0])


def recommended(settings: pd.DataFrame) -> dict:
    """The numbers the article recommends, in the chapter's units."""
    unit_bytes = {"KB": KB, "MB": KB * KB}
    low = settings[(settings["setting"] == "message size") & (settings["relation"] == "range_low")].iloc[0]
    high = settings[(settings["setting"] == "message size") & (settings["relation"] == "range_high")].iloc[0]
    return {
        "tcp_window_bytes": _value(settings, "TCPSENDBFRSIZE", "equal"),
        "tcp_receive_bytes": _value(settings, "TCPRCVBUFRSIZE", "equal"),
        "batch_size": _value(settings, "batch size", "equal"),
        "batchlim_kb": _value(settings, "batchlim", "default"),
        "batchlim_kb_max": _value(settings, "batchlim", "maximum_suggested"),
        "message_bytes_low": float(low["value_num"]) * unit_bytes[str(low["unit"])],
        "message_bytes_high": float(high["value_num"]) * unit_bytes[str(high["unit"])],
        "nettime_problem_ms": _value(settings, "nettime", "problem_above"),
        "ping_bytes": sorted(settings[settings["setting"] == "ping length"]["value_num"].astype(float).tolist()),
    }


def settings_table(settings: pd.DataFrame) -> pd.DataFrame:
    """The numeric recommendations, as printed."""
    num = settings[settings["value_num"].notna()]
    return num[["area", "setting", "relation", "value_num", "unit", "quote"]].reset_index(drop=True)


def messages_per_batch(batch_size, batchlim_kb, message_bytes):
    """min(BATCHSZ, ⌈BATCHLIM / message size⌉): the batch ends after the message reaching BATCHLIM."""
    b = np.asarray(batch_size, dtype=float)
    lim = np.asarray(batchlim_kb, dtype=float) * KB
    s = np.asarray(message_bytes, dtype=float)
    if np.any(b < 1) or np.any(lim <= 0) or np.any(s <= 0):
        raise ModelError("batch size must be ≥ 1, BATCHLIM and message size greater than zero")
    return np.minimum(b, np.ceil(lim / s))


def window_needed_bytes(target_mb_s, rtt_ms):
    """Bandwidth–delay product: the TCP window a target rate needs at a round trip (bytes)."""
    return np.asarray(target_mb_s, dtype=float) * MB * np.asarray(rtt_ms, dtype=float) / 1e3


def evaluate(rows: pd.DataFrame) -> pd.DataFrame:
    """Bound, effective bandwidth, messages per batch and modelled MB/s for each scenario row.

    Columns used: rtt_ms, tcp_window_bytes, message_bytes, batch_size, batchlim_kb,
    link_mb_s, commit_ms (NaN link = no link limit).
    """
    rtt = rows["rtt_ms"].to_numpy(dtype=float) / 1e3
    window = rows["tcp_window_bytes"].to_numpy(dtype=float)
    size = rows["message_bytes"].to_numpy(dtype=float)
    link = rows["link_mb_s"].to_numpy(dtype=float) * MB
    bound = channel.window_bound(window, rtt)
    eff = np.where(np.isfinite(link), np.minimum(bound, np.nan_to_num(link, nan=np.inf)), bound)
    b = messages_per_batch(rows["batch_size"], rows["batchlim_kb"], size)
    overhead = rtt + rows["commit_ms"].to_numpy(dtype=float) / 1e3
    msgs = channel.batch_throughput(b, size, eff, overhead)
    mb_s = msgs * size / MB
    b90 = [channel.batch_size_for_fraction(0.9, s_, e_, o_) for s_, e_, o_ in zip(size, eff, overhead)]
    out = rows.copy()
    out["window_bound_mb_s"] = [round_sig(v / MB, 4) for v in bound]
    out["limited_by"] = np.where(np.isfinite(link) & (link < bound), "link", "window / RTT")
    out["effective_mb_s"] = [round_sig(v / MB, 4) for v in eff]
    out["messages_per_batch"] = b.astype(int)
    out["batch_ends_on"] = np.where(b < rows["batch_size"].to_numpy(dtype=float), "BATCHLIM", "BATCHSZ")
    out["modelled_mb_s"] = [round_sig(v, 4) for v in mb_s]
    out["share_of_effective"] = [round_sig(v, 3) for v in mb_s * MB / eff]
    out["batch_for_90pct"] = [round_sig(v, 3) for v in b90]
    return out


SCENARIO_COLUMNS = ["series", "rtt_ms", "tcp_window_bytes", "message_bytes", "batch_size", "batchlim_kb", "link_mb_s", "commit_ms"]


def load_scenarios(source: str, *, defaults: dict) -> pd.DataFrame:
    """Scenario rows: a reader's file (missing optional columns take ``defaults``) or, for the
    book's settings dataset, one row per recommended message size at the default RTT.

    Rows of a reader's file with the same series and settings (repeated measurements of one
    channel) are one scenario: ``measured_mb_s`` is averaged, with ``n`` and
    ``measured_mb_s_sd`` kept (:func:`mqperf.data.aggregate.means`). The batch fits go through
    these means unweighted, so their degrees of freedom are the distinct batch sizes.
    """
    if _is_path(source):
        frame = mqdata.load(source, contract="qrep_channel")
        out = pd.DataFrame({"series": frame["series"].astype(str)} if "series" in frame else {}, index=frame.index)
        for col in SCENARIO_COLUMNS[1:]:
            out[col] = frame[col].astype(float) if col in frame else float(defaults[col])
            out[col] = out[col].fillna(float(defaults[col]))
        if "measured_mb_s" in frame:
            out["measured_mb_s"] = frame["measured_mb_s"].astype(float)
        keys = [c for c in SCENARIO_COLUMNS if c in out]
        out = aggregate.means(out, keys, ["measured_mb_s"]).reset_index(drop=True)
        if "series" not in out:
            label = "scenario" if aggregate.aggregated(out) else "row"
            out.insert(0, "series", [f"{label} {i + 1}" for i in range(len(out))])
        return out
    rec = recommended(load_settings(source))
    rows = []
    for label, size in (("10 KB messages (smallest recommended)", rec["message_bytes_low"]),
                        ("1 MB messages (largest recommended)", rec["message_bytes_high"]),
                        (f"{defaults['message_bytes'] / KB:g} KB messages (your size)", defaults["message_bytes"])):
        rows.append({"series": label, **{c: float(defaults[c]) for c in SCENARIO_COLUMNS[1:]}, "message_bytes": float(size)})
    return pd.DataFrame(rows).drop_duplicates(subset=["message_bytes"]).reset_index(drop=True)


def aggregation_note(scenarios: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many rows were averaged into how many scenarios; nothing if none were."""
    return aggregate.AggregationNote(aggregate.note(scenarios, per="series and channel settings", value="measured_mb_s"))


def rtt_grid(*, windows_bytes, rtts_ms, link_mb_s: float) -> pd.DataFrame:
    """Effective MB/s against RTT for several windows (the bandwidth–delay bound, link-capped)."""
    parts = []
    for w in windows_bytes:
        bound = channel.window_bound(w, np.asarray(rtts_ms, dtype=float) / 1e3) / MB
        eff = np.minimum(bound, link_mb_s) if np.isfinite(link_mb_s) else bound
        parts.append(pd.DataFrame({"rtt_ms": rtts_ms, "mb_s": eff, "window": f"{w / KB:g} KB window"}))
    return pd.concat(parts, ignore_index=True)


def rtt_chart(grid: pd.DataFrame, *, marks: pd.DataFrame | None = None) -> alt.LayerChart:
    """Log–log MB/s against RTT: each window is a line of slope −1 until the link caps it."""
    colour = alt.Color("window:N", title=None, sort=None)
    lines = alt.Chart(charts.rounded(grid)).mark_line().encode(
        x=alt.X("rtt_ms:Q", scale=alt.Scale(type="log"), title="round-trip time (ms, log scale)"),
        y=alt.Y("mb_s:Q", scale=alt.Scale(type="log"), title="most one channel can carry (MB/s, log scale)"),
        color=colour, tooltip=["window:N", "rtt_ms:Q", "mb_s:Q"])
    layers = [lines]
    if marks is not None and len(marks):
        layers.append(alt.Chart(charts.rounded(marks)).mark_point(shape="diamond", size=120, color="#333").encode(
            x="rtt_ms:Q", y="mb_s:Q", tooltip=["label:N", "rtt_ms:Q", "mb_s:Q"]))
    return alt.layer(*layers).properties(title="The bandwidth-delay bound: window / round trip")


def batch_curve(*, rtt_ms: float, window_bytes: float, link_mb_s: float, commit_ms: float, batchlim_kb: float,
                message_sizes: dict, batch_sizes) -> pd.DataFrame:
    """Modelled MB/s against BATCHSZ for several message sizes (BATCHLIM applied)."""
    parts = []
    for label, size in message_sizes.items():
        rows = pd.DataFrame({"series": label, "rtt_ms": rtt_ms, "tcp_window_bytes": window_bytes, "message_bytes": size,
                             "batch_size": np.asarray(batch_sizes, dtype=float), "batchlim_kb": batchlim_kb,
                             "link_mb_s": link_mb_s, "commit_ms": commit_ms})
        ev = evaluate(rows)
        parts.append(pd.DataFrame({"batch_size": ev["batch_size"].astype(int), "mb_s": ev["modelled_mb_s"], "messages": label}))
    return pd.concat(parts, ignore_index=True)


def measured_check(scenarios: pd.DataFrame) -> pd.DataFrame:
    """Rows with a measured rate: measured against the bound and the batch model (a reader's data)."""
    if "measured_mb_s" not in scenarios or scenarios["measured_mb_s"].isna().all():
        return pd.DataFrame()
    ev = evaluate(scenarios[scenarios["measured_mb_s"].notna()])
    return pd.DataFrame({
        "series": ev["series"], "batch_size": ev["batch_size"], "measured_mb_s": ev["measured_mb_s"],
        "modelled_mb_s": ev["modelled_mb_s"], "effective_mb_s": ev["effective_mb_s"],
        "measured_over_bound": [round_sig(v, 3) for v in ev["measured_mb_s"] / ev["effective_mb_s"]],
        "model_error_pct": [round_sig(v, 3) for v in (ev["modelled_mb_s"] - ev["measured_mb_s"]) / ev["measured_mb_s"] * 100],
        "above_bound": ev["measured_mb_s"] > ev["effective_mb_s"] * 1.0001,
    })


def fit_batches(scenarios: pd.DataFrame, *, data_name=None, data_hash=None) -> dict:
    """Per series with ≥ 3 measured batch sizes: X(b) = b/(t_c + b·t_m) in messages per second."""
    fits = {}
    if "measured_mb_s" not in scenarios:
        return fits
    for name, group in scenarios.dropna(subset=["measured_mb_s"]).groupby("series", sort=False):
        b = messages_per_batch(group["batch_size"], group["batchlim_kb"], group["message_bytes"])
        if np.unique(b).size < 3 or group["message_bytes"].nunique() != 1:
            continue
        msgs = group["measured_mb_s"].to_numpy() * MB / group["message_bytes"].to_numpy()
        fits[name] = (batching.fit_throughput(b, msgs, data_name=data_name, data_hash=data_hash), float(group["message_bytes"].iloc[0]))
    return fits


def batch_fit_table(fits: dict) -> pd.DataFrame:
    rows = []
    for name, (r, size) in fits.items():
        t_c, t_m = float(r.params["t_c"]), float(r.params["t_m"])
        rows.append({"series": name, "points": r.nobs, "df_resid": r.df_resid, "per_batch_ms": round_sig(t_c * 1e3, 4),
                     "per_message_ms": round_sig(t_m * 1e3, 4), "implied_bandwidth_mb_s": round_sig(size / t_m / MB, 4),
                     "status": "; ".join(r.notes)})
    return pd.DataFrame(rows)


def batch_loo(scenarios: pd.DataFrame, fits: dict) -> pd.DataFrame:
    parts = []
    for name, (r, size) in fits.items():
        group = scenarios[(scenarios["series"] == name) & scenarios["measured_mb_s"].notna()]
        b = messages_per_batch(group["batch_size"], group["batchlim_kb"], group["message_bytes"])
        table = _loo(batching.fit_throughput, b, group["measured_mb_s"].to_numpy() * MB / size)
        parts.append(pd.DataFrame({"series": name, "messages_per_batch": table["x"].astype(int),
                                   "measured_mb_s": [round_sig(v * size / MB, 4) for v in table["measured"]],
                                   "predicted_mb_s": [round_sig(v * size / MB, 4) for v in table["predicted"]],
                                   "error_pct": [round_sig(v, 3) for v in table["error_pct"]], "note": table["note"]}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def link_from_pings(ping_bytes, small_ms: float | None, large_ms: float | None) -> dict | None:
    """RTT₀ and link bandwidth from the two pings the article suggests (None without both)."""
    if small_ms is None or large_ms is None:
        return None
    rtt0, bandwidth = channel.link_from_pings(ping_bytes[0], small_ms / 1e3, ping_bytes[1], large_ms / 1e3)
    return {"rtt0_ms": round_sig(rtt0 * 1e3, 4), "link_mb_s": round_sig(bandwidth / MB, 4)}


def planning_answer(*, rtt_ms: float, window_bytes: float, link_mb_s: float, target_mb_s: float) -> dict:
    """The bound at the reader's RTT and window, and the window the target needs."""
    bound = float(channel.window_bound(window_bytes, rtt_ms / 1e3)) / MB
    eff = min(bound, link_mb_s) if math.isfinite(link_mb_s) else bound
    need = float(window_needed_bytes(target_mb_s, rtt_ms))
    return {"rtt_ms": rtt_ms, "tcp_window_bytes": window_bytes, "window_bound_mb_s": round_sig(bound, 4),
            "effective_mb_s": round_sig(eff, 4), "target_mb_s": target_mb_s, "window_needed_bytes": round_sig(need, 4),
            "window_needed_kb": round_sig(need / KB, 4), "target_within_bound": target_mb_s <= eff,
            "channels_needed_at_this_window": max(1, math.ceil(target_mb_s / eff - 1e-12))}
