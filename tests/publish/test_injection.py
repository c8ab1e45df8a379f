"""Nothing a reader's file says runs in a page: hostile names through every chapter's report.

Two layers. First, every chapter's analysis on its example file with each free-text column
(series, labels, ids: string fields of the contract without an enumeration) replaced by the
hostile strings of :mod:`injection`: every sentence, parsed as the book parses it (MyST), is
literal text where a name is; tables and chart specs carry no markup from a name. Second
(``browser``), the pages a reader opens: ``mqperf run``, ``compare`` (labels too),
``fleet --reports`` and ``report build`` on such files, each opened in headless Chromium,
which must raise no dialog, hold no element a name made, and show each name as text.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from injection import CORPUS, shown
from mqperf.data.contracts import CONTRACTS
from mqperf.present import charts as chart_mod
from mqperf.present.results import Missing, Text
from mqperf.present.tables import Table
from mqperf.present.text import markdown as md_escape

CHAPTERS = sorted(p.stem for p in (ROOT / "data" / "examples").glob("*.csv") if "." not in p.stem)
MARKERS = ("alert(", "onerror", "onload", "onmouseover", "javascript:", "display:none")


def free_text_columns(contract: str, columns) -> list[str]:
    """String fields a reader names freely: no enumeration, no pattern, not the basis column."""
    out = []
    for f in CONTRACTS[contract]["fields"]:
        c = f.get("constraints", {})
        if f["type"] == "string" and f["name"] in columns and f["name"] != "basis" \
                and "enum" not in c and "pattern" not in c:
            out.append(f["name"])
    return out


def hostile_copy(chapter: str, tmp_path: Path) -> tuple[Path, list[str]]:
    """The chapter's example file with its free-text values replaced by hostile names."""
    frame = pd.read_csv(ROOT / "data" / "examples" / f"{chapter}.csv", dtype=str, keep_default_na=False)
    used = []
    for col in free_text_columns(chapter, frame.columns):
        values = list(dict.fromkeys(v for v in frame[col] if v != ""))
        mapping = {v: CORPUS[(i + len(used)) % len(CORPUS)] for i, v in enumerate(values)}
        used.extend(mapping.values())
        frame[col] = [mapping.get(v, v) for v in frame[col]]
    path = tmp_path / f"{chapter}.csv"
    frame.to_csv(path, index=False, quoting=csv.QUOTE_MINIMAL)
    return path, used


def _myst():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    # The book's parser: _config.yml's myst_enable_extensions.
    config = MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence", "deflist", "substitution"})
    return create_md_parser(config, RendererHTML)


MYST = _myst()


def _tokens(tokens):
    for t in tokens:
        yield t
        yield from _tokens(t.children or [])


def literal_text(markdown: str) -> str:
    """What a reader reads of a passage: the text tokens' content, joined."""
    return "".join(t.content for t in _tokens(MYST.parse(markdown)) if t.type in ("text", "code_inline"))


def check_markdown(where: str, markdown: str, names) -> list[str]:
    problems = []
    for t in _tokens(MYST.parse(markdown)):
        if t.type in ("html_inline", "html_block"):
            problems.append(f"{where}: raw HTML in a sentence: {t.content[:60]!r}")
        elif t.type not in ("text", "code_inline", "inline"):
            blob = t.content + " " + " ".join(str(v) for v in (t.attrs or {}).values())
            if any(m in blob for m in MARKERS):
                problems.append(f"{where}: a name became a {t.type} token: {blob[:80]!r}")
    text = literal_text(markdown)
    for name in names:
        if md_escape(name) in markdown and shown(name) not in text:
            problems.append(f"{where}: {name[:30]!r} is not shown as text")
    return problems


def check_results(results, names) -> list[str]:
    problems = []
    for key, item in results.items.items():
        if isinstance(item, (Text, Missing)):
            problems += check_markdown(f"sentence {key!r}", item._repr_markdown_(), names)
        elif isinstance(item, Table):
            html = item._repr_html_()
            for tag in ("<script", "<img", "<svg", "<a ", "<b ", "<style", "<!--"):
                if tag in html:
                    problems.append(f"table {key!r}: {tag} from a name")
        elif item is not None and hasattr(item, "to_dict"):
            html = chart_mod.render(item.to_dict())["text/html"]
            if html.count("<script") != 1 or html.count("</script") != 1 or "<!--" in html:
                problems.append(f"chart {key!r}: a name reaches the page's markup")
    return problems


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_hostile_names_are_text_in_every_chapter(chapter, tmp_path):
    from chapters import props

    path, names = hostile_copy(chapter, tmp_path)
    if not names:
        pytest.skip(f"{chapter}: its contract has no free-text column (every string is an enumeration)")
    results = props.run(chapter, path)
    problems = check_results(results, names)
    assert not problems, "\n".join(problems[:20])


def test_escaped_names_parse_as_one_run_of_text():
    for name in CORPUS:
        source = f"In “{md_escape(name)}” the fit"
        tokens = [t for t in _tokens(MYST.parse(source)) if t.type not in ("paragraph_open", "paragraph_close", "inline")]
        assert [t.type for t in tokens] == ["text"], (name, [t.type for t in tokens])
        assert tokens[0].content == f"In “{shown(name)}” the fit"


