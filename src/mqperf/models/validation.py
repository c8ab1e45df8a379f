"""How well does a model predict what it did not see?

:func:`leave_one_out` refits a model once per point with that point held out and
predicts it; :func:`holdout` scores a fitted model on points it was not fitted to. Both
return a table a chapter can show as is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.errors import ModelError


def holdout(result, x, y) -> pd.DataFrame:
    """Predictions of a fitted ``result`` at held-out ``x`` against measured ``y``."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    pred = result.predict(x)
    return pd.DataFrame({"x": x, "measured": y, "predicted": pred, "error_pct": (pred - y) / y * 100})


def leave_one_out(fit, x, y, **fit_kwargs) -> pd.DataFrame:
    """Refit without each point in turn and predict it.

    ``fit`` is a model's fit function, called as ``fit(x_rest, y_rest, **fit_kwargs)``.
    A refit the remaining points cannot support (a ModelError) gives NaN with the reason
    in the ``note`` column, instead of hiding the point.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    rows = []
    for i in range(x.size):
        keep = np.arange(x.size) != i
        try:
            pred = float(fit(x[keep], y[keep], **fit_kwargs).predict([x[i]])[0])
            note = ""
        except ModelError as exc:
            pred, note = np.nan, str(exc)
        rows.append({"x": x[i], "measured": y[i], "predicted": pred, "error_pct": (pred - y[i]) / y[i] * 100, "note": note})
    return pd.DataFrame(rows)
