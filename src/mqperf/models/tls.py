"""TLS channel cost: amortising the secret-key renegotiation over the bytes sent.

    cost per message = enc(s) + H · s / K

``enc(s)`` is the cost of a message of size ``s`` on a TLS channel without renegotiation
(the encryption and the channel's own work), ``H`` the cost of one secret-key
renegotiation (handshake), and ``K`` the channel's SSLRKEYC in bytes: MQ renegotiates
each time K bytes have flowed, so a message of s bytes carries s/K renegotiations on
average. SSLRKEYC(0) disables renegotiation (the term is 0). The IBM MQ documentation
("Resetting SSL and TLS secret keys") adds: K counts unencrypted bytes sent *and* received,
control flows included; values from 1 byte to 32 KB act as 32 KB; the largest setting is
999,999,999; a key is also renegotiated after each channel heartbeat (not modelled here).

Solving H from a published ratio: seed 002 reports that renegotiating every 1 MB raised
the channel-initiator cost per message 2.5× for 10 KB messages and nearly 6× for 1 MB
messages. With ``ratio = 1 + H·s/(K·enc(s))``, ``H = (ratio − 1)·enc(s)·K/s``: each
statement gives H in units of enc at that size (5·enc(1 MB), 153.6·enc(10 KB)); together
they imply enc(1 MB)/enc(10 KB) ≈ 31 if H is the same handshake in both.

When it misleads: s/K is an average. For s ≥ K every message triggers about one
renegotiation (seed 002: "i.e. renegotiating every message" at s = K = 1 MB); whether a
message far larger than K triggers more than one is not stated in the sources. The ratio
in the seed is "nearly 6×": H inherits that imprecision.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from mqperf.errors import ModelError

KB = 1024
MB = 1024 * 1024
#: SSLRKEYC values from 1 byte to 32 KB are treated by MQ as 32 KB; 999,999,999 is the maximum.
SSLRKEYC_FLOOR = 32 * KB
SSLRKEYC_MAX = 999_999_999
#: The box of the two-size fit's (a, s0).
TWO_LOWER, TWO_UPPER = (0.0, 1.0), (np.inf, 1e15)


def _size(s, name="message size"):
    s = np.asarray(s, dtype=float)
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ModelError(f"{name} must be finite and greater than zero")
    return s


def renegotiations_per_message(size, sslrkeyc):
    """s / K, the mean number of renegotiations per message; 0 when SSLRKEYC is 0 (disabled).

    K below 32 KB counts as 32 KB, as MQ does.
    """
    size = _size(size)
    k = float(sslrkeyc)
    if not np.isfinite(k) or k < 0:
        raise ModelError(f"SSLRKEYC must be ≥ 0 bytes (0 = no renegotiation), not {sslrkeyc!r}")
    return np.zeros_like(size) if k == 0 else size / max(k, SSLRKEYC_FLOOR)


def cost_per_message(size, *, enc: float | Callable, handshake_cost: float, sslrkeyc: float):
    """enc(s) + H·s/K.

    Parameters
    ----------
    size
        Message size(s) in bytes.
    enc
        Cost of one message without renegotiation: a number, or a function of size.
    handshake_cost
        H, the cost of one renegotiation, in the same units as ``enc``.
    sslrkeyc
        K in bytes (0 = renegotiation disabled).
    """
    size = _size(size)
    base = np.asarray(enc(size) if callable(enc) else enc, dtype=float)
    if np.any(base <= 0) or handshake_cost < 0:
        raise ModelError("enc must be > 0 and handshake_cost ≥ 0")
    return base + handshake_cost * renegotiations_per_message(size, sslrkeyc)


def handshake_cost_from_ratio(ratio: float, size: float, sslrkeyc: float, enc: float = 1.0) -> float:
    """H = (ratio − 1)·enc·K/s: the handshake cost implied by a published cost ratio.

    ``ratio`` is cost with renegotiation every K bytes over cost without, for messages of
    ``size`` bytes; the answer is in the units of ``enc`` (the default 1 gives H in units of
    the per-message cost at that size).
    """
    if ratio < 1:
        raise ModelError(f"a renegotiation cannot make a message cheaper: ratio {ratio} < 1")
    if sslrkeyc <= 0:
        raise ModelError("a ratio measured with SSLRKEYC 0 (no renegotiation) says nothing about H")
    if enc <= 0:
        raise ModelError("enc must be greater than zero")
    return (ratio - 1) * enc / float(renegotiations_per_message(size, sslrkeyc))


def overhead_fraction(size, *, enc: float, handshake_cost: float, sslrkeyc: float):
    """Renegotiation cost as a fraction of enc(s): H·s/(K·enc)."""
    if enc <= 0:
        raise ModelError("enc must be greater than zero")
    return handshake_cost * renegotiations_per_message(size, sslrkeyc) / enc


def sslrkeyc_for_overhead(target: float, size: float, *, enc: float, handshake_cost: float) -> float:
    """Smallest SSLRKEYC (bytes) keeping the renegotiation overhead at ``target`` × enc(s).

    K = H·s / (target·enc). For example ``target=0.05`` keeps renegotiation within 5 % of the
    per-message cost. An answer below 32 KB means any setting up to 32 KB meets the target.

    Raises
    ------
    ModelError
        Non-positive inputs, or a K above MQ's maximum 999,999,999 (then only SSLRKEYC(0),
        no renegotiation, meets the target).
    """
    if target <= 0:
        raise ModelError(f"target overhead must be greater than zero, not {target}")
    if enc <= 0 or handshake_cost < 0:
        raise ModelError("enc must be > 0 and handshake_cost ≥ 0")
    k = handshake_cost * float(_size(size)) / (target * enc)
    if k > SSLRKEYC_MAX:
        raise ModelError(
            f"the target needs SSLRKEYC ≈ {k:.3g} bytes, above MQ's maximum {SSLRKEYC_MAX:,}; "
            "only SSLRKEYC(0) (no renegotiation) meets it"
        )
    return k


def size_model_from_two(sizes, sslrkeycs, ratios) -> tuple[float, float] | None:
    """``(a, s0)`` of ratio(s, K) = 1 + a·(s/K)/(1 + s/s0) through two ratios, in closed form.

    Two ratios at two sizes fix both parameters exactly, so they are solved exactly rather
    than by an optimiser (whose stopping point, and so the printed digits, would vary with
    the machine). With hᵢ = (ratioᵢ − 1)·Kᵢ/sᵢ = a·s0/(s0 + sᵢ), 1/h is linear in s:
    1/h = α + β·s with a = 1/α and s0 = α/β. Only + − × ÷ are used, each correctly rounded
    by IEEE arithmetic, so every machine gets the same bits.

    Returns
    -------
    tuple of float, or None
        None when no ``a > 0``, ``s0 > 0`` passes through both ratios (a ratio of 1, or
        ratios that do not fall in units of enc(s) as size grows); a bounded fit decides then.
    """
    s = np.asarray(sizes, dtype=float)
    k = np.maximum(np.asarray(sslrkeycs, dtype=float), SSLRKEYC_FLOOR)
    r = np.asarray(ratios, dtype=float)
    if s.size != 2 or k.size != 2 or r.size != 2 or s[0] == s[1] or np.any(r <= 1):
        return None
    inv_h = s / ((r - 1) * k)
    beta = (inv_h[1] - inv_h[0]) / (s[1] - s[0])
    alpha = inv_h[0] - beta * s[0]
    if not (alpha > 0 and beta > 0):
        return None
    return float(1 / alpha), float(alpha / beta)


# -- the renegotiation model fitted to cost ratios ---------------------------------------------
#
# With enc(s) = e0·(1 + s/s0), a published or measured ratio "cost with renegotiation every K
# bytes over cost without" is ratio(s, K) = 1 + a·(s/K)/(1 + s/s0), a = H/e0. Ratios identify
# only these two ratios of costs (no absolute CPU): two sizes identify both, one size gives only
# h = H/enc(s) at that size.

from dataclasses import dataclass as _dataclass  # noqa: E402 (the fit below is an addition to the model)
from functools import cached_property as _cached_property  # noqa: E402

from mqperf.models._nls import WeightedFitResult as _FitResult  # noqa: E402

#: Ratios within this of 1 show no renegotiation cost: then a is 0 and s0 (how the TLS cost grows
#: with size) means nothing.
NO_RENEGOTIATION = 1e-9


def _ratio_two(x, a, s0):
    x = np.atleast_2d(np.asarray(x, dtype=float))
    s, k = x[:, 0], x[:, 1]
    return 1 + a * (s / np.maximum(k, SSLRKEYC_FLOOR)) / (1 + s / s0)


def _ratio_two_gradient(x, a, s0) -> np.ndarray:
    """∂ratio/∂(a, s0) of :func:`_ratio_two`: columns (s/K)/(1 + s/s0) and a·(s/K)·(s/s0²)/(1 + s/s0)²."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    s, k = x[:, 0], x[:, 1]
    per_k = s / np.maximum(k, SSLRKEYC_FLOOR)
    grow = 1 + s / s0
    return np.column_stack([per_k / grow, a * per_k * (s / s0**2) / grow**2])


