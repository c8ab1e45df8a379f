"""TLS channel costs: increase by message size, SSLRKEYC renegotiation amortisation,
cipher specs, and the connect-time TLS increment.

The renegotiation model is :mod:`mqperf.models.tls`'s cost per message
``enc(s) + H·s/K``, with the TLS channel cost per message taken as a fixed part plus a
per-byte part, ``enc(s) = e0·(1 + s/s0)``. A published ratio "cost with renegotiation
every K bytes over cost without" is then

    ratio(s, K) = 1 + a · (s/K) / (1 + s/s0),      a = H / e0,

with ``a`` the handshake in units of the size-independent part of a message's TLS
channel cost and ``s0`` the message size at which the per-byte part equals the fixed part.
Only these two ratios of costs are identified by cost ratios: there are no absolute costs
in seed 002. Two sizes identify both exactly; one size gives only H / enc(s) at that size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.errors import ModelError
from mqperf.models import costs, tls
from mqperf.models._base import FitResult, round_sig
from mqperf.models._nls import NLSFit, nls
from mqperf.data import is_path as _is_path
from mqperf.data import identity as dataset_identity  # noqa: F401 (the chapter calls it from here)

BOOK_DATA = "tls_channel_costs"
BOOK_RENEGOTIATION = "renegotiate_every_1MB_vs_none"
#: seed 002 says "when 1MB of data flowed"; the book reads 1MB as 1,048,576 bytes (MQ's
#: SSLRKEYC is in bytes; the article does not give the value it set).
BOOK_SSLRKEYC = tls.MB


def _dust(value: float, digits: int = 3) -> float:
    """round_sig, with floating-point dust (|v| < 1e-9) shown as 0."""
    return 0.0 if abs(value) < 1e-9 else round_sig(value, digits)


def size_label(size_bytes: float) -> str:
    """1024 → '1KB', 1048576 → '1MB', others in bytes."""
    s = float(size_bytes)
    for unit, div in (("GB", tls.MB * 1024), ("MB", tls.MB), ("KB", tls.KB)):
        if s >= div and (s / div) == round(s / div, 2):
            v = s / div
            return f"{int(v) if v.is_integer() else v:g}{unit}"
    return f"{int(s):,} bytes"


# -- renegotiation ---------------------------------------------------------------------------

def load_renegotiation(source: str) -> pd.DataFrame:
    """Rows message_size_bytes, sslrkeyc_bytes, cost_ratio, qualifier, basis.

    The book's ``tls_channel_costs`` keeps the ratios with renegotiation every 1MB; a
    reader's CSV is checked against the ``tls_renegotiation`` contract. Several rows of
    one message size and SSLRKEYC (one per measurement interval) are averaged to one point
    with ``n`` and ``cost_ratio_sd`` (:func:`mqperf.data.aggregate.means`); the model is fitted
    through the means unweighted, so whether it is exactly identified, and its degrees of
    freedom, depend on the distinct (size, SSLRKEYC) points, not on the rows.
    """
    if _is_path(source):
        frame = mqdata.load(source, contract="tls_channel_costs")
        keys = [c for c in ("basis", "message_size_bytes", "sslrkeyc_bytes") if c in frame]
        frame = aggregate.means(frame, keys, ["cost_ratio"]).copy()
        frame["qualifier"] = ""
        frame["basis"] = frame["basis"].fillna("measured").astype(str) if "basis" in frame else "measured"
    elif source == BOOK_DATA:
        raw = mqdata.load(source)
        rows = raw[raw["comparison"] == BOOK_RENEGOTIATION]
        frame = pd.DataFrame({"message_size_bytes": rows["message_size_bytes"], "sslrkeyc_bytes": BOOK_SSLRKEYC,
                              "cost_ratio": rows["cost_ratio"], "qualifier": rows["qualifier"].fillna(""),
                              "basis": rows["basis"]})
    else:
        raise ModelError(f"{source!r}: give the book's {BOOK_DATA!r} or a CSV with message_size_bytes, sslrkeyc_bytes, cost_ratio")
    frame = frame.astype({"message_size_bytes": "int64", "sslrkeyc_bytes": "int64"})
    frame["cost_ratio"] = frame["cost_ratio"].astype(float)
    frame["renegotiations_per_msg"] = [float(tls.renegotiations_per_message(s, k))
                                       for s, k in zip(frame["message_size_bytes"], frame["sslrkeyc_bytes"])]
    frame["handshake_over_enc"] = [tls.handshake_cost_from_ratio(r, s, k) for r, s, k in
                                   zip(frame["cost_ratio"], frame["message_size_bytes"], frame["sslrkeyc_bytes"])]
    return frame.sort_values(["message_size_bytes", "sslrkeyc_bytes"]).reset_index(drop=True)


def aggregation_note(points: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many rows were averaged into how many points; nothing if none were."""
    return aggregate.AggregationNote(aggregate.note(points, per="message size and SSLRKEYC", value="cost_ratio"))


