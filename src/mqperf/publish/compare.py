"""``mqperf compare``: one chapter's models on two or more runs, and what changed between them.

Each ``--data`` is one run (files or a folder, read exactly as ``mqperf run`` reads them).
The chapter's analysis runs on each (:func:`mqperf.chapters.preflight`, in this process: no
kernel, no notebook), and every fit that is in two consecutive runs under the same card name
is compared parameter by parameter (:mod:`mqperf.models.compare`). With three or more runs,
each parameter's run-by-run estimates are searched for change points
(:mod:`mqperf.models.changepoint`). The output folder follows ``mqperf run --out``'s rules
(stage, then publish): ``comparison.csv``, ``index.html`` (standalone, offline) and, for three
or more runs, ``runs.csv`` and ``changepoints.csv``.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mqperf.errors import MQPerfError, ParameterError, shorten

@dataclass
class Run:
    label: str
    files: list[Path]
    chapter: str
    results: object = None  # the chapter's Results

    @property
    def fits(self) -> dict:
        """The run's fitted models by card name."""
        return self.results.card_results

    def label_of(self, card_name: str) -> str:
        """The series a card describes, as the fleet summary names it."""
        from mqperf.publish.fleet_summary import series_label

        return series_label(self.chapter, dict(self.results.cards).get(card_name, {}), card_name)

    def card_of(self, series: str) -> str:
        return next(name for name in self.fits if self.label_of(name) == series)


@dataclass
class Comparison:
    chapter: str
    runs: list[Run]
    alpha: float
    table: object = None                              # every consecutive pair's parameter rows
    pairs: list = field(default_factory=list)         # per pair: (before, after, rows, only, refused, derived)
    estimates: object = None                          # three or more runs: per run, series, parameter
    changes: object = None                            # confirmed change points
    change_notes: list = field(default_factory=list)  # sentences, one per series and parameter
    out: Path | None = None                           # where it was published


def run(chapter_name: str, data: list[list[str]], *, out, labels: list[str] | None = None, given: dict | None = None,
        level: float = 95.0, pdf: bool = False, say=print) -> Comparison:
    """Compare CHAPTER_NAME's fits over the runs in DATA (one list of files or a folder per run, oldest
    first) and publish the comparison into OUT by ``mqperf run --out``'s rules; returns the comparison.

    Raises an :class:`~mqperf.errors.MQPerfError` (exit 2) for bad input; OUT is then untouched.
    """
    from mqperf import __version__, catalog
    from mqperf.publish import outdir, swap

    chapter = catalog.find(chapter_name)
    if not chapter.contract or not chapter.data_parameter:
        raise MQPerfError(f"chapter '{chapter.name}' takes no reader data, so it has no runs to compare")
    if len(data) < 2:
        raise ParameterError("compare needs two or more runs: give --data once per run (oldest first)")
    if not 50 <= level < 100:
        raise ParameterError(f"--level {level:g}: give a confidence level in percent, from 50 to below 100")
    labels = _labels(data, labels or [])
    if pdf:
        from mqperf.publish import pdf as printer

        printer.find_chromium()
    runs = [Run(lab, [Path(f).expanduser() for f in files], chapter.name) for lab, files in zip(labels, data)]
    with outdir.signals_as_exceptions():
        swap.recover(out)
        target = outdir.inspect(out, data_files=[f for r in runs for f in r.files])
        say(f"mqperf compare: {chapter.name} on {len(runs)} runs: {', '.join(labels)}")
        analyse(chapter.name, runs, given or {}, say)
        result = compare(chapter.name, runs, alpha=1 - level / 100)
        with outdir.staging(target) as stage:
            write(result, stage)
            if pdf:
                from mqperf.publish import pdf as printer

                printer.reports([(stage / "index.html", stage / "comparison.pdf")])
            outdir.publish(stage, target, chapter="compare", version=__version__,
                           data=", ".join(shorten(x, 40) for x in labels))
    result.out = target.path
    return result


