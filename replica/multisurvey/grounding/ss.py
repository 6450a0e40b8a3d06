"""Grounded solar-system objects (sid 2): the orbit, designation, nights and detections a query asks for.

The orbit's elements a query names are kept and the others drawn; among candidate orientations the one nearest
opposition on the first night is taken (where LSST finds such objects, moving fastest). Detections are measured
along the orbit like the base's, every one above the detection threshold; the tables are the base build's.
"""

import numpy as np
import pandas as pd

from replica.engine.grounding.entity import Entity
from replica.multisurvey.cadence import snap_to_visits, visits_at
from replica.multisurvey.grounding.fluxes import DETECTION_FLOOR_SNR
from replica.multisurvey.ids import designation_of
from replica.multisurvey.orbits import apparent_v, ephemeris, random_elements
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD
from replica.multisurvey.ss_objects import G_SLOPE, observed_epochs
from replica.multisurvey.ss_tables import ss_tables

__all__ = ["ss_objects"]

_CANDIDATES = 64


def _start(rng: np.random.Generator, spec: dict) -> float:
    """The first night: the one asked for (within the survey), else a random one."""
    first = spec.get("firstmjd", rng.uniform(LSST_START_MJD, LSST_END_MJD - 10.0))
    return float(np.floor(np.clip(first, LSST_START_MJD, LSST_END_MJD - 9.0))) + 0.05


def _asked_elements(orbit: dict, rng: np.random.Generator) -> dict[str, float]:
    """The elements a query asks for; q with a or e gives the other (values no orbit has are left out)."""
    a, e, q = (orbit.get(name) for name in ("a", "e", "q"))
    a, q = (value if value is not None and value > 0 else None for value in (a, q))
    e = e if e is not None and 0 <= e < 1 else None
    if q is not None and a is None:
        e = e if e is not None else float(rng.uniform(0.1, 0.6))
        a = q / max(1.0 - e, 0.01)
    elif q is not None:
        e = min(max(1.0 - q / a, 0.0), 0.99)
    return {name: float(value) for name, value in (("a", a), ("e", e), ("i", orbit.get("i"))) if value is not None}


def _orbits(rng: np.random.Generator, specs: list[dict], starts: np.ndarray) -> pd.DataFrame:
    """One orbit per object: the candidate nearest opposition on its first night (H as asked, else drawn)."""
    candidates = random_elements(rng, _CANDIDATES * len(specs))
    for k, spec in enumerate(specs):
        for column, value in _asked_elements(spec.get("orbit", {}), rng).items():
            candidates.loc[k * _CANDIDATES : (k + 1) * _CANDIDATES - 1, column] = value
    eph = ephemeris(candidates, np.repeat(starts, _CANDIDATES))
    best = eph["elongation"].reshape(len(specs), _CANDIDATES).argmax(axis=1)  # near opposition: it moves fast
    chosen = np.arange(len(specs)) * _CANDIDATES + best
    orbits = candidates.iloc[chosen].reset_index(drop=True)
    geometry = apparent_v(0.0, G_SLOPE, eph["heliorange"][chosen], eph["toporange"][chosen], eph["phaseangle"][chosen])
    drawn = rng.uniform(19.0, 22.0, len(specs)) - geometry
    orbits["h"] = [spec.get("orbit", {}).get("h", h) for spec, h in zip(specs, drawn, strict=True)]
    orbits["g"] = G_SLOPE
    return orbits


def _epochs(rng: np.random.Generator, spec: dict, start: float) -> np.ndarray:
    """The MJDs of the object's detections: n_det over its nights, a few minutes apart within a night."""
    span = spec.get("span")
    if span is None and "lastmjd" in spec:
        span = spec["lastmjd"] - spec.get("firstmjd", start)
    nights = spec.get("nights") or (int(np.ceil(span)) + 1 if span is not None else int(rng.integers(1, 6)))
    nights = int(min(max(nights, 1), 8))
    n_det = max(spec.get("n_det") or int(rng.integers(8, 40)), 2)
    night = start + np.repeat(np.arange(nights), int(np.ceil(n_det / nights)))[:n_det]
    step = np.arange(n_det) % max(n_det // nights, 1) * 0.012
    return np.unique(snap_to_visits(night + rng.uniform(0.0, 0.05, n_det) + step))


def _detected(det: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Every visit detected: the noise is lowered where the flux is below the detection threshold."""
    sigma = np.minimum(
        det["psffluxerr"].to_numpy(),
        np.abs(det["psfflux"].to_numpy()) / rng.uniform(DETECTION_FLOOR_SNR, 9.0, len(det)),
    )
    det["psfflux"] = np.abs(det["psfflux"].to_numpy())
    det["psffluxerr"], det["sciencefluxerr"] = sigma, sigma * 0.9
    det["snr"] = det["psfflux"] / sigma
    return det


def ss_objects(rng: np.random.Generator, entities: list[Entity], counter: int) -> dict[str, pd.DataFrame]:
    """Rows of grounded solar-system objects (entities named as they are written); ids from LSST id ``counter`` on."""
    starts = np.array([_start(rng, entity.spec) for entity in entities])
    elements = _orbits(rng, [entity.spec for entity in entities], starts)
    mjds = [_epochs(rng, e.spec, s) for e, s in zip(entities, starts, strict=True)]
    epochs = visits_at(rng, np.concatenate([np.full(len(m), k) for k, m in enumerate(mjds)]), np.concatenate(mjds))
    det = _detected(observed_epochs(rng, elements, epochs), rng)
    named = [e.spec.get("designation") or (designation_of(e.oid) if e.oid else None) for e in entities]
    # an id that encodes no designation keeps it
    ids = [int(e.oid) if e.oid is not None and designation_of(e.oid) is None else None for e in entities]
    unfilled = [bool(e.spec.get("unfilled")) for e in entities]
    tables = ss_tables(rng, elements, det, counter, set(), designations=named, ids=ids, unfilled=unfilled)
    for entity, oid in zip(entities, elements["ssobjectid"], strict=True):
        entity.oid = int(oid)
    return tables
