"""Task scaling's what-if chart: one USL fit under controls (see :mod:`mqperf.present.whatif`)."""

from __future__ import annotations

from mqperf.chapters.kafka_task_scaling import fits as k
from mqperf.present import prose, whatif
from mqperf.present.prose import num


def add(r, fits, curve, known, target: float, max_tasks: int, ranks: dict | None = None) -> None:
    """``whatif`` (the chart) and ``whatif_text`` (what the controls start at) on ``r``.

    ``max_tasks`` is the chart's range (the planning range); the controls start at a USL fit the
    series' own comparison does not reject (:func:`.fits.rank`)."""
    # log10 κ is the control, so a fit with κ = 0 (Amdahl, or κ on its bound) has no start.
    usable = {n: res for n, res in fits.results.items() if res.model == "usl" and res.kappa > 0}
    rejected = {n for n in usable if ranks and n in ranks and all(x.model != "USL" for x in ranks[n].accepted)}
    if not usable or rejected == set(usable):
        why = ("no series has a USL fit with a coherency cost (κ > 0), so there is no peak for the controls to move"
               if not usable else "every USL fit with a coherency cost (κ > 0) is rejected by its series' comparison "
               "with the bottleneck reading, so the controls would explore a model the data reject")
        r.chart("whatif", None, missing=why)
        r.text("whatif_text")
        return
    usable = {n: res for n, res in usable.items() if n not in rejected}
    name = max(usable, key=lambda n: usable[n].peak_x())
    res = usable[name]
    ref = curve[curve["series"] == name][["x", "fit", "lower", "upper"]]
    if k.equalities(known, name):
        band = "with the band of its 'no gain' statement read within ±3 %"
    elif ref["lower"].notna().any():
        band = "with its 95 % confidence band"
    else:
        band = "with no band: the fit has no residual degrees of freedom"
    # The fixed text beside the controls: the digits the controls' answers have (whatif.ANSWER_DIGITS).
    fitted = (f"fitted (fixed): {name}; λ = {num(res.lam, whatif.ANSWER_DIGITS)}, σ = {num(res.sigma, whatif.ANSWER_DIGITS)}, κ = {num(res.kappa, whatif.ANSWER_DIGITS)}"
              f"{_intervals(res)}; the fit's peak: {num(res.peak_n(), whatif.ANSWER_DIGITS)} tasks, {num(res.peak_x(), whatif.ANSWER_DIGITS)} msg/s")
    r.chart("whatif", whatif.usl(lam=res.lam, sigma=res.sigma, kappa=res.kappa, target=target, n_max=max_tasks,
                                 reference=ref, fitted_text=fitted, x_title="connector tasks (tasks.max)",
                                 y_title="rate (msg/s)", title="What if: the USL under your own λ, σ and κ"))
    r.text("whatif_text", (
        f"The controls start at the fit of {prose.quoted(name)}, the USL fit with the highest modelled peak: "
        f"λ = {num(res.lam)} msg/s per task, σ = {num(res.sigma)}, κ = {num(res.kappa)} (its slider is log10 κ), "
        f"and a target of {prose.given(target)} msg/s, on a chart of up to {num(max_tasks)} tasks. Moving them redraws the "
        f"curve and recomputes N*, X* and the tasks for the target in the page; the dashed fitted curve, {band}, "
        "stays where the fit put it."))


def _intervals(res) -> str:
    if res.cov is None or res.df_resid <= 0:
        return " (no intervals: no residual degrees of freedom)"
    ci = res.conf_int()
    return " (95 %: " + ", ".join(f"{prose.symbol(p)} {num(ci.loc[p, 'lower'], whatif.ANSWER_DIGITS)} to {num(ci.loc[p, 'upper'], whatif.ANSWER_DIGITS)}"
                                  for p in ci.index if p in ("lam", "sigma", "kappa") and p not in res.active_bounds) + ")"