def _labels(runs: list[list[str]], given: list[str]) -> list[str]:
    if given:
        if len(given) != len(runs):
            raise ParameterError(f"--label given {len(given)} times for {len(runs)} runs: give one per --data, or none")
        labels = [str(g).strip() for g in given]
        if any(not lab for lab in labels):
            raise ParameterError("--label: a run's name cannot be empty")
    else:
        labels = [Path(files[0]).name + (f" (+{len(files) - 1})" if len(files) > 1 else "") for files in runs]
        if len(set(labels)) < len(labels):
            labels = [f"run {i + 1}: {lab}" for i, lab in enumerate(labels)]
    if len(set(labels)) < len(labels):
        raise ParameterError("--label: every run needs a different name")
    return labels


def analyse(chapter: str, runs: list[Run], given: dict, say=print) -> None:
    """Run the chapter's analysis on each run (as ``mqperf run`` would check it) and keep its Results."""
    import warnings

    from mqperf import chapters, parameters
    from mqperf.data import ingest

    with tempfile.TemporaryDirectory(prefix="mqperf-compare-") as tmp:
        for i, run in enumerate(runs):
            folder = Path(tmp) / f"run{i}"
            folder.mkdir()
            values, _ = ingest.prepare(chapter, run.files, folder)
            params = parameters.for_inputs(chapter, values, given)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run.results = chapters.preflight(chapter, values["data"], params)
            say(f"  {run.label}: {len(run.fits)} fitted model{'s' * (len(run.fits) != 1)}")
    if not any(run.fits for run in runs):
        raise MQPerfError(f"chapter '{chapter}' fitted no model to these runs, so there is nothing to compare "
                          "(its report compares by tables; run `mqperf run` on each)")


def compare(chapter: str, runs: list[Run], *, alpha: float = 0.05) -> Comparison:
    """Every consecutive pair of runs compared; change points over three or more runs."""
    import pandas as pd

    from mqperf.errors import ModelError
    from mqperf.models import compare as model

    out = Comparison(chapter, runs, alpha)
    frames = []
    for before, after in zip(runs, runs[1:]):
        both = [n for n in before.fits if n in after.fits]
        only = {before.label: [before.label_of(n) for n in before.fits if n not in after.fits],
                after.label: [after.label_of(n) for n in after.fits if n not in before.fits]}
        refused, derived, rows = {}, {}, []
        for name in both:
            series = after.label_of(name)
            try:
                rows.append(model.parameters(before.fits[name], after.fits[name], series=series, alpha=alpha))
            except ModelError as exc:
                refused[series] = str(exc).split(": ", 1)[-1]
                continue
            derived[series] = model.derived(before.fits[name], after.fits[name])
        pair = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=model.COLUMNS)
        pair = pair.assign(before_run=before.label, after_run=after.label)
        out.pairs.append((before, after, pair, only, refused, derived))
        frames.append(pair)
    out.table = pd.concat(frames, ignore_index=True)
    if len(runs) >= 3:
        _changepoints(out)
    return out


