"""The ALeRCE text-to-SQL benchmark: loading its CSV splits as DSPy examples, and downloading them."""

from cli.lazy_exports import lazy_exports

__all__ = [
    "ChecksumError",
    "DataError",
    "DatasetFormatError",
    "DatasetNotFound",
    "FetchError",
    "dataset_sha256",
    "default_data_dir",
    "fetch_dataset",
    "load_dataset",
    "resolve_dataset_path",
    "split_file",
]

# Imported on first use: a command's --help must not wait for the program (benchmarks/startup.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ChecksumError": "data.errors",
        "DataError": "data.errors",
        "DatasetFormatError": "data.errors",
        "DatasetNotFound": "data.errors",
        "FetchError": "data.errors",
        "fetch_dataset": "data.fetch",
        "dataset_sha256": "data.loader",
        "default_data_dir": "data.loader",
        "load_dataset": "data.loader",
        "resolve_dataset_path": "data.loader",
        "split_file": "data.loader",
    },
)
