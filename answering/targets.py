"""Target lists in Python: read one for ``ask`` and ``run_sql``, and the SQL of a cross-match by radius
(``answering.crossmatch`` runs it).

Example::

    import answering

    answer = answering.crossmatch("targets.csv", radius_arcsec=2)     # every object within 2" of each target
    answering.run_sql("SELECT count(*) FROM mylist", targets="targets.csv")
    with answering.load() as t2s:
        t2s.ask("Which of my targets have more than 50 detections?", targets="targets.csv")
"""

from __future__ import annotations

from typing import Any

from answering.errors import AnsweringError
from engines.targets import BadTargets, TargetList, read_targets

__all__ = ["MAX_RADIUS_ARCSEC", "crossmatch_sql", "target_list"]

MAX_RADIUS_ARCSEC = 600.0
"""Largest cross-match radius taken (10 arcmin): wider cones return whole fields, not counterparts."""


def target_list(source: Any, *, name: str | None = None) -> TargetList | None:
    """Read a target list (CSV or VOTable path or bytes, astropy Table, DataFrame, or a `TargetList`); None stays None.

    Raises:
        AnsweringError: The list cannot be used; the message says why in one line.
    """
    if source is None or isinstance(source, TargetList):
        return source
    try:
        return read_targets(source, **({"name": name} if name else {}))
    except BadTargets as err:
        raise AnsweringError(str(err)) from err


def crossmatch_sql(targets: TargetList, radius_arcsec: float) -> str:
    """SQL of every catalog object within `radius_arcsec` of each target, nearest first, with the distance.

    Raises:
        AnsweringError: The radius is not a number in (0, MAX_RADIUS_ARCSEC], or the list has no positions.
    """
    if not isinstance(radius_arcsec, int | float) or not 0 < radius_arcsec <= MAX_RADIUS_ARCSEC:
        raise AnsweringError(f"the cross-match radius is in arcsec, above 0 and at most {MAX_RADIUS_ARCSEC:g}")
    if targets.ra is None or targets.dec is None:
        raise AnsweringError(
            "the target list has no positions (ra, dec) to cross-match; join its objectid to object.oid"
        )
    ra, dec = f"t.{targets.ra}", f"t.{targets.dec}"
    return (
        f"SELECT t.*, o.oid, o.meanra, o.meandec, o.ndet, "
        f"q3c_dist({ra}, {dec}, o.meanra, o.meandec) * 3600 AS dist_arcsec "
        f"FROM {targets.name} AS t JOIN object AS o "
        f"ON q3c_join({ra}, {dec}, o.meanra, o.meandec, {radius_arcsec:g} / 3600.0) "
        f"ORDER BY dist_arcsec"
    )
