"""What a chapter's analysis hands its notebook: named sentences, tables and charts.

A chapter module's ``analyse(params)`` computes everything and returns a :class:`Results`;
the notebook only shows its parts, ``r.show("fits")``, one per cell. That keeps the notebook
to prose and calls, makes ``mqperf check`` run exactly what the notebook runs, and lets tests
inspect every sentence, table and chart of a run without a kernel.

Rules the container enforces:
- a table or chart the data cannot support is never empty: give ``missing=`` the sentence
  saying why, and that sentence is shown instead;
- commentary on the published measurements (``about``) is kept only when the chapter runs
  on the book's own dataset, under an "About the published measurements" heading;
- sentences are Markdown; numbers in them come from :func:`mqperf.present.prose.num`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqperf.present import prose

ABOUT_TITLE = "About the published measurements"


@dataclass
class Missing:
    """A section the data cannot support: one sentence instead of an empty table or chart."""

    why: str

    def _repr_markdown_(self) -> str:
        return prose.not_supported(self.why)

    def __repr__(self) -> str:
        return prose.not_supported(self.why)


@dataclass
class Text:
    """A computed Markdown passage (rendered as Markdown by Jupyter Book and the report)."""

    markdown: str

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return self.markdown


@dataclass
class Results:
    """Everything a chapter run found, by name, in the order it was added."""

    book_data: bool
    source: str | None = None
    items: dict = field(default_factory=dict)
    #: (card name, card dict) pairs; written by the notebook's model-cards cell, never here.
    cards: list = field(default_factory=list)
    #: The points the chapter fitted (after any averaging), for ``mqperf check`` to summarise.
    points: object = None
    #: Every fitted result by name (series -> FitResult), for tests that hold sentences to fits.
    fit_results: dict = field(default_factory=dict)
    #: The FitResult behind each card, by card name: what ``mqperf compare`` sets side by side.
    card_results: dict = field(default_factory=dict)
    #: Warnings the analysis raised (numpy's, scipy's), as ``mqperf check`` caught them.
    warnings: list = field(default_factory=list)
    #: Answers that leave the measured range, in words (each also labelled where it is given).
    extrapolations: list = field(default_factory=list)
    #: What the chapter's answers are (tasks for a target, a modelled peak, ...): set by a chapter
    #: that records every one of them beyond the measured range with :meth:`extrapolated`.
    answers: str | None = None
    #: Chapter-specific checks for "How this report was made": check -> outcome for this data.
    checks: dict = field(default_factory=dict)
    #: The setup the files state (MQ version, platform, interval length, ...).
    setup: dict = field(default_factory=dict)

    # -- adding ----------------------------------------------------------------------------
    def text(self, key: str, *paragraphs: str | None) -> None:
        """A computed passage; empty paragraphs are dropped, nothing at all shows nothing."""
        body = "\n\n".join(p.strip() for p in paragraphs if p and p.strip())
        self.items[key] = Text(body) if body else None

    def about(self, key: str, markdown: str, *, title: bool = True) -> None:
        """Commentary on the published measurements: shown only on the book's own data."""
        if not self.book_data:
            self.items[key] = None
            return
        head = f"**{ABOUT_TITLE}.** " if title else ""
        self.items[key] = Text(head + markdown.strip())

    def table(self, key: str, frame, *, caption: str | None = None, digits: int | None = None,
              missing: str | None = None, **show_options) -> None:
        """A table, or the sentence ``missing`` when ``frame`` is None or has no rows.

        Raises
        ------
        ValueError
            The frame is empty and no ``missing`` sentence was given: a chapter must say why a
            section is empty, never show an empty table.
        """
        from mqperf.present import tables

        if frame is None or len(frame) == 0:
            if missing is None:
                raise ValueError(f"table {key!r} is empty and has no sentence saying why")
            self.items[key] = Missing(missing)
            return
        self.items[key] = tables.show(frame, digits=digits, caption=caption, **show_options)

    def chart(self, key: str, chart, *, missing: str | None = None) -> None:
        """A chart, or the sentence ``missing`` when ``chart`` is None."""
        if chart is None:
            if missing is None:
                raise ValueError(f"chart {key!r} is missing and has no sentence saying why")
            self.items[key] = Missing(missing)
            return
        self.items[key] = chart

    def missing(self, key: str, why: str) -> None:
        self.items[key] = Missing(why)

    def extrapolated(self, what: str) -> None:
        """Record an answer given beyond the measured range (the section lists them)."""
        if what not in self.extrapolations:
            self.extrapolations.append(what)

    def checked(self, check: str, outcome: str) -> None:
        """A chapter's own check and its outcome for this data, for "How this report was made"."""
        self.checks[check] = outcome

    def card(self, name: str, card: dict, result=None) -> None:
        """A model card, with the fit it describes (``result``) when there is one to compare.

        Card names are file names made from a reader's series labels, so two labels can make
        one name (``a/b c`` and ``a:b c`` both give ``a_b_c``): a later card whose name is
        taken gets a suffix from its own label, so every fitted series keeps its own card.
        """
        taken = {n for n, _ in self.cards}
        if name in taken:
            import hashlib

            label = str(card.get("name", "")) + "\x00" + str(len(self.cards))
            name = f"{name}-{hashlib.sha256(label.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
        self.cards.append((name, card))
        if result is not None:
            self.card_results[name] = result

    # -- showing ---------------------------------------------------------------------------
    def show(self, key: str):
        """The displayable item ``key`` (None shows nothing in a notebook)."""
        if key not in self.items:
            raise KeyError(f"no result named {key!r} (have: {', '.join(self.items)})")
        return self.items[key]

    def __getitem__(self, key: str):
        return self.show(key)

    def sentences(self) -> dict[str, str]:
        """Every computed passage and missing-section sentence, by key, with names as a reader
        reads them (the Markdown escapes of :func:`mqperf.present.text.markdown` taken out)."""
        from mqperf.present.text import unescape

        return {key: unescape(repr(item)) for key, item in self.items.items() if isinstance(item, (Text, Missing))}

    def write_cards(self, directory=None) -> list:
        """Write the model cards (the notebook's cards cell calls this); returns their paths."""
        from mqperf.present import cards

        return [cards.write_card(card, name, directory) for name, card in self.cards]
