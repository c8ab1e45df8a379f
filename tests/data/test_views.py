"""data.views.open: a reader's file and a book dataset arrive in the same shape."""

import pytest

from mqperf.data import views
from mqperf.errors import DataError


def test_reader_file_is_checked_against_the_chapters_contract(tmp_path):
    good = tmp_path / "mine.csv"
    good.write_text("tasks,rate_msg_s,series\n1,100,a\n2,190,a\n")
    frame = views.open(str(good), "kafka_task_scaling")
    assert list(frame["rate_msg_s"]) == [100, 190]
    bad = tmp_path / "bad.csv"
    bad.write_text("tasks\n1\n")
    with pytest.raises(DataError, match="rate_msg_s"):
        views.open(str(bad), "kafka_task_scaling")


def test_describe_tells_the_books_data_from_a_readers(tmp_path):
    book = views.describe("kafka_scaling_rates")
    assert book.book_data and book.name == "kafka_scaling_rates" and len(book.sha256) == 64
    from mqperf.data import loader

    by_path = views.describe(str(loader.resource_path("kafka_scaling_rates")))
    assert by_path == book  # the book's file given by path is still the book's data
    mine = tmp_path / "mine.csv"
    mine.write_text("tasks,rate_msg_s\n1,100\n")
    reader = views.describe(str(mine))
    assert not reader.book_data and reader.name == "mine.csv"
    assert views.describe("") == views.Source(None, None, False)


def test_contract_for_an_input_comes_from_the_chapters_contract():
    from mqperf.data.contracts import contract_for

    assert contract_for("kafka_task_scaling") == "kafka_task_scaling"
    assert contract_for("kafka_latch_cpus", "latch_data") == "kafka_latch_cpus.latch_data"
    assert contract_for("tls_channel_costs", "published") == "tls_cost_changes"
