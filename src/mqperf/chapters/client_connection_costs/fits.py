"""The chapter's fits: configurations, regressions, comparisons and their tests (no wording).

The data are CPU microseconds per MQCONNX + MQDISC by configuration. The regressions use
:mod:`mqperf.models.costs` (statsmodels' formulas and OLS, treatment coding):

* additive, ``cpu_us ~ C(sharecnv) + C(listener)``: each setting adds a fixed cost;
* interaction, ``cpu_us ~ C(sharecnv) * C(listener)``: the shared listener's extra cost may
  depend on SHARECNV. With one measurement per cell it has as many parameters as cells and
  is exactly identified.

Several rows of one configuration are runs of it (the contract: one row per configuration and
run). The regressions go through their means, one observation per configuration; the rows
themselves are the replicates every claim of a difference or an interaction is tested against
(:func:`pure_error`, :func:`interaction_test`, :func:`mqperf.models.evidence.difference`,
:func:`mqperf.models.evidence.holm_family`):
without replicates, a difference is said as measured and no interaction is claimed.
The connection-storm calculator is :mod:`.whatif`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.client_connection_costs import METHOD_NAMES
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import costs, evidence

FACTORS = ("sharecnv", "listener")


def normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """A contract-shaped frame with its optional columns filled: every row (run) kept.

    Listener names are kept as given (only surrounding blanks dropped): a reader's "Local"
    is printed as "Local".
    """
    frame = frame.copy()
    for col in ("tls", "suppress_x511"):
        frame[col] = frame[col].fillna(False).astype(bool) if col in frame else False
    frame["basis"] = frame["basis"].fillna("measured").astype(str) if "basis" in frame else "measured"
    frame["listener"] = frame["listener"].astype(str).str.strip()
    frame["sharecnv"] = frame["sharecnv"].astype("int64")
    frame["cpu_us"] = frame["cpu_us"].astype(float)
    return frame


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """A contract-shaped frame as one row per configuration (means of repeated rows)."""
    frame = normalise(frame)
    out = configurations(frame).astype({"sharecnv": "int64"})
    out["cpu_us"] = out["cpu_us"].astype(float)
    spread = [c for c in (aggregate.COUNT, aggregate.sd_column("cpu_us")) if c in out]
    return out[["sharecnv", "listener", "tls", "suppress_x511", "cpu_us", *spread, "basis"]].reset_index(drop=True)


def _clean(values, scale: float = 1.0):
    """Zero out floating-point dust (|v| < 1e-9·scale) so exact fits print 0, not 1e-13."""
    arr = np.asarray(values, dtype=float)
    return np.where(np.abs(arr) < 1e-9 * max(scale, 1.0), 0.0, arr)


# -- successful connections --------------------------------------------------------------------

def configurations(configs: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: the mean cost, with ``n`` and ``cpu_us_sd`` where rows repeat."""
    return aggregate.means(configs, ["sharecnv", "listener", "tls", "suppress_x511", "basis"], ["cpu_us"]).reset_index(drop=True)


def basic_rows(configs: pd.DataFrame) -> pd.DataFrame:
    """Configurations without TLS and without message suppression."""
    return configs[~configs["tls"] & ~configs["suppress_x511"]].reset_index(drop=True)


def cost_table(configs: pd.DataFrame) -> pd.DataFrame:
    """The cost table as seed 003 prints it: options down, SHARECNV × listener across."""
    t = configs.copy()
    t["option"] = np.select([t["tls"] & t["suppress_x511"], t["tls"], t["suppress_x511"]],
                            ["TLS, X511/X512 suppressed", "with TLS", "X511/X512 suppressed"], "basic")
    t["configuration"] = "SHARECNV(" + t["sharecnv"].astype(str) + ") " + t["listener"]
    wide = t.pivot_table(index="option", columns="configuration", values="cpu_us", aggfunc="mean", sort=False)
    return wide.reset_index().rename_axis(columns=None)


