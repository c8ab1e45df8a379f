"""present.charts.costs: lines on log-log axes with a marked point, and a grid of labelled cells."""

import pandas as pd

from mqperf.present.charts import costs


def test_log_lines_draws_each_series_on_log_axes_and_marks_one_point():
    frame = pd.DataFrame({"rtt": [1, 10, 1, 10], "rate": [65.536, 6.5536, 262.144, 26.2144],
                          "window": ["64 KB", "64 KB", "256 KB", "256 KB"]})
    spec = costs.log_lines(frame, x="rtt", y="rate", colour="window", colour_title="TCP window", x_title="rtt (ms)",
                           y_title="rate (MB/s)", title="bound", mark={"rtt": 2, "rate": 32.768, "label": "plan"}
                           ).to_dict()
    lines, point = spec["layer"]
    assert lines["mark"]["type"] == "line" and point["mark"]["shape"] == "diamond"
    assert lines["encoding"]["x"]["scale"] == {"type": "log"} and lines["encoding"]["y"]["scale"] == {"type": "log"}
    assert lines["encoding"]["color"]["title"] == "TCP window"
    assert spec["title"] == "bound"
    plain = costs.log_lines(frame, x="rtt", y="rate", colour="window", colour_title="w", x_title="x", y_title="y",
                            title="t").to_dict()
    assert "layer" not in plain and plain["mark"]["type"] == "line"


def test_labelled_grid_keeps_the_frames_order_and_labels_each_cell():
    grid = pd.DataFrame({"a": ["none", "none", "X", "X"], "b": ["none", "Y", "none", "Y"],
                         "checked": ["both", "one", "one", "none"], "mark": ["=", "≠", "?", "="]})
    spec = costs.labelled_grid(grid, x="b", y="a", colour="checked", label="mark", x_title="B", y_title="A",
                               colour_title="checked", title="grid", tooltip=["a", "b"]).to_dict()
    cells, text = spec["layer"]
    assert cells["mark"]["type"] == "rect" and text["mark"]["type"] == "text"
    assert cells["encoding"]["x"]["sort"] == ["none", "Y"] and cells["encoding"]["y"]["sort"] == ["none", "X"]
    assert text["encoding"]["text"]["field"] == "mark"
    assert spec["width"] == 420 and spec["height"] == 300