def _ratio_two(x, a, s0):
    x = np.atleast_2d(np.asarray(x, dtype=float))
    s, k = x[:, 0], x[:, 1]
    return 1 + a * (s / np.maximum(k, tls.SSLRKEYC_FLOOR)) / (1 + s / s0)


def _ratio_one(x, h):
    x = np.atleast_2d(np.asarray(x, dtype=float))
    s, k = x[:, 0], x[:, 1]
    return 1 + h * s / np.maximum(k, tls.SSLRKEYC_FLOOR)


@dataclass(frozen=True)
class RenegotiationResult(FitResult):
    """Fitted renegotiation model; ``size_model`` False when only one message size was seen."""

    @property
    def size_model(self) -> bool:
        return "s0" in self.params.index

    @property
    def handshake(self) -> float:
        """a = H / e0 (two sizes) or h = H / enc(s) at the one size measured."""
        return float(self.params.iloc[0])

    def predict(self, x) -> np.ndarray:
        """Ratios at rows (size, SSLRKEYC); a one-size fit refuses other sizes."""
        x = np.atleast_2d(np.asarray(x, dtype=float))
        if not self.size_model:
            self.enc(x[:, 0])  # raises for a size that was not measured
        return self.fn(x, *self.params.to_numpy())

    def enc(self, size) -> np.ndarray:
        """enc(s) / e0 = 1 + s/s0; with one size, 1 at that size (and undefined elsewhere)."""
        size = np.asarray(size, dtype=float)
        if not self.size_model:
            sizes = np.unique(self.x[:, 0])
            if not np.all(np.isin(size, sizes)):
                raise ModelError("one message size was measured: the model says nothing about other sizes")
            return np.ones_like(size)
        return 1 + size / float(self.params["s0"])

    def overhead(self, size, sslrkeyc) -> np.ndarray:
        """Renegotiation cost as a fraction of the TLS channel cost per message: H·s/(K·enc(s))."""
        size = np.asarray(size, dtype=float)
        return self.handshake * tls.renegotiations_per_message(size, sslrkeyc) / self.enc(size)

    def sslrkeyc_for(self, target: float, size: float) -> float:
        """Smallest SSLRKEYC (bytes) keeping the overhead at ``target`` (a fraction)."""
        return tls.sslrkeyc_for_overhead(target, size, enc=float(self.enc(size)), handshake_cost=self.handshake)

    def derived(self) -> dict:
        if not self.size_model:
            return {}
        return {"enc_1MB_over_enc_10KB": float(self.enc(tls.MB) / self.enc(10 * tls.KB)),
                "handshake_over_enc_10KB": self.handshake / float(self.enc(10 * tls.KB)),
                "handshake_over_enc_1MB": self.handshake / float(self.enc(tls.MB))}


