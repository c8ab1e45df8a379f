"""The book's client-connection datasets in the shape a reader's file has.

``client_conn_costs`` prints a BASIC cost per SHARECNV and listener and the *increments* TLS
and message suppression add; a reader's file gives totals. The view turns each increment
into a total (basis ``derived``: the BASIC cost plus the printed increment).
``client_conn_blocked`` and ``client_conn_address_space`` also hold statements that are not
costs per attempt (ranges, counts, shares); only the costs are rows of the views.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader

#: Increment components of the book's table: the option column each sets.
OPTIONS = {"tls_increment": "tls", "x511_x512_suppression_increment": "suppress_x511"}


def configurations(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """sharecnv, listener, tls, suppress_x511, cpu_us, basis: one row per configuration."""
    basic = frame[frame["component"] == "basic"]
    base = {(r.sharecnv, r.listener): r.cpu_us for r in basic.itertuples()}
    rows = [{"sharecnv": r.sharecnv, "listener": r.listener, "tls": False, "suppress_x511": False,
             "cpu_us": float(r.cpu_us), "basis": r.basis} for r in basic.itertuples()]
    for r in frame[frame["component"].isin(OPTIONS)].itertuples():
        row = {"sharecnv": r.sharecnv, "listener": r.listener, "tls": False, "suppress_x511": False,
               "cpu_us": float(base[(r.sharecnv, r.listener)] + r.cpu_us), "basis": "derived"}
        row[OPTIONS[r.component]] = True
        rows.append(row)
    return pd.DataFrame(rows).astype({"sharecnv": "int64"})


def blocked(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """method, sharecnv (missing where not stated), cpu_us, basis: the cost of one refused attempt."""
    rows = frame[(frame["metric"] == "cost_per_attempt") & frame["cpu_us"].notna()]
    return rows[["method", "sharecnv", "cpu_us", "basis"]].reset_index(drop=True)


def address_spaces(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """address_space, listener, cpu_us: the measured breakdown (its SHARECNV is not stated)."""
    rows = frame[frame["cpu_us"].notna() & (frame["basis"] == "measured")]
    return rows[["address_space", "listener", "cpu_us"]].reset_index(drop=True)


def api_cost_order() -> pd.DataFrame:
    """The article's three application patterns, cheapest first."""
    api = loader.load("client_conn_api_models")
    return api[api["relation"] == "cost_order"].sort_values("cost_rank")[["model", "pattern", "cost_rank"]]


VIEWS = {"data": configurations, "blocked": blocked, "address_space": address_spaces}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ('client_conn_api_models', 'test_environments')
