"""mqperf.publish.drift: a failed output comparison names the number that moved."""

from __future__ import annotations

import copy

import altair as alt
import pandas as pd

from mqperf.present import charts
from mqperf.publish import drift, samebook
from mqperf.present.tables import show


def _outputs(obj) -> list[dict]:
    """``obj`` as a notebook stores it: one execute_result with its rich representations."""
    data = {"text/plain": repr(obj)}
    if hasattr(obj, "_repr_html_"):
        data["text/html"] = obj._repr_html_()
    return [{"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": data}]


def _fits(sigma: float) -> pd.DataFrame:
    return pd.DataFrame({"series": ["source sustainable", "sink sustainable"], "sigma": [0.0871, sigma],
                         "lam": [28000.0, 30500.0]})


def test_a_table_cell_that_moved_is_named_by_caption_row_column_and_size():
    before = _outputs(show(_fits(0.1187), caption="One fit per series"))
    after = _outputs(show(_fits(0.1192), caption="One fit per series"))
    lines = drift.describe(before, after)
    assert len(lines) == 1, lines
    pct = (0.1192 - 0.1187) / 0.1187 * 100
    assert lines[0] == (f"table 'One fit per series', row 2 ('sink sustainable'), column 'sigma': "
                        f"0.1187 → 0.1192 (+{pct:.2f} %)")


def test_identical_outputs_give_no_lines():
    out = _outputs(show(_fits(0.1187), caption="One fit per series"))
    assert drift.describe(out, copy.deepcopy(out)) == []


def test_a_chart_data_value_that_moved_is_named_by_title_field_and_row():
    def chart(rate):
        frame = pd.DataFrame({"tasks": [1, 2, 3], "rate_msg_s": [28000.0, rate, 60112.0], "series": ["sink"] * 3})
        return charts.lines(frame, x="tasks", y="rate_msg_s", colour="series", x_title="tasks",
                            y_title="messages/s", title="Measured rates and USL fits")

    before = [{"output_type": "display_data", "metadata": {}, "data": charts.render(chart(46480.0).to_dict())}]
    after = [{"output_type": "display_data", "metadata": {}, "data": charts.render(chart(46500.0).to_dict())}]
    lines = drift.describe(before, after)
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("chart 'Measured rates and USL fits': 'rate_msg_s'")
    assert "series='sink'" in line and "tasks=2" in line
    assert "46,480 → 46,500" in line and f"(+{20 / 46480 * 100:.3f} %)" in line


def test_a_chart_whose_encoding_changed_says_so():
    frame = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0]})
    one = alt.Chart(frame).mark_line().encode(x="x:Q", y="y:Q").properties(title="T")
    two = alt.Chart(frame).mark_point().encode(x="x:Q", y="y:Q").properties(title="T")
    lines = drift.compare_html(charts.render(one.to_dict())["text/html"], charts.render(two.to_dict())["text/html"])
    assert lines == ["chart 'T': the chart's specification changed (encodings, marks or titles), not only its data"]


def test_a_pandas_table_without_caption_is_named_by_its_columns():
    a = pd.DataFrame({"reading": ["as printed", "read as 5.5"], "a": [217.3, 228.2]})
    b = a.assign(a=[217.3, 227.9])
    lines = drift.describe(_outputs_frame(a), _outputs_frame(b))
    # The HTML gives the table line; the plain-text twin of the same output is not repeated.
    assert len(lines) == 1, lines
    assert lines[0].startswith("table 1 (columns 'reading', 'a'")
    assert "row 2 ('read as 5.5'), column 'a': 228.2 → 227.9 (−0.13 %)" in lines[0]


def _outputs_frame(frame: pd.DataFrame) -> list[dict]:
    return [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
             "data": {"text/plain": repr(frame), "text/html": frame._repr_html_()}}]


def test_plain_text_numbers_are_compared_one_by_one():
    lines = drift.compare_text("rate 60,112 msg/s at 8 tasks\nok", "rate 60,140 msg/s at 8 tasks\nok")
    assert len(lines) == 1
    assert lines[0].startswith("text line 1 ('rate 60,112 msg/s at 8 tasks'): 60,112 → 60,140")
    assert f"(+{28 / 60112 * 100:.3f} %)" in lines[0]


def test_a_change_from_zero_is_given_absolutely():
    assert drift.change(0.0, 1.18e-14) == " (+1.18e-14, was 0)"
    assert drift.change(100.0, 99.0) == " (−1.0 %)"


def test_stream_output_and_a_changed_number_of_outputs():
    before = [{"output_type": "stream", "name": "stdout", "text": "fitted 3 series\n"}]
    after = [{"output_type": "stream", "name": "stdout", "text": "fitted 4 series\n"},
             {"output_type": "stream", "name": "stderr", "text": "warning\n"}]
    lines = drift.describe(before, after)
    assert lines[0] == "the cell now has 2 output(s) where 1 were stored"
    assert lines[1].endswith(": 3 → 4 (+33 %)")


def test_many_changes_are_capped_with_a_count():
    a = pd.DataFrame({"name": [f"r{i}" for i in range(30)], "v": [float(i + 1) for i in range(30)]})
    b = a.assign(v=a["v"] * 2)
    lines = drift.describe(_outputs(show(a)), _outputs(show(b)), limit=5)
    assert len(lines) == 6 and lines[-1] == "… and 25 more change(s) in this output"


