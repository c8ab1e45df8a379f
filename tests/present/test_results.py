"""Results: an empty section must say why; about-passages follow the data's origin."""

import pandas as pd
import pytest

from mqperf.present.results import ABOUT_TITLE, Missing, Results, Text
from mqperf.present.tables import Table


def test_an_empty_table_needs_a_reason():
    r = Results(book_data=False)
    with pytest.raises(ValueError, match="no sentence saying why"):
        r.table("t", pd.DataFrame({"a": []}))
    r.table("t", pd.DataFrame({"a": []}), missing="your file has one listener, so there is nothing to compare")
    assert isinstance(r.show("t"), Missing)
    assert repr(r.show("t")) == "Your file has one listener, so there is nothing to compare."
    r.table("u", pd.DataFrame({"a": [1.5]}), caption="c")
    assert isinstance(r.show("u"), Table)


def test_a_missing_chart_needs_a_reason():
    r = Results(book_data=True)
    with pytest.raises(ValueError):
        r.chart("c", None)
    r.chart("c", None, missing="one point draws no curve")
    assert isinstance(r["c"], Missing)


def test_about_passages_show_only_on_the_books_data():
    book, reader = Results(book_data=True), Results(book_data=False)
    for r in (book, reader):
        r.about("system", "The article ran MQ 9.3.3 on a z16.")
    assert ABOUT_TITLE in repr(book["system"]) and "z16" in repr(book["system"])
    assert reader["system"] is None
    assert "system" not in reader.sentences()


def test_text_drops_empty_paragraphs_and_keeps_order():
    r = Results(book_data=False)
    r.text("a", "First.", None, "", "Second.")
    r.text("b", None)
    assert isinstance(r["a"], Text) and r["a"].markdown == "First.\n\nSecond."
    assert r["b"] is None
    assert list(r.items) == ["a", "b"]
    with pytest.raises(KeyError, match="no result named 'zz'"):
        r.show("zz")


def test_cards_are_written_only_when_asked(tmp_path):
    r = Results(book_data=False)
    r.card("ch__s", {"model": "usl"})
    assert not list(tmp_path.iterdir())
    paths = r.write_cards(tmp_path)
    assert [p.name for p in paths] == ["ch__s.json"] and paths[0].is_file()
