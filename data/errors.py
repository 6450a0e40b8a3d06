"""Errors raised by the data package: one root, DataError."""

__all__ = ["ChecksumError", "DataError", "DatasetFormatError", "DatasetNotFound", "FetchError"]

HOW_TO_GET_DATA = (
    "Pass --dataset PATH (a CSV file or a folder holding dev.csv or txt2sql_alerce_train_v4_0.csv), "
    "set ALERCE_T2S_DATA, or download the benchmark with `python -m data fetch`."
)


class DataError(Exception):
    """Root of the data package's errors."""


class DatasetNotFound(DataError):
    """No dataset at the given or default location.

    Attributes:
        path: The location looked at, or None if no location was given.
    """

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class DatasetFormatError(DataError):
    """A dataset file exists but cannot be used.

    Attributes:
        path: The file.
        missing_columns: Required columns absent from the file (empty for other problems).
    """

    def __init__(self, message: str, path: str, missing_columns: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.path = path
        self.missing_columns = missing_columns


class FetchError(DataError):
    """A benchmark file could not be downloaded.

    Attributes:
        url: The URL that failed.
    """

    def __init__(self, message: str, url: str) -> None:
        super().__init__(message)
        self.url = url


class ChecksumError(FetchError):
    """A downloaded file does not have the expected sha256.

    Attributes:
        url: The URL downloaded.
        expected: The expected sha256.
        actual: The sha256 of the downloaded bytes.
    """

    def __init__(self, message: str, url: str, expected: str, actual: str) -> None:
        super().__init__(message, url)
        self.expected = expected
        self.actual = actual
