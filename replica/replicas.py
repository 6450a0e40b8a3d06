"""One replica per catalog: its recipe (``replica.<catalog>.recipe``), its scales, and the build that fills its schema.

Example:
    >>> replica_scales("multisurvey"), replica_scales("ztf")
    (('tiny', 'default'), ('tiny', 'default', 'large'))
"""

import importlib
from collections.abc import Sequence

import psycopg

from catalog import CATALOG_NAMES
from replica.engine.recipe import Recipe

__all__ = ["build_replica", "recipe", "replica_scales"]


def _module(catalog: str, name: str):
    if catalog not in CATALOG_NAMES:
        raise ValueError(f"Unknown catalog {catalog!r}; choose one of {', '.join(CATALOG_NAMES)}.")
    return importlib.import_module(f"replica.{catalog}.{name}")


def recipe(catalog: str) -> Recipe:
    """Return the catalog's recipe (its package is named after the catalog)."""
    return _module(catalog, "recipe").RECIPE


def replica_scales(catalog: str) -> tuple[str, ...]:
    """Return the scales the catalog's replica is built at, smallest first."""
    return tuple(_module(catalog, "scales").SCALES)


def build_replica(
    conn: psycopg.Connection, *, catalog: str, scale: str, seed: int, ground: Sequence[str] = ()
) -> dict[str, int]:
    """Fill the catalog's schema (its tables must exist) with the catalog's synthetic data and commit.

    Args:
        conn: A connection with rights to write the schema's tables.
        catalog: One of ``catalog.CATALOG_NAMES``.
        scale: One of `replica_scales(catalog)`.
        seed: Random seed; the same arguments always give the same rows.
        ground: Gold queries about the catalog whose answers (and near misses) are added.

    Returns:
        Rows per table.

    Raises:
        ValueError: for an unknown catalog or scale.
    """
    from replica.engine.build import build

    return build(conn, recipe(catalog), scale=scale, seed=seed, ground=ground)
