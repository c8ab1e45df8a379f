"""Evidence rules: the tests that decide whether a kind of sentence may be said.

A report says a result only when the data support it. Each kind of claim has one rule here,
computed from the data, that returns a :class:`Verdict`: whether the claim holds, and the
test in words (its statistic, degrees of freedom and p-value, or why no test was possible),
so the report can name the test beside the claim.

- :func:`decline` -- "falls past the peak": the measured points after their maximum fall
  below it by more than their noise (a one-sided t-test of the drop against the scatter of
  the points about the fit, or against the replicates' spread).
- :func:`sign` -- "each task adds / removes ...": a parameter's 95 % interval lies on one side
  of zero; otherwise the data cannot tell the direction.
- :func:`identified` -- "s0 is about 243,000 bytes": the interval is finite, on the positive
  side, and no wider than a factor :data:`MAX_SPAN` from end to end; otherwise the data
  cannot tell the value.
- :func:`interaction` -- "the settings interact": an F-test of the additive model's lack of
  fit against the replicates' pure error (needs replicates in some cell); otherwise no
  interaction may be claimed.
- :func:`difference`, :func:`holm`, :func:`holm_family` -- "costs more than": a t-test of a difference of two cell
  means against the replicates' pooled scatter, Holm-adjusted across a family of comparisons.
- :func:`within` -- "lies within the measured range": between the smallest and the largest
  measured value, else an extrapolation (and which side).

The functions take numbers, not fits, so the rules are tested on their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mqperf.models import pvalues

#: Claims are tested one-sided or two-sided at this level.
ALPHA = 0.05
#: A positive quantity is identified when its 95 % interval spans at most this factor.
MAX_SPAN = 10.0


@dataclass(frozen=True)
class Verdict:
    """Whether a claim may be said, and the test that decided it, in words."""

    holds: bool
    test: str
    p_value: float | None = None

    def __bool__(self) -> bool:
        return self.holds


def _p(value: float) -> str:
    if value < 0.001:
        return "p < 0.001"
    return f"p = {value:.2g}" if value < 0.01 else f"p = {value:.2f}"


def decline(n, x, *, noise_sd: float | None, df: int | None, alpha: float = ALPHA) -> Verdict:
    """Do the measured points fall past their maximum by more than their noise?

    Parameters
    ----------
    n, x
        The measured concurrency and rate (one point per distinct ``n``).
    noise_sd
        The standard deviation of one measured point: the residual standard error of the
        fit, or the replicates' pooled spread; None (or NaN) when the data give none.
    df
        Degrees of freedom of ``noise_sd``.

    Notes
    -----
    The drop is the maximum's value minus the lowest point measured at a larger ``n``. Two
    independent points each with ``noise_sd`` differ by a standard deviation of
    ``noise_sd·√2``; the drop is tested one-sided with Student's t on ``df`` degrees of
    freedom. Without a noise estimate (no residual degrees of freedom, no replicates) a drop
    is tested only when the points lie exactly on a curve (``noise_sd`` 0): then any drop is
    real.
    """
    n, x = np.asarray(n, dtype=float), np.asarray(x, dtype=float)
    if n.size < 2:
        return Verdict(False, "one point: no decline can be seen")
    order = np.argsort(n, kind="stable")
    n, x = n[order], x[order]
    top = int(np.argmax(x))
    if top == n.size - 1:
        return Verdict(False, "the largest rate is at the largest measured concurrency: no point after it falls")
    drop = float(x[top] - x[top + 1:].min())
    if noise_sd is None or not math.isfinite(noise_sd) or df is None or df <= 0:
        if noise_sd == 0:
            return Verdict(drop > 0, "the points lie on the curve (no noise): any drop is real")
        return Verdict(False, "no estimate of the points' noise (no residual degrees of freedom or replicates): "
                              "a fall cannot be told from scatter")
    if noise_sd == 0:
        return Verdict(drop > 0, "no scatter about the fit: any drop is real")
    t = drop / (noise_sd * math.sqrt(2))
    p = pvalues.t_sf(t, df)
    return Verdict(p < alpha, f"one-sided t-test of the drop of {drop:,.4g} after the peak against the points' "
                              f"scatter: t = {t:.2f} on {df} df, {_p(p)}", p)


def sign(lo: float, hi: float) -> str:
    """Which side of zero a 95 % interval puts a parameter: "positive", "negative" or "cannot tell"."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "cannot tell"
    if lo > 0:
        return "positive"
    if hi < 0:
        return "negative"
    return "cannot tell"


