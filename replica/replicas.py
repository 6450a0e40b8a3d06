"""One replica per catalog: its scales, whether it grounds gold queries, and the build that fills its schema.

Example:
    >>> replica_scales("multisurvey"), can_ground("ztf"), can_ground("multisurvey")
    (('tiny', 'default'), True, False)
"""

from collections.abc import Sequence

import psycopg

from catalog import load_catalog
from replica.multisurvey.scales import SCALES as MULTISURVEY_SCALES
from replica.synthetic.scales import SCALES as ZTF_SCALES

__all__ = ["build_replica", "can_ground", "replica_scales"]

_SCALES = {"ztf": tuple(ZTF_SCALES), "multisurvey": tuple(MULTISURVEY_SCALES)}
_GROUNDED = frozenset({"ztf"})
"""Catalogs whose replica grounds gold queries (the multi-survey grounding is a later task)."""


def replica_scales(catalog: str) -> tuple[str, ...]:
    """Return the scales the catalog's replica is built at, smallest first."""
    return _SCALES[catalog]


def can_ground(catalog: str) -> bool:
    """Tell whether the catalog's replica can be grounded on gold queries."""
    return catalog in _GROUNDED


def build_replica(
    conn: psycopg.Connection, *, catalog: str, scale: str, seed: int, ground: Sequence[str] = ()
) -> dict[str, int]:
    """Fill the catalog's schema (its tables must exist) with the catalog's synthetic data and commit.

    Args:
        conn: A connection with rights to write the schema's tables.
        catalog: ``ztf`` or ``multisurvey``.
        scale: One of `replica_scales(catalog)`.
        seed: Random seed; the same arguments always give the same rows.
        ground: Gold queries whose answers are added (only where `can_ground`).

    Returns:
        Rows per table.

    Raises:
        ValueError: The catalog's replica cannot be grounded and `ground` is not empty.
    """
    if ground and not can_ground(catalog):
        raise ValueError(f"The {catalog} replica cannot be grounded on gold queries yet; build it without --ground.")
    if catalog == "ztf":
        from replica.build import build

        return build(conn, scale=scale, seed=seed, ground=ground)
    from replica.multisurvey.build import build as build_multisurvey

    return build_multisurvey(conn, scale=scale, seed=seed, schema=load_catalog(catalog).schema)
