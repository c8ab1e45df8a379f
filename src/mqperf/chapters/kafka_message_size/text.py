"""Message size's sentences and its about-passages (the latter shown on the book's data only).

Each sentence says a, B, the half-size or a planned rate only as far as the data identify it
(:func:`mqperf.models.evidence.identified`), and labels what lies outside the measured sizes.
"""

from __future__ import annotations

from mqperf import numbers
from mqperf.chapters.kafka_message_size import MB, NAMED, fits as k
from mqperf.models import evidence
from mqperf.present import prose, text


def unfitted(fits) -> str:
    names = list(fits.failures)
    if not names:
        return ""
    lines = [f"{prose.quoted(s)}: not fitted ({fits.failures[s]})." for s in names[:NAMED]]
    more = f" The fits table lists {len(names) - NAMED:,} more." if len(names) > NAMED else ""
    return " ".join(lines) + more


def mb_text(check) -> str:
    if check is None or check.empty:
        return ""
    wrong = check[~check["agrees"]]
    n = len(check)
    head = (f"Every one of the {prose.count(n, 'printed MB/s value')} is the computed one rounded."
            if wrong.empty else
            f"None of the {prose.count(n, 'printed MB/s value')} is the computed one rounded:"
            if len(wrong) == n else
            f"Of the {prose.count(n, 'printed MB/s value')}, "
            f"{prose.count(n - len(wrong), 'is the computed one rounded', 'are the computed ones rounded')}; "
            f"{'this one is' if len(wrong) == 1 else 'these are'} not:")
    lines = [f"{prose.quoted(w['series'])} at {prose.num(w['size (KB)'])} KB prints {prose.num(w['MB/s printed'])} "
             f"MB/s for {prose.num(w['MB/s computed'])} computed." for w in wrong.head(NAMED).to_dict("records")]
    tail = "The fits use the message rates, never the MB/s column, so a slip there reaches no result."
    return "\n\n".join([head, prose.bullets(lines), tail]) if lines else head + " " + tail


def readings(fits, pts, r) -> str:
    """a, B, the half-size and the size for 90 % of B, each said only as far as the data identify it."""
    out = []
    for name, res in list(fits.results.items())[:NAMED]:
        sizes = pts.loc[pts["series"] == name, "msg_size_kb"]
        low, top = float(sizes.min()), float(sizes.max())
        q = prose.quoted(name)
        a_us, bw = res.a * 1e6, res.bandwidth / (1024.0 * 1024.0)
        if res.df_resid <= 0:
            s = (f"{q}: the curve through its two sizes puts the fixed time at {prose.num(a_us)} µs per message and "
                 f"the bandwidth at {prose.num(bw)} MB/s, a description of two points with no interval to test either")
            known = {"a": a_us > 0, "B": True}
        elif "a" in res.active_bounds or a_us == 0:
            ci = res.conf_int()
            s = (f"{q}: no fixed time per message the data can see (a is held at 0), so the rate falls as 1/size; "
                 + prose.estimate("the bandwidth B", bw, ci.loc["B", "lower"] / MB, ci.loc["B", "upper"] / MB, "MB/s"))
            known = {"a": False, "B": identified(ci.loc["B", "lower"], ci.loc["B", "upper"])}
        else:
            ci = res.conf_int()
            a_lo, a_hi = ci.loc["a", "lower"] * 1e6, ci.loc["a", "upper"] * 1e6
            b_lo, b_hi = ci.loc["B", "lower"] / MB, ci.loc["B", "upper"] / MB
            s = (f"{q}: " + prose.estimate("the fixed time a", a_us, a_lo, a_hi, "µs per message") + "; "
                 + prose.estimate("the bandwidth B", bw, b_lo, b_hi, "MB/s"))
            known = {"a": identified(a_lo, a_hi), "B": identified(b_lo, b_hi)}
        if known["a"] and known["B"]:
            half, s90 = res.s_half() / 1024.0, res.size_for_fraction(0.9) / 1024.0
            s += (f"; half the time per message is per byte at {prose.num(half)} KB{outside(half, low, top, r, name, 'the half-size')}"
                  f", and 90 % of B needs {prose.num(s90)} KB{outside(s90, low, top, r, name, 'the size for 90 % of B')}.")
        elif "a" in res.active_bounds or a_us == 0:
            s += "; with no fixed time, every size is limited by the bandwidth alone."
        else:
            s += ("; so the size at which the per-byte time overtakes the fixed time (the half-size) cannot be told "
                  "either.")
        if res.df_resid > 0:
            s += f" The curve misses its points by up to {prose.pct(k.worst_miss(res))}."
        out.append(s)
    more = f"\n\nThe tables give the other {len(fits.results) - NAMED:,} series." if len(fits.results) > NAMED else ""
    return prose.bullets(out) + more