def test_parse_number_reads_what_tables_show():
    assert drift.parse_number("60,112") == 60112
    assert drift.parse_number("−0.5") == -0.5
    assert drift.parse_number("12 %") == 12
    assert drift.parse_number("∞") == float("inf")
    assert drift.parse_number("sink") is None and drift.parse_number("–") is None


def test_a_number_in_prose_is_found_in_markdown():
    before = [{"output_type": "display_data", "metadata": {},
               "data": {"text/plain": "<IPython.core.display.Markdown object>",
                        "text/markdown": "At 8 tasks the fit gives **60,112** msg/s."}}]
    after = copy.deepcopy(before)
    after[0]["data"]["text/markdown"] = "At 8 tasks the fit gives **60,140** msg/s."
    lines = drift.describe(before, after)
    assert len(lines) == 1 and lines[0].startswith("markdown text line 1")
    assert "60,112 → 60,140" in lines[0]


# -- the rule: what "the same book" means -------------------------------------------------------

def _chart_outputs(value: float) -> list[dict]:
    charts._reset_run_state()  # as for a new notebook: the first chart of each
    frame = pd.DataFrame({"x": [1.0, 7.1867], "lower": [12.5, value], "series": ["a", "a"]})
    chart = charts.lines(frame, x="x", y="lower", colour="series", x_title="x", y_title="y", title="Band")
    return [{"output_type": "display_data", "metadata": {}, "data": charts.render(chart.to_dict())}]


def test_a_value_on_a_rounding_boundary_is_the_same_book():
    # The case another CPU's BLAS kernel produced: -483.125 rounded on either side.
    assert samebook.same_outputs(_chart_outputs(-483.13), _chart_outputs(-483.12))
    assert drift.describe(_chart_outputs(-483.13), _chart_outputs(-483.12)) == []
    text = lambda v: [{"output_type": "stream", "name": "stdout", "text": f"peak {v} msg/s at 8 tasks\n"}]  # noqa: E731
    assert samebook.same_outputs(text("61,588"), text("61,589"))
    assert samebook.same_outputs(text("0.1187"), text("0.1188"))
    assert samebook.same_outputs(text("99.99"), text("100.0"))  # a carry: the coarser last place counts


def test_a_real_change_is_not_the_same_book():
    assert not samebook.same_outputs(_chart_outputs(-483.13), _chart_outputs(-483.10))
    lines = drift.describe(_chart_outputs(-483.13), _chart_outputs(-483.10))
    assert len(lines) == 1 and "-483.13 → -483.1" in lines[0] and "chart 'Band'" in lines[0], lines
    text = lambda v: [{"output_type": "stream", "name": "stdout", "text": f"fitted {v} series\n"}]  # noqa: E731
    # Counts and numbers shown with one or two digits must not move at all.
    assert not samebook.same_outputs(text("3"), text("4"))
    assert not samebook.same_outputs(text("12 %"), text("13 %"))
    # Words are compared exactly, and a list of numbers is not read as one number.
    assert not samebook.same_text("levels off at 61,588", "falls past 61,588")
    assert not samebook.same_text("[1,2,3]", "[1,2,4]")


def test_chart_ids_and_data_names_do_not_follow_a_data_value():
    a = _chart_outputs(-483.13)[0]["data"]["text/html"]
    b = _chart_outputs(-483.12)[0]["data"]["text/html"]
    strip = lambda h: samebook._SPEC.sub("", h)  # noqa: E731
    assert strip(a) == strip(b)
    assert '"data-1"' in a and not drift._DATASET_NAME.findall(a)


def test_integers_in_chart_data_must_match():
    assert samebook.same_value({"tasks": 3, "r": 61588.0}, {"tasks": 3, "r": 61589.0})
    assert not samebook.same_value({"tasks": 3}, {"tasks": 4})
    assert not samebook.same_value({"r": 61588.0}, {"r": 61590.0})


def test_notebook_differences_name_cells_beyond_the_rule():
    from nbformat.v4 import new_code_cell, new_notebook

    def nb(value):
        cell = new_code_cell("r.show('peak')")
        cell.outputs = [{"output_type": "stream", "name": "stdout", "text": f"peak {value} msg/s\n"}]
        return new_notebook(cells=[cell])

    assert drift.notebook_differences(nb("61,588"), nb("61,589")) == []
    lines = drift.notebook_differences(nb("61,588"), nb("60,000"))
    assert lines and lines[0].startswith("cell 1: ") and "61,588 → 60,000" in lines[0]


def test_report_test_applies_the_same_rule():
    from nbformat.v4 import new_code_cell, new_notebook

    from mqperf.publish.repo import differences

    def nb(value, injected="data = 'data/run1.csv'"):
        params = new_code_cell(injected, metadata={"tags": ["injected-parameters"]})
        cell = new_code_cell("r.show('peak')")
        cell.outputs = [{"output_type": "stream", "name": "stdout", "text": f"peak {value} msg/s\n"}]
        return new_notebook(cells=[params, cell])

    assert differences(nb("63,672"), nb("63,673", injected="data = 'elsewhere.csv'")) == []
    lines = differences(nb("63,672"), nb("61,000"))
    assert len(lines) == 1 and "63,672 → 61,000" in lines[0], lines