def _ratio_one(x, h):
    x = np.atleast_2d(np.asarray(x, dtype=float))
    s, k = x[:, 0], x[:, 1]
    return 1 + h * s / np.maximum(k, SSLRKEYC_FLOOR)


@_dataclass(frozen=True)
class RenegotiationResult(_FitResult):
    """Fitted renegotiation model; ``size_model`` False when only one message size was seen.

    The fit weighs each ratio by 1/ratio² (a ratio of two CPU measurements carries their relative
    errors), so its residual checks and its bootstrap work on the weighted residuals
    √w·(y − fit), the errors the fit assumes equal. Intervals: the Student-t Wald interval when
    those residuals pass the checks; else the residual-bootstrap percentile interval widened to
    cover the Wald one (a direction the data barely constrain leaves every refit where it
    started, so the bootstrap alone would call it known). s0 gets no interval when every ratio
    is 1: then s0 means nothing.
    """

    @property
    def size_model(self) -> bool:
        return "s0" in self.params.index

    @property
    def renegotiation_seen(self) -> bool:
        """False when every ratio is 1 up to :data:`NO_RENEGOTIATION` (the data show no renegotiation cost;
        the solver's stopping point, a ≈ 1e-7, is not evidence of one)."""
        return bool(np.max(np.abs(np.asarray(self.y, dtype=float) - 1)) > NO_RENEGOTIATION)

    def _weighted(self):
        from types import SimpleNamespace

        w = np.ones_like(self.y) if self.weights is None else np.asarray(self.weights, dtype=float)
        return SimpleNamespace(resid=np.sqrt(w) * self.resid, fittedvalues=self.fittedvalues, df_resid=self.df_resid,
                               resid_at_noise_level=self.resid_at_noise_level, w=w)

    @_cached_property
    def residual_checks(self):
        """Normality and even spread of the weighted residuals (the errors the fit assumes equal)."""
        from mqperf.models.diagnostics import residual_checks

        return residual_checks(self._weighted())

    def conf_int(self, alpha: float = 0.05):
        ci = super().conf_int(alpha)  # a bootstrap is widened to cover Wald there (FitResult._bootstrap)
        if self.size_model and not self.renegotiation_seen:
            ci.loc["s0"] = [np.nan, np.nan]
        return ci

    @property
    def _refit_gradient(self):
        """The bootstrap's refits weigh each residual as the fit did (its weights, 1/ratio²); those
        solved one at a time use the two-size curve's own gradient."""
        return _ratio_two_gradient if self.fn is _ratio_two else None

    @property
    def interval_method(self) -> str:
        if self.df_resid <= 0:
            return "none: no residual degrees of freedom"
        if not self.residual_checks.passed:
            return (f"bootstrap of the weighted residuals, {self.refits_words()}, percentile 95 % widened to cover the "
                    "Wald interval (the weighted residuals fail the normality or even-spread check)")
        return "Wald, Student-t on df_resid, 95 % (weights 1/ratio²)"

    @property
    def handshake(self) -> float:
        """a = H / e0 (two sizes) or h = H / enc(s) at the one size measured."""
        return float(self.params.iloc[0])

    @property
    def sizes(self) -> np.ndarray:
        """The distinct message sizes fitted."""
        return np.unique(self.x[:, 0])

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
            if not np.all(np.isin(size, self.sizes)):
                raise ModelError("one message size was measured: the model says nothing about other sizes")
            return np.ones_like(size)
        return 1 + size / float(self.params["s0"])

    def overhead(self, size, sslrkeyc) -> np.ndarray:
        """Renegotiation cost as a fraction of the TLS channel cost per message: H·s/(K·enc(s))."""
        size = np.asarray(size, dtype=float)
        return self.handshake * renegotiations_per_message(size, sslrkeyc) / self.enc(size)

    def h_interval(self, size: float, alpha: float = 0.05) -> tuple[float, float, float]:
        """H / enc(s) at ``size`` with its 95 % interval: (h, lower, upper); NaN ends without one.

        Every answer of the chapter is proportional to h(s) = a / (1 + s/s0) (the overhead, the
        SSLRKEYC for a target), so its interval is theirs. From the delta method on the Wald
        covariance, h's gradient (1/(1 + s/s0), a·s/(s0 + s)²); a one-size fit's h is its parameter.
        Not identified at all (every ratio 1: s0 means nothing) where the fit sees no renegotiation.
        """
        from mqperf.models import pvalues

        h = float(self.handshake / float(self.enc(size)))
        if self.cov is None or self.df_resid <= 0:
            return h, float("nan"), float("nan")
        q = pvalues.t_ppf(1 - alpha / 2, self.df_resid)
        if not self.size_model:
            lo, hi = (float(v) for v in self.conf_int(alpha).loc["h"])
            return h, lo, hi
        a, s0 = float(self.params["a"]), float(self.params["s0"])
        s = float(size)
        grad = np.array([1 / (1 + s / s0), a * s / (s0 + s) ** 2])
        cov = self.cov.loc[["a", "s0"], ["a", "s0"]].to_numpy(dtype=float)
        se = float(np.sqrt(max(grad @ cov @ grad, 0.0)))
        if not np.isfinite(se):
            return h, float("nan"), float("nan")
        return h, h - q * se, h + q * se

    def sslrkeyc_for(self, target: float, size: float) -> float:
        """Smallest SSLRKEYC (bytes) keeping the overhead at ``target`` (a fraction)."""
        return sslrkeyc_for_overhead(target, size, enc=float(self.enc(size)), handshake_cost=self.handshake)

    def derived(self) -> dict:
        if not self.size_model:
            return {}
        return {"enc_1MB_over_enc_10KB": float(self.enc(MB) / self.enc(10 * KB)),
                "handshake_over_enc_10KB": self.handshake / float(self.enc(10 * KB)),
                "handshake_over_enc_1MB": self.handshake / float(self.enc(MB))}


