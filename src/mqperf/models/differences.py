"""Is a difference between two measured settings more than their replicates' scatter?

Two runs measured with replicates (RMF intervals, repeated test runs) give each a mean, a
standard deviation and a count; a difference between them is claimed only when Welch's
t-test against that scatter says so (:func:`welch`), and a measured value is said to differ
from a model's expectation only when its scatter says so (:func:`against`). Without
replicates there is no scatter to test against and nothing is claimed. Each returns a
:class:`mqperf.models.evidence.Verdict` whose ``test`` names the test for the sentence, in
parentheses, starting with "t-test" (the form the reports' number checks read as evidence).
"""

from __future__ import annotations

import math

from mqperf.models import pvalues
from mqperf.models.evidence import ALPHA, Verdict, _p


def _usable(sd, n) -> bool:
    return n is not None and n >= 2 and sd is not None and math.isfinite(sd) and sd >= 0


def welch(mean_a: float, sd_a, n_a, mean_b: float, sd_b, n_b, *, alpha: float = ALPHA,
          what: str = "the difference") -> Verdict:
    """Two-sided Welch t-test of ``mean_b − mean_a`` against the two settings' replicate scatter."""
    if not (_usable(sd_a, n_a) and _usable(sd_b, n_b)):
        return Verdict(False, "one measurement per run: no scatter to test the difference against")
    va, vb = sd_a**2 / n_a, sd_b**2 / n_b
    diff = mean_b - mean_a
    if va + vb == 0:
        return Verdict(diff != 0, "the replicates agree exactly: " + ("any difference is real" if diff else
                                                                       "no difference"))
    t = diff / math.sqrt(va + vb)
    df = (va + vb) ** 2 / ((va**2 / (n_a - 1) if va else 0.0) + (vb**2 / (n_b - 1) if vb else 0.0))
    p = pvalues.t_two_sided(t, df)
    return Verdict(p < alpha, f"t-test of {what} against the runs' scatter, Welch: t = {t:.2f} on {df:.3g} df, "
                              f"{_p(p)}", p)


def against(value: float, expected: float, se, df, *, alpha: float = ALPHA,
            what: str = "the difference from the model") -> Verdict:
    """Two-sided t-test of ``value − expected`` given the standard error ``se`` on ``df`` df."""
    if se is None or not math.isfinite(se) or df is None or not df > 0:
        return Verdict(False, "one measurement per run: no scatter to test the difference against")
    diff = value - expected
    if se == 0:
        return Verdict(diff != 0, "no scatter: any difference is real")
    t = diff / se
    p = pvalues.t_two_sided(t, df)
    return Verdict(p < alpha, f"t-test of {what} on the replicates' scatter: t = {t:.2f} on {df:.3g} df, "
                              f"{_p(p)}", p)


def lack_of_fit(ss_lack: float, df_lack: int, ss_pure: float, df_pure: int, *, alpha: float = ALPHA,
                what: str = "the model") -> Verdict:
    """Does a model miss the settings' means by more than their replicates' scatter allows?

    The lack-of-fit F statistic (SS_lack/df_lack)/(SS_pure/df_pure), SS_lack the replicate-
    weighted squared misses of the means (Σ n_i (ȳ_i − ŷ_i)²) on settings − parameters
    degrees of freedom, SS_pure the replicates about their means. ``holds``: the model misses
    (significant at ``alpha``).
    """
    if df_pure <= 0:
        return Verdict(False, "no setting has replicates: the data cannot test the model's fit")
    if df_lack <= 0:
        return Verdict(False, "the model has as many parameters as settings: nothing is left to test")
    if ss_pure == 0:
        return Verdict(ss_lack > 0, "the replicates agree exactly: " + ("any miss is real" if ss_lack > 0 else
                                                                         "the model fits exactly"))
    f = (ss_lack / df_lack) / (ss_pure / df_pure)
    p = pvalues.f_sf(f, df_lack, df_pure)
    return Verdict(p < alpha, f"F-test of {what}'s lack of fit against the replicates: F = {f:.2f} on "
                              f"({df_lack}, {df_pure}) df, {_p(p)}", p)