def identified(lo: float, hi: float) -> bool:
    return bool(evidence.identified(lo, hi))


def outside(kb: float, low: float, top: float, r, name: str, what: str) -> str:
    """" (extrapolated: ...)" when ``kb`` lies outside the measured sizes, recorded on ``r``; else ""."""
    if low <= kb <= top:
        return ""
    r.extrapolated(f"{text.visible(name)}: {what} ({prose.num(kb)} KB)")
    side = f"below the smallest size measured, {prose.num(low)} KB" if kb < low else \
        f"beyond the largest size measured, {prose.num(top)} KB"
    return f" (extrapolated: {side})"


def loo_text(loo) -> str:
    if loo is None or loo.empty:
        return ""
    done = loo.dropna(subset=["error %"])
    if done.empty:
        return "No left-out size could be predicted: the sizes left could not be fitted."
    worst = done.loc[numbers.idxmax(done["error %"].abs())]
    s = (f"Leaving each size out in turn, the worst prediction is for {prose.quoted(worst['series'])} at "
         f"{prose.num(worst['size (KB)'])} KB ({worst['left-out size']}): {prose.num(worst['predicted rate (msg/s)'])} "
         f"msg/s predicted against {prose.num(worst['measured rate (msg/s)'])} measured ({prose.pct(worst['error %'])}).")
    inside = done[done["left-out size"].str.startswith("inside")]
    if len(inside):
        s += (f" Sizes inside the others' range (interpolations) are predicted within "
              f"{prose.pct(inside['error %'].abs().max())}.")
    s += (" The fixed cost is pinned by the small sizes and the bandwidth by the large ones: measure at the "
          "smallest and largest sizes you will plan for.")
    return s


def plan_text(asked, pts, fits, r) -> str:
    out = []
    for row in asked.head(NAMED).to_dict("records"):
        name, kb = row["series"], row["size (KB)"]
        sizes = pts.loc[pts["series"] == name, "msg_size_kb"]
        label = ""
        if row["extrapolated"]:
            label = (f" (extrapolated: outside the sizes measured, {prose.num(sizes.min())} to "
                     f"{prose.num(sizes.max())} KB)")
            r.extrapolated(f"{text.visible(name)}: the rate at {prose.num(kb)} KB")
        s = (f"At {prose.num(kb)} KB {prose.quoted(name)} is expected to move {prose.num(row['rate (msg/s)'])} msg/s "
             f"({prose.num(row['MB/s'])} MB/s){label}")
        lo, hi = row["95 % lower (msg/s)"], row["95 % upper (msg/s)"]
        s += (f", 95 % interval {prose.num(lo)} to {prose.num(hi)} msg/s." if lo == lo and hi == hi else
              ", with no interval (the fit has no residual degrees of freedom).")
        res = fits.results[name]
        if a_known(res):
            s += f" {prose.pct(row['fixed share of time (%)'])} of the time per message is the fixed cost."
        else:
            s += " How much of that time is the fixed cost the data cannot tell (see the fixed time a above)."
        out.append(s)
    return prose.bullets(out)


