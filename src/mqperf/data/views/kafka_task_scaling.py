"""The book's Kafka task-scaling datasets in the shape a reader's files have.

``kafka_task_scaling`` keeps quotes, seeds and formulas beside each rate; the chapter reads
the contract's columns only. ``kafka_task_scaling_constraints`` keeps its statements as they
are, minus provenance. ``kafka_cpu_costs`` becomes one row per connector and CPU component
(low and high ends of the printed cost), with the scaling series the costs were measured on,
so the chapter can price a rate that series' fit reaches.
"""

from __future__ import annotations

import pandas as pd

POINT_COLUMNS = ["connector", "series", "tasks", "gp_cpus", "rate_msg_s", "basis"]
CONSTRAINT_COLUMNS = ["connector", "series", "gp_cpus", "tasks_from", "tasks_to", "relation", "quote"]

#: The article prices 1KB non-persistent messages, the workload of the sustainable series.
COSTED_SERIES = "sustainable nonpersistent"


def _readable(frame: pd.DataFrame) -> pd.DataFrame:
    """The book's workload identifiers as words (sustainable_nonpersistent → sustainable nonpersistent).

    Only the book's own identifiers: a reader's series names are shown as given."""
    return frame.assign(series=frame["series"].str.replace("_", " ", regex=False))
#: The MQ verb each connector issues per message, as the costs dataset names it.
VERB = {"source": ("mq_get", "MQGET"), "sink": ("mq_put1", "MQPUT1")}


def points(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Rates by connector, workload, tasks.max and CPU count (contract columns only)."""
    return _readable(frame[POINT_COLUMNS].reset_index(drop=True))


def constraints(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """'No gain' and 'decrease' statements with the series they concern."""
    return _readable(frame[CONSTRAINT_COLUMNS].reset_index(drop=True))


def costs(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """General-purpose CPU per message by connector: the connector after zIIP offload and its MQ verb.

    Only printed (measured) values are used: for the sink the printed 0.5–1.7 µs is wider than
    the 0.84–1.04 µs its own total and zIIP share imply (errata E011, E012), and the wider range
    is the honest one to plan with.
    """
    measured = frame[frame["basis"] == "measured"]
    rows = []
    for connector, (verb, verb_label) in VERB.items():
        sub = measured[measured["connector"] == connector]
        for item, label in (("general_purpose", "connector after zIIP offload"), (verb, verb_label)):
            values = sub.loc[sub["cost_item"] == item, "cpu_us"].dropna()
            if values.empty:
                continue
            rows.append({"connector": connector, "series": COSTED_SERIES, "component": label,
                         "cpu_us_low": float(values.min()), "cpu_us_high": float(values.max())})
    return pd.DataFrame(rows, columns=["connector", "series", "component", "cpu_us_low", "cpu_us_high"])


VIEWS = {"data": points, "constraints": constraints, "costs": costs}
