"""Message size: rate and MB/s against message size, from the latency–bandwidth model t(s) = a + s/B.

``analyse`` loads the rates, fits each series (:mod:`._kafka_message_size_fits`), and turns
every result into a table, chart or sentence of the report.
"""

from mqperf.parameters import DataFile, Internal, Number

# IBM MQ's largest message is 100 MB (102,400 KB); no size beyond it can be planned.
MAX_MESSAGE_KB = 102400

PARAMETERS = {
    "data": DataFile(help="message rate against size: a CSV with msg_size_kb, rate_msg_s [, series, connector], "
                          "or a book dataset", contract="kafka_message_size"),
    "plan_msg_size_kb": Number(help="planning question: rate and MB/s at this message size", unit="KB",
                               minimum=0, exclusive_minimum=True, maximum=MAX_MESSAGE_KB),
    "max_size_kb": Number(help="the largest message size the charts and the planning table show", unit="KB",
                          minimum=1, maximum=MAX_MESSAGE_KB),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "kafka_message_size"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8


def analyse(p: dict):
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    from mqperf.chapters import _kafka_message_size_fits as k
    from mqperf.data import aggregate, views
    from mqperf.present import prose
    from mqperf.present.results import Results

    src = views.describe(p["data"])
    pts = k.points(views.open(p["data"], CHAPTER))
    fits = k.fit_all(pts, data_name=src.name, data_hash=src.sha256)
    plan_kb, max_kb = float(p["plan_msg_size_kb"]), float(p["max_size_kb"])
    r = Results(book_data=src.book_data, source=src.name)
    r.points = pts

    r.about("about_measured", ABOUT_MEASURED)
    r.text("aggregation", aggregate.note(pts, per="series and message size", value="rate_msg_s"))
    rows = f": means of {int(pts[aggregate.COUNT].sum()):,} rows" if aggregate.aggregated(pts) else ""
    r.table("points", k.points_table(pts), caption=f"Rates by message size (1 MB = 1,024 KB){rows}", digits=5)
    check = k.mb_check(pts)
    r.table("mb_check", check, caption="Printed MB/s against rate × size / 1,024", digits=5,
            missing="your file has no approx_mb_s column, so there is no printed MB/s to check")
    r.text("mb_check_text", _mb_text(check, prose))
    r.about("about_mb", ABOUT_MB)

    r.table("fits", k.fits_table(fits), caption="One latency–bandwidth fit per series", digits=4)
    r.text("identification", prose.identification(fits.results), _unfitted(fits, prose))
    r.table("parameters", k.parameter_table(fits) if fits.any_intervals else None, digits=4,
            caption="Estimates and 95 % intervals",
            missing="no fit has residual degrees of freedom, so there are no intervals; the estimates are in the "
                    "table above")
    r.text("readings", _readings(fits, pts, prose))
    r.about("about_readings", ABOUT_READINGS)

    # The curves span the measured sizes too, whatever max_size_kb asks for.
    span = max(max_kb, float(pts["msg_size_kb"].max()))
    r.chart("rate_chart", k.rate_chart(pts, k.curves(fits, span)))
    r.chart("bytes_chart", k.bytes_chart(pts, k.curves(fits, span, as_mb=True)))
    r.chart("residual_chart", k.residual_chart(k.residuals(fits)))

    loo = k.leave_one_out(fits, pts, src.name, src.sha256)
    r.table("loo", loo, caption="Leave one size out: each rate predicted by a fit of the other sizes", digits=4,
            missing="no series has three or more distinct sizes, so no size can be left out and still leave a fit")
    r.text("loo_text", _loo_text(loo, prose))
    anchor = _about_anchor(fits, pts, k, prose) if src.book_data else ""
    if anchor:
        r.about("about_anchor", anchor)
    else:
        r.text("about_anchor")

    asked = k.plan(fits, [plan_kb])
    r.table("plan", asked, caption=f"Expected rate at {prose.num(plan_kb, 12)} KB", digits=4)
    r.text("plan_text", _plan_text(asked, pts, prose))
    sizes = sorted({1.0, 2.0, 4.0, 8.0, 16.0, 32.0, max_kb, plan_kb})
    r.table("plan_sizes", k.plan(fits, sizes), caption="Expected rate by message size", digits=4)
    r.about("about_plan", ABOUT_PLAN)

    for name, card, result in fits.cards(CHAPTER, src.name):
        r.card(name, card, result)
    return r


# -- sentences -------------------------------------------------------------------------------

def _unfitted(fits, prose) -> str:
    names = list(fits.failures)
    if not names:
        return ""
    lines = [f"{prose.quoted(s)}: not fitted ({fits.failures[s]})." for s in names[:NAMED]]
    more = f" The fits table lists {len(names) - NAMED:,} more." if len(names) > NAMED else ""
    return " ".join(lines) + more


def _mb_text(check, prose) -> str:
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


def _readings(fits, pts, prose) -> str:
    out = []
    for name, r in list(fits.results.items())[:NAMED]:
        a_us, bw = r.a * 1e6, r.bandwidth / (1024.0 * 1024.0)
        biggest = float(pts.loc[pts["series"] == name, "msg_size_kb"].max())
        s90 = r.size_for_fraction(0.9) / 1024.0
        fixed = (f"no fixed time per message the data can see (a is held at 0), so the rate falls as 1/size"
                 if "a" in r.active_bounds or a_us == 0 else f"a fixed {prose.num(a_us)} µs per message")
        s = (f"{prose.quoted(name)}: {fixed} plus a bandwidth of {prose.num(bw)} MB/s; half the time per message is "
             f"per byte at {prose.num(r.s_half() / 1024.0)} KB, and 90 % of B needs {prose.num(s90)} KB")
        s += (f", beyond the largest size measured ({prose.num(biggest)} KB): an extrapolation." if s90 > biggest
              else ".")
        if r.df_resid > 0:
            s += f" The curve misses its points by up to {prose.pct(_miss(r))}."
            ci = r.conf_int()
            below = [label for p, label in (("a", "a"), ("B", "B")) if p in ci.index and ci.loc[p, "lower"] < 0]
            if below:
                s += (f" The 95 % interval of {prose.listing(below)} reaches below zero: these points do not pin down "
                      "the split between per-message and per-byte time.")
        out.append(s)
    more = f"\n\nThe tables give the other {len(fits.results) - NAMED:,} series." if len(fits.results) > NAMED else ""
    return prose.bullets(out) + more


def _miss(result) -> float:
    from mqperf.chapters._kafka_message_size_fits import worst_miss

    return worst_miss(result)


def _loo_text(loo, prose) -> str:
    if loo is None or loo.empty:
        return ""
    done = loo.dropna(subset=["error %"])
    if done.empty:
        return "No left-out size could be predicted: the sizes left could not be fitted."
    worst = done.loc[done["error %"].abs().idxmax()]
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


def _plan_text(asked, pts, prose) -> str:
    out = []
    for row in asked.head(NAMED).to_dict("records"):
        name, kb = row["series"], row["size (KB)"]
        s = (f"At {prose.num(kb)} KB {prose.quoted(name)} is expected to move {prose.num(row['rate (msg/s)'])} msg/s "
             f"({prose.num(row['MB/s'])} MB/s)")
        lo, hi = row["95 % lower (msg/s)"], row["95 % upper (msg/s)"]
        s += (f", 95 % interval {prose.num(lo)} to {prose.num(hi)} msg/s." if lo == lo and hi == hi else
              ", with no interval (the fit has no residual degrees of freedom).")
        s += f" {prose.pct(row['fixed share of time (%)'])} of the time per message is the fixed cost."
        if not row["within measured sizes"]:
            sizes = pts.loc[pts["series"] == name, "msg_size_kb"]
            s += (f" That size lies outside the sizes measured ({prose.num(sizes.min())} to {prose.num(sizes.max())} KB): "
                  "an extrapolation.")
        out.append(s)
    return prose.bullets(out)


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


def _about_anchor(fits, pts, k, prose) -> str:
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
            f"B = {prose.num(without.bandwidth / k.MB)} MB/s (against {prose.num(full.a * 1e6)} µs and "
            f"{prose.num(full.bandwidth / k.MB)} MB/s with it) and predicts {prose.num(pred)} msg/s at 1KB, the "
            "leave-one-out row above. Two sizes where most of the time is per byte cannot see the fixed cost, so "
            "the book keeps the printed point and reads the sink's a (and every small-message answer built on it) "
            "as resting on one questionable number.")
