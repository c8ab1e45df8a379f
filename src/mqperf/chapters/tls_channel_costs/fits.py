"""The TLS channel costs chapter's fits and arithmetic: the renegotiation model on the cost
ratios (:mod:`mqperf.models.tls`), where an answer at a size stands, and the frames behind the
plan, the channel, the sensitivity and the leave-one-out tables.

Frames keep unrounded values; :mod:`.text` words them and :mod:`.analysis` shows them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.tls_channel_costs import CHAPTER, MB, size_label
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.models import costs, evidence, tls


# -- loading and the fit -----------------------------------------------------------------------------

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


def size_standing(result, size) -> str:
    """Where an answer at ``size`` stands: "within" the sizes measured, "extrapolated" beyond them
    (the size model carries it), or "cannot tell" (beyond them, with s0 not identified: how the TLS
    cost grows with size is unknown, so the renegotiation overhead at another size is too).

    An exactly identified fit (no interval at all) extrapolates, labelled; a fit with intervals
    extrapolates only when s0's interval identifies it (:func:`mqperf.models.evidence.identified`).
    """
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


# -- checks ------------------------------------------------------------------------------------------

def sensitivity(runs: pd.DataFrame, size: int, target: float) -> pd.DataFrame:
    """Refit with each "nearly N×" read as N − 0.5 beside the ratios as printed: a, s0, H over each
    size's cost and the SSLRKEYC for ``target`` % at ``size``, and how much that SSLRKEYC changes."""
    from mqperf.present.prose import num

    nearly = runs[runs["qualifier"] == "nearly"]
    readings = {"as printed": {}}
    for row in nearly.itertuples():
        readings[f"\"nearly {row.cost_ratio:g}x\" read as {row.cost_ratio - 0.5:g}"] = \
            {(row.message_size_bytes, row.sslrkeyc_bytes): row.cost_ratio - 0.5}
    rows = []
    for label, changes in readings.items():
        changed = runs.copy()
        for (s, k), ratio in changes.items():
            changed.loc[(changed["message_size_bytes"] == s) & (changed["sslrkeyc_bytes"] == k), "cost_ratio"] = ratio
        res = fit(changed)
        row = {"reading": label, "a": float(res.params["a"]), "s0 (bytes)": float(res.params["s0"])}
        for s in res.sizes:
            row[f"H / TLS cost of {size_label(s)}"] = res.handshake / float(res.enc(s))
        try:
            row[f"SSLRKEYC for {num(target)} % at {size_label(size)} (MB)"] = res.sslrkeyc_for(target / 100, size) / MB
        except ModelError:
            row[f"SSLRKEYC for {num(target)} % at {size_label(size)} (MB)"] = np.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    kcol = table.columns[-1]
    table["SSLRKEYC change (%)"] = 100 * (table[kcol] / table[kcol].iloc[0] - 1)
    return table


def leave_one_out(runs: pd.DataFrame) -> pd.DataFrame:
    """Each point predicted by the model refitted without it (a refit that fails keeps its reason)."""
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
    return pd.DataFrame(rows)


def connect_shared(increments: pd.DataFrame) -> bool:
    """Whether the source prints the same connect-time increments for every SHARECNV value."""
    same = increments.pivot_table(index="listener", columns="sharecnv", values="tls_increment_us")
    return bool(same.shape[1] > 1 and (same.nunique(axis=1) == 1).all())


# -- planning ----------------------------------------------------------------------------------------

def plan(result, sizes, target_pct: float) -> tuple[pd.DataFrame, dict, dict, dict]:
    """Per message size: the smallest SSLRKEYC keeping renegotiation under the target, with its interval.

    Returns the table and, by size, the SSLRKEYC (NaN: none), why it is extrapolated (a list) and
    how far it is known ("exact" for a fit through the points, else whether h's interval identifies it).
    An answer at a size outside those measured is labelled extrapolated, or, when the data cannot tell
    how the TLS cost grows with size (s0 not identified), not given; an SSLRKEYC outside the measured
    ones is labelled too.
    """
    keys = result.x[:, 1]
    k_lo, k_hi = float(np.min(keys)), float(np.max(keys))
    rows, ks, beyond, known = [], {}, {}, {}
    for s in sizes:
        standing = size_standing(result, s)
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
            float(result.overhead(s, ks[small])) * 100 if size_standing(result, s) != "cannot tell" else np.nan
            for s in sizes]
    return table, ks, beyond, known


def channel(result, size: int, rate: float, candidates_mb, handshake_us: float | None) -> pd.DataFrame:
    """For a channel at ``rate`` MB/s of ``size``-byte messages: each candidate SSLRKEYC's renegotiations,
    overhead (with its interval where h has one) and, given a handshake cost, its CPU."""
    standing = size_standing(result, size)
    h, h_lo, h_hi = result.h_interval(size) if standing != "cannot tell" else (np.nan, np.nan, np.nan)
    rows = []
    for mb in candidates_mb:
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
        if handshake_us:
            row["negotiation CPU at your handshake_us (CPU s per hour)"] = float(
                costs.cpu_seconds_per_hour(per_s, handshake_us))
        rows.append(row)
    return pd.DataFrame(rows)


def overhead_curves(result, sizes) -> pd.DataFrame:
    """Renegotiation overhead (%) against SSLRKEYC (MB), one curve per message size."""
    grid = np.unique(np.round(np.geomspace(MB / 4, tls.SSLRKEYC_MAX, 40)))
    parts = [pd.DataFrame({"sslrkeyc_mb": grid / MB, "overhead_pct": [float(result.overhead(s, k)) * 100 for k in grid],
                           "message size": size_label(s)}) for s in sizes]
    return pd.concat(parts, ignore_index=True)
