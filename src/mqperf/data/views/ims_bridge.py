"""The book's IMS bridge datasets in the shape of the ims_bridge chapter's inputs.

* ``data``: ``ims_bridge_rates`` holds transaction rates per IMS version, tuning state and CPU
  configuration, a "parity with IMS V12" statement, and the CF busy share at the peak. The
  view gives one row per run: ``series`` (version and tuning), ``cpus`` (LPAR 1's CPs, the
  only LPAR varied), ``cpu_config``, ``rate_tps`` and ``basis``. The parity statement becomes
  a ``derived`` point at IMS V12's rate; the CF's busy share and its processors (from
  ``test_environments``) go on the run they were measured in.
* ``tuning``: ``ims_bridge_tuning`` as one row per setting, before and after.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader


def rates(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    runs = frame[frame["metric"] == "transaction_rate"]
    v12 = runs[(runs["ims_version"] == 12) & (runs["tuning"] == "initial")]["tps"]
    busy = frame[frame["metric"] == "cf_busy"]
    env = loader.load("test_environments")
    rows = []
    for r in runs.itertuples():
        tps, basis = r.tps, r.basis
        if r.basis == "constraint" and r.relation == "equal_to_ims_v12_initial":
            tps, basis = float(v12.iloc[0]), "derived"
        row = {"series": f"IMS V{r.ims_version} {r.tuning}", "cpus": int(r.lpar1_cps), "cpu_config": r.cpu_config,
               "rate_tps": float(tps), "basis": basis, "cf_busy_pct": float("nan"), "cf_processors": pd.NA}
        cf = busy[(busy["cpu_config"] == r.cpu_config) & (busy["ims_version"] == r.ims_version)
                  & (busy["tuning"] == r.tuning)]
        if len(cf) and basis == "measured":
            procs = env[(env["env_id"] == cf["env_id"].iloc[0]) & (env["attribute"] == "processors")]["value_num"]
            row.update(cf_busy_pct=float(cf["pct"].iloc[0]), cf_processors=int(procs.iloc[0]))
        rows.append(row)
    out = pd.DataFrame(rows)
    out["cf_processors"] = out["cf_processors"].astype("Int64")
    return out


def _text(value) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def _setting(row) -> str:
    value = f"{row['value_num']:g}" if pd.notna(row["value_num"]) else _text(row["setting_text"])
    unit = _text(row["unit"])
    return f"{value}{unit}" if unit == "%" else f"{value} {unit}".strip()


def tuning(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (step, change, parameter), group in frame.groupby(["step", "change", "parameter"], sort=False):
        def pick(state, version=None):
            sub = group[group["state"] == state]
            if version is not None:
                sub = sub[sub["ims_version"] == version]
            return "; ".join(_setting(r) for _, r in sub.iterrows())
        others = "; ".join(f"IMS {int(r['ims_version'])}: {_setting(r)}" for _, r in group.iterrows()
                           if r["state"] == "in_effect" and int(r["ims_version"]) != 13)
        rows.append({"step": int(step), "change": change, "setting": parameter,
                     "IMS V13 before": pick("before") or pick("in_effect", 13), "IMS V13 after": pick("after"),
                     "other versions": others, "effect or requirement": pick("effect") or pick("requirement")})
    return pd.DataFrame(rows)


VIEWS = {"data": rates, "tuning": tuning}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ('test_environments',)