def test_a_name_cannot_close_a_charts_script_element():
    frame = pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0], "s": ["</script><script>alert(4)</script><!--"] * 2})
    chart = chart_mod.lines(frame, x="x", y="y", colour="s", x_title="x", y_title="y", title="</script>")
    html = chart_mod.render(chart.to_dict())["text/html"]
    assert html.count("<script") == 1 and html.count("</script") == 1 and "<!--" not in html
    from mqperf.publish import drift

    assert drift.parse_chart(html)["title"] == "</script>"


# -- the pages a reader opens, in Chromium ----------------------------------------------------

def sweep(path: Path, scale: float = 1.0) -> Path:
    """A task-scaling file with one USL-shaped series per hostile name."""
    rows = [("series", "tasks", "rate_msg_s")]
    for k, name in enumerate(CORPUS):
        lam = 20000 * (1 + 0.03 * k) * scale
        rows += [(name, t, round(lam * t / (1 + 0.05 * (t - 1) + 0.01 * t * (t - 1)), 1)) for t in range(1, 7)]
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def open_page(browser, path: Path) -> tuple[list, list, str]:
    """Open ``path``: the dialogs it raised, what the audit found, and its text."""
    page = browser.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(path.as_uri())
        # Every chart drawn (vega-embed has run the specs) before the page is read.
        page.wait_for_function("document.querySelectorAll('div.mqperf-chart').length === "
                               "document.querySelectorAll('div.mqperf-chart svg.marks').length", timeout=30000)
        # An on* attribute a name made would fire only on an event: the audit finds it without one.
        from injection import PAGE_AUDIT

        return dialogs, page.evaluate(PAGE_AUDIT), page.inner_text("body")
    finally:
        page.close()


def assert_page_is_text(browser, path: Path, names) -> None:
    assert path.is_file(), path
    dialogs, audit, text = open_page(browser, path)
    assert dialogs == [], f"{path.name}: a name ran: dialogs {dialogs}"
    assert audit == [], f"{path.name}: a name became markup: {audit[:5]}"
    missing = [n[:30] for n in names if shown(n) not in text]
    assert not missing, f"{path.name}: names not shown as text: {missing}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    return sweep(base / "a.csv"), sweep(base / "b.csv", 0.9)


@pytest.mark.browser
@pytest.mark.slow
def test_run_report_shows_names_as_text(browser, hostile, tmp_path, warm_mqperf):
    status, _, err = warm_mqperf("run", "kafka_task_scaling", "--data", hostile[0], "--out", tmp_path / "run", "-q")
    assert status == 0, err
    assert_page_is_text(browser, tmp_path / "run" / "kafka_task_scaling.html", CORPUS)
    # One model card per fitted series, whatever the names.
    assert len(list((tmp_path / "run" / "models").glob("*.json"))) >= len(CORPUS)


@pytest.mark.browser
@pytest.mark.slow
def test_compare_page_shows_names_and_labels_as_text(browser, hostile, tmp_path, warm_mqperf):
    labels = (CORPUS[0], CORPUS[5])
    status, _, err = warm_mqperf("compare", "kafka_task_scaling", "--data", hostile[0], "--data", hostile[1],
                                 "--label", labels[0], "--label", labels[1], "--out", tmp_path / "cmp", "-q")
    assert status == 0, err
    assert_page_is_text(browser, tmp_path / "cmp" / "index.html", (*CORPUS, *labels))


@pytest.mark.browser
@pytest.mark.slow
def test_fleet_pages_show_names_as_text(browser, hostile, tmp_path):
    import subprocess
    import sys

    manifest = tmp_path / "fleet.csv"
    manifest.write_text(f"id,data\nQM1,{hostile[0]}\nQM2,{hostile[1]}\n", encoding="utf-8")
    out = tmp_path / "fleet"
    proc = subprocess.run([str(Path(sys.executable).with_name("mqperf")), "fleet", str(manifest), "--chapter",
                           "kafka_task_scaling", "--reports", "-j", "1", "-q", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert_page_is_text(browser, out / "index.html", ())
    for qm in ("QM1", "QM2"):
        assert_page_is_text(browser, out / "reports" / qm / "kafka_task_scaling.html", CORPUS)


@pytest.mark.browser
@pytest.mark.slow
def test_report_repository_pages_show_names_and_file_names_as_text(browser, hostile, tmp_path):
    import shutil
    import subprocess
    import sys

    mqperf = str(Path(sys.executable).with_name("mqperf"))
    data = tmp_path / "<img src=x onerror=alert(31)> run.csv"  # a file name is a reader's string too
    shutil.copy(hostile[0], data)
    repo = tmp_path / "repo"
    made = subprocess.run([mqperf, "init", str(repo), "--chapter", "kafka_task_scaling", "--data", str(data),
                           "--local-source"], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    built = subprocess.run([mqperf, "report", "build"], cwd=repo, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    assert_page_is_text(browser, repo / "reports" / "index.html", (data.name,))
    assert_page_is_text(browser, repo / "reports" / "kafka_task_scaling" / "kafka_task_scaling.html", CORPUS)
