"""The Q Replication chapter's check of measured channel rates: against the bound and the batch
model, and the units-of-work fit per channel with leave-one-out (imported by
:func:`qrep_channel.analyse`). Frames hold full precision under human column names; the table
layer rounds, and sentences quote through :func:`mqperf.present.prose.num`.
"""

from __future__ import annotations

import math

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
    if above.empty:
        top = check.loc[check["of_bound_pct"].idxmax()]
        first = (f"No measured rate exceeds its bound; the closest, {prose.quoted(top['series'])}, reaches "
                 f"{prose.pct(top['of_bound_pct'])} of it.")
    else:
        top = above.loc[above["of_bound_pct"].idxmax()]
        first = (f"{prose.count(len(above), 'measured rate').capitalize()} "
                 f"{'exceeds' if len(above) == 1 else 'exceed'} the bound (the most, {prose.quoted(top['series'])}, "
                 f"reaches {prose.pct(top['of_bound_pct'])} of it): the window in force was larger than the file says "
                 "(dynamic right-sizing) or the round trip shorter.")
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
        rows.append({"channel": f.group, "points": res.nobs, "residual df": res.df_resid,
                     "per batch t_c (ms)": 1e3 * t_c,
                     "t_c 95 % interval (ms)": _interval(ci, "t_c", 1e3),
                     "assumed per batch (ms)": _overhead_ms(check, f.group),
                     "per message t_m (ms)": 1e3 * t_m,
                     "implied bandwidth (MB/s)": size / t_m / MB if t_m > 0 else math.inf,
                     "bound (MB/s)": float(check.loc[check["series"].astype(str) == f.group, "effective_mb_s"].iloc[0]),
                     "identification": res.identification})
    return pd.DataFrame(rows)


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
        per_batch = (f"each batch costs {num(t_c, unit='ms')} beyond sending, against the "
                     f"{num(assumed, unit='ms')} the model assumes (round trip plus commit)")
        if t_m > 0:
            bw = size / t_m / MB
            sending = (f"the messages move at {num(bw, unit='MB/s')}, "
                       f"{'above' if bw > bound else 'below'} the {num(bound, unit='MB/s')} bound")
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
