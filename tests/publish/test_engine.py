"""The warm kernel (mqperf.publish.engine): reused across notebooks, yet each run is a cold run's twin."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from mqperf import catalog
from mqperf.publish import build as book
from mqperf.publish import engine

pytestmark = pytest.mark.slow


def _notebook(path: Path, *sources: str, parameters: str | None = None) -> Path:
    cells = []
    if parameters is not None:
        cells.append(new_code_cell(parameters, metadata={"tags": ["parameters"]}))
    cells += [new_code_cell(s) for s in sources]
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}})
    nbformat.write(nb, path)
    return path


def _outputs(path: Path) -> list:
    nb = nbformat.read(path, as_version=4)
    return [(c.get("execution_count"), c.get("outputs")) for c in nb.cells if c.cell_type == "code"]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    with engine.Kernel(tmp_path_factory.mktemp("cwd")) as k:
        yield k


def test_state_a_notebook_leaves_is_gone_before_the_next(kernel, tmp_path):
    # The first notebook leaves everything a later one could see: a name, a changed folder,
    # a warning shown once, a chart id counter moved on, a filled mqperf cache.
    leave = _notebook(
        tmp_path / "leave.ipynb",
        "left_behind = 1\nimport os, warnings\nos.chdir('/')",
        "warnings.warn('shown every run')",
        "from mqperf.present import charts\nfrom mqperf.data import loader\n"
        "charts.render({'a': 1}); charts.render({'a': 1}); loader.package_descriptor(); None",
    )
    check = _notebook(
        tmp_path / "check.ipynb",
        "print('left_behind' in globals(), os.getcwd() if 'os' in globals() else 'no os')",
        "import os; print(os.getcwd())",
        "import warnings; warnings.warn('shown every run')",
        "from mqperf.present import charts\nprint(charts.render({'a': 1})['text/html'].split('\"')[3])",
        "from mqperf.data import loader\nprint(loader._package_descriptor.cache_info().currsize)",
    )
    kernel.execute(leave, tmp_path / "leave.out.ipynb")
    kernel.execute(leave, tmp_path / "leave.again.ipynb")
    kernel.execute(check, tmp_path / "check.out.ipynb")
    cells = _outputs(tmp_path / "check.out.ipynb")
    assert [n for n, _ in cells] == [1, 2, 3, 4, 5], "execution counts start at 1 in every run"
    texts = ["".join(o.get("text", "") for o in outs) for _, outs in cells]
    assert texts[0].strip() == "False no os"
    assert texts[1].strip() == str(kernel.cwd)
    assert "shown every run" in texts[2]
    assert texts[3].strip().endswith("-1"), f"chart ids restart at 1 in each notebook: {texts[3]!r}"
    assert texts[4].strip() == "0"
    # The same notebook twice in one kernel: the same bytes.
    assert _outputs(tmp_path / "leave.out.ipynb") == _outputs(tmp_path / "leave.again.ipynb")


def test_a_failed_notebook_gets_the_next_one_a_fresh_kernel(kernel, tmp_path):
    import papermill

    fail = _notebook(tmp_path / "fail.ipynb", "import sys; sys.modules['poisoned'] = 1", "raise ValueError('bad')")
    check = _notebook(tmp_path / "check.ipynb", "import sys; print('poisoned' in sys.modules)")
    with pytest.raises(papermill.PapermillExecutionError, match="bad"):
        kernel.execute(fail, tmp_path / "fail.out.ipynb")
    kernel.execute(check, tmp_path / "check.out.ipynb")
    out = _outputs(tmp_path / "check.out.ipynb")[0][1][0]["text"]
    assert out.strip() == "False"


def test_parameters_are_injected_as_papermill_does(kernel, tmp_path):
    nb = _notebook(tmp_path / "p.ipynb", "print(size * 2)", parameters="size = 1")
    kernel.execute(nb, tmp_path / "p.out.ipynb", parameters={"size": 21})
    assert _outputs(tmp_path / "p.out.ipynb")[-1][1][0]["text"].strip() == "42"


def test_a_dead_kernel_is_replaced(kernel, tmp_path):
    import os
    import signal

    os.kill(kernel.km.provisioner.process.pid, signal.SIGKILL)
    nb = _notebook(tmp_path / "alive.ipynb", "print('alive')")
    kernel.execute(nb, tmp_path / "alive.out.ipynb")
    assert _outputs(tmp_path / "alive.out.ipynb")[0][1][0]["text"].strip() == "alive"


def test_a_chapter_run_warm_after_another_equals_a_cold_run(tmp_path):
    """Byte for byte: papermill's own cold kernel against a warm kernel that ran another chapter first.

    (tests/publish/test_determinism.py runs every chapter warm after others; nbval runs each cold.)
    """
    chapter = catalog.find("kafka_task_scaling")
    cards = {"cards_dir": str(tmp_path / "cards")}
    cold = tmp_path / "cold.ipynb"
    book.execute_notebook(chapter.path, cold, parameters=cards, cwd=chapter.path.parent)
    with engine.Kernel(chapter.path.parent) as k:
        # Its charts are numbered from 1 again, though another chapter's charts came first.
        k.execute(catalog.find("kafka_message_size").path, tmp_path / "other.ipynb", parameters=cards)
        k.execute(chapter.path, tmp_path / "warm.ipynb", parameters=cards)
    for path in (cold, tmp_path / "warm.ipynb"):
        nb = nbformat.read(path, as_version=4)
        book.normalise(nb)
        for cell in nb.cells:  # papermill gives the cell it injects a random id, cold or warm
            if "injected-parameters" in cell.metadata.get("tags", []):
                cell.id = "injected"
        nbformat.write(nb, path)
    assert cold.read_bytes() == (tmp_path / "warm.ipynb").read_bytes()


def test_an_interrupted_run_leaves_nothing_pending(tmp_path):
    """Ctrl-C while a cell runs, then close: no asyncio task is left for the interpreter to report
    as "destroyed but pending" on the reader's terminal, after the one-line error."""
    import asyncio
    import signal

    from jupyter_core.utils import ensure_event_loop

    def interrupt(*_):
        raise KeyboardInterrupt

    slow = _notebook(tmp_path / "slow.ipynb", "import time; time.sleep(8)")
    loop = ensure_event_loop()
    # Other kernels in this test process (the session's warm kernel) keep tasks of their own.
    before = {t for t in asyncio.all_tasks(loop) if not t.done()}
    kernel = engine.Kernel(tmp_path)
    kernel.ready()
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 2.5)  # well inside the cell, even on a loaded machine
    try:
        with pytest.raises(KeyboardInterrupt):
            kernel.execute(slow, tmp_path / "slow.out.ipynb")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # (Whether the interrupted waits sit on this thread's loop depends on what else this process
    # ran: nbclient makes a loop of its own when another library's loop is current. Either way,
    # after close none of them may be left.)
    kernel.close()
    assert {t for t in asyncio.all_tasks(loop) if not t.done()} - before == set()


def test_the_kernel_collects_garbage_with_its_imports_frozen(kernel):
    """Started with the collector off (for the imports' sake), the kernel runs notebooks with it on
    again, and the preloaded libraries are frozen out of its collections."""
    kernel.ready()
    state = kernel.evaluate("str((__import__('gc').isenabled(), __import__('gc').get_freeze_count() > 50_000, "
                            "'pandas' in __import__('sys').modules))")
    assert state == "(True, True, True)"


def test_a_preload_that_fails_still_leaves_the_collector_on(tmp_path):
    with engine.Kernel(tmp_path, preload="import no_such_module_for_mqperf") as k:
        k.ready()
        assert k.evaluate("str(__import__('gc').isenabled())") == "True"
