"""The multi-survey recipe's tables: how each population's rows of a table are made, and how a grounded value binds.

The recipe writes four populations: LSST diaObjects (``dia``, ``dia_objects.dia_tables``), solar-system objects
(``ss``, ``ss_tables.ss_tables``), ZTF objects (``ztf``, ``ztf.ztf_rows``) and the AllWISE and Gaia sources of the
objects only ZTF sees (``sources``, made from their spec). A population first draws what several of its tables
derive from; ``rows_of`` then makes every table it fills, in the order of ``TABLES``, which is the order of the
random draws. The catalog's other tables are lookups (the catalog's rows).
"""

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from replica.multisurvey import binders
from replica.multisurvey.classifications import solar_system_probability_rows
from replica.multisurvey.crossmatch import allwise_rows, xmatch_rows
from replica.multisurvey.gaia import gaia_rows
from replica.multisurvey.summaries import dia_object_rows

__all__ = ["TABLES", "Table", "rows_of"]

Population = Literal["dia", "ss", "ztf", "sources"]
Rows = Callable[[np.random.Generator, Any], pd.DataFrame]
"""A population's rows of a table: (random generator, what the population drew) -> rows."""


def _drawn(name: str) -> Rows:
    """Rows the population drew itself, as its attribute ``name``."""
    return lambda _rng, drawn: getattr(drawn, name)


@dataclass(frozen=True)
class Table:
    """How one table is filled: the binder of a grounded value, and each population's rows (None: it has none).

    The binder comes first: a table has up to four makers, one per population (ZTF's has one, for its chunks).
    """

    bind: Callable[..., None]
    _: KW_ONLY
    dia: Rows | None = None
    ss: Rows | None = None
    ztf: Rows | None = None
    sources: Rows | None = None


TABLES = {
    "object": Table(binders.bind_object, dia=_drawn("objects"), ss=_drawn("objects"), ztf=_drawn("objects")),
    "detection": Table(binders.bind_rows, dia=_drawn("detection"), ss=_drawn("detection"), ztf=_drawn("detection")),
    "lsst_detection": Table(binders.bind_rows, dia=_drawn("lsst_detection"), ss=_drawn("lsst_detection")),
    "forced_photometry": Table(binders.bind_rows, dia=_drawn("forced_photometry"), ztf=_drawn("forced_photometry")),
    "lsst_forced_photometry": Table(binders.bind_rows, dia=_drawn("lsst_forced_photometry")),
    "lsst_ss_detection": Table(binders.bind_rows, ss=_drawn("lsst_ss_detection")),
    "lsst_dia_object": Table(
        binders.bind_dia_object, dia=lambda _, d: dia_object_rows(d.detections, d.forced, d.objects)
    ),
    "lsst_mpc_orbits": Table(binders.bind_orbit, ss=_drawn("lsst_mpc_orbits")),
    "probability": Table(
        binders.bind_probability,
        dia=lambda rng, d: d.probabilities(rng, d.objects, d.spec),
        ss=lambda _, d: solar_system_probability_rows(d.objects),
    ),
    "feature": Table(binders.bind_feature, dia=lambda rng, d: d.features(rng, d.spec, d.detections, d.objects, d.wise)),
    "xmatch": Table(
        binders.bind_xmatch,
        dia=lambda _, d: xmatch_rows(d.spec, d.objects),
        ztf=lambda _, d: xmatch_rows(d.spec, d.objects),
    ),
    "allwise": Table(binders.bind_source, dia=_drawn("wise"), sources=allwise_rows),
    "gaiadr3_source": Table(binders.bind_source, dia=lambda rng, d: gaia_rows(rng, d.spec), sources=gaia_rows),
}
"""Table -> how it is filled, in the order of the random draws."""


def rows_of(population: Population, rng: np.random.Generator, drawn: Any) -> dict[str, pd.DataFrame]:
    """Return the rows of every table ``population`` fills, made from ``drawn`` (what it drew), in ``TABLES`` order."""
    makers = {name: getattr(table, population) for name, table in TABLES.items()}
    return {name: make(rng, drawn) for name, make in makers.items() if make is not None}
