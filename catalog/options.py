"""The shared ``--catalog`` option: which catalog a command asks about (``ztf`` or ``multisurvey``).

Example:
    >>> catalog_name("multisurvey")
    'multisurvey'
    >>> catalog_name("rubin")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: unknown catalog 'rubin'; choose one of ztf, multisurvey
"""

import argparse
import os

from catalog.model import CATALOG_NAMES

__all__ = ["CATALOG_ENV", "add_catalog_argument", "catalog_name", "default_catalog"]

CATALOG_ENV = "ALERCE_CATALOG"
"""Environment variable naming the catalog when ``--catalog`` is not given."""


def default_catalog() -> str:
    """Return ``$ALERCE_CATALOG`` if set, else ``ztf`` (not checked: `catalog_name` checks what a command gets)."""
    return os.environ.get(CATALOG_ENV) or CATALOG_NAMES[0]


def catalog_name(text: str) -> str:
    """Parse a catalog name (argparse type; argparse also applies it to the default, so a bad env value is caught).

    Raises:
        argparse.ArgumentTypeError: The name is not one of `CATALOG_NAMES`.
    """
    name = text.strip().lower()
    if name not in CATALOG_NAMES:
        raise argparse.ArgumentTypeError(f"unknown catalog {text!r}; choose one of {', '.join(CATALOG_NAMES)}")
    return name


def add_catalog_argument(parser: argparse.ArgumentParser | argparse._ActionsContainer, *, what: str = "") -> None:
    """Add ``--catalog`` (default ``$ALERCE_CATALOG``, else ztf).

    Args:
        parser: The parser, or a group of it.
        what: What the catalog chooses for this command, for the help (default: the data asked about).
    """
    parser.add_argument(
        "--catalog",
        type=catalog_name,
        default=default_catalog(),
        metavar="NAME",
        help=f"{what or 'the catalog asked about'}: {' or '.join(CATALOG_NAMES)} "
        f"(default: ${CATALOG_ENV} if set, else {CATALOG_NAMES[0]})",
    )