def varying_factors(basic: pd.DataFrame) -> list[str]:
    """Factors with at least two levels in the data (a factor with one level has no effect to fit)."""
    return [f for f in FACTORS if basic[f].nunique() > 1]


def fit_basic(basic: pd.DataFrame, *, data_name: str | None = None, data_hash: str | None = None) -> dict:
    """Additive and interaction regressions of the basic cost; value None plus a reason where not identified."""
    factors = varying_factors(basic)
    if not factors:
        raise ModelError("the basic costs vary neither SHARECNV nor the listener: there is no effect to fit")
    fits: dict = {}
    for kind, formula in (("additive", costs.additive_formula("cpu_us", factors)),
                          ("interaction", costs.interaction_formula("cpu_us", factors))):
        if kind == "interaction" and len(factors) < 2:
            fits[kind] = (None, "one factor varies: the interaction model is the additive one")
            continue
        try:
            fits[kind] = (costs.fit(basic, formula, data_name=data_name, data_hash=data_hash), "")
        except ModelError as exc:
            fits[kind] = (None, str(exc))
    return fits



def humane(term: str) -> str:
    """A treatment-coded term as a reader says it: ``C(listener)[T.shared]`` is ``listener shared``."""
    if term == "Intercept":
        return "base configuration"
    parts = []
    for piece in term.split(":"):
        name, _, level = piece.partition(")[T.")
        name = name.removeprefix("C(")
        level = level.rstrip("]")
        parts.append(f"SHARECNV({level})" if name == "sharecnv" else f"{name} {level}")
    return " × ".join(parts)


def models_table(fits: dict) -> pd.DataFrame:
    """One row per regression: parameters, residual df, largest residual, what the fit can claim."""
    rows = []
    for kind, (res, reason) in fits.items():
        if res is None:
            rows.append({"model": kind, "formula": "–", "cells": np.nan, "parameters": np.nan,
                         "residual df": np.nan, "largest residual (µs)": np.nan, "identification": reason})
            continue
        rows.append({"model": kind, "formula": res.formula, "cells": res.nobs, "parameters": res.df_model,
                     "residual df": res.df_resid,
                     "largest residual (µs)": float(np.max(np.abs(_clean(res.resid, np.max(res.y))))),
                     "identification": res.identification})
    return pd.DataFrame(rows)


def parameter_table(fits: dict) -> pd.DataFrame:
    rows = []
    for kind, (res, _) in fits.items():
        if res is None:
            continue
        ci = res.conf_int()
        for term in res.params.index:
            rows.append({"model": kind, "term": humane(term), "estimate (µs)": float(_clean([res.params[term]])[0]),
                         "std err (µs)": float(res.bse[term]), "lower 95 % (µs)": float(ci.loc[term, "lower"]),
                         "upper 95 % (µs)": float(ci.loc[term, "upper"])})
    return pd.DataFrame(rows)


def fitted_table(fits: dict, basic: pd.DataFrame) -> pd.DataFrame:
    """Measured cost of each cell (its mean, with n and sd where rows repeat) beside each model's fitted value and residual."""
    basic = configurations(basic)
    spread = [c for c in (aggregate.COUNT, aggregate.sd_column("cpu_us")) if c in basic]
    out = basic[list(FACTORS) + ["cpu_us", *spread]].rename(columns={"cpu_us": "measured_us"}).copy()
    for kind, (res, _) in fits.items():
        if res is not None:
            fitted = res.predict(basic[list(FACTORS)])
            out[f"{kind}_us"] = [v for v in fitted]
            resid = _clean(out["measured_us"].to_numpy() - fitted, float(out["measured_us"].max()))
            out[f"{kind}_resid_us"] = [v for v in resid]
    return out


