"""The log disk chapter's models: each disk's time per write, checked, and the planning answer.

* :func:`prepare`: one row per block size and series, with each writer's writes per second
  (10⁶ / average latency in µs: a writer writes back to back, so its rate is one over its time per
  write, whatever the number of writers beside it).
* :func:`fit_disks`: per series, writes/s against block size through the latency–bandwidth model
  t(b) = a + b/B (:mod:`mqperf.models.latency_bandwidth`, relative weights); one block size gives
  no fit, and the series is kept with its single time per write (:func:`single_blocks`).
* :func:`held_out`: leave-one-out over block sizes; :func:`mq_check`: MQ's own log writes
  (amqsrua) against the model at MQ's write size; :func:`mq_vs_tool` (book data): MQ's MB/s at the
  same block size as MQLDT's.
* :func:`plan`: the persistent rate and commit latency of the planning question under group
  commit (:mod:`mqperf.models.log_disk`), with the fit's band, or one block size's bounds, and
  whether the write size leaves the measured block sizes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.log_disk import MB
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import evidence, latency_bandwidth, log_disk
from mqperf.models.fitset import FitSet

ALL = "your disk"


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """The contract's rows with a series label, writers and each writer's writes per second."""
    out = frame.copy()
    if "queue_managers" not in out:
        out["queue_managers"] = 1
    out["queue_managers"] = out["queue_managers"].fillna(1).astype(int)
    if "series" not in out or out["series"].isna().all():
        writers = sorted(out["queue_managers"].unique())
        out["series"] = (ALL if len(writers) == 1 else
                         [f"{n} writer{'s' if n != 1 else ''} at once" for n in out["queue_managers"]])
    out["series"] = out["series"].astype(str)
    out["blocksize_bytes"] = out["blocksize_bytes"].astype(float)
    if "basis" not in out:
        out["basis"] = "measured"
    # Replicates (rows of one series, block size and writer count) become one point: the mean time per
    # write, and bytes/s as total bytes over total time (weighted by duration_s where the file gives it).
    out = aggregate.means(out, ["series", "blocksize_bytes", "queue_managers"], ["avg_latency_us", "avg_bytes_s"],
                          weight="duration_s", rates=["avg_bytes_s"])
    out["writes_s"] = 1e6 / out["avg_latency_us"].astype(float)
    return out.reset_index(drop=True)


def _fitter(rows: pd.DataFrame):
    return latency_bandwidth.fit(rows["blocksize_bytes"].to_numpy(), rows["writes_s"].to_numpy())


def fit_disks(points: pd.DataFrame) -> FitSet:
    return FitSet.fit(points, "series", _fitter)


def single_blocks(points: pd.DataFrame, fits: FitSet | None = None, size: float | None = None
                  ) -> dict[str, tuple[float, float]]:
    """Series without a fit: {series: (block size, mean time per write in s)}.

    A series measured at one block size gives that one; a series the model could not fit (its
    time per write does not grow with block size) gives the block size nearest ``size`` (on a log
    scale), whose time bounds any write on a disk of the model (:func:`log_disk.one_block_bounds`).
    """
    fitted = set(fits.results) if fits is not None else set()
    out = {}
    for name, g in points.groupby("series", sort=False):
        name = str(name)
        if name in fitted:
            continue
        blocks = g.groupby("blocksize_bytes")["avg_latency_us"].mean() / 1e6
        if len(blocks) == 1 or fits is not None:
            target = blocks.index[0] if size is None else blocks.index[np.argmin(np.abs(np.log(blocks.index / size)))]
            out[name] = (float(target), float(blocks[target]))
    return out


def measured_table(points: pd.DataFrame) -> pd.DataFrame:
    cols = {"series": "series", "blocksize_bytes": "block size (bytes)", "queue_managers": "writers",
            "avg_latency_us": "time per write (µs)", "writes_s": "writes/s per writer",
            "avg_bytes_s": "MB/s, all writers", "requesters": "MQ requesters", "basis": "basis",
            aggregate.COUNT: "rows (n)", aggregate.sd_column("avg_latency_us"): "time per write sd (µs)"}
    shown = points.assign(avg_bytes_s=points["avg_bytes_s"] / MB)
    return shown[[c for c in cols if c in shown]].rename(columns=cols)


def fits_table(fits: FitSet, points: pd.DataFrame) -> pd.DataFrame:
    """One row per series: the per-write latency a and the bandwidth B with their intervals."""
    def columns(r):
        ci = r.conf_int()
        return {"a, per-write latency (µs)": r.a * 1e6, "a lower (µs)": ci.loc["a", "lower"] * 1e6,
                "a upper (µs)": ci.loc["a", "upper"] * 1e6, "B, bandwidth (MB/s)": r.bandwidth / MB,
                "B lower (MB/s)": ci.loc["B", "lower"] / MB, "B upper (MB/s)": ci.loc["B", "upper"] / MB,
                "half-bandwidth block (bytes)": r.s_half(), "identification": r.identification}
    table = fits.table(columns, count="points")
    spans = points.groupby("series", sort=False)["blocksize_bytes"].agg(["min", "max"])
    table.insert(2, "block sizes (bytes)", [f"{spans.loc[s, 'min']:,.0f} to {spans.loc[s, 'max']:,.0f}"
                                            for s in table["series"]])
    return table


def held_out(fits: FitSet, points: pd.DataFrame) -> pd.DataFrame:
    """Each block size predicted by the series' fit without it (series with three or more sizes)."""
    many = [s for s, g in points.groupby("series", sort=False) if g["blocksize_bytes"].nunique() >= 3]
    loo = fits.leave_one_out(points[points["series"].isin(many)], "series", "blocksize_bytes", "writes_s", _fitter)
    if loo.empty:
        return loo
    loo["measured"] = 1e6 / loo["measured"]
    loo["predicted"] = 1e6 / loo["predicted"]
    loo["error %"] = 100 * (loo["predicted"] - loo["measured"]) / loo["measured"]
    return loo.rename(columns={"blocksize_bytes": "block size (bytes)", "measured": "measured time per write (µs)",
                               "predicted": "predicted without it (µs)"})


