"""Interpretation rules: results in, sentences out.

A chapter is a report generator. Every sentence that states a result (a parameter, a peak,
a count, whether a fit is identified, the planning answer) is made here or in the chapter's
module from the numbers themselves, so it is true on whatever data the chapter runs on.
Numbers in sentences use the same display rule as tables (:func:`num`), so a number a
sentence quotes can be found in the table or chart beside it.

The rules return Markdown strings; :class:`mqperf.present.results.Results` displays them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from mqperf import numbers
from mqperf.present import precision, text

#: Digits of numbers quoted in sentences (:data:`mqperf.present.precision.PROSE`): tables show more,
#: so a quoted number is a rounding of a shown one.
PROSE_DIGITS = precision.PROSE

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def num(value, digits: int | None = None, unit: str | None = None) -> str:
    """``value`` as a sentence shows it: the table display rule at ``digits`` significant digits
    (None: the digits :mod:`mqperf.present.precision` declares for sentences and ``unit``).

    >>> num(60112.4), num(0.1234, 2), num(510.0, unit="µs"), num(None)
    ('60,100', '0.12', '510 µs', '–')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float) and math.isinf(value):
        return "unbounded"
    text = numbers.format_number(float(value), precision.prose_digits(unit) if digits is None else digits)
    return f"{text} {unit}" if unit else text


def given(value, unit: str | None = None) -> str:
    """A value the reader gave (a parameter such as a target rate), shown with all its digits."""
    return num(value, precision.GIVEN, unit)


def pct(value, digits: int = PROSE_DIGITS) -> str:
    """A percentage already in percent: ``pct(36.9)`` is ``'36.9 %'``."""
    return f"{num(value, digits)} %"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(2, "fit")`` is ``'two fits'``; small counts in words, so the number check
    (every number in a sentence is shown in a table) does not apply to counting words."""
    word = _WORDS[n] if 0 <= n < len(_WORDS) else f"{n:,}"
    return f"{word} {noun if n == 1 else (plural or noun + 's')}"


def listing(items: Iterable[str], conjunction: str = "and") -> str:
    """``listing(["a", "b", "c"])`` is ``'a, b and c'``."""
    items = [str(i) for i in items]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


#: Every model parameter's symbol, once: tables and sentences name parameters through :func:`symbol`.
SYMBOLS = {"sigma": "σ", "kappa": "κ", "lam": "λ", "lambda": "λ", "x_max": "X_max", "t_c": "t_c", "t_m": "t_m",
           "a": "a", "B": "B", "s0": "s₀", "s50": "s₅₀", "y_max": "y_max", "k": "k"}
#: Every model family's name as reports say it, once.
MODEL_NAMES = {"usl": "USL", "amdahl": "Amdahl's law", "bottleneck": "bottleneck model", "mva": "MVA",
               "latency_bandwidth": "latency–bandwidth model", "batching": "commit batching model",
               "hill": "Hill curve", "power_law": "power law", "mmc": "M/M/c"}


def symbol(parameter: str) -> str:
    """A parameter's name as the book writes it: ``symbol("sigma")`` is ``'σ'``."""
    return SYMBOLS.get(parameter, parameter)


def model_name(model) -> str:
    """A model family's name as reports say it (``model_name("usl")`` is ``'USL'``); a fit's ``model``
    attribute is read when a fit is given."""
    key = getattr(model, "model", model)
    return MODEL_NAMES.get(str(key), str(key))


def quoted(name: str, *, markdown: bool = True) -> str:
    """A series, label or file name as sentences show it: in quotation marks, as literal text.

    Names come from a reader's files and may hold any character; in a Markdown sentence (the
    default) every punctuation character is escaped (:func:`mqperf.present.text.markdown`), in
    a plain-text one (``markdown=False``: terminal lines, CSV notes, sentences a page
    HTML-escapes) only invisible characters are made visible.
    """
    return f"“{text.markdown(name) if markdown else text.visible(name)}”"


# -- sections the data cannot support ------------------------------------------------------

def not_supported(why: str) -> str:
    """The one sentence shown instead of a table or chart the data cannot support.

    ``why`` says what the data lacks and what the section would need, e.g. "your file has no
    'no gain' statements, so there is no sensitivity band".
    """
    text = why.strip()
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


# -- fits -----------------------------------------------------------------------------------