def fit_renegotiation(x, y, *, data_name: str | None = None, data_hash: str | None = None) -> RenegotiationResult:
    """Fit ratio(s, K) to rows x = (message size, SSLRKEYC) and y = cost ratios.

    Two or more sizes: ``a`` and ``s0`` (bounded NLS; two rows are solved in closed form by
    :func:`size_model_from_two`). One size: ``h`` = H / enc(s) at that size only (least
    squares through the origin of ratio − 1 on s/K).

    Raises
    ------
    ModelError
        No rows, a ratio below 1, or an SSLRKEYC of 0.
    """
    import pandas as pd

    from mqperf.models._nls import NLSFit, nls, resolve_weights

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
    # A ratio is one CPU figure over another, each with its relative error: equal relative errors,
    # weights 1/ratio².
    w, how = resolve_weights("relative", y)
    notes.append(how)
    if sizes.size >= 2:
        h = (y - 1) * np.maximum(x[:, 1], SSLRKEYC_FLOOR) / x[:, 0]
        exact = size_model_from_two(x[:, 0], x[:, 1], y) if y.size == 2 else None
        if exact is not None and TWO_LOWER[1] <= exact[1] <= TWO_UPPER[1]:
            # Two ratios, two parameters: solved exactly, not left to an optimiser's tolerance.
            sol = NLSFit(theta=np.array(exact), cov=None, at_bound=(), df_resid=0)
        else:
            starts = [[max(h.max(), 1e-6), s0] for s0 in (1e3, 1e4, 1e5, 1e6, 1e7)]
            sol = nls(_ratio_two, x, y, names=["a", "s0"], starts=starts, lower=TWO_LOWER, upper=TWO_UPPER,
                      weights=w, label="the renegotiation model", gradient=_ratio_two_gradient, batch=True)
        if "s0" in sol.at_bound:
            notes.append("s0 at a bound: the ratios do not show the per-message cost growing more slowly than size")
        return RenegotiationResult(
            model="tls_renegotiation", formula="ratio(s, K) = 1 + a * (s/K) / (1 + s/s0)",
            params=pd.Series(sol.theta, index=["a", "s0"], dtype=float), cov=sol.cov, x=x, y=y, fn=_ratio_two,
            units={"a": "H / e0 (handshake over the size-independent TLS cost per message)", "s0": "bytes"},
            at_bound=sol.at_bound, active_bounds=sol.active_bounds, bounds=(TWO_LOWER, TWO_UPPER),
            notes=tuple(notes), data_name=data_name,
            data_hash=data_hash, weights=w,
        )
    # One size: ratio − 1 = h·(s/K), weighted least squares through the origin.
    xr = x[:, 0] / np.maximum(x[:, 1], SSLRKEYC_FLOOR)
    hval = float(np.sum(w * xr * (y - 1)) / np.sum(w * xr**2))
    df = y.size - 1
    cov = None
    if df > 0:
        resid = (y - 1) - hval * xr
        cov = pd.DataFrame([[float(w @ resid**2) / df / float(w @ xr**2)]], index=["h"], columns=["h"])
    notes.append(f"one message size ({int(sizes[0]):,} bytes): h = H / enc(s) at that size only")
    return RenegotiationResult(
        model="tls_renegotiation_one_size", formula="ratio(s, K) = 1 + h * s/K",
        params=pd.Series([hval], index=["h"], dtype=float), cov=cov, x=x, y=y, fn=_ratio_one,
        units={"h": "H / enc(s) at the measured size"}, notes=tuple(notes), data_name=data_name, data_hash=data_hash,
        weights=w,
    )
