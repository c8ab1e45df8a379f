"""The TLS channel costs chapter's what-if chart: renegotiation overhead under message-size and SSLRKEYC
controls (:func:`mqperf.present.whatif.tls_renegotiation`), starting at the plan's answer."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.tls_channel_costs import MB, size_label
from mqperf.errors import ModelError
from mqperf.models import tls
from mqperf.present import whatif
from mqperf.present.prose import num


def add(r, result, size: int, target_pct: float) -> None:
    """``whatif`` and ``whatif_text`` on ``r``: the controls start at ``size`` and the plan's SSLRKEYC."""
    if not result.size_model:
        r.chart("whatif", None, missing="with one message size the fit says nothing about another size, so there "
                                        "is no message-size control; the plan above answers at the measured size")
        r.text("whatif_text")
        return
    try:
        k = min(max(result.sslrkeyc_for(target_pct / 100, size), tls.SSLRKEYC_FLOOR), tls.SSLRKEYC_MAX)
        start = f"the smallest SSLRKEYC the plan gives for {num(target_pct)} % ({num(k / MB)} MB)"
    except ModelError:
        k = tls.SSLRKEYC_MAX
        start = f"MQ's largest SSLRKEYC ({num(k / MB)} MB), since none meets {num(target_pct)} %"
    grid = np.unique(np.round(np.geomspace(tls.SSLRKEYC_FLOOR, tls.SSLRKEYC_MAX, 40)))
    ref = pd.DataFrame({"sslrkeyc_mb": grid / MB, "overhead_pct": [float(result.overhead(size, g)) * 100 for g in grid]})
    a, s0 = float(result.params["a"]), float(result.params["s0"])
    fitted = (f"fitted (fixed, at {size_label(size)}): a = {num(a, 4)}, s0 = {num(s0, 4)} bytes{_intervals(result)}; "
              f"at SSLRKEYC {num(k / MB, 4)} MB the overhead is {num(float(result.overhead(size, k)) * 100, 4)} %")
    r.chart("whatif", whatif.tls_renegotiation(a=a, s0=s0, size=size, sslrkeyc=k, reference=ref, fitted_text=fitted,
                                               title="What if: renegotiation cost for your message size and SSLRKEYC"))
    r.text("whatif_text", (
        f"The controls start at {size_label(size)} messages (the planning size) and {start}; both sliders are "
        "log10 of bytes, and the chart's first lines say what they are set to. Moving them recomputes the overhead, "
        "the cost ratio against SSLRKEYC(0) and the messages between renegotiations in the page; the dashed curve "
        f"is the fit at {size_label(size)} and does not move."))


def _intervals(result) -> str:
    if result.cov is None or result.df_resid <= 0:
        return " (exactly identified: no intervals)"
    ci = result.conf_int()
    return " (95 %: " + ", ".join(f"{p} {num(ci.loc[p, 'lower'], 4)} to {num(ci.loc[p, 'upper'], 4)}"
                                  for p in ci.index) + ")"
