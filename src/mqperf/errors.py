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
