"""File writing that a crash, a full disk or an unwritable folder cannot leave half done; text UTF-8 can encode;
JSON read as bounded data."""

from fileio.atomic import check_writable, write_atomic, write_files
from fileio.json_data import MAX_JSON_DEPTH, UnreadableJSON, loads_json
from fileio.text import encodable

__all__ = [
    "MAX_JSON_DEPTH",
    "UnreadableJSON",
    "check_writable",
    "encodable",
    "loads_json",
    "write_atomic",
    "write_files",
]