def mq_vs_tool(points: pd.DataFrame) -> pd.DataFrame | None:
    """Book data: MQ's log MB/s against MQLDT's at the same block size (MQ's own write size)."""
    if "mq_bytes_s" not in points or points["mq_bytes_s"].isna().all():
        return None
    g = points.groupby("series", sort=False)
    return pd.DataFrame({
        "series": list(g.groups),
        "block sizes": g.size().to_numpy(),
        "MQ / MQLDT, smallest block (%)": g.apply(lambda x: 100 * x["mq_bytes_s"].iloc[0] / x["avg_bytes_s"].iloc[0],
                                                   include_groups=False).to_numpy(),
        "MQ / MQLDT, largest block (%)": g.apply(lambda x: 100 * x["mq_bytes_s"].iloc[-1] / x["avg_bytes_s"].iloc[-1],
                                                  include_groups=False).to_numpy(),
        "MQ peak (MB/s)": g["mq_bytes_s"].max().to_numpy() / MB,
        "MQLDT peak (MB/s)": g["avg_bytes_s"].max().to_numpy() / MB,
    })


def mq_check(fits: FitSet, points: pd.DataFrame, writes: pd.DataFrame) -> pd.DataFrame:
    """MQ's log writes (amqsrua) against the disk model at MQ's write size.

    A row is matched to the fit of its ``series``; with one fitted disk and no match, to that disk.
    """
    results = fits.results
    spans = points.groupby("series", sort=False)["blocksize_bytes"].agg(["min", "max"])
    rows = []
    for w in writes.to_dict("records"):
        name = str(w.get("series", ""))
        if name not in results:
            if len(results) != 1:
                continue
            name = next(iter(results))
        r = results[name]
        size = float(w["write_size_bytes"])
        predicted = float(1e6 / r.predict(np.array([size]))[0])
        lo, hi = spans.loc[name, "min"], spans.loc[name, "max"]
        rows.append({"MQ's log": w.get("label") or w.get("series") or "amqsrua", "disk model": name,
                     "write size (bytes)": size, "MQ write latency (µs)": float(w["write_latency_us"]),
                     "model t(write size) (µs)": predicted,
                     "MQ / model": float(w["write_latency_us"]) / predicted,
                     "write size measured by the tool": "yes" if lo <= size <= hi else "no (extrapolated)"})
    return pd.DataFrame(rows)