def fit_renegotiation(x, y, *, data_name: str | None = None, data_hash: str | None = None) -> RenegotiationResult:
    """Fit ratio(s, K) to rows x = (message size, SSLRKEYC) and y = cost ratios.

    Two or more sizes: ``a`` and ``s0`` (bounded NLS; exactly identified with two rows).
    One size: ``h`` = H / enc(s) at that size only (least squares through the origin of
    ratio − 1 on s/K).
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    y = np.asarray(y, dtype=float).ravel()
    if x.shape[0] != y.size or x.shape[1] != 2:
        raise ModelError("renegotiation fit needs rows of (message size, SSLRKEYC) and one ratio per row")
    if y.size == 0:
        raise ModelError("no renegotiation measurements")
    if np.any(y < 1):
        raise ModelError("a cost ratio below 1 says renegotiation made messages cheaper: check the data")
    if np.any(x[:, 1] <= 0):
        raise ModelError("SSLRKEYC must be greater than zero in a renegotiation ratio (0 means no renegotiation)")
    sizes = np.unique(x[:, 0])
    notes = ["ratio = cost per message with renegotiation every K bytes / cost with SSLRKEYC(0)",
             "SSLRKEYC below 32 KB counts as 32 KB, as MQ does"]
    if sizes.size >= 2 and y.size >= 2:
        h = (y - 1) * np.maximum(x[:, 1], tls.SSLRKEYC_FLOOR) / x[:, 0]
        exact = tls.size_model_from_two(x[:, 0], x[:, 1], y) if y.size == 2 else None
        if exact is not None and 1.0 <= exact[1] <= 1e15:
            # Two ratios, two parameters: solved exactly, not left to an optimiser's tolerance.
            sol = NLSFit(theta=np.array(exact), cov=None, at_bound=(), df_resid=0)
        else:
            starts = [[max(h.max(), 1e-6), s0] for s0 in (1e3, 1e4, 1e5, 1e6, 1e7)]
            sol = nls(_ratio_two, x, y, names=["a", "s0"], starts=starts, lower=[0.0, 1.0], upper=[np.inf, 1e15],
                      label="the renegotiation model")
        if sol.df_resid == 0:
            notes.append("exactly identified: two ratios for two parameters, so no standard errors or intervals")
        if "s0" in sol.at_bound:
            notes.append("s0 at a bound: the ratios do not show the per-message cost growing more slowly than size")
        return RenegotiationResult(
            model="tls_renegotiation", formula="ratio(s, K) = 1 + a * (s/K) / (1 + s/s0)",
            params=pd.Series(sol.theta, index=["a", "s0"], dtype=float), cov=sol.cov, x=x, y=y, fn=_ratio_two,
            units={"a": "H / e0 (handshake over the size-independent TLS cost per message)", "s0": "bytes"},
            at_bound=sol.at_bound, active_bounds=sol.active_bounds, notes=tuple(notes), data_name=data_name, data_hash=data_hash,
        )
    xr = x[:, 0] / np.maximum(x[:, 1], tls.SSLRKEYC_FLOOR)
    hval = float(np.sum(xr * (y - 1)) / np.sum(xr**2))
    df = y.size - 1
    cov = None
    if df > 0:
        resid = (y - 1) - hval * xr
        cov = pd.DataFrame([[float(resid @ resid) / df / float(xr @ xr)]], index=["h"], columns=["h"])
    else:
        notes.append("exactly identified: one ratio for one parameter, so no standard error or interval")
    notes.append(f"one message size ({size_label(sizes[0])}): h = H / enc(s) at that size only")
    return RenegotiationResult(
        model="tls_renegotiation_one_size", formula="ratio(s, K) = 1 + h * s/K",
        params=pd.Series([hval], index=["h"], dtype=float), cov=cov, x=x, y=y, fn=_ratio_one,
        units={"h": "H / enc(s) at the measured size"}, notes=tuple(notes), data_name=data_name, data_hash=data_hash,
    )


def fit_from_frame(runs: pd.DataFrame, **kw) -> RenegotiationResult:
    return fit_renegotiation(runs[["message_size_bytes", "sslrkeyc_bytes"]].to_numpy(float), runs["cost_ratio"], **kw)


def renegotiation_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per measurement: renegotiations per message and H in units of that size's message cost."""
    table = pd.DataFrame({
        "message_size": [size_label(s) for s in runs["message_size_bytes"]],
        "sslrkeyc": [size_label(k) for k in runs["sslrkeyc_bytes"]],
        "cost_ratio": runs["cost_ratio"],
        "qualifier": runs["qualifier"],
        "renegotiations_per_msg": [round_sig(v, 4) for v in runs["renegotiations_per_msg"]],
        "H_over_enc_at_this_size": [round_sig(v, 4) for v in runs["handshake_over_enc"]],
    })
    if aggregate.aggregated(runs):
        table.insert(3, aggregate.COUNT, runs[aggregate.COUNT].to_numpy())
        table.insert(4, aggregate.sd_column("cost_ratio"), runs[aggregate.sd_column("cost_ratio")].to_numpy())
    return table


