"""Errors a reader can act on. The CLI prints their message on one line and exits 2."""


class MQPerfError(Exception):
    """Base class: bad input or a model that the data cannot support."""


class DataError(MQPerfError):
    """A data file is missing, malformed, or breaks its schema.

    The message always names the file and, where there is one, the column and the file's line.
    """

    def __init__(self, source, problem, *, column=None, row=None):
        self.source = str(source)
        self.column = column
        self.row = row
        self.problem = problem
        where = self.source
        if column is not None:
            where += f": column '{column}'"
        if row is not None:
            where += f", line {row}"
        super().__init__(f"{where}: {problem}")


class ModelError(MQPerfError):
    """The data cannot identify the model (too few points, bad values, no convergence)."""


class ParameterError(MQPerfError):
    """A chapter parameter given on the command line (``-p NAME VALUE``) is unknown or out of range."""


class OutputError(MQPerfError):
    """An output folder (``--out``) mqperf must not write into: it holds files mqperf did not
    write, belongs to the book, contains the input data, or cannot be written."""


def shorten(text, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis.

    Every message that quotes a reader's own text (a series name, a cell, a ``-p`` value)
    goes through here, so a 100,000-character value never becomes a 100,000-character line.
    """
    flat = " ".join(str(text).split()) if any(c in str(text) for c in "\r\n\t") else str(text)
    return flat if len(flat) <= limit else flat[: max(limit - 1, 1)] + "…"
