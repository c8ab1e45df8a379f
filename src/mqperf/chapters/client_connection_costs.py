"""Client connection costs: what this chapter takes, and the checks its notebook applies."""

from mqperf.declarations import DataFile, Internal, Number

PARAMETERS = {
    "data": DataFile(help="CPU per connect and disconnect: a CSV with sharecnv, listener, cpu_us "
                          "[, tls, suppress_x511], or a book dataset", contract="client_connection_costs"),
    "blocked": DataFile(help='costs of refused connection attempts; "" for none',
                        contract="client_conn_blocked", files=False, optional=True),
    "address_space": DataFile(help='cost by address space, local against shared listener; "" for none',
                              contract="client_conn_address_space", files=False, optional=True),
    "storm_rate_per_s": Number(help="planning question: connection attempts per second in a storm",
                               unit="attempts/s", minimum=0, exclusive_minimum=True, maximum=1e7),
    "max_utilisation": Number(help="the highest share of an engine the planner accepts (1 % to 100 %)",
                              minimum=0.01, maximum=1),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


CHAPTER = "client_connection_costs"


def analyse(p: dict):
    """Load, fit and plan: every sentence, table and chart the notebook shows.

    Returns
    -------
    mqperf.present.results.Results
        Items in display order; ``fit_results`` maps every fit's name to its FitResult.
    """
    from mqperf.chapters import _client_connection_costs_calc as calc
    from mqperf.data import aggregate, views
    from mqperf.present.results import Results

    source = views.describe(p["data"], CHAPTER)
    r = Results(book_data=source.book_data, source=source.name)
    r.answers = "CPU seconds an hour and engines kept busy at the storm rate, priced at each measured cost per attempt"
    r.fit_results = {}
    runs = calc.normalise(views.open(p["data"], CHAPTER))
    configs = calc.prepare(runs)
    r.points = configs
    _about_system(r)
    r.items["note"] = aggregate.AggregationNote(aggregate.note(configs, per="configuration", value="cpu_us")) or None
    table = calc.cost_table(configs)
    r.table("costs", table.rename(columns={c: f"{c} (µs)" for c in table.columns if c != "option"}), digits=5,
            caption="CPU µs per MQCONNX + MQDISC, by option (rows) and configuration (columns)")
    r.about("costs_about", (
        "The article prints one table: a BASIC cost for each SHARECNV and listener, and what TLS and suppressing "
        "the CSQX511I/CSQX512I messages add. Here the BASIC row is measured; a configuration with TLS or with "
        "suppression is the BASIC cost plus the printed increment (basis `derived`). The article prints the "
        "increments one at a time and never TLS and suppression together."))
    r.about("api_about", _api_order())
    basic = calc.basic_rows(configs)
    pure = calc.pure_error(runs)
    _regressions(r, p, calc, basic, source, runs, pure)
    _address_spaces(r, p, calc, basic)
    _options(r, calc, configs, pure)
    refused = _refused(r, p, calc, basic)
    _storm(r, p, calc, configs, refused)
    r.about("errata", (
        "Errata: {ref}`E038 <errata-e038>`: the \"300-400 microsecond increase\" for a CHLAUTH block does not match "
        "the printed costs (290 and 910 µs); the calculator uses the printed costs."), title=False)
    return r


def _about_system(r) -> None:
    from mqperf.data import views

    env = views.system("client_conn")
    v = dict(zip(env["attribute"], env["value"]))
    r.about("system", (
        "IBM's performance team ran a client that issued MQCONNX and MQDISC 100,000 times against a SVRCONN "
        f"channel and measured the CPU used on the LPAR: {v.get('gp_cpus')} on an {v.get('hardware')}, "
        f"{v.get('os')}, MQ at its 2018 level, with {v.get('coprocessors')} and {v.get('accelerators')} for the "
        f"TLS runs ({v.get('tls_cipher')}). Every cost is CPU microseconds per MQCONNX + MQDISC pair, summed over "
        "the address spaces that do the work (channel initiator, queue manager, Db2, TCP/IP) "
        "({ref}`dataset <data-client_conn_costs>`, {ref}`Data catalog <data-catalog>`)."))


def _api_order() -> str:
    from mqperf.data.views.client_connection_costs import api_cost_order

    order = api_cost_order()
    lines = "\n".join(f"{int(row.cost_rank)}. model {row.model}: {row.pattern}" for row in order.itertuples())
    return ("Connecting is expensive next to the work a client usually does once connected. The article orders "
            "three application patterns by cost, cheapest first, and says \"The cost of the connect can be higher "
            "than the combined total of the other APIs\":\n\n" + lines + "\n\nAn application that connects for "
            "each message (the last pattern) turns its message rate into a connection rate, which the calculator "
            "at the end of this chapter prices.")


def _regressions(r, p, calc, basic, source, runs, pure) -> None:
    from mqperf.errors import ModelError
    from mqperf.present import prose
    from mqperf.present.cards import card_name

    diffs = calc.differences(basic)
    tests = calc.tested([calc.difference_test(row["difference (µs)"], *row["runs"], *pure)
                         for _, row in diffs.iterrows()], "comparisons")
    shown = diffs.drop(columns=calc.DIFFERENCE_INTERNALS, errors="ignore")
    if len(diffs) and pure[1] > 0:
        shown["runs (from, to)"] = [f"{a:,}, {b:,}" for a, b in diffs["runs"]]
        shown["t"] = [t[0] for t in tests]
        shown["p (Holm-adjusted)" if len(tests) > 1 else "p"] = [_p_shown(t[1]) for t in tests]
    r.table("differences", shown, digits=4, caption="Each setting against its base, from the BASIC cells"
            + (": each difference tested against the replicates' scatter (two-sided t-test, p Holm-adjusted for the "
               "comparisons made)" if pure[1] > 0 else
               ": one run per configuration, so no difference is tested"),
            missing="your file measures one SHARECNV and one listener only, so there is nothing to compare")
    verdict = calc.interaction_test(runs[~runs["tls"] & ~runs["suppress_x511"]])
    r.text("differences_text", _difference_sentences(diffs, tests, verdict))
    if verdict is not None:
        r.checked("Interaction of the settings", verdict.test if pure[1] > 0 else
                  "one run per configuration: no replicates to test an interaction against, so none is claimed")
    try:
        fits = calc.fit_basic(basic, data_name=source.name, data_hash=source.sha256)
    except ModelError as exc:
        for key in ("models_text", "models", "parameters", "fitted", "fitted_text", "loo_text"):
            r.items[key] = None
        r.missing("models", f"{exc}: with one configuration varying nothing, there is no regression")
        r.missing("loo", "there is no regression to leave a cell out of")
        return
    results = {kind: res for kind, (res, _) in fits.items() if res is not None}
    r.fit_results.update(results)
    r.text("models_text", prose.identification(results))
    r.table("models", calc.models_table(fits), digits=4, caption="Regressions of the BASIC cost")
    r.table("parameters", calc.parameter_table(fits), digits=4,
            caption="Parameters (treatment coding: the smallest SHARECNV and the base listener are the base)")
    fitted = calc.fitted_table(fits, basic)
    names = {"sharecnv": "SHARECNV", "listener": "listener", "measured_us": "measured (µs)", "n": "n",
             "cpu_us_sd": "sd (µs)"}
    for kind in results:
        names[f"{kind}_us"] = f"{kind} (µs)"
        names[f"{kind}_resid_us"] = f"{kind} residual (µs)"
    r.table("fitted", fitted.rename(columns=names), digits=5, caption="Each cell: measured against each model")
    add = results.get("additive")
    if add is not None and add.df_resid > 0:
        worst = calc.models_table(fits).set_index("model").loc["additive", "largest residual (µs)"]
        r.text("fitted_text", f"The additive model misses the cells by up to {prose.num(worst, unit='µs')}.")
    else:
        r.items["fitted_text"] = None
    loo = calc.leave_one_cell_out(basic)
    ok = loo.dropna(subset=["predicted_us"]) if len(loo) else loo
    r.table("loo", loo.rename(columns={"sharecnv": "SHARECNV", "listener": "listener", "measured_us": "measured (µs)",
                                       "predicted_us": "predicted (µs)", "error_pct": "error (%)", "note": "note"})
            if len(ok) else None, digits=4, caption="The additive model fitted without each cell, predicting it",
            missing="no cell can be predicted from the others (each holds a level no other cell has)")
    # Whether the settings interact is the F-test's to say (above), not the size of these errors.
    r.text("loo_text", (f"Left out one at a time, {prose.count(len(ok), 'cell')} "
                        f"{'is' if len(ok) == 1 else 'are'} predicted with errors from {prose.pct(ok['error_pct'].min())} "
                        f"to {prose.pct(ok['error_pct'].max())}.") if len(ok) else None)
    for kind, res in results.items():
        r.card(card_name(CHAPTER, f"basic {kind}"),
               res.to_card(name=f"{CHAPTER}: basic cost, {kind}", dataset=source.name), res)


def _difference_sentences(diffs, tests, verdict) -> str | None:
    """The comparisons in words: a direction only where a test against the replicates supports it.

    With replicates, each difference is stated with its t-test, or said to be within the scatter;
    without, the differences are said as measured and no test is claimed. Whether the settings
    interact is the F-test of the additive model's lack of fit (``verdict``); no replicates, no claim.
    """
    from mqperf.present import prose, text

    if not len(diffs):
        return None
    out = []
    untested = all(t is None for t in tests)
    for comparison, g in diffs.groupby("comparison", sort=False):
        rows = list(g.iterrows())
        subject, base = _names(rows[0][1])
        if untested:
            parts = [f"{prose.num(abs(row['difference (µs)']), unit='µs')} "
                     f"{'more' if row['difference (µs)'] >= 0 else 'less'} {_at(row)}" for _, row in rows]
            out.append(f"As measured, {subject} cost {prose.listing(parts)} than {base}.")
            continue
        sure = [(i, row) for i, row in rows if tests[i][1] < 0.05]
        unsure = [(i, row) for i, row in rows if tests[i][1] >= 0.05]
        if sure:
            parts = [f"{prose.num(abs(row['difference (µs)']), unit='µs')} "
                     f"{'more' if row['difference (µs)'] > 0 else 'less'} {_at(row)}" for _, row in sure]
            out.append(f"{subject[0].upper() + subject[1:]} costs {prose.listing(parts)} than {base} "
                       f"({_family_words(tests, [i for i, _ in sure])}).")
        for i, row in unsure:
            out.append(f"{_at(row, lead=True)}, the data cannot tell whether {subject} costs more or less than "
                       f"{base}: the measured difference, {prose.num(row['difference (µs)'], unit='µs')}, is within "
                       f"the replicates' scatter ({_family_words(tests, [i])}).")
    if untested:
        out.append("Each configuration was run once, so no difference is tested against run-to-run scatter.")
    spread = diffs.groupby("comparison", sort=False)["difference (µs)"].agg(["min", "max", "size"])
    spread = spread[spread["size"] > 1]
    if verdict is not None:
        # "on (1, 8) df" nests a parenthesis in the test's own, which tests/chapters/props.py's
        # evidence pattern stops at; "on 1 and 8 df" says the same.
        import re
        from dataclasses import replace

        verdict = replace(verdict, test=re.sub(r"on \((\d+), (\d+)\) df", r"on  and  df", verdict.test))
    if verdict is not None and len(spread):
        ranges = prose.listing(f"from {prose.num(lo)} to {prose.num(hi, unit='µs')}" for lo, hi in
                               zip(spread["min"], spread["max"]))
        if verdict.holds:
            out.append(f"The differences depend on the other setting ({ranges}): the settings interact, which the "
                       f"additive model cannot describe ({verdict.test}).")
        elif verdict.p_value is not None:
            out.append(f"The differences vary with the other setting ({ranges}) by no more than the replicates' "
                       f"scatter allows, so no interaction is shown ({verdict.test}).")
        elif untested:
            out.append(f"The differences vary with the other setting ({ranges}); with one run per configuration the "
                       "data cannot test whether the settings interact.")
        else:
            out.append(f"The differences vary with the other setting ({ranges}), but the data cannot test whether "
                       f"the settings interact: {verdict.test}.")
    return prose.paragraph(*out)


def _family_words(tests, which) -> str:
    """The parenthesis naming the t-tests behind some of a family's differences."""
    import math

    from mqperf.chapters._client_connection_costs_calc import p_range
    from mqperf.present import prose

    df = tests[which[0]][3]
    if all(math.isinf(tests[i][0]) or (tests[i][0] == 0 and tests[i][1] == 1.0) for i in which):
        return "two-sided t-test: the replicates agree exactly, so any difference is real"
    holm = (f" after Holm's correction for the {prose.count(sum(t is not None for t in tests), 'comparison')}"
            if len(tests) > 1 else "")
    return (f"two-sided t-test{'s' if len(which) > 1 else ''} against the replicates' scatter on {df} df: "
            f"{p_range([tests[i][1] for i in which])}{holm}")


def _p_shown(p: float) -> str:
    """A p-value as tables show it: "< 0.001" rather than a 0 the display rule makes of 1e-17."""
    from mqperf.models.evidence import _p

    return _p(p).removeprefix("p ").removeprefix("= ")


def _names(row) -> tuple[str, str]:
    """The two sides of a comparison as a sentence names them (a reader's listener as given)."""
    from mqperf.present import text

    if row["kind"] == "listener":
        return (f"the {text.markdown(row['subject'])} listener", f"the {text.markdown(row['base'])} listener")
    return row["subject"], row["base"]


def _at(row, lead: bool = False) -> str:
    from mqperf.present import text

    where = (f"at SHARECNV({row['level']})" if row["kind"] == "listener" else
             f"with the {text.markdown(row['level'])} listener")
    return where[0].upper() + where[1:] if lead else where


def _address_spaces(r, p, calc, basic):
    """The breakdown by address space and how it squares with the table (issue 9, §5.7)."""
    from mqperf.data import views
    from mqperf.present import charts, prose

    keys = ("spaces_check_text", "spaces_check", "spaces_about", "spaces", "spaces_text", "spaces_chart")
    frame = views.open(p["address_space"], CHAPTER, "address_space") if p.get("address_space") else None
    spaces = calc.spaces_wide(frame) if frame is not None else None
    if spaces is None or spaces.empty:
        for key in keys:
            r.items[key] = None
        r.missing("spaces_check", "no cost by address space was given (the book's breakdown: "
                                  "`-p address_space client_conn_address_space`), so there is no breakdown to check")
        return None
    check = calc.address_space_check(spaces, basic)
    r.table("spaces_check", check.rename(columns={
        "sharecnv": "SHARECNV", "listener": "listener", "table_us": "table (µs)",
        "address_spaces_us": "sum of address spaces (µs)", "not_in_those_spaces_us": "left over (µs)",
        "explained_pct": "explained (%)"}), digits=4, caption="The address-space sums against the table's cells",
        missing="the table has no cell with the listeners of the breakdown")
    inc = check[check["listener"] == "shared − local"]
    if len(inc):
        best = inc.loc[inc["not_in_those_spaces_us"].abs().idxmin()]
        local = check[(check["listener"] == "local") & (check["sharecnv"] == best["sharecnv"])]
        parts = [f"The sums match the SHARECNV({int(best['sharecnv'])}) column best: a shared-listener increase of "
                 f"{prose.num(best['address_spaces_us'], unit='µs')} against the table's "
                 f"{prose.num(best['table_us'])} ({prose.pct(best['explained_pct'])} explained)"]
        if len(local):
            parts.append(f", and {prose.num(local['address_spaces_us'].iloc[0])} of "
                         f"{prose.num(local['table_us'].iloc[0], unit='µs')} for the local listener")
        r.text("spaces_check_text", "".join(parts) + ". This is a consistency check, not a second measurement: the "
               "breakdown most likely comes from the same runs as the table, so agreement shows the table's "
               "arithmetic and which column the breakdown belongs to, not that the listener's extra cost was "
               "measured twice.")
    else:
        r.items["spaces_check_text"] = None
    r.about("spaces_about", (
        "The breakdown comes from the article's chart notes for a local and a shared listener, which do not say "
        "their SHARECNV. The article says \"90% is within the MQ channel initiator address space\" (460 of 510 µs is "
        "90.2 %), and prints no separate runs for the breakdown."))
    r.table("spaces", spaces.rename(columns={"address_space": "address space", "local_us": "local listener (µs)",
                                             "shared_us": "shared listener (µs)", "increase_us": "increase (µs)"}),
            digits=4, caption="CPU µs per connect + disconnect by address space")
    top = spaces.sort_values("increase_us", ascending=False)
    r.text("spaces_text", "With a shared listener, " + prose.listing(
        f"{row.address_space.replace('_', ' ')} goes from {prose.num(row.local_us)} to "
        f"{prose.num(row.shared_us, unit='µs')}" for row in top.itertuples()) + ".")
    long = spaces.melt(id_vars="address_space", value_vars=["local_us", "shared_us"], var_name="listener",
                       value_name="cpu_us")
    long["listener"] = long["listener"].str.replace("_us", " listener", regex=False)
    long["address_space"] = long["address_space"].str.replace("_", " ", regex=False)
    r.chart("spaces_chart", charts.bars(long, x="address_space", y="cpu_us", colour="listener",
                                        x_title="address space", y_title="CPU µs per connect + disconnect",
                                        title="Connection cost by address space and listener"))
    return spaces


def _options(r, calc, configs, pure) -> None:
    import numpy as np

    from mqperf.present import charts, prose

    inc = calc.increments(configs)
    cols = {"sharecnv": "SHARECNV", "listener": "listener", "basic_us": "basic (µs)",
            "tls_increment_us": "TLS adds (µs)", "tls_increment_pct": "TLS adds (%)",
            "suppress_x511_increment_us": "suppression adds (µs)", "suppress_x511_increment_pct": "suppression adds (%)"}
    has = [c for c in cols if c in inc and inc[c].notna().any()]
    any_option = any(c.endswith("_us") and c != "basic_us" for c in has)
    shown = inc[has].rename(columns=cols)
    parts = []
    for col, what in (("tls", "TLS"), ("suppress_x511", "Suppressing CSQX511I/CSQX512I")):
        us = inc.get(f"{col}_increment_us")
        if us is None or not us.notna().any():
            continue
        rows = inc[us.notna()]
        tests = calc.tested([calc.difference_test(d, *runs, *pure) for d, runs in
                             zip(rows[f"{col}_increment_us"], rows[f"{col}_runs"])], "configurations")
        if all(t is not None for t in tests):
            shown.loc[rows.index, f"{what.split(' ')[0]} p"] = [_p_shown(t[1]) for t in tests]
        parts.append(_option_sentence(what, rows[f"{col}_increment_us"].to_numpy(float),
                                      rows[f"{col}_increment_pct"].to_numpy(float), tests))
    if parts and pure[1] == 0:
        parts.append("Each configuration was run once, so these increments are not tested against run-to-run "
                     "scatter.")
    r.table("increments", shown if any_option else None, digits=4,
            caption="What TLS and message suppression add to each basic configuration"
                    + (" (p: two-sided t-test of the increment against the replicates' scatter, Holm-adjusted for "
                       "the configurations)" if pure[1] > 0 else ""),
            missing="your file has no TLS or suppression rows (`tls`, `suppress_x511` true) beside a basic row "
                    "of the same configuration, so there are no option increments")
    r.text("increments_text", prose.paragraph(*parts) if parts else None)
    r.about("increments_about", (
        "The article's worked example is 510 + 380 = 890 µs for TLS on a local SHARECNV(0) connection; with "
        "suppression as well it would be 760 µs *if* the two increments add, which was not measured. The TLS cost "
        "is mostly in the channel initiator, and the client's own cipher work limited how fast it could connect. "
        "The {doc}`TLS channel costs <tls_channel_costs>` chapter compares the TLS increment with what TLS costs on "
        "a running channel."))
    t = configs.copy()
    t["configuration"] = "SHARECNV(" + t["sharecnv"].astype(str) + ") " + t["listener"]
    t["option"] = np.select([t["tls"] & t["suppress_x511"], t["tls"], t["suppress_x511"]],
                            ["TLS and suppression", "with TLS", "X511/X512 suppressed"], "basic")
    bars = t.groupby(["configuration", "option"], sort=False, as_index=False)["cpu_us"].mean().head(60)
    r.chart("options_chart", charts.bars(bars, x="configuration", y="cpu_us", colour="option",
                                         x_title="configuration", y_title="CPU µs per connect + disconnect",
                                         title="Connection cost by configuration and option"))


def _span(values, unit: str | None = None) -> str:
    """"a to b" (or one value) of positive amounts, smallest first."""
    import numpy as np

    from mqperf.present import prose

    a, b = float(np.min(values)), float(np.max(values))
    fmt = (lambda v, u=None: prose.pct(v)) if unit == "%" else (lambda v, u=None: prose.num(v, unit=u))
    if np.isclose(a, b):
        return fmt(a, unit)
    return f"{fmt(a)} to {fmt(b, unit)}"


def _option_sentence(what: str, us, pct, tests) -> str:
    """What an option adds or saves, said in the direction its test supports (as measured without replicates)."""
    import numpy as np

    from mqperf.models.evidence import _p
    from mqperf.present import prose

    if any(t is None for t in tests):
        inner = what if what == "TLS" else what[0].lower() + what[1:]
        if (us >= 0).all() or (us <= 0).all():
            verb = "added" if (us >= 0).all() else "saved"
            return (f"As measured, {inner} {verb} {_span(np.abs(us), 'µs')} per connection "
                    f"({_span(np.abs(pct), '%')} of the basic cost).")
        return (f"As measured, {inner} changed the cost by {prose.num(us.min())} to "
                f"{prose.num(us.max(), unit='µs')} per connection, more in some configurations and less in others.")
    p = np.array([t[1] for t in tests])
    up, down = (p < 0.05) & (us > 0), (p < 0.05) & (us < 0)
    unclear = ~(up | down)
    from mqperf.chapters._client_connection_costs_calc import p_range

    holm = " after Holm's correction" if len(p) > 1 else ""
    test = f"(two-sided t-test{'s' if len(p) > 1 else ''} of each increment against the replicates' scatter: {p_range(p)}{holm})"
    n = len(us)
    if up.all() or down.all():
        verb = "adds" if up.all() else "saves"
        return (f"{what} {verb} {_span(np.abs(us), 'µs')} per connection ({_span(np.abs(pct), '%')} of the basic "
                f"cost) {test}.")
    if unclear.all():
        return (f"The data cannot tell whether {what} adds or saves anything: the measured increments, "
                f"{prose.num(us.min())} to {prose.num(us.max(), unit='µs')}, are within the replicates' scatter "
                f"{test}.")
    said = []
    if up.any():
        said.append(f"{what} adds {_span(us[up], 'µs')} in {prose.count(int(up.sum()), 'configuration')}")
    if down.any():
        said.append(("it" if said else what) + f" saves {_span(-us[down], 'µs')} in "
                    f"{prose.count(int(down.sum()), 'configuration')}")
    if unclear.any():
        said.append(f"in {'the other' if unclear.sum() < n else 'all'} {prose.count(int(unclear.sum()), 'configuration')} "
                    "the data cannot tell whether it adds or saves anything")
    return prose.listing(said, "and").replace(", in ", "; in ") + f" {test}."


def _refused(r, p, calc, basic):
    import pandas as pd

    from mqperf.data import views
    from mqperf.present import prose
    from mqperf.present.cards import card_name

    keys = ("blocked_text", "blocked_about", "blocked_fits", "blocked_fits_text")
    refused = views.open(p["blocked"], CHAPTER, "blocked") if p.get("blocked") else None
    if refused is None or refused.empty:
        for key in keys:
            r.items[key] = None
        r.missing("blocked", "no costs of refused connections were given (the book's: "
                             "`-p blocked client_conn_blocked`), so there is no refusal section")
        return pd.DataFrame(columns=["method", "sharecnv", "cpu_us", "basis"])
    base = calc.base_listener(basic["listener"]) if len(basic) else "local"
    table = calc.blocked_table(refused, basic, listener=base)
    r.table("blocked", table.rename(columns={
        "method": "refused by", "sharecnv": "SHARECNV", "refused_us": "refused (µs)",
        "successful_us": f"successful, {base} listener (µs)", "difference_us": "difference (µs)", "ratio": "ratio"}),
        digits=4, caption="Each refusal's cost against a successful connection at the same SHARECNV")
    parts = []
    # One figure for each refusal and each success: the differences are as measured, not tested.
    for method, g in table.dropna(subset=["difference_us"]).groupby("method", sort=False):
        parts.append(f"As measured, a {method} cost " + prose.listing(
            f"{prose.num(abs(row.difference_us), unit='µs')} {'more' if row.difference_us >= 0 else 'less'} than "
            f"letting the client in at SHARECNV({row.sharecnv})" for row in g.itertuples()) + ".")
    dearer = table[table["difference_us"] > 0]
    if len(dearer):
        parts.append("Where a refusal costs more than a successful connection, a client retrying into it costs more "
                     "CPU than letting it connect would.")
    r.text("blocked_text", prose.paragraph(*parts) if parts else
           "No refusal cost has a successful connection at the same SHARECNV in your file to compare with.")
    r.about("blocked_about", (
        "The article sums the CHLAUTH cost up as \"a 300-400 microsecond increase\", which fits SHARECNV(0) but "
        "undercounts SHARECNV(1) by more than half ({ref}`erratum E038 <errata-e038>`). An invalid protocol costs "
        "\"of the order of\" 1,100 µs and writes data about the invalid flow to CSQSNAP; its SHARECNV is not "
        "stated. None of the refusals used TLS.\n\n"
        "The MAXINST/MAXINSTC figures hold a surprise the article passes over: at SHARECNV(0) the refusal (440 µs) "
        "costs less than a successful connection (510 µs), as a connection that is turned away should, but at "
        "SHARECNV(1) it costs 850 µs, 260 µs *more* than letting the client in (590 µs). The book reads this as a "
        "measurement, not a misprint: the CHLAUTH refusal shows the same pattern (800 µs, then 1,500 µs), so both "
        "refusals nearly double from SHARECNV(0) to SHARECNV(1) while a successful connection grows by a sixth. "
        "The article does not say why. Both refusals write console messages (CSQX777E; CSQX599E and CSQX489E), and "
        "messages are not cheap (suppressing CSQX511I and CSQX512I saves 130 µs), but that does not explain the "
        "doubling; nor does the article say whether a refused client at SHARECNV(1) retried or flowed more before "
        "being turned away. A limit meant to protect the queue manager from too many instances can therefore cost "
        "more per attempt than the connections it refuses: a client that retries into MAXINST in a loop is a "
        "connection storm priced at the refusal's cost (the calculator below)."))
    fits = calc.fit_blocked(refused, data_name=views.describe(p["blocked"], CHAPTER).name)
    r.fit_results.update({f"refused, {k}": v for k, v in fits.items()})
    ft = calc.blocked_fit_table(fits) if fits else None
    r.table("blocked_fits", ft, digits=3, caption="Two models of the refusal cost against method and SHARECNV",
            missing="fewer than two refusal methods are measured at two SHARECNV values, so there is nothing to model")
    if ft is not None:
        best = ft.loc[ft["largest residual (%)"].idxmin()]
        worst = ft.loc[ft["largest residual (%)"].idxmax()]
        mult = ft[ft["model"].str.startswith("multiplicative")]
        r.text("blocked_fits_text", prose.paragraph(
            prose.identification({f"refused, {k}": v for k, v in fits.items()}),
            f"The {best['model']} model fits within {prose.pct(best['largest residual (%)'])}"
            + (f", the {worst['model']} one misses by up to {prose.pct(worst['largest residual (%)'])}"
               if worst["model"] != best["model"] else "") + ".",
            (f"Read multiplicatively, SHARECNV(1) multiplies a refusal's cost by "
             f"{prose.num(mult['SHARECNV(1) multiplies by'].iloc[0])}." if len(mult) else None)))
        for kind, res in fits.items():
            r.card(card_name(CHAPTER, f"refused {kind.split(' (')[0]}"),
                   res.to_card(name=f"{CHAPTER}: refused connection, {kind}", dataset=res.data_name), res)
    else:
        r.items["blocked_fits_text"] = None
    return refused


def _storm(r, p, calc, configs, refused) -> None:
    import pandas as pd

    from mqperf.present import charts, prose, whatif

    rate, util = float(p["storm_rate_per_s"]), float(p["max_utilisation"])
    table = calc.scenarios(configs, refused)
    storm = calc.storm(rate, table, max_utilisation=util)
    r.table("storm", storm.drop(columns="attempts_per_s").rename(columns={
        "scenario": "scenario", "cpu_us": "CPU per attempt (µs)", "cpu_s_per_hour": "CPU s per hour",
        "busy_engines": "busy engines", "engines_needed": "engines needed"}), digits=4,
        caption=f"{prose.num(rate)} attempts per second, no engine more than {prose.num(util * 100)} % busy")
    ok = storm[table["kind"] == "successful"]
    lo, hi = ok.loc[ok["cpu_us"].idxmin()], ok.loc[ok["cpu_us"].idxmax()]
    parts = [f"At {prose.num(rate)} connection attempts a second, the cheapest successful connection "
             f"({prose.quoted(lo['scenario'])}, {prose.num(lo['cpu_us'], unit='µs')}) keeps "
             f"{prose.num(lo['busy_engines'])} engines busy, {prose.num(lo['cpu_s_per_hour'])} CPU seconds an hour"]
    if hi["scenario"] != lo["scenario"]:
        parts.append(f"; the dearest ({prose.quoted(hi['scenario'])}, {prose.num(hi['cpu_us'], unit='µs')}) keeps "
                     f"{prose.num(hi['busy_engines'])} busy and needs {prose.count(int(hi['engines_needed']), 'engine')} "
                     f"at most {prose.num(util * 100)} % busy")
    bad = storm[table["kind"] == "refused"]
    if len(bad):
        worst = bad.loc[bad["cpu_us"].idxmax()]
        parts.append(f". A client retrying into the dearest refusal ({prose.quoted(worst['scenario'])}) keeps "
                     f"{prose.num(worst['busy_engines'])} engines busy at the same rate")
    r.text("storm_text", "".join(parts) + ".")
    shown = table[~table["scenario"].str.contains("suppressed|TLS|invalid protocol")]
    shown = shown if len(shown) else table
    curves = calc.storm_curves(shown, max_rate=max(2 * rate, 10))
    r.chart("storm_chart", charts.lines(curves, x="attempts_per_s", y="busy_engines", colour="scenario",
                                        x_title="connection attempts per second", y_title="engines kept busy",
                                        title="Engines kept busy by a connection storm", points=False))
    picks = [lo, hi] + ([bad.loc[bad["cpu_us"].idxmax()]] if len(bad) else [])
    picks = pd.DataFrame(picks).drop_duplicates("scenario")
    r.chart("storm_whatif", whatif.connection_storm(scenarios=picks, rate=rate, max_rate=max(4 * rate, 10),
                                                    max_utilisation=util, title="What if: your own storm rate"))
    r.text("storm_whatif_text", f"The control starts at {prose.num(rate)} attempts a second (the dashed rule), "
           f"for the cheapest and dearest successful connection and the dearest refusal; moving it recomputes the "
           f"busy engines, the CPU seconds an hour and the engines needed at most {prose.num(util * 100)} % busy in "
           "the page.")
    one = pd.DataFrame({"scenario": table["scenario"], "CPU per attempt (µs)": table["cpu_us"],
                        "attempts per second for one engine": [calc.rate_for_engines(1, c) for c in table["cpu_us"]]})
    r.table("one_engine", one, digits=4, caption="The attempt rate that keeps one engine busy: 1 / cost")
    lo1 = one.loc[ok["cpu_us"].idxmin()]
    hi1 = one.loc[ok["cpu_us"].idxmax()]
    r.text("one_engine_text", f"Turned round, one engine is kept busy by "
           f"{prose.num(lo1['attempts per second for one engine'])} attempts a second of the cheapest successful "
           f"connection" + (f" and {prose.num(hi1['attempts per second for one engine'])} of the dearest."
                            if hi1["scenario"] != lo1["scenario"] else "."))
