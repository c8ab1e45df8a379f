"""How results are shown: tables, charts, sentences, model cards, the report's own sections.

Every number goes through the one display rule (:mod:`mqperf.numbers`, below the models, so
fits and pages share it); every reader string through :mod:`mqperf.present.text`.
Kept import-light: importing the package loads nothing heavier than the standard library.
"""
