"""File writing that a crash, a full disk or an unwritable folder cannot leave half done."""

from fileio.atomic import check_writable, write_atomic, write_files

__all__ = ["check_writable", "write_atomic", "write_files"]
