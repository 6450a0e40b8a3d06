"""The ALeRCE text-to-SQL benchmark: loading its CSV splits as DSPy examples, and downloading them."""

from data.errors import ChecksumError, DataError, DatasetFormatError, DatasetNotFound, FetchError
from data.fetch import fetch_dataset
from data.loader import dataset_sha256, default_data_dir, load_dataset, resolve_dataset_path, split_file

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