def identification(results: dict) -> str:
    """What a set of fits can claim, in one or two sentences.

    ``results`` maps a series name to a fitted :class:`~mqperf.models._base.FitResult`.
    "Exactly identified" is said of a fit if and only if it has no residual degrees of freedom
    and passes through its points; fits pressed against a bound say so.
    """
    if not results:
        return "No series could be fitted."
    exact = [s for s, r in results.items() if r.exactly_identified]
    stuck = [s for s, r in results.items() if not r.exactly_identified and r.df_resid <= 0]
    bound = [s for s, r in results.items() if r.active_bounds and r.df_resid > 0]
    free = [s for s, r in results.items() if s not in exact and s not in stuck]
    n = len(results)
    parts = []
    if len(exact) == n:
        parts.append(
            ("The fit is" if n == 1 else "Both fits are" if n == 2 else f"All {count(n, 'fit')} are")
            + " exactly identified: there are as many equations as parameters, so nothing is left to "
            "estimate the noise and no interval can be computed. None is reported rather than a fake one."
        )
        return " ".join(parts)
    if exact:
        parts.append(f"Series {listing(quoted(s) for s in exact)} {'is' if len(exact) == 1 else 'are'} "
                     "exactly identified (as many equations as parameters): no intervals.")
    if stuck:
        one = len(stuck) == 1
        parts.append(f"{_series_phrase(stuck)} no residual degrees of freedom, yet "
                     f"{'its curve misses its' if one else 'their curves miss their'} points: read {'it' if one else 'them'} "
                     "as a description, not an estimate.")
    if bound:
        held = sorted({symbol(p) for s in bound for p in results[s].active_bounds})
        parts.append(f"In {_series_phrase(bound, verb=False)} {listing(held)} "
                     f"{'is' if len(held) == 1 else 'are'} held at {'its' if len(held) == 1 else 'their'} bound "
                     "(the data would push past it), so only the other parameters are estimated.")
    if free:
        parts.append(f"{_series_phrase(free)} residual degrees of freedom: "
                     "the intervals below come from the scatter about the curve.")
    return " ".join(parts)


def _series_phrase(names: Sequence[str], verb: bool = True) -> str:
    names = [quoted(s) for s in names]
    if not verb:
        return "series " + listing(names)
    return f"The fit of {names[0]} has" if len(names) == 1 else f"The fits of {listing(names)} have"


def not_fitted(group: str, reason: str) -> str:
    """The sentence for a series that has no fit, with the model's own reason."""
    return f"{quoted(group)} is not fitted: {reason.rstrip('.')}."


def per_fit(fits, sentence) -> list[str]:
    """One sentence per group of a set of fits: ``sentence(group, result)`` for a fit, the
    model's reason for a group that has none (:func:`not_fitted`)."""
    return [sentence(f.group, f.result) if f.ok else not_fitted(f.group, f.reason) for f in fits]


