"""How results are shown: the one display rule for numbers (:mod:`mqperf.present.numbers`).

Kept import-light: importing the package loads nothing heavier than the standard library.
"""
