"""The page ``mqperf compare`` writes: ``DIR/index.html``, standalone and offline."""

from __future__ import annotations

import html
from pathlib import Path

from mqperf.models.compare import METHOD


def _p(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


def write(result, path: Path) -> None:
    from mqperf.present import charts, prose, tables
    from mqperf.present import comparison as words
    from mqperf.publish import report

    labels = [r.label for r in result.runs]
    title = f"Comparison: {result.chapter} on {prose.listing(labels)}"
    body = [f"<h1>{html.escape(title)}</h1>"]
    for before, after, rows, only, refused, derived in result.pairs:
        pair = (before.label, after.label)
        if len(result.pairs) > 1:
            body.append(f"<h2>{html.escape(pair[0])} → {html.escape(pair[1])}</h2>")
        body.append(_p(words.opening(rows, only, refused, pair, result.chapter, result.alpha)))
        verdicts = [words.series_verdict(s, g, derived.get(s), pair) for s, g in rows.groupby("series", sort=False)]
        if verdicts:
            body.append("<ul>" + "".join(f"<li>{html.escape(v)}</li>" for v in verdicts) + "</ul>")
        if len(rows):
            table = words.side_by_side(rows, pair)
            body.append(tables.show(table, digits=4, max_rows=max(len(table), 1),
                                    caption=f"Both fits side by side, the difference ({pair[1]} − {pair[0]}) with its "
                                            f"{words.level_words(result.alpha)} interval")._repr_html_())
        drawn = 0
        for series in rows["series"].unique():
            if drawn == words.DRAWN:
                body.append(_p(f"The first {prose.count(words.DRAWN, 'series', 'series')} are drawn; the table "
                               "gives the rest."))
                break
            name = before.card_of(series)
            fig = words.overlay({pair[0]: before.fits[name], pair[1]: after.fits[name]}, pair, series)
            if fig is not None:
                body.append(charts.render(fig.to_dict())["text/html"])
                drawn += 1
    if result.estimates is not None:
        body.append("<h2>Over all the runs: change points</h2>")
        body.append(_p(words.changepoint_method(result.alpha)))
        body.append("<ul>" + "".join(f"<li>{html.escape(n)}</li>" for _, _, n in result.change_notes) + "</ul>")
        shown = 0
        for (series, parameter), g in result.estimates.groupby(["series", "parameter"], sort=False):
            if shown == 2 * words.DRAWN:
                break
            marks = result.changes[(result.changes["series"] == series) & (result.changes["parameter"] == parameter)]
            body.append(charts.render(words.runs_chart(g, marks, series, parameter).to_dict())["text/html"])
            shown += 1
    body.append(f'<p class="meta">Intervals: {html.escape(METHOD)}; a curve\'s band is the 95 % confidence band of '
                "its fit. Runs are compared in the order given; the chapter's analysis ran on each as `mqperf run` "
                "would.</p>")
    path.write_text(report.standalone(title, body), encoding="utf-8")
