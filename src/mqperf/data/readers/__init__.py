"""Readers for tools' own output formats: text or CSV a tool writes, into contract-shaped rows.

One module per tool (:mod:`.amqsrua`, :mod:`.mqldt`). A reader takes the tool's output as
the tool writes it and returns a DataFrame in the shape of the chapter contract that reads
it; a chapter's view module (``mqperf.data.views.<chapter>``) may name a reader in its
``READERS`` so that ``views.open`` applies it to a reader's file. Readers know nothing of
the book's datasets and raise :class:`mqperf.errors.DataError` naming file, column and line.
"""