def usl_reading(series: str, result, *, measured_max_n: float, unit: str = "msg/s") -> list[str]:
    """The Universal Scalability Law's parameters of one fit, read as statements.

    Rules (each with a test):
    - σ > 0.5: most of the work is serialised; 0.05 < σ ≤ 0.5: a share is serialised;
      otherwise contention is small;
    - "throughput falls past the peak" only when κ's interval excludes 0 *and* the measured
      points fall past their maximum beyond their noise (:func:`mqperf.models.evidence.decline`,
      named with its test); κ's interval excludes 0 but the points do not fall: the model bends,
      the data level off; includes 0: the data cannot tell a fall from a plateau; κ = 0 (held
      or fitted): no retrograde;
    - the peak lies within the measured range only between the smallest and the largest
      measured N; beyond either end it is an extrapolation, said so.
    """
    from mqperf.models import evidence

    name = quoted(series)
    sigma, kappa = float(result.params.get("sigma", 0.0)), float(result.params.get("kappa", 0.0))
    out = []
    if sigma > 0.5:
        out.append(f"In {name} σ = {num(sigma)}: most of the work is serialised, so added concurrency buys little.")
    elif sigma > 0.05:
        out.append(f"In {name} σ = {num(sigma)}: a share of the work is serialised (contention).")
    else:
        out.append(f"In {name} σ = {num(sigma)}: contention is small.")
    ci = result.conf_int() if result.df_resid > 0 and result.cov is not None else None
    if kappa <= 0:
        out.append(f"In {name} κ is 0: the curve flattens but does not fall (no coherency delay the data can see).")
    elif ci is not None and "kappa" in ci.index and math.isfinite(ci.loc["kappa"].iloc[0]):
        lo = float(ci.loc["kappa"].iloc[0])
        if lo > 0:
            fall = evidence.decline(result.x, result.y, noise_sd=result.rmse, df=result.df_resid)
            if fall:
                out.append(f"In {name} κ = {num(kappa)}, its 95 % interval excludes 0, and the measured points fall past their "
                           f"peak beyond their noise ({fall.test}): throughput falls past the peak.")
            else:
                out.append(f"In {name} κ = {num(kappa)} and its 95 % interval excludes 0, so the model bends down past its peak; "
                           f"but the measured points do not fall beyond their noise ({fall.test}): within the "
                           "measurements the curve levels off.")
        else:
            out.append(f"In {name} κ = {num(kappa)}, but its 95 % interval includes 0: the data cannot tell a fall "
                       "past the peak from a plateau.")
    else:
        out.append(f"In {name} κ = {num(kappa)}, with no interval: the fit has no degrees of freedom to test it.")
    peak_n, peak_x = result.peak_n(), result.peak_x()
    low = float(np.min(result.x)) if len(result.x) else 1.0
    if math.isfinite(peak_n):
        side = evidence.within(peak_n, low, measured_max_n)
        where = {"within": f"within the measured range ({num(low)} to {num(measured_max_n)})",
                 "above": (f"beyond the largest measured concurrency ({num(measured_max_n)}): an extrapolation, "
                           "not a measurement"),
                 "below": (f"below the smallest measured concurrency ({num(low)}), outside the data: an "
                           "extrapolation, not a measurement")}[side]
        out.append(f"The modelled peak, {num(peak_x, unit=unit)} at N = {num(peak_n)}, lies {where}.")
    elif math.isfinite(peak_x):
        out.append(f"The model has no peak: throughput approaches {num(peak_x, unit=unit)} (λ/σ) "
                   "as concurrency grows without bound, a limit no measurement reaches: an extrapolation.")
    else:
        out.append("The model has no peak: throughput keeps rising with concurrency.")
    return out


def usl_overhead_reading(series: str, result, *, measured_max_n: float) -> str:
    """Where a USL fit's overhead comes from, for the data at hand, in two sentences.

    Rules (each with a test), with c = σ/κ the N from which coherency κ(N−1) exceeds
    contention σ(N−1)/N (:func:`mqperf.models.usl.coherency_crossover`):
    - κ = 0: contention is the whole overhead, coherency never overtakes it;
    - σ = 0 (and κ > 0): coherency is the whole overhead;
    - c ≤ 1: coherency is the larger part from the second unit on;
    - 1 < c ≤ the largest measured N: coherency overtakes contention within the measured range;
    - c beyond it: contention stays the larger part over the measurements, the crossing is an
      extrapolation;
    and then the three parts of λ/X(N) at the largest measured N.
    """
    from mqperf.models import usl

    def clean(value: float) -> float:
        # σ, σ/κ and the parts are relative to one unit alone (whose part is 1): below 1e-9 of it
        # is solver noise, shown as 0 here as in the chart.
        return 0.0 if math.isfinite(value) and numbers.is_noise(value, scale=1.0) else value

    name, top = quoted(series), float(measured_max_n)
    cross = clean(result.coherency_crossover())
    if math.isinf(cross):
        first = f"In {name} κ = 0: contention is the whole overhead at every N, and coherency never overtakes it."
    elif clean(result.sigma) == 0:
        first = f"In {name} σ = 0: coherency is the whole overhead at every N above 1."
    elif cross <= 1:
        first = (f"In {name} coherency costs more than contention from the second unit on "
                 f"(σ/κ = {num(cross)}, not above 1).")
    elif cross <= top:
        first = (f"In {name} coherency overtakes contention at N = {num(cross)}, within the measured range "
                 f"(up to {num(top)}).")
    else:
        first = (f"In {name} contention stays the larger overhead across the measured range (up to {num(top)}); "
                 f"the model puts the crossing at N = {num(cross)}, beyond the measurements: an extrapolation.")
    parts = usl.overhead([top], result.sigma, result.kappa).iloc[0]
    total = parts["ideal"] + parts["contention"] + parts["coherency"]
    ideal, contention, coherency = (clean(parts[k]) for k in ("ideal", "contention", "coherency"))
    second = (f"At N = {num(top)}, λ/X(N) = {num(total)}: {num(ideal)} ideal, "
              f"{num(contention)} contention and {num(coherency)} coherency.")
    return f"{first} {second}"


def extrapolation(value: float, measured_max: float, what: str) -> str | None:
    """A warning when an answer lies past the data, else None."""
    if value > measured_max:
        return (f"{what} ({num(value)}) lies beyond the largest measured value ({num(measured_max)}): "
                "an extrapolation.")
    return None


