"""The MQ Performance Book: IBM MQ measurements as data, models fitted to them, an executable book."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mqperf")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0+unknown"

from mqperf.errors import DataError, ModelError, MQPerfError  # noqa: E402

__all__ = ["DataError", "ModelError", "MQPerfError", "__version__"]
