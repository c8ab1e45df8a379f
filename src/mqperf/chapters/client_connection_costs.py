"""Client connection costs: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Internal, Number

PARAMETERS = {
    "data": DataFile(help="CPU per connect and disconnect: a CSV with sharecnv, listener, cpu_us "
                          "[, tls, suppress_x511], or a book dataset", contract="client_connection_costs"),
    "blocked": DataFile(help='costs of refused connection attempts; "" for none',
                        contract="client_conn_blocked", files=False, optional=True),
    "address_space": DataFile(help='cost by address space, local against shared listener; "" for none',
                              contract="client_conn_address_space", files=False, optional=True),
    "storm_rate_per_s": Number(help="planning question: connection attempts per second in a storm",
                               unit="attempts/s", minimum=0, exclusive_minimum=True, maximum=1e7),
    "max_utilisation": Number(help="the highest share of an engine the planner accepts", minimum=0, maximum=1,
                              exclusive_minimum=True),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def preflight(p: dict):
    """Load, fit and plan as the notebook does."""
    from mqperf.analysis import connections as cc

    configs = cc.load_configurations(p["data"])
    cc.cost_table(configs)
    basic = cc.basic_rows(configs)
    fits = cc.fit_basic(basic)
    cc.models_table(fits)
    cc.parameter_table(fits)
    cc.fitted_table(fits, basic)
    cc.leave_one_cell_out(basic)
    spaces = cc.address_spaces(p["address_space"])
    cc.address_space_check(spaces, basic)
    if not spaces.empty:
        cc.address_space_chart_frame(spaces)
    cc.increments(configs)
    cc.option_chart_frame(configs)
    refused = cc.load_blocked(p["blocked"])
    if not refused.empty:
        cc.blocked_table(refused, basic)
    blocked_fits = cc.fit_blocked(refused)
    if blocked_fits:
        cc.blocked_fit_table(blocked_fits)
    table = cc.scenarios(configs, refused)
    cc.storm(p["storm_rate_per_s"], table, max_utilisation=p["max_utilisation"])
    shown = table[~table["scenario"].str.contains("suppressed|TLS|invalid protocol")]
    cc.storm_curves(shown, max_rate=max(2 * p["storm_rate_per_s"], 10))
    [cc.rate_for_engines(1, c) for c in table["cpu_us"]]
    return configs
