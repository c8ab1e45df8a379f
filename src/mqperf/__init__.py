"""The MQ Performance Book: IBM MQ measurements as data, models fitted to them, an executable book."""

from mqperf.errors import DataError, ModelError, MQPerfError

__all__ = ["DataError", "ModelError", "MQPerfError", "__version__"]


def __getattr__(name: str):
    # The version is looked up when asked for: importlib.metadata and the search for the installed
    # distribution cost every process that imports mqperf (the CLI, each kernel, each worker) 0.05 s.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("mqperf")
        except PackageNotFoundError:  # running from a source tree without an install
            value = "0+unknown"
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