def leave_one_cell_out(basic: pd.DataFrame) -> pd.DataFrame:
    """Fit the additive model without each cell and predict it (the interaction needs every cell).

    A cell is one SHARECNV and listener: all its rows are held out together, and the
    prediction is compared with their mean.
    """
    factors = varying_factors(basic)
    rows = []
    cell = basic.groupby(list(FACTORS), sort=False).ngroup()
    for i in range(int(cell.max()) + 1 if len(cell) else 0):
        rest, held = basic[cell != i], basic[cell == i]
        # A level seen only in the held-out cell has no coefficient in the other cells' fit.
        unseen = [f"{f} {held[f].iloc[0]}" for f in factors if held[f].iloc[0] not in set(rest[f])]
        try:
            if unseen:
                raise ModelError(f"no other cell has {' or '.join(unseen)}: nothing to predict it from")
            res = costs.fit(rest, costs.additive_formula("cpu_us", factors))
            pred, note = float(res.predict(held[list(FACTORS)].head(1))[0]), ""
        except ModelError as exc:
            pred, note = np.nan, str(exc)
        measured = float(held["cpu_us"].mean())
        rows.append({"sharecnv": int(held["sharecnv"].iloc[0]), "listener": held["listener"].iloc[0],
                     "measured_us": measured, "predicted_us": pred,
                     "error_pct": (pred - measured) / measured * 100, "note": note})
    return pd.DataFrame(rows)


def increments(configs: pd.DataFrame) -> pd.DataFrame:
    """What TLS and message suppression add to each basic configuration, in µs and percent.

    ``<option>_runs`` holds the runs behind the basic and the option cell (for the t-test of
    each increment against the replicates' scatter).
    """
    counts = configs[aggregate.COUNT] if aggregate.COUNT in configs else pd.Series(1, index=configs.index)
    configs = configs.assign(_runs=counts.fillna(1).astype(int))
    plain = basic_rows(configs)
    basic = plain.groupby(["sharecnv", "listener"], sort=False)["cpu_us"].mean()
    basic_runs = plain.groupby(["sharecnv", "listener"], sort=False)["_runs"].sum()
    rows = []
    for (sharecnv, listener), base in basic.items():
        row = {"sharecnv": int(sharecnv), "listener": listener, "basic_us": base}
        for col, name in (("tls", "tls"), ("suppress_x511", "suppress_x511")):
            other = col == "tls" and "suppress_x511" or "tls"
            match = configs[(configs["sharecnv"] == sharecnv) & (configs["listener"] == listener) & configs[col] & ~configs[other]]
            inc = float(match["cpu_us"].mean() - base) if len(match) else np.nan
            row[f"{name}_increment_us"] = inc
            row[f"{name}_increment_pct"] = inc / base * 100
            row[f"{name}_runs"] = (int(basic_runs[(sharecnv, listener)]), int(match["_runs"].sum()) if len(match) else 0)
        rows.append(row)
    return pd.DataFrame(rows)


def address_space_check(spaces: pd.DataFrame, basic: pd.DataFrame) -> pd.DataFrame:
    """Sum of the address-space costs against the table's basic cost at each SHARECNV.

    ``spaces`` is wide: address_space, local_us, shared_us, increase_us. The breakdown does
    not say its SHARECNV; the totals tell which table column it matches, and what is left
    for TCP/IP and others. It is most likely the same runs broken down by address space, so
    agreement is a consistency check of the table, not a second measurement.
    """
    if spaces.empty:
        return pd.DataFrame()
    total = {"local": spaces["local_us"].sum(), "shared": spaces["shared_us"].sum()}
    rows = []
    for r in configurations(basic).itertuples():
        if r.listener in total:
            rows.append({"sharecnv": r.sharecnv, "listener": r.listener, "table_us": r.cpu_us,
                         "address_spaces_us": total[r.listener],
                         "not_in_those_spaces_us": r.cpu_us - total[r.listener],
                         "explained_pct": total[r.listener] / r.cpu_us * 100})
    inc = spaces["increase_us"].sum()
    wide = basic.pivot_table(index="sharecnv", columns="listener", values="cpu_us", aggfunc="mean")
    for sharecnv, r in wide.iterrows():
        if {"local", "shared"} <= set(r.index):
            table_inc = r["shared"] - r["local"]
            rows.append({"sharecnv": int(sharecnv), "listener": "shared − local", "table_us": table_inc,
                         "address_spaces_us": inc, "not_in_those_spaces_us": table_inc - inc,
                         "explained_pct": inc / table_inc * 100})
    return pd.DataFrame(rows)