def paragraph(*sentences: str | None) -> str:
    """Sentences joined into one paragraph, skipping empty ones."""
    return " ".join(s.strip() for s in sentences if s and s.strip())


def bullets(items: Iterable[str]) -> str:
    return "\n".join(f"* {item}" for item in items if item)


# -- residuals against the data's printed precision ---------------------------------------------

def printed_step(values, max_decimals: int = 6) -> float:
    """The step of the data as written: 1 for whole numbers, 0.1 for one decimal, ...

    The finest decimal place any value needs (up to ``max_decimals``); means of many rows
    usually need them all, so their step is tiny and nothing is "within rounding".
    """
    import numpy as np

    v = np.abs(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    for d in range(max_decimals + 1):
        scaled = v * 10**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-9 * np.maximum(1.0, scaled)):
            return 10.0 ** -d
    return 10.0 ** -max_decimals


def within_rounding(residual: float, step: float) -> bool:
    """True when ``|residual|`` is at most half the data's printed step: the rule behind
    "within rounding" (a whole-number percentage hides up to ±0.5 points, not ±1)."""
    return abs(float(residual)) <= 0.5 * float(step) * (1 + 1e-9)


def residual_reading(residuals, values, unit: str = "") -> str:
    """One sentence on the largest residual against the rounding of the data it fits.

    ``residuals`` and ``values`` are the fit's residuals and the values as given; the
    sentence quotes the largest |residual| and says "within the rounding" only under
    :func:`within_rounding`.
    """
    import numpy as np

    r = np.asarray(residuals, dtype=float)
    if r.size == 0:
        return ""
    step = printed_step(values)
    worst = float(np.max(np.abs(r)))
    u = f" {unit}" if unit else ""
    given = "whole numbers" if step == 1 else f"given to {num(step)}{u}"
    rounding = f"the values are {given}, so rounding explains up to ±{num(0.5 * step)}{u}"
    if within_rounding(worst, step):
        return (f"The largest residual, {num(worst)}{u}, is within the rounding of the data ({rounding}): "
                "a closer fit would mean nothing.")
    return (f"The largest residual, {num(worst)}{u}, is more than the rounding of the data ({rounding}): "
            "the curve misses at least one point by more than its printing explains.")


# -- claims that need evidence (each decided by a rule in mqperf.models.evidence) ---------------------

def interval(lo: float, hi: float, unit: str | None = None) -> str:
    """A 95 % interval as sentences give it: ``"95 % interval 0.1 to 0.7 µs"``."""
    return f"95 % interval {num(lo)} to {num(hi, unit=unit)}"


def direction(value: float, lo: float, hi: float, *, subject: str, up: str, down: str, unit: str | None = None) -> str:
    """A signed effect stated only in the direction its interval supports.

    ``direction(0.4, 0.1, 0.7, subject="each task", up="adds", down="removes", unit="CPU s/h")``
    is "each task adds 0.4 CPU s/h (95 % interval 0.1 to 0.7 CPU s/h)"; with an interval that
    spans zero it says the data cannot tell which way (:func:`mqperf.models.evidence.sign`).
    """
    from mqperf.models import evidence

    side = evidence.sign(lo, hi)
    if side == "positive":
        return f"{subject} {up} {num(value, unit=unit)} ({interval(lo, hi, unit)})"
    if side == "negative":
        return f"{subject} {down} {num(-value, unit=unit)} ({interval(-hi, -lo, unit)})"
    if math.isfinite(lo) and math.isfinite(hi):
        return (f"the data cannot tell whether {subject} {up} or {down} anything: the estimate, "
                f"{num(value, unit=unit)}, has a {interval(lo, hi, unit)}, which includes zero")
    return f"the data cannot tell whether {subject} {up} or {down} anything: the estimate has no interval"


def estimate(name: str, value: float, lo: float, hi: float, unit: str | None = None) -> str:
    """A positive quantity stated only when its interval identifies it (:func:`mqperf.models.evidence.identified`)."""
    from mqperf.models import evidence

    verdict = evidence.identified(lo, hi)
    if verdict:
        return f"{name} is about {num(value, unit=unit)} ({interval(lo, hi, unit)})"
    return f"the data cannot tell {name}: {verdict.test}"


def extrapolated(text: str, beyond: bool) -> str:
    """``text`` with "(extrapolated)" when the answer lies beyond the measured range."""
    return f"{text} (extrapolated)" if beyond else text