def identified(lo: float, hi: float, *, max_span: float = MAX_SPAN) -> Verdict:
    """Is a positive quantity's value known from its 95 % interval?"""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return Verdict(False, "no finite interval")
    if lo <= 0:
        return Verdict(False, f"its 95 % interval ({lo:,.4g} to {hi:,.4g}) reaches zero or below")
    if hi / lo > max_span:
        return Verdict(False, f"its 95 % interval ({lo:,.4g} to {hi:,.4g}) spans a factor {hi / lo:,.3g}")
    return Verdict(True, f"its 95 % interval runs from {lo:,.4g} to {hi:,.4g}")


def interaction(ss_additive: float, df_additive: int, ss_pure: float, df_pure: int, *,
                alpha: float = ALPHA) -> Verdict:
    """Does the additive model miss the cell means by more than the replicates' scatter allows?

    Parameters
    ----------
    ss_additive, df_additive
        Residual sum of squares of the additive model fitted to every replicate, and its
        residual degrees of freedom.
    ss_pure, df_pure
        The pure-error sum of squares (replicates about their cell means) and its degrees of
        freedom (replicates minus cells).

    Notes
    -----
    The lack-of-fit F statistic ((SS_add − SS_pure)/(df_add − df_pure)) / (SS_pure/df_pure)
    on (df_add − df_pure, df_pure) degrees of freedom: an interaction is claimed only when
    it is significant at ``alpha``.
    """
    df_lack = df_additive - df_pure
    if df_pure <= 0:
        return Verdict(False, "no cell has replicates: the data cannot test an interaction")
    if df_lack <= 0:
        return Verdict(False, "the additive model leaves no degrees of freedom to test an interaction")
    lack = max(ss_additive - ss_pure, 0.0) / df_lack
    pure = ss_pure / df_pure
    if pure == 0:
        holds = lack > 0
        return Verdict(holds, "the replicates agree exactly: " + ("any miss is an interaction" if holds else
                                                                   "the additive model fits exactly"))
    f = lack / pure
    p = pvalues.f_sf(f, df_lack, df_pure)
    return Verdict(p < alpha, f"F-test of the additive model's lack of fit against the replicates: "
                              f"F = {f:.2f} on ({df_lack}, {df_pure}) df, {_p(p)}", p)


def difference(diff: float, n_a: int, n_b: int, ss_pure: float, df_pure: int):
    """Two-sided t-test of a difference of two cell means against the pooled replicate scatter:
    (t, p, words, df), or None without replicates (``df_pure`` 0).

    The pooled standard deviation s = √(SS_pure/df_pure) of one run gives the difference of
    means a standard error s·√(1/n_a + 1/n_b).
    """
    if df_pure <= 0:
        return None
    s = math.sqrt(ss_pure / df_pure)
    se = s * math.sqrt(1 / n_a + 1 / n_b)
    if se == 0:
        p = 0.0 if diff != 0 else 1.0
        return (math.inf if diff else 0.0), p, "the replicates agree exactly, so any difference is real", df_pure
    t = diff / se
    p = pvalues.t_two_sided(t, df_pure)
    return t, p, f"t = {t:.2f} on {df_pure} df, {_p(p)}", df_pure


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (family-wise error rate).

    A report that tests several differences claims each one whose adjusted p-value is below
    0.05, so the chance that any claim of the family is false stays at most 5 %.
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def holm_family(tests: list, what: str) -> list:
    """``tests`` (:func:`difference` tuples, or None each) with p Holm-adjusted across the family
    of ``what`` (e.g. "comparisons"), the words saying so; a family of fewer than two is as given."""
    real = [i for i, t in enumerate(tests) if t is not None]
    if len(real) < 2:
        return tests
    adj = holm([tests[i][1] for i in real])
    out = list(tests)
    for i, a in zip(real, adj):
        t, p, words, df = tests[i]
        out[i] = (t, float(a), words.rsplit(", p", 1)[0] + f", {_p(a)} after Holm's correction for the "
                                                           f"{len(real):,} {what}", df)
    return out


def within(value: float, lo: float, hi: float) -> str:
    """Where ``value`` lies against the measured range: "within", "below" or "above"."""
    if value < lo:
        return "below"
    if value > hi:
        return "above"
    return "within"