def parameter_table(result: RenegotiationResult) -> pd.DataFrame:
    s = result.summary().reset_index()
    return s


def sensitivity(runs: pd.DataFrame, readings: dict[str, dict[int, float]], *, size: float | None = None,
                target_pct: float | None = None) -> pd.DataFrame:
    """Refit with other readings of imprecise ratios, e.g. "nearly 6×" read as 5.5.

    ``readings`` maps a label to {message size: ratio}; sizes not named keep their value.
    With ``size`` and ``target_pct``, also the smallest SSLRKEYC meeting the target.
    """
    rows = []
    for label, changes in readings.items():
        alt = runs.copy()
        for size, ratio in changes.items():
            alt.loc[alt["message_size_bytes"] == size, "cost_ratio"] = ratio
        res = fit_from_frame(alt)
        row = {"reading": label}
        for size, ratio in zip(alt["message_size_bytes"], alt["cost_ratio"]):
            row[f"ratio_{size_label(size)}"] = ratio
        row.update({k: round_sig(v, 4) for k, v in res.params.items()})
        row.update({k: round_sig(v, 4) for k, v in res.derived().items()})
        if size and target_pct:
            try:
                row[f"min_sslrkeyc_mb_{size_label(size)}"] = round_sig(res.sslrkeyc_for(target_pct / 100, size) / tls.MB, 4)
            except ModelError:
                row[f"min_sslrkeyc_mb_{size_label(size)}"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def validation(runs: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Leave-one-out over the ratios when there is something left over; else why not."""
    x = runs[["message_size_bytes", "sslrkeyc_bytes"]].to_numpy(float)
    y = runs["cost_ratio"].to_numpy(float)
    full = fit_renegotiation(x, y)
    if full.exactly_identified:
        return (pd.DataFrame(columns=["message_size", "sslrkeyc", "measured", "predicted", "error_pct", "note"]),
                f"exactly identified: {full.nobs} ratio(s) for {full.df_model} parameter(s), no measurement is left "
                "over to test a prediction on")
    rows = []
    for i in range(y.size):
        keep = np.arange(y.size) != i
        try:
            pred, note = float(fit_renegotiation(x[keep], y[keep]).predict(x[i : i + 1])[0]), ""
        except ModelError as exc:
            pred, note = np.nan, str(exc)
        rows.append({"message_size": size_label(x[i, 0]), "sslrkeyc": size_label(x[i, 1]), "measured": y[i],
                     "predicted": round_sig(pred, 4), "error_pct": _dust((pred - y[i]) / y[i] * 100), "note": note})
    table = pd.DataFrame(rows)
    return table, f"leave-one-out over {full.nobs} ratios"


def answerable_sizes(result: RenegotiationResult, sizes) -> list[int]:
    """The sizes the fit can speak about: any size with a size model, else the measured one."""
    measured = {int(v) for v in np.unique(result.x[:, 0])}
    wanted = sorted({int(s) for s in sizes} | measured)
    return wanted if result.size_model else sorted(measured)


def overhead_curves(result: RenegotiationResult, sizes, *, k_min: float = tls.SSLRKEYC_FLOOR,
                    k_max: float = 1e9, points: int = 40) -> pd.DataFrame:
    """Renegotiation overhead (% of the TLS cost per message) against SSLRKEYC, per size."""
    grid = np.unique(np.round(np.geomspace(k_min, min(k_max, tls.SSLRKEYC_MAX), points)))
    parts = []
    for s in sizes:
        overhead = [float(result.overhead(s, k)) * 100 for k in grid]
        parts.append(pd.DataFrame({"sslrkeyc_mb": grid / tls.MB, "overhead_pct": overhead, "message size": size_label(s)}))
    return pd.concat(parts, ignore_index=True)


def overhead_chart(curves: pd.DataFrame, *, title: str):
    """:func:`mqperf.present.charts.lines` of the overhead curves, both axes logarithmic."""
    import altair as alt

    from mqperf.present import charts

    chart = charts.lines(curves, x="sslrkeyc_mb", y="overhead_pct", colour="message size", x_title="SSLRKEYC (MB)",
                         y_title="renegotiation cost (% of the TLS cost per message)", title=title, log_x=True, points=False)
    return chart.encode(y=alt.Y("overhead_pct:Q", title="renegotiation cost (% of the TLS cost per message)",
                                scale=alt.Scale(type="log")))


def sslrkeyc_plan(result: RenegotiationResult, sizes, target_pct: float) -> pd.DataFrame:
    """Per message size: the smallest SSLRKEYC keeping renegotiation under the target."""
    rows = []
    for s in sizes:
        try:
            k = result.sslrkeyc_for(target_pct / 100, s)
            note = "any value up to 32 KB meets it" if k <= tls.SSLRKEYC_FLOOR else ""
            k_out = round_sig(max(k, tls.SSLRKEYC_FLOOR), 4)
        except ModelError as exc:
            k_out, note = np.nan, str(exc)
        rows.append({"message_size": size_label(s), "message_size_bytes": int(s), "target_overhead_pct": target_pct,
                     "min_sslrkeyc_bytes": k_out, "min_sslrkeyc_mb": round_sig(k_out / tls.MB, 4) if np.isfinite(k_out) else np.nan,
                     "messages_between_renegotiations": round_sig(k_out / s, 4) if np.isfinite(k_out) else np.nan,
                     "note": note})
    return pd.DataFrame(rows)


def channel_plan(result: RenegotiationResult, *, size: float, channel_mb_s: float, candidates_mb,
                 handshake_us: float | None) -> pd.DataFrame:
    """For a channel moving ``channel_mb_s`` MB/s of ``size``-byte messages: each candidate SSLRKEYC's
    renegotiations per second, overhead, and (with an absolute handshake cost) CPU per hour."""
    if channel_mb_s <= 0:
        raise ModelError(f"channel rate must be greater than zero, not {channel_mb_s}")
    rows = []
    for mb in candidates_mb:
        k = float(mb) * tls.MB
        per_s = channel_mb_s * tls.MB / max(k, tls.SSLRKEYC_FLOOR)
        try:
            overhead = round_sig(float(result.overhead(size, k)) * 100, 3)
        except ModelError:
            overhead = np.nan  # a one-size fit says nothing about this size
        row = {"sslrkeyc_mb": mb, "renegotiations_per_s": round_sig(per_s, 4),
               "seconds_between": round_sig(1 / per_s, 4), "overhead_pct": overhead}
        if handshake_us:
            row["handshake_cpu_s_per_hour"] = round_sig(float(costs.cpu_seconds_per_hour(per_s, handshake_us)), 4)
        rows.append(row)
    return pd.DataFrame(rows)


# -- other tables ------------------------------------------------------------------------------

def size_increase(source: str | None) -> pd.DataFrame:
    """TLS against no TLS by message size: total increase and the channel initiator's factor.

    ``chin_share_of_baseline_pct`` = total increase / (factor − 1): the share of the baseline
    cost in the channel initiator *if* TLS changed nothing else. It is a reading of two
    rounded statements ("nearly 2x"), not a measurement.
    """
    if not source:
        return pd.DataFrame()
    raw = mqdata.load(source)
    rows = raw[raw["comparison"] == "ssl_vs_no_ssl"]
    out = []
    for size, g in rows.groupby("message_size_bytes", sort=True):
        total = g[g["scope"] == "total"]["increase_pct"].dropna()
        chin = g[g["scope"] != "total"]
        factor = float(chin["cost_ratio"].iloc[0]) if len(chin) else np.nan
        inc = float(total.iloc[0]) if len(total) else np.nan
        out.append({"message_size": size_label(size), "total_increase_pct": inc,
                    "chin_scope": chin["scope"].iloc[0].replace("_", " ") if len(chin) else "",
                    "chin_factor": factor, "chin_qualifier": chin["qualifier"].iloc[0] if len(chin) else "",
                    "chin_share_of_baseline_pct": round_sig(inc / (factor - 1), 3) if factor > 1 else np.nan})
    return pd.DataFrame(out)


def cipher_table(source: str | None) -> pd.DataFrame:
    """Relative channel-initiator transfer cost of the cipher specs compared (cheapest = 1)."""
    if not source:
        return pd.DataFrame()
    raw = mqdata.load(source)
    rows = raw[raw["comparison"].str.contains("_vs_") & ~raw["comparison"].isin(["ssl_vs_no_ssl", BOOK_RENEGOTIATION])]
    out = []
    for r in rows.itertuples():
        a, b = r.comparison.split("_vs_")
        out.append({"cipher_spec": b, "message_size": r.message_size, "relative_transfer_cost": 1.0, "note": "baseline"})
        out.append({"cipher_spec": a, "message_size": r.message_size, "relative_transfer_cost": round_sig(1 + r.increase_pct / 100, 4),
                    "note": r.note if isinstance(r.note, str) else ""})
    return pd.DataFrame(out)


def connect_increment(source: str | None) -> pd.DataFrame:
    """The TLS increment per connect + disconnect (seed 003) beside the basic cost."""
    if not source:
        return pd.DataFrame(columns=["sharecnv", "listener", "basic_us", "tls_increment_us", "increase_pct"])
    raw = mqdata.load(source)
    basic = raw[raw["component"] == "basic"].set_index(["sharecnv", "listener"])["cpu_us"]
    inc = raw[raw["component"] == "tls_increment"]
    rows = [{"sharecnv": int(r.sharecnv), "listener": r.listener, "basic_us": basic[(r.sharecnv, r.listener)],
             "tls_increment_us": r.cpu_us, "increase_pct": round_sig(r.cpu_us / basic[(r.sharecnv, r.listener)] * 100, 3)}
            for r in inc.itertuples()]
    return pd.DataFrame(rows)


def connect_holdout(increments: pd.DataFrame, *, data_name: str | None = None, data_hash: str | None = None):
    """Fit the increment on the listener from SHARECNV(0) rows; predict the SHARECNV(1) rows.

    Returns (fit, table); (None, empty) when the data lack either SHARECNV value.
    """
    train = increments[increments["sharecnv"] == increments["sharecnv"].min()]
    test = increments[increments["sharecnv"] != increments["sharecnv"].min()]
    if train.empty or test.empty or train["listener"].nunique() < 1:
        return None, pd.DataFrame()
    formula = "tls_increment_us ~ C(listener)" if train["listener"].nunique() > 1 else "tls_increment_us ~ 1"
    res = costs.fit(train, formula, data_name=data_name, data_hash=data_hash)
    pred = res.predict(test[["listener"]])
    table = pd.DataFrame({"sharecnv": test["sharecnv"].to_numpy(), "listener": test["listener"].to_numpy(),
                          "measured_us": test["tls_increment_us"].to_numpy(),
                          "predicted_us": [round_sig(v, 5) for v in pred],
                          "error_pct": [_dust((p - m) / m * 100) for p, m in zip(pred, test["tls_increment_us"])]})
    return res, table


def handshake_us_from(increments: pd.DataFrame, listener: str = "local") -> float | None:
    """The connect-time TLS increment at the local listener, as a stand-in for one handshake."""
    rows = increments[increments["listener"] == listener]
    return float(rows["tls_increment_us"].mean()) if len(rows) else None


def hardware_table(source: str | None = "tls_crypto_hardware") -> pd.DataFrame:
    """Which hardware does what in a TLS channel (seed 002)."""
    if not source:
        return pd.DataFrame()
    raw = mqdata.load(source)
    keep = raw["item"].isin(["handshake (secret key negotiation)", "data transport", "secret key negotiations",
                             "CPACF per core on zEC12", "cores sharing one CPACF on zEnterprise 196"])
    out = raw[keep][["item", "value_num", "unit", "value_text", "note"]].copy()
    out["value"] = [t if isinstance(t, str) else f"{v:g} {u}" for v, u, t in zip(out["value_num"], out["unit"], out["value_text"])]
    return out[["item", "value", "note"]].fillna("").reset_index(drop=True)
