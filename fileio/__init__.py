"""File writing that a crash, a full disk or an unwritable folder cannot leave half done; text UTF-8 can encode."""

from fileio.atomic import check_writable, write_atomic, write_files
from fileio.text import encodable

__all__ = ["check_writable", "encodable", "write_atomic", "write_files"]
