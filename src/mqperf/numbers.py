"""The one display rule for every number the book prints or charts.

The rule
--------
A value is shown **rounded to the significant digits it is shown with**, after two
clean-ups that make the result independent of the machine's floating point:

1. *Noise is zero.* A value whose magnitude is at most :data:`COLUMN_NOISE` (1e-9) times
   the largest finite magnitude in its column (a table column, a chart field, or the
   ``scale`` a caller passes for a single value), or below :data:`ABSOLUTE_NOISE` (1e-12),
   is shown as exactly ``0.0``. A difference of two equal rates computed along two paths is
   1e-14 on one machine and 0 on another; both are 0.
2. *Float dust never decides a rounding.* The value is first rounded to
   :data:`NOISE_DIGITS` (12) significant digits, then to the shown digits with ties away
   from zero, in decimal arithmetic. 228.14999999999998 and 228.15000000000001 (the same
   number solved on two machines) both show as 228.2 at four digits.

``-0.0`` is shown as ``0.0``; NaN, ±inf and None pass through.

Why 1e-9 and 12 digits: the book's solvers converge to at least three significant digits
more than any table (5) or model card (6) shows, and float results that agree that far
agree to ~1e-12 relative; 1e-9 of a column's scale is far below any displayed digit and
far above double-precision noise (~1e-16 per operation, amplified by a few orders).
"""

from __future__ import annotations

import math
from numbers import Real
from decimal import ROUND_HALF_UP, Decimal

#: Significant digits at which two machines' float results are taken to agree.
NOISE_DIGITS = 12
#: A value within this fraction of its column's largest magnitude is noise (shown as 0).
COLUMN_NOISE = 1e-9
#: Below this magnitude a value is noise in any unit the book uses (seconds resolve to ps).
ABSOLUTE_NOISE = 1e-12
#: Significant digits of tables (:mod:`mqperf.present.tables`) and charts (:mod:`mqperf.present.charts`).
TABLE_DIGITS = 5
#: Significant digits of model cards and fit summaries.
CARD_DIGITS = 6


def is_noise(value: float, scale: float | None = None) -> bool:
    """True when ``value`` is float noise: below 1e-12, or within 1e-9 of ``scale``."""
    size = abs(value)
    if size < ABSOLUTE_NOISE:
        return True
    return scale is not None and math.isfinite(scale) and size <= abs(scale) * COLUMN_NOISE


def round_sig(value, digits: int = CARD_DIGITS, *, scale: float | None = None):
    """``value`` as shown with ``digits`` significant digits, by the rule above.

    Parameters
    ----------
    value
        A number (anything ``float()`` accepts) or None.
    digits
        Significant digits shown.
    scale
        The magnitude of the value's column, when known: a value within 1e-9 of it is 0.

    Returns
    -------
    float or None
        None for None; NaN and ±inf unchanged; otherwise a float whose shortest repr
        has at most ``digits`` significant digits.

    Examples
    --------
    >>> round_sig(228.14999999999998, 4), round_sig(-1.18e-14, 3), round_sig(0.5, 1)
    (228.2, 0.0, 0.5)
    """
    if value is None:
        return None
    value = float(value)
    if not math.isfinite(value):
        return value
    if value == 0 or is_noise(value, scale):
        return 0.0
    if digits < 1:
        raise ValueError(f"digits must be at least 1, not {digits}")
    # Formatting with "e" rounds the exact binary value correctly: the 12-digit decimal is
    # what every machine agrees on, and the display rounding starts from it.
    clean = Decimal(f"{value:.{NOISE_DIGITS - 1}e}")
    if digits < NOISE_DIGITS:
        quantum = Decimal(1).scaleb(clean.adjusted() - digits + 1)
        clean = clean.quantize(quantum, rounding=ROUND_HALF_UP)
    return float(clean) + 0.0


def column_scale(values) -> float | None:
    """The largest finite magnitude among ``values`` (None when there is none)."""
    best = None
    for v in values:
        # Only numbers count: text such as "12" in a mixed column is not part of the scale.
        if not isinstance(v, Real) or isinstance(v, bool):
            continue
        f = abs(float(v))
        if math.isfinite(f) and (best is None or f > best):
            best = f
    return best


def round_column(values, digits: int = TABLE_DIGITS) -> list:
    """Every value of a column shown by the rule: noise relative to the column snapped to 0,
    then rounded to ``digits`` significant digits. Missing values (None, NaN) stay missing.

    Examples
    --------
    >>> round_column([36.9, 1.18e-14, -8.44], 3)
    [36.9, 0.0, -8.44]
    """
    values = list(values)
    scale = column_scale(values)
    return [round_sig(v, digits, scale=scale) if v is not None else None for v in values]


def tie_noise(values):
    """``values`` (an array) with the ones that differ only by float noise made equal, for a test
    that ranks them: two residuals that are equal in exact arithmetic (the same measurement
    twice under a flat fitted curve) come out 1e-11 apart on one CPU, equal on another, and
    their ranks, so a rank test's p-value, would follow the CPU.

    Sorted, a value within :data:`COLUMN_NOISE` of the largest finite magnitude (or
    :data:`ABSOLUTE_NOISE`) above the one before it joins that one's group, and every member
    takes its group's smallest value. NaN and ±inf are left as they are.

    Examples
    --------
    >>> tie_noise([18719.019695722498, 3.0, 18719.019695722556]).tolist()
    [18719.019695722498, 3.0, 18719.019695722498]
    """
    import numpy as np

    v = np.array(values, dtype=float)
    finite = np.flatnonzero(np.isfinite(v))
    if finite.size < 2:
        return v
    tolerance = max(float(np.max(np.abs(v[finite]))) * COLUMN_NOISE, ABSOLUTE_NOISE)
    order = finite[np.argsort(v[finite], kind="mergesort")]
    ordered = v[order]
    starts = np.r_[True, np.diff(ordered) > tolerance]
    v[order] = ordered[np.flatnonzero(starts)][np.cumsum(starts) - 1]
    return v


def idxmax(series):
    """The label of ``series``' largest value, as pandas' ``idxmax`` gives it, but values equal but for
    float noise (:func:`tie_noise`) count as equal, so the first of them is picked on every CPU: which
    of two equal errors a sentence names as "the largest" must not follow the machine."""
    return _noise_tied(series).idxmax()


def idxmin(series):
    """The label of ``series``' smallest value, with noise-level ties as :func:`idxmax` has them."""
    return _noise_tied(series).idxmin()


def _noise_tied(series):
    import pandas as pd

    try:
        values = series.to_numpy(dtype=float, na_value=float("nan"))
    except (TypeError, ValueError):  # times, durations, text: no float noise to tie
        return series
    return pd.Series(tie_noise(values), index=series.index)


def format_number(value: float, digits: int = TABLE_DIGITS, *, scale: float | None = None) -> str:
    """``value`` as text by the rule: thousands separators, no trailing zeros, ``–`` if missing.

    Examples
    --------
    >>> format_number(60112.4), format_number(0.00011874), format_number(-0.0)
    ('60,112', '0.00011874', '0')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    value = float(value)
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    v = round_sig(value, digits, scale=scale)
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    if abs(v) >= 1e15:
        # Past a thousand million million, digit groups stop being readable: powers of ten.
        mantissa, exponent = f"{v:.{digits - 1}e}".split("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{int(exponent)}"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(v)))))
    text = f"{v:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
