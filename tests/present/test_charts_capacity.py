"""The capacity chart: model lines dashed by curve in the order given, measured points on top, data rounded."""

import pandas as pd

from mqperf.present.charts import capacity


def test_models_and_points_layers_lines_under_points():
    lines = pd.DataFrame({"series": ["a"] * 4, "clients": [1, 2, 1, 2], "curve": ["fit", "fit", "bound", "bound"],
                          "rate": [1.000000001, 2.0, 1.0, 2.5], "extra": 0.0})
    measured = pd.DataFrame({"series": ["a", "a"], "clients": [1, 2], "rate": [1.1, 1.9], "other": [0.0, 0.0]})
    spec = capacity.models_and_points(measured, lines, x="clients", y="rate", x_title="clients", y_title="rate",
                                      title="t", curve_order=["fit", "bound"]).to_dict()
    drawn, points = spec["layer"]
    assert drawn["mark"]["type"] == "line" and points["mark"]["type"] == "point"
    assert drawn["encoding"]["strokeDash"]["sort"] == ["fit", "bound"]
    rows = spec["datasets"][drawn["data"]["name"]]
    assert set(rows[0]) == {"series", "clients", "curve", "rate"} and rows[0]["rate"] == 1
    assert set(spec["datasets"][points["data"]["name"]][0]) == {"series", "clients", "rate"}