def identified_check(fits) -> str:
    """Which series' a and B the report states as values, and which it says it cannot tell."""
    told, untold, exact = [], [], []
    for name, res in fits.results.items():
        if res.df_resid <= 0:
            exact.append(name)
            continue
        ci = res.conf_int()
        ok = all(p not in res.active_bounds and identified(ci.loc[p, "lower"], ci.loc[p, "upper"]) for p in ("a", "B"))
        (told if ok else untold).append(name)
    parts = [f"{prose.count(len(told), 'series', 'series')} with a and B identified (95 % interval positive and "
             "within a factor 10)"]
    if untold:
        parts.append(f"{prose.count(len(untold), 'series', 'series')} where the sizes cannot tell a or B, said so "
                     "instead of a value")
    if exact:
        parts.append(f"{prose.count(len(exact), 'series', 'series')} exactly identified: values describe the points, "
                     "with no interval")
    return "; ".join(parts)


def a_known(res) -> bool:
    """The fixed time is identified (its interval) or the fit is exact (a description); a fixed time
    held at 0 is one the data cannot see, not one they show to be 0."""
    if res.df_resid <= 0:
        return True
    if "a" in res.active_bounds or res.a == 0:
        return False
    ci = res.conf_int()
    return identified(ci.loc["a", "lower"], ci.loc["a", "upper"])


# -- about the published measurements (shown on the book's own data only) ----------------------

ABOUT_MEASURED = """Same system as the {doc}`Kafka connector task scaling <kafka_task_scaling>` chapter:
MQ for z/OS 9.3.3 on an IBM z16 LPAR with 3 dedicated general-purpose CPUs and 2 zIIPs, the Kafka broker
on an IBM z15 (RHEL 8.8, 6 CPUs), a 10Gb network between them, and the connectors in bindings mode in
USS. Each connector ran **one task** in the *peak rate* configuration (the source reads a pre-loaded
queue, the sink puts to a queue nobody reads), with **non-persistent** messages of 1KB, 10KB and 32KB.
The article says the main effect of size for non-persistent messages is the network. Three sizes per
connector are all it prints (see the {ref}`Data catalog <data-catalog>`)."""

ABOUT_MB = """The sink's 1KB row prints 38 MB/s for 37.46 (see {ref}`erratum E010 <errata-e010>`); the
data keep the printed value."""

ABOUT_READINGS = """Both bandwidths are far below the 10Gb link's 1,192 MB/s, so the per-byte limit lies
elsewhere (the connector, the broker, TCP settings); the rates alone cannot say where."""

ABOUT_PLAN = """These are single-task *peak* rates on a lightly loaded system, and they do not compare
the same way with the task-scaling chapter's *sustainable* one-task rates for both connectors: the
source's sustainable 28,000 msg/s is just below its 1KB peak here (28,776), but the sink's sustainable
44,996 msg/s is *above* its 1KB "peak" (38,355). A peak rate below a sustainable one is a contradiction
in the source ({ref}`erratum E040 <errata-e040>`)."""


def about_anchor(fits, pts) -> str:
    """Erratum E040: the sink's 1KB "peak" is below its sustainable rate, and it anchors the fixed cost."""
    name = "sink peak nonpersistent"
    full = fits.results.get(name)
    without = k.refit_without(pts, name, 1.0)
    if full is None or without is None:
        return ""
    pred = float(without.predict([1024.0])[0])
    return (f"The sink's 1KB rate (38,355 msg/s) is the one point that pins its fixed cost, and it is suspect: "
            "it lies below the same connector's *sustainable* one-task rate of 44,996 msg/s, although the peak "
            "configuration removes the getters' contention ({ref}`erratum E040 <errata-e040>`). Without it the "
            f"fit through 10KB and 32KB alone gives a = {prose.num(without.a * 1e6)} µs and "
            f"B = {prose.num(without.bandwidth / MB)} MB/s (against {prose.num(full.a * 1e6)} µs and "
            f"{prose.num(full.bandwidth / MB)} MB/s with it) and predicts {prose.num(pred)} msg/s at 1KB, the "
            "leave-one-out row above. Two sizes where most of the time is per byte cannot see the fixed cost, so "
            "the book keeps the printed point and reads the sink's a (and every small-message answer built on it) "
            "as resting on one questionable number.")