def plan(points: pd.DataFrame, fits: FitSet, *, size: float, k: int, n: int) -> pd.DataFrame:
    """The planning answer per series: persistent messages/s and commit latency under group commit."""
    S = float(log_disk.write_bytes(n, k, size))
    singles = single_blocks(points, fits, S)
    rows = []
    for name, g in points.groupby("series", sort=False):
        lo_b, hi_b = g["blocksize_bytes"].min(), g["blocksize_bytes"].max()
        beyond = not (lo_b <= S <= hi_b)
        row = {"series": name, "writers": int(g["queue_managers"].max()), "log bytes per message": size,
               "messages per commit": k, "committers": n, "write size (bytes)": S}
        if name in fits.results:
            r = fits.results[name]
            band = r.conf_band(np.array([S]))
            t = 1.0 / float(band["fit"].iloc[0])
            lo_r, hi_r = band["lower"].iloc[0], band["upper"].iloc[0]
            ci = r.conf_int()
            known = bool(evidence.identified(float(ci.loc["B", "lower"]), float(ci.loc["B", "upper"])))
            row.update({"time per write (µs)": t * 1e6, "persistent msg/s": float(log_disk.message_rate(n, k, t)),
                        "msg/s lower": float(n * k * lo_r) if np.isfinite(lo_r) and lo_r > 0 else np.nan,
                        "msg/s upper": float(n * k * hi_r) if np.isfinite(hi_r) else np.nan,
                        "commit latency, at most (µs)": 2 * t * 1e6,
                        "range": "95 % band (delta method)" if r.df_resid > 0 else "none: the fit is exactly identified",
                        "limit, many committers (msg/s)": float(log_disk.rate_limit(size, r.bandwidth)) if known
                        else np.nan})
            if not known:
                row["range"] += "; B not identified: no limit"
            elif r.bandwidth > float((g["blocksize_bytes"] * g["writes_s"]).max()) * (1 + 1e-9):
                row["range"] += "; limit extrapolated (B above every measured MB/s)"
        elif name in singles:
            b0, t0 = singles[name]
            t_lo, t_hi = log_disk.one_block_bounds(S, b0, t0)
            same = S == b0
            row.update({"time per write (µs)": t0 * 1e6 if same else np.nan,
                        "persistent msg/s": float(log_disk.message_rate(n, k, t0)) if same else np.nan,
                        "msg/s lower": float(log_disk.message_rate(n, k, t_hi)),
                        "msg/s upper": float(log_disk.message_rate(n, k, t_lo)),
                        "commit latency, at most (µs)": 2 * float(t_hi) * 1e6,
                        # A short cell: the plan's caption and sentence say what the range means.
                        "range": ("one block size" if g["blocksize_bytes"].nunique() == 1 else
                                  f"no fit; nearest block ({b0:,.0f} bytes)") + ": all fixed to all per-byte time",
                        "limit, many committers (msg/s)": np.nan})
            beyond = not same
        else:
            row.update({"range": "no fit: " + fits[name].reason if name in {f.group for f in fits} else "no fit"})
        measured = f"{lo_b:,.0f} to {hi_b:,.0f} bytes" if lo_b != hi_b else f"only {lo_b:,.0f} bytes"
        row["extrapolated"] = "no" if not beyond else f"yes: write size outside {measured}"
        rows.append(row)
    return pd.DataFrame(rows)


def sample_check(sample: pd.DataFrame, fits: FitSet, *, size: float, k: int, n: int) -> pd.DataFrame:
    """One printed block size against each fitted sweep whose series names its device.

    Per fit: the sample's time per write against the fit's t(b₀), and the planning rate the sample
    alone allows (one block size's range) beside the fit's answer.
    """
    row = sample.iloc[0]
    b0, t0 = float(row["blocksize_bytes"]), float(row["avg_latency_us"]) / 1e6
    device = str(row["series"]).split(" (")[0]
    S = float(log_disk.write_bytes(n, k, size))
    t_lo, t_hi = log_disk.one_block_bounds(S, b0, t0)
    out = []
    for name, r in fits.results.items():
        if not name.startswith(device):
            continue
        t_fit = float(1 / r.predict(np.array([b0]))[0])
        out.append({"fitted sweep": name, "block size (bytes)": b0, "printed time per write (µs)": t0 * 1e6,
                    "fit's t(b) (µs)": t_fit * 1e6, "error %": 100 * (t_fit - t0) / t0,
                    "one block: msg/s lower": float(log_disk.message_rate(n, k, t_hi)),
                    "one block: msg/s upper": float(log_disk.message_rate(n, k, t_lo)),
                    "the fit's msg/s": float(log_disk.message_rate(n, k, 1 / r.predict(np.array([S]))[0]))})
    return pd.DataFrame(out)


def chart_frames(fits: FitSet, points: pd.DataFrame):
    """(measured, curves) in MB/s per writer against block size for the chart."""
    measured = points.assign(mb_s=points["blocksize_bytes"] * points["writes_s"] / MB)[
        ["series", "blocksize_bytes", "mb_s", "basis"]]
    def grid(r):
        return np.linspace(float(r.x.min()), float(r.x.max()), 40)
    curves = fits.curves(grid, x="x", y="fit")
    if curves.empty:
        return measured, None
    for col in ("fit", "lower", "upper", "pred_lower", "pred_upper"):
        if col in curves:
            curves[col] = curves[col] * curves["x"] / MB
    return measured, curves


def card_extra(size: float, k: int, n: int) -> dict:
    return {"planning": {"log_bytes_per_message": size, "messages_per_commit": k, "committers": n}}


__all__ = ["prepare", "fit_disks", "fits_table", "held_out", "mq_check", "mq_vs_tool", "plan", "ModelError"]
