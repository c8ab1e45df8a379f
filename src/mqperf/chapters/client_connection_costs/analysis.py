"""``analyse(p)``: load, fit and plan, and add every sentence, table and chart the notebook shows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf import numbers
from mqperf.chapters.client_connection_costs import CHAPTER, fits as calc, text, whatif
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.models import evidence
from mqperf.present import charts, prose
from mqperf.present import whatif as page_whatif
from mqperf.present.cards import card_name
from mqperf.present.results import Results


def analyse(p: dict):
    """Load, fit and plan: every sentence, table and chart the notebook shows.

    Returns
    -------
    mqperf.present.results.Results
        Items in display order; ``fit_results`` maps every fit's name to its FitResult.
    """
    source = views.describe(p["data"], CHAPTER)
    r = Results(book_data=source.book_data, source=source.name)
    r.answers = "CPU seconds an hour and engines kept busy at the storm rate, priced at each measured cost per attempt"
    r.fit_results = {}
    runs = calc.normalise(views.open(p["data"], CHAPTER))
    configs = calc.prepare(runs)
    r.points = configs
    env = views.system("client_conn")
    r.about("system", text.system(dict(zip(env["attribute"], env["value"]))))
    r.items["note"] = aggregate.AggregationNote(aggregate.note(configs, per="configuration", value="cpu_us")) or None
    table = calc.cost_table(configs)
    r.table("costs", table.rename(columns={c: f"{c} (µs)" for c in table.columns if c != "option"}),
            caption="CPU µs per MQCONNX + MQDISC, by option (rows) and configuration (columns)")
    r.about("costs_about", text.COSTS)
    from mqperf.data.views.client_connection_costs import api_cost_order

    r.about("api_about", text.api_order(api_cost_order()))
    basic = calc.basic_rows(configs)
    pure = calc.pure_error(runs)
    _regressions(r, basic, source, runs, pure)
    _address_spaces(r, p, basic)
    _options(r, configs, pure)
    refused = _refused(r, p, basic)
    _storm(r, p, configs, refused)
    r.about("errata", text.ERRATA, title=False)
    return r


def _regressions(r, basic, source, runs, pure) -> None:
    diffs = calc.differences(basic)
    tests = evidence.holm_family([evidence.difference(row["difference (µs)"], *row["runs"], *pure)
                                  for _, row in diffs.iterrows()], "comparisons")
    shown = diffs.drop(columns=calc.DIFFERENCE_INTERNALS, errors="ignore")
    if len(diffs) and pure[1] > 0:
        shown["runs (from, to)"] = [f"{a:,}, {b:,}" for a, b in diffs["runs"]]
        shown["t"] = [t[0] for t in tests]
        shown["p (Holm-adjusted)" if len(tests) > 1 else "p"] = [text.p_shown(t[1]) for t in tests]
    r.table("differences", shown, caption="Each setting against its base, from the BASIC cells"
            + (": each difference tested against the replicates' scatter (two-sided t-test, p Holm-adjusted for the "
               "comparisons made)" if pure[1] > 0 else
               ": one run per configuration, so no difference is tested"),
            missing="your file measures one SHARECNV and one listener only, so there is nothing to compare")
    verdict = calc.interaction_test(runs[~runs["tls"] & ~runs["suppress_x511"]])
    r.text("differences_text", text.difference_sentences(diffs, tests, verdict))
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
    r.table("models", calc.models_table(fits), caption="Regressions of the BASIC cost")
    r.table("parameters", calc.parameter_table(fits),
            caption="Parameters (treatment coding: the smallest SHARECNV and the base listener are the base)")
    fitted = calc.fitted_table(fits, basic)
    names = {"sharecnv": "SHARECNV", "listener": "listener", "measured_us": "measured (µs)", "n": "n",
             "cpu_us_sd": "sd (µs)"}
    for kind in results:
        names[f"{kind}_us"] = f"{kind} (µs)"
        names[f"{kind}_resid_us"] = f"{kind} residual (µs)"
    # Five digits, not the unit's four: a fitted 1,142.5 µs beside its residual of -42.5 µs must add up.
    r.table("fitted", fitted.rename(columns=names), digits=5, caption="Each cell: measured against each model")
    add = results.get("additive")
    if add is not None and add.df_resid > 0:
        r.text("fitted_text", text.fitted(calc.models_table(fits).set_index("model").loc["additive",
                                                                                         "largest residual (µs)"]))
    else:
        r.items["fitted_text"] = None
    loo = calc.leave_one_cell_out(basic)
    ok = loo.dropna(subset=["predicted_us"]) if len(loo) else loo
    r.table("loo", loo.rename(columns={"sharecnv": "SHARECNV", "listener": "listener", "measured_us": "measured (µs)",
                                       "predicted_us": "predicted (µs)", "error_pct": "error (%)", "note": "note"})
            if len(ok) else None, caption="The additive model fitted without each cell, predicting it",
            missing="no cell can be predicted from the others (each holds a level no other cell has)")
    r.text("loo_text", text.loo(ok))
    for kind, res in results.items():
        r.card(card_name(CHAPTER, f"basic {kind}"),
               res.to_card(name=f"{CHAPTER}: basic cost, {kind}", dataset=source.name), res)


def _address_spaces(r, p, basic):
    """The breakdown by address space and how it squares with the table (issue 9, §5.7)."""
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
        "explained_pct": "explained (%)"}), caption="The address-space sums against the table's cells",
        missing="the table has no cell with the listeners of the breakdown")
    said = text.spaces_check(check)
    if said:
        r.text("spaces_check_text", said)
    else:
        r.items["spaces_check_text"] = None
    r.about("spaces_about", text.SPACES)
    r.table("spaces", spaces.rename(columns={"address_space": "address space", "local_us": "local listener (µs)",
                                             "shared_us": "shared listener (µs)", "increase_us": "increase (µs)"}),
            caption="CPU µs per connect + disconnect by address space")
    r.text("spaces_text", text.spaces(spaces))
    long = spaces.melt(id_vars="address_space", value_vars=["local_us", "shared_us"], var_name="listener",
                       value_name="cpu_us")
    long["listener"] = long["listener"].str.replace("_us", " listener", regex=False)
    long["address_space"] = long["address_space"].str.replace("_", " ", regex=False)
    r.chart("spaces_chart", charts.bars(long, x="address_space", y="cpu_us", colour="listener",
                                        x_title="address space", y_title="CPU µs per connect + disconnect",
                                        title="Connection cost by address space and listener"))
    return spaces


def _options(r, configs, pure) -> None:
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
        tests = evidence.holm_family([evidence.difference(d, *runs, *pure) for d, runs in
                                      zip(rows[f"{col}_increment_us"], rows[f"{col}_runs"])], "configurations")
        if all(t is not None for t in tests):
            shown.loc[rows.index, f"{what.split(' ')[0]} p"] = [text.p_shown(t[1]) for t in tests]
        parts.append(text.option_sentence(what, rows[f"{col}_increment_us"].to_numpy(float),
                                          rows[f"{col}_increment_pct"].to_numpy(float), tests))
    if parts and pure[1] == 0:
        parts.append("Each configuration was run once, so these increments are not tested against run-to-run "
                     "scatter.")
    r.table("increments", shown if any_option else None,
            caption="What TLS and message suppression add to each basic configuration"
                    + (" (p: two-sided t-test of the increment against the replicates' scatter, Holm-adjusted for "
                       "the configurations)" if pure[1] > 0 else ""),
            missing="your file has no TLS or suppression rows (`tls`, `suppress_x511` true) beside a basic row "
                    "of the same configuration, so there are no option increments")
    r.text("increments_text", prose.paragraph(*parts) if parts else None)
    r.about("increments_about", text.INCREMENTS)
    t = configs.copy()
    t["configuration"] = "SHARECNV(" + t["sharecnv"].astype(str) + ") " + t["listener"]
    t["option"] = np.select([t["tls"] & t["suppress_x511"], t["tls"], t["suppress_x511"]],
                            ["TLS and suppression", "with TLS", "X511/X512 suppressed"], "basic")
    bars = t.groupby(["configuration", "option"], sort=False, as_index=False)["cpu_us"].mean().head(60)
    r.chart("options_chart", charts.bars(bars, x="configuration", y="cpu_us", colour="option",
                                         x_title="configuration", y_title="CPU µs per connect + disconnect",
                                         title="Connection cost by configuration and option"))


def _refused(r, p, basic):
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
        caption="Each refusal's cost against a successful connection at the same SHARECNV")
    r.text("blocked_text", text.blocked(table))
    r.about("blocked_about", text.BLOCKED)
    fits = calc.fit_blocked(refused, data_name=views.describe(p["blocked"], CHAPTER).name)
    r.fit_results.update({f"refused, {k}": v for k, v in fits.items()})
    ft = calc.blocked_fit_table(fits) if fits else None
    r.table("blocked_fits", ft, caption="Two models of the refusal cost against method and SHARECNV",
            missing="fewer than two refusal methods are measured at two SHARECNV values, so there is nothing to model")
    if ft is not None:
        r.text("blocked_fits_text", text.blocked_fits(ft, {f"refused, {k}": v for k, v in fits.items()}))
        for kind, res in fits.items():
            r.card(card_name(CHAPTER, f"refused {kind.split(' (')[0]}"),
                   res.to_card(name=f"{CHAPTER}: refused connection, {kind}", dataset=res.data_name), res)
    else:
        r.items["blocked_fits_text"] = None
    return refused


def _storm(r, p, configs, refused) -> None:
    rate, util = float(p["storm_rate_per_s"]), float(p["max_utilisation"])
    table = whatif.scenarios(configs, refused)
    storm = whatif.storm(rate, table, max_utilisation=util)
    r.table("storm", storm.drop(columns="attempts_per_s").rename(columns={
        "scenario": "scenario", "cpu_us": "CPU per attempt (µs)", "cpu_s_per_hour": "CPU s per hour",
        "busy_engines": "busy engines", "engines_needed": "engines needed"}),
        caption=text.storm_caption(rate, util))
    ok = storm[table["kind"] == "successful"]
    lo, hi = ok.loc[numbers.idxmin(ok["cpu_us"])], ok.loc[numbers.idxmax(ok["cpu_us"])]
    bad = storm[table["kind"] == "refused"]
    r.text("storm_text", text.storm(rate, util, lo, hi, bad))
    shown = table[~table["scenario"].str.contains("suppressed|TLS|invalid protocol")]
    shown = shown if len(shown) else table
    curves = whatif.storm_curves(shown, max_rate=max(2 * rate, 10))
    r.chart("storm_chart", charts.lines(curves, x="attempts_per_s", y="busy_engines", colour="scenario",
                                        x_title="connection attempts per second", y_title="engines kept busy",
                                        title="Engines kept busy by a connection storm", points=False))
    picks = [lo, hi] + ([bad.loc[numbers.idxmax(bad["cpu_us"])]] if len(bad) else [])
    picks = pd.DataFrame(picks).drop_duplicates("scenario")
    r.chart("storm_whatif", page_whatif.connection_storm(scenarios=picks, rate=rate, max_rate=max(4 * rate, 10),
                                                         max_utilisation=util, title="What if: your own storm rate"))
    r.text("storm_whatif_text", text.storm_whatif(rate, util))
    one = pd.DataFrame({"scenario": table["scenario"], "CPU per attempt (µs)": table["cpu_us"],
                        "attempts per second for one engine": [whatif.rate_for_engines(1, c) for c in table["cpu_us"]]})
    r.table("one_engine", one, caption="The attempt rate that keeps one engine busy: 1 / cost")
    r.text("one_engine_text",
           text.one_engine(one.loc[numbers.idxmin(ok["cpu_us"])], one.loc[numbers.idxmax(ok["cpu_us"])]))