def _changepoints(out: Comparison) -> None:
    """Each parameter's estimates over the runs, and the change points the runs' intervals confirm.

    A series' parameters (and its curve at the largest concurrency every run measured) are
    searched at the simultaneous level α over them (Bonferroni, as the pairwise comparison),
    so a series of unchanged runs shows a change at most about α of the time whatever its
    number of parameters. Each run's standard errors rest on its fit's residual degrees of
    freedom, which the check's simulation carries (:mod:`mqperf.models.changepoint`). A
    parameter that a bound holds in some runs' fits and not in others is not tested: where σ
    is held at 0 the fit's λ absorbs what σ would have taken, so its estimates move between
    runs with the bound, not with the system (on generated series of six unchanged runs this
    alone flagged λ in about one series in seven).
    """
    import pandas as pd

    from mqperf.errors import ModelError
    from mqperf.models import changepoint
    from mqperf.models import compare as model
    from mqperf.present import comparison as words

    rows = []
    common = _common_x(out.runs)
    for order, run in enumerate(out.runs):
        for name, res in run.fits.items():
            ci = res.conf_int()
            base = {"order": order, "run": run.label, "card": name, "series": run.label_of(name),
                    "df": float(res.df_resid), "bounds": ",".join(sorted(res.active_bounds))}
            for p in res.params.index:
                held = p in res.active_bounds  # no standard error: no change point can be tested on it
                rows.append({**base, "parameter": p, "unit": res.units.get(p, ""), "estimate": float(res.params[p]),
                             "std_err": float("nan") if held else float(res.bse[p]),
                             "lower": float(ci.loc[p, "lower"]), "upper": float(ci.loc[p, "upper"]), "curve": False})
            if name in common:
                rows.append({**base, "unit": "", **model.curve_value(res, common[name]), "curve": True})
    est = pd.DataFrame(rows)
    tests = []
    for (card, p), g in est.groupby(["card", "parameter"], sort=False):
        g = g.sort_values("order")
        why = None
        if len(g) < len(out.runs):
            why = f"it is fitted in {len(g)} of the {len(out.runs)} runs"
        elif not g["curve"].iloc[0] and g["bounds"].nunique() > 1:
            why = ("a bound holds some of the model's parameters in some runs' fits and not in others, so the "
                   "estimates are not of the same quantity in every run (the curve's value is compared instead)")
        elif not (g["std_err"].gt(0).all() and g["std_err"].notna().all()):
            why = "a run's fit gives no standard error for this parameter, so a shift cannot be told from noise"
        tests.append((card, p, g, why))
    per_card = {}
    for card, _, _, why in tests:
        per_card[card] = per_card.get(card, 0) + (why is None)
    changes = []
    for card, p, g, why in tests:
        series = g["series"].iloc[-1]
        found = []
        if why is None:
            try:
                found = changepoint.detect(g["estimate"], g["std_err"], df=g["df"].to_numpy(),
                                           alpha=out.alpha / per_card[card])
            except ModelError as exc:
                why = str(exc)
        labels = list(g["run"])
        out.change_notes.append((series, p, words.changepoint_sentence(series, p, found, labels, g["unit"].iloc[0], why)))
        changes += [{"series": series, "parameter": p, "run": labels[c.index], "before": c.before, "after": c.after,
                     "lower": c.lower, "upper": c.upper} for c in found]
    out.estimates = est.drop(columns=["card", "bounds", "curve"])
    out.changes = pd.DataFrame(changes, columns=["series", "parameter", "run", "before", "after", "lower", "upper"])


def _common_x(runs: list[Run]) -> dict:
    """Per card: the largest x every run measured (for a one-input model fitted in every run)."""
    import numpy as np

    out = {}
    for name in runs[0].fits:
        fits = [run.fits.get(name) for run in runs]
        if any(f is None or np.ndim(f.x) != 1 or f.x.size == 0 for f in fits):
            continue
        lo, hi = max(float(f.x.min()) for f in fits), min(float(f.x.max()) for f in fits)
        if lo <= hi:
            out[name] = hi
    return out


def verdict_lines(result: Comparison) -> list[str]:
    """The verdict of every pair and series, as plain sentences (the terminal and the page)."""
    from mqperf.present import comparison as words

    lines = []
    for before, after, rows, only, refused, derived in result.pairs:
        labels = (before.label, after.label)
        lines.append(words.opening(rows, only, refused, labels, result.chapter, result.alpha))
        for series, g in rows.groupby("series", sort=False):
            lines.append(words.series_verdict(series, g, derived.get(series), labels))
    lines += [note for _, _, note in result.change_notes]
    return lines


def write(result: Comparison, stage: Path) -> None:
    """The CSVs and the page into ``stage``."""
    from mqperf.publish import compare_page
    from mqperf.publish.fleet_summary import write_csv  # the same rule: card digits, equal on every machine

    write_csv(result.table.drop(columns=["df", "level_each"]), stage / "comparison.csv")
    if result.estimates is not None:
        write_csv(result.estimates.drop(columns=["order"]).rename(columns={"df": "df_resid"}), stage / "runs.csv")
        write_csv(result.changes, stage / "changepoints.csv")
    compare_page.write(result, stage / "index.html")