def blocked_table(blocked: pd.DataFrame, basic: pd.DataFrame, listener: str = "local") -> pd.DataFrame:
    """Each refusal's cost against a successful connection at the same SHARECNV (local listener)."""
    # Replicated configurations (a reader's repeated rows) compare at their mean cost.
    ok = basic[basic["listener"] == listener].groupby("sharecnv")["cpu_us"].mean()
    rows = []
    for r in blocked.itertuples():
        sharecnv = None if pd.isna(r.sharecnv) else int(r.sharecnv)
        success = ok.get(sharecnv, np.nan) if sharecnv is not None else np.nan
        rows.append({"method": METHOD_NAMES.get(r.method, r.method),
                     "sharecnv": "not stated" if sharecnv is None else str(sharecnv),
                     "refused_us": r.cpu_us, "successful_us": success,
                     "difference_us": r.cpu_us - success if np.isfinite(success) else np.nan,
                     "ratio": r.cpu_us / success if np.isfinite(success) else np.nan})
    return pd.DataFrame(rows)


def fit_blocked(blocked: pd.DataFrame, *, data_name: str | None = None, data_hash: str | None = None) -> dict:
    """Refusal cost against method and SHARECNV: additive (µs) and multiplicative (log) models.

    Only methods measured at two or more SHARECNV values enter. Returns {} when fewer than
    two such methods exist (nothing to compare).
    """
    rows = blocked[blocked["sharecnv"].notna()].copy()
    keep = rows.groupby("method")["sharecnv"].nunique()
    rows = rows[rows["method"].isin(keep[keep >= 2].index)]
    if rows["method"].nunique() < 2:
        return {}
    rows["sharecnv"] = rows["sharecnv"].astype(int)
    rows["ln_cpu_us"] = np.log(rows["cpu_us"].astype(float))
    out = {}
    for kind, response in (("additive (µs)", "cpu_us"), ("multiplicative (log µs)", "ln_cpu_us")):
        out[kind] = costs.fit(rows, costs.additive_formula(response, ["method", "sharecnv"]), data_name=data_name, data_hash=data_hash)
    return out


def blocked_fit_table(fits: dict) -> pd.DataFrame:
    """Residuals of the two refusal models in percent of the measured cost, and the SHARECNV effect."""
    rows = []
    for kind, res in fits.items():
        y = res.y
        fitted = res.fittedvalues
        if kind.startswith("multiplicative"):
            resid_pct = (np.exp(y) / np.exp(fitted) - 1) * 100
            effect = {"SHARECNV(1) multiplies by": math.exp(res.params["C(sharecnv)[T.1]"])}
        else:
            resid_pct = (y - fitted) / fitted * 100
            effect = {"SHARECNV(1) adds (µs)": float(res.params["C(sharecnv)[T.1]"])}
        rows.append({"model": kind, "cells": res.nobs, "residual df": res.df_resid, **effect,
                     "largest residual (%)": float(np.max(np.abs(resid_pct)))})
    return pd.DataFrame(rows)


def spaces_wide(frame: pd.DataFrame) -> pd.DataFrame:
    """address_space, local_us, shared_us, increase_us from the long breakdown."""
    wide = frame.pivot_table(index="address_space", columns="listener", values="cpu_us", aggfunc="first", sort=False)
    wide = wide.rename(columns={"local": "local_us", "shared": "shared_us"}).reset_index().rename_axis(columns=None)
    if not {"local_us", "shared_us"} <= set(wide):
        return pd.DataFrame(columns=["address_space", "local_us", "shared_us", "increase_us"])
    wide["increase_us"] = wide["shared_us"] - wide["local_us"]
    return wide


