"""Grounded ZTF objects (sid 0): twins of grounded LSST objects, and objects only ZTF sees.

Their names hold 'zz' after the year ('ZTF26zzaabcd'), where the base's never do, so no grounded oid takes a base
object's; the oid is the name's integer by the published encoding.

Example:
    >>> ZtfNames().name(61100.0)
    'ZTF26zzaaaaa'
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from replica.multisurvey.cadence import ZTF_CADENCE
from replica.multisurvey.grounding.visits import grounded_visits, plan_defaults
from replica.multisurvey.ids import ztf_oid
from replica.multisurvey.sky import date_text
from replica.multisurvey.ztf import ztf_rows

__all__ = ["ZtfNames", "ztf_objects"]

_GROUNDED_GIDX = 9_000_000_000
"""Measurement index of the first grounded ZTF visit: grounded candids never collide with the base ones."""


class ZtfNames:
    """Hands out the names of grounded ZTF objects, in order, and the measurement index of their next visit."""

    def __init__(self) -> None:
        self.count = 0
        self.gidx = _GROUNDED_GIDX

    def name(self, firstmjd: float) -> str:
        """The next name, in the year of ``firstmjd``."""
        n, letters = self.count, ""
        self.count += 1
        for _ in range(5):
            n, r = divmod(n, 26)
            letters = chr(97 + r) + letters
        return f"ZTF{str(date_text(np.array([firstmjd]))[0])[2:4]}zz{letters}"


def ztf_objects(
    rng: np.random.Generator, spec: pd.DataFrame, wanted: list[dict], names: ZtfNames
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Rows of grounded ZTF objects: (tables, spec with oid).

    Args:
        rng: Random generator.
        spec: Their generator spec (kind, position, light curve), one row per object.
        wanted: Per object, what the query asks (oid, n_det, firstmjd, span, bands; see ``bind_tables``).
        names: The registry of grounded ZTF names and measurement indexes.
    """
    plans = [
        plan_defaults(rng, {**plan, "kind": kind}, ZTF_CADENCE) for plan, kind in zip(wanted, spec["kind"], strict=True)
    ]
    spec = spec.reset_index(drop=True)
    spec["t0"] = np.where(spec["kind"] == "SN", [p["firstmjd"] + min(p["span"] * 0.25, 8.0) for p in plans], spec["t0"])
    visits = grounded_visits(rng, spec, plans, ZTF_CADENCE)
    spec["oid"] = [int(p["oid"]) if p.get("oid") else ztf_oid(names.name(p["firstmjd"])) for p in plans]
    tables, spec, used = ztf_rows(rng, spec, visits, names.gidx)
    names.gidx += used
    return tables, spec
