"""The book's HA datasets in the shape of the ha_replication chapter's input.

* ``rdqm_net_delay`` (RDQM report, Tables 3-5, printed): one row per message size and added
  delay (0, 1, 2, 5 ms) for ten RDQM queue managers at the peak's requesters; the no-delay
  row each of Tables 3-5 repeats from Table 2 is kept once. Each table also prints the
  "single thread round-trip latency" at 1, 2 and 5 ms: those become series of their own with
  one client and ``rate`` = 1000 / latency_ms (derived: the rate one requester with no think
  time reaches, Little's law), flagged by ``basis`` "derived".
* ``xlinux93_ha_peak`` (V9.3 report, Tables 12-14, printed): MIQM and RDQM at 0, 1 and 2 ms
  added; the SAN rows (no replication link, no delay) are left out.
* ``rdqm_chart`` (RDQM report, Figure 3, chart readings, basis chart): the rate at every
  requester count at 0, 1, 2 and 5 ms, one series per requester count (1 requester left out:
  its readings are below the reading's resolution, NOTES).
* ``xlinux93_ha_chart`` (V9.3 report, Figures 13-15, chart readings): MIQM and RDQM at every
  requester count at 0, 1 and 2 ms (Figure 16 repeats the RDQM curves and is left out).

Chart readings are only ever a dataset of their own, never mixed with printed values.
"""

from __future__ import annotations

import pandas as pd

from mqperf.errors import DataError

COLUMNS = ["series", "added_latency_ms", "rate", "clients", "cpu_pct", "basis", "table"]


def _rdqm_tables(frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    seen = set()
    for r in frame.itertuples(index=False):
        size = str(r.message_size)
        key = (size, float(r.added_latency_ms))
        if key not in seen:
            seen.add(key)
            rows.append({"series": f"RDQM V9.0.4 {size}, 10 QMs", "added_latency_ms": float(r.added_latency_ms),
                         "rate": float(r.rate_rt_s), "clients": int(r.clients), "cpu_pct": float(r.cpu_pct),
                         "basis": "measured", "table": "Table 2" if r.added_latency_ms == 0 else r.report_table})
    for r in frame.itertuples(index=False):
        if pd.notna(r.latency_ms):
            rows.append({"series": f"RDQM V9.0.4 {r.message_size}, single requester", "added_latency_ms":
                         float(r.added_latency_ms), "rate": 1000.0 / float(r.latency_ms), "clients": 1,
                         "cpu_pct": float("nan"), "basis": "derived", "table": r.report_table})
    return pd.DataFrame(rows, columns=COLUMNS)


def _v93_tables(frame: pd.DataFrame) -> pd.DataFrame:
    keep = frame[frame["ha_config"].isin(["MIQM", "RDQM"])]
    return pd.DataFrame({"series": [f"{c} V9.3.4 {s}" for c, s in zip(keep["ha_config"], keep["message_size"])],
                         "added_latency_ms": keep["added_latency_ms"].astype(float).to_numpy(),
                         "rate": keep["rate_rt_s"].astype(float).to_numpy(),
                         "clients": keep["clients"].astype(int).to_numpy(),
                         "cpu_pct": keep["cpu_pct"].astype(float).to_numpy(), "basis": "measured",
                         "table": [f"Table {int(t)}" for t in keep["table_no"]]}, columns=COLUMNS)


def _rdqm_figure(frame: pd.DataFrame) -> pd.DataFrame:
    keep = frame[(frame["figure"] == "Figure 3") & frame["rate_rt_s"].notna() & (frame["clients"] > 1)]
    cpu = frame[(frame["figure"] == "Figure 3") & frame["cpu_pct"].notna()].set_index(
        ["added_latency_ms", "clients"])["cpu_pct"]
    return pd.DataFrame({"series": [f"RDQM 2K, {int(n)} requesters (Figure 3)" for n in keep["clients"]],
                         "added_latency_ms": keep["added_latency_ms"].astype(float).to_numpy(),
                         "rate": keep["rate_rt_s"].astype(float).to_numpy(),
                         "clients": keep["clients"].astype(int).to_numpy(),
                         "cpu_pct": [float(cpu.get((d, n), float("nan"))) for d, n in
                                     zip(keep["added_latency_ms"], keep["clients"])],
                         "basis": "chart", "table": "Figure 3"}, columns=COLUMNS)


def _v93_figures(frame: pd.DataFrame) -> pd.DataFrame:
    keep = frame[frame["figure_no"].isin([13, 14, 15]) & frame["ha_config"].isin(["MIQM", "RDQM"])]
    return pd.DataFrame({"series": [f"{c} V9.3.4 2KB, {int(n)} requesters" for c, n in
                                    zip(keep["ha_config"], keep["clients"])],
                         "added_latency_ms": keep["added_latency_ms"].astype(float).to_numpy(),
                         "rate": keep["rate_rt_s"].astype(float).to_numpy(),
                         "clients": keep["clients"].astype(int).to_numpy(), "cpu_pct": float("nan"),
                         "basis": "chart", "table": [f"Figure {int(f)}" for f in keep["figure_no"]]}, columns=COLUMNS)


SHAPES = {"rdqm_net_delay": _rdqm_tables, "xlinux93_ha_peak": _v93_tables, "rdqm_chart": _rdqm_figure,
          "xlinux93_ha_chart": _v93_figures}


def runs(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """A book dataset as the contract's rows (plus ``basis`` and ``table``)."""
    if name not in SHAPES:
        raise DataError(name, f"the ha_replication chapter has no view of the book's dataset {name!r}; "
                         f"it reads {', '.join(SHAPES)}")
    out = SHAPES[name](frame).reset_index(drop=True)
    out.attrs["dataset"] = name
    return out


VIEWS = {"data": runs, "more_data": runs, "concurrency": runs}
