"""The Q Replication chapter's check of measured channel rates: against the bound and the batch
model, and the units-of-work fit per channel with leave-one-out (imported by
:func:`qrep_channel.analyse`). Frames hold full precision under human column names; the table
layer rounds, and sentences quote through :func:`mqperf.present.prose.num`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters._qrep_channel_parts import MB, MEASURED, _messages
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import batching
from mqperf.models.fitset import FitSet
from mqperf.present import prose
from mqperf.present.prose import num


# -- measurements ----------------------------------------------------------------------------

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
        top = check.loc[check["of_bound_pct"].idxmax()]
        first = (f"No measured rate lies above its bound; the closest, {prose.quoted(top['series'])}, reaches "
                 f"{prose.pct(top['of_bound_pct'])} of it.")
    elif len(beyond):
        top = beyond.loc[beyond["of_bound_pct"].idxmax()]
        first = (f"{prose.count(len(beyond), 'measured rate').capitalize()} "
                 f"{'exceeds' if len(beyond) == 1 else 'exceed'} the bound by more than the replicates' scatter "
                 f"({top['beyond_test']}): the most, {prose.quoted(top['series'])}, reaches "
                 f"{prose.pct(top['of_bound_pct'])} of it, so the window in force was larger than the file says "
                 "(dynamic right-sizing) or the round trip shorter.")
    else:
        top = above.loc[above["of_bound_pct"].idxmax()]
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


# -- fitting measured batches ----------------------------------------------------------------

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


def _size(check: pd.DataFrame, group: str) -> float:
    return float(check.loc[check["series"].astype(str) == group, "message_bytes"].iloc[0])


def _overhead_ms(check: pd.DataFrame, group: str) -> float:
    row = check.loc[check["series"].astype(str) == group].iloc[0]
    return float(row["rtt_ms"] + row["commit_ms"])


def fit_table(fits: FitSet, check: pd.DataFrame) -> pd.DataFrame | None:
    if not fits.results:
        return None
    rows = []
    for f in fits:
        if not f.ok:
            continue
        res, size = f.result, _size(check, f.group)
        ci = res.conf_int() if res.df_resid > 0 else None
        t_c, t_m = float(res.params["t_c"]), float(res.params["t_m"])
        lo_bw, hi_bw = _bandwidth_interval(res, size)
        rows.append({"channel": f.group, "points": res.nobs, "residual df": res.df_resid,
                     "per batch t_c (ms)": 1e3 * t_c,
                     "t_c 95 % interval (ms)": _interval(ci, "t_c", 1e3),
                     "assumed per batch (ms)": _overhead_ms(check, f.group),
                     "per message t_m (ms)": 1e3 * t_m,
                     "implied bandwidth (MB/s)": size / t_m / MB if t_m > 0 else math.inf,
                     "bandwidth 95 % interval (MB/s)": (f"{num(lo_bw, 4)} to "
                                                        + (num(hi_bw, 4) if math.isfinite(hi_bw) else "no upper limit")
                                                        if math.isfinite(lo_bw) else "none (no residual df)"),
                     "bound (MB/s)": float(check.loc[check["series"].astype(str) == f.group, "effective_mb_s"].iloc[0]),
                     "identification": res.identification})
    return pd.DataFrame(rows)


def _bandwidth_interval(res, size: float) -> tuple[float, float]:
    """The implied bandwidth's 95 % interval, size / t_m at t_m's interval ends (MB/s); an end of
    t_m at or below 0 leaves no upper limit. NaN without residual degrees of freedom."""
    if res.df_resid <= 0 or "t_m" in res.active_bounds:
        return math.nan, math.nan
    ci = res.conf_int().loc["t_m"]
    lo_t, hi_t = float(ci["lower"]), float(ci["upper"])
    if not (math.isfinite(lo_t) and math.isfinite(hi_t)) or hi_t <= 0:
        return math.nan, math.nan
    return size / hi_t / MB, (size / lo_t / MB if lo_t > 0 else math.inf)


def _interval(ci, param, scale) -> str:
    if ci is None or param not in ci.index:
        return "none (no residual df)"
    lo, hi = (float(v) * scale for v in ci.loc[param].iloc[:2])
    return f"{num(lo, 4)} to {num(hi, 4)}"


def fit_reading(fits: FitSet, check: pd.DataFrame) -> list[str]:
    out = []
    for group, res in fits.results.items():
        size = _size(check, group)
        t_c, t_m = 1e3 * float(res.params["t_c"]), float(res.params["t_m"])
        bound = float(check.loc[check["series"].astype(str) == group, "effective_mb_s"].iloc[0])
        assumed = _overhead_ms(check, group)
        ci = res.conf_int() if res.df_resid > 0 else None
        per_batch = (f"each batch costs {num(t_c, unit='ms')} beyond sending"
                     + (f" (95 % interval {_interval(ci, 't_c', 1e3)} ms)" if ci is not None and "t_c" in ci.index
                        and np.isfinite(ci.loc["t_c"]).all() else "")
                     + f", against the {num(assumed, unit='ms')} the model assumes (round trip plus commit)")
        if t_m > 0:
            bw = size / t_m / MB
            lo, hi = _bandwidth_interval(res, size)
            span = (f"95 % interval {num(lo, 4)} to {num(hi, 4)} MB/s" if math.isfinite(hi) else
                    f"95 % interval from {num(lo, 4)} MB/s with no upper limit")
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


def fit_loo(fits: FitSet, check: pd.DataFrame) -> pd.DataFrame | None:
    if not fits.results:
        return None
    fitted = check[check["series"].astype(str).isin(list(fits.results))].copy()
    fitted["rate"] = fitted[MEASURED] * MB / fitted["message_bytes"]
    table = fits.leave_one_out(fitted, "series", x="mpb", y="rate", fitter=_fitter(None, None))
    size = table["series"].map(lambda g: _size(check, g))
    return pd.DataFrame({"channel": table["series"], "messages per batch": table["mpb"].astype(int),
                         "measured (MB/s)": table["measured"] * size / MB,
                         "predicted (MB/s)": table["predicted"] * size / MB,
                         "error (%)": table["error %"], "note": table["note"].replace("", "–")})


def loo_reading(loo: pd.DataFrame | None) -> str | None:
    if loo is None or loo["error (%)"].isna().all():
        return None if loo is None else "No refit without a point succeeded: the predictions cannot be checked."
    worst = loo.loc[loo["error (%)"].abs().idxmax()]
    return (f"Left out one at a time, the refits predict each measurement within "
            f"{prose.pct(abs(worst['error (%)']))}; the largest miss is {prose.quoted(worst['channel'])} at "
            f"{_messages(worst['messages per batch'])} per batch.")
