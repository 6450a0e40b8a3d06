"""One replica per catalog: its scales, and the build that fills its schema (grounded on gold queries).

Example:
    >>> replica_scales("multisurvey"), replica_scales("ztf")
    (('tiny', 'default'), ('tiny', 'default', 'large'))
"""

from collections.abc import Sequence

import psycopg

from catalog import load_catalog
from replica.multisurvey.scales import SCALES as MULTISURVEY_SCALES
from replica.synthetic.scales import SCALES as ZTF_SCALES

__all__ = ["build_replica", "replica_scales"]

_SCALES = {"ztf": tuple(ZTF_SCALES), "multisurvey": tuple(MULTISURVEY_SCALES)}


def replica_scales(catalog: str) -> tuple[str, ...]:
    """Return the scales the catalog's replica is built at, smallest first."""
    return _SCALES[catalog]


def build_replica(
    conn: psycopg.Connection, *, catalog: str, scale: str, seed: int, ground: Sequence[str] = ()
) -> dict[str, int]:
    """Fill the catalog's schema (its tables must exist) with the catalog's synthetic data and commit.

    Args:
        conn: A connection with rights to write the schema's tables.
        catalog: ``ztf`` or ``multisurvey``.
        scale: One of `replica_scales(catalog)`.
        seed: Random seed; the same arguments always give the same rows.
        ground: Gold queries about the catalog whose answers (and near misses) are added.

    Returns:
        Rows per table.
    """
    if catalog == "ztf":
        from replica.build import build

        return build(conn, scale=scale, seed=seed, ground=ground)
    from replica.multisurvey.build import build as build_multisurvey

    return build_multisurvey(conn, scale=scale, seed=seed, schema=load_catalog(catalog).schema, ground=ground)