def base_listener(levels) -> str:
    """The listener others are compared with: one named "local" (in any case) when there is one,
    else the first by name."""
    levels = sorted(set(levels))
    return next((lvl for lvl in levels if lvl.lower() == "local"), levels[0])


def differences(basic: pd.DataFrame) -> pd.DataFrame:
    """Each setting against its base, at each level of the other: the table's comparisons.

    Rows: another listener against the base listener at each SHARECNV, and each SHARECNV
    against the smallest at each listener, where both cells are measured.
    """
    cells = basic.groupby(["sharecnv", "listener"])["cpu_us"].mean()
    runs = (basic.groupby(["sharecnv", "listener"])[aggregate.COUNT].sum() if aggregate.COUNT in basic
            else basic.groupby(["sharecnv", "listener"]).size())
    rows = []
    listeners = sorted(set(basic["listener"]))
    base_l = base_listener(listeners)
    for s in sorted(set(basic["sharecnv"])):
        for lst in listeners:
            if lst != base_l and (s, lst) in cells and (s, base_l) in cells:
                a, b = cells[(s, base_l)], cells[(s, lst)]
                rows.append({"comparison": f"{lst} listener against {base_l}", "at": f"SHARECNV({s})",
                             "from (µs)": a, "to (µs)": b, "difference (µs)": b - a, "ratio": b / a,
                             "runs": (int(runs[(s, base_l)]), int(runs[(s, lst)])), "subject": lst, "base": base_l,
                             "kind": "listener", "level": s})
    shares = sorted(set(basic["sharecnv"]))
    for lst in listeners:
        for s in shares[1:]:
            if (s, lst) in cells and (shares[0], lst) in cells:
                a, b = cells[(shares[0], lst)], cells[(s, lst)]
                rows.append({"comparison": f"SHARECNV({s}) against SHARECNV({shares[0]})", "at": f"{lst} listener",
                             "from (µs)": a, "to (µs)": b, "difference (µs)": b - a, "ratio": b / a,
                             "runs": (int(runs[(shares[0], lst)]), int(runs[(s, lst)])), "subject": f"SHARECNV({s})",
                             "base": f"SHARECNV({shares[0]})", "kind": "sharecnv", "level": lst})
    return pd.DataFrame(rows)


#: Columns of :func:`differences` that carry what the sentences need, not what the table shows.
DIFFERENCE_INTERNALS = ["runs", "subject", "base", "kind", "level"]


# -- tests against the replicates -----------------------------------------------------------------

CELL = ["sharecnv", "listener", "tls", "suppress_x511"]


def pure_error(rows: pd.DataFrame) -> tuple[float, int]:
    """Replicates about their configuration's mean: (sum of squares, degrees of freedom).

    ``rows`` are runs (one row each); the degrees of freedom are rows minus configurations,
    0 when every configuration was run once.
    """
    if rows.empty:
        return 0.0, 0
    dev = rows["cpu_us"] - rows.groupby(CELL, sort=False)["cpu_us"].transform("mean")
    cells = rows.groupby(CELL, sort=False).ngroups
    return float((dev**2).sum()), int(len(rows) - cells)


def interaction_test(basic_rows: pd.DataFrame):
    """F-test of the additive model's lack of fit against the replicates (two varying settings).

    The additive model is fitted to every run of the basic configurations; its residual sum of
    squares less the pure error is what an interaction would explain
    (:func:`mqperf.models.evidence.interaction`). None when fewer than two settings vary.
    """
    factors = varying_factors(basic_rows)
    if len(factors) < 2:
        return None
    ss_pure, df_pure = pure_error(basic_rows)
    try:
        add = costs.fit(basic_rows, costs.additive_formula("cpu_us", factors))
    except ModelError:
        return None
    return evidence.interaction(float(np.sum(np.asarray(add.resid, dtype=float) ** 2)), int(add.df_resid),
                                ss_pure, df_pure)
