"""ZTF objects (sid 0) with integer oids: counterparts of bright LSST objects north of -28 deg, and ZTF-only ones.

Only the survey-independent tables hold ZTF rows (object, detection, forced_photometry, xmatch): the published
classifiers and features are LSST's. A counterpart shares its LSST twin's light-curve parameters, so both surveys
see the same rise, fade or period.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from catalog.ztf_names import ztf_name, ztf_oid_of
from replica.engine.draws import candid_of, uniform_sky
from replica.multisurvey.cadence import ZTF_CADENCE
from replica.multisurvey.dia_sources import observe
from replica.multisurvey.lsst_tables import created_dates, table_columns
from replica.multisurvey.population import flux_of_mag, random_spec
from replica.multisurvey.sky import date_text, offset_positions
from replica.multisurvey.summaries import object_rows
from replica.multisurvey.tables import rows_of

__all__ = ["ZtfNamer", "counterpart_spec", "ztf_only_spec", "ztf_rows", "ztf_tables"]

ZTF_SID = 0
_FAINTEST_FLUX = flux_of_mag(20.3)
_COUNTERPART_SHARE = 0.7
_OLD_YEARS = (2018, 2019, 2020, 2021)


@dataclass(frozen=True, kw_only=True)
class ZtfDrawn:
    """What ZTF objects drew, from which ``tables.TABLES`` makes their tables."""

    spec: pd.DataFrame
    objects: pd.DataFrame
    detection: pd.DataFrame
    forced_photometry: pd.DataFrame


class ZtfNamer:
    """Hands out 'ZTF<yy><7 letters>' names, increasing within a year and never twice, and candids' indexes."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.next_counter: dict[int, int] = {}
        self.gidx = 0

    def names(self, years: np.ndarray) -> list[str]:
        """Return one new name per year given."""
        out = []
        for year in years:
            counter = self.next_counter.setdefault(int(year), int(self.rng.integers(26**3, 26**4)))
            out.append(ztf_name(int(year), counter))
            self.next_counter[int(year)] = counter + int(self.rng.integers(1, 40))
        return out


def counterpart_spec(rng: np.random.Generator, lsst_spec: pd.DataFrame, chosen: np.ndarray | None = None):
    """Return the spec of the ZTF counterparts (with `lsst_oid`) of the chosen objects of `lsst_spec`.

    By default the chosen are a share of the bright SN, VS and AGN north of -28 deg.
    """
    if chosen is None:
        bright = lsst_spec["flux"].to_numpy() > _FAINTEST_FLUX
        north = lsst_spec["dec"].to_numpy() > -28.0
        lasting = np.isin(lsst_spec["kind"].to_numpy(), ("SN", "VS", "AGN"))
        chosen = bright & north & lasting & (rng.random(len(lsst_spec)) < _COUNTERPART_SHARE)
    spec = lsst_spec[chosen].copy().reset_index(drop=True)
    distance_deg = rng.uniform(0.05, 0.8, len(spec)) / 3600.0
    angle = rng.uniform(0.0, 2 * np.pi, len(spec))
    spec["ra"], spec["dec"] = offset_positions(spec["ra"].to_numpy(), spec["dec"].to_numpy(), distance_deg, angle)
    spec["deep"] = False
    return spec.rename(columns={"oid": "lsst_oid"})


def ztf_only_spec(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Return the spec of `n` objects that only ZTF sees (its northern sky, dec > -30 deg)."""
    spec = random_spec(rng, n)
    spec["ra"], spec["dec"] = uniform_sky(rng, n, -30.0, 88.0)
    sn = spec["kind"].to_numpy() == "SN"
    spec.loc[sn, "t0"] = rng.uniform(ZTF_CADENCE.start_mjd - 20.0, ZTF_CADENCE.end_mjd, sn.sum())
    spec["deep"] = False
    spec["lsst_oid"] = pd.array([pd.NA] * n, dtype="Int64")
    return spec


def _years(rng: np.random.Generator, spec: pd.DataFrame, firstmjd: np.ndarray) -> np.ndarray:
    first_year = date_text(firstmjd).astype(str).astype("U4").astype(int)
    old = np.isin(spec["kind"].to_numpy(), ("VS", "AGN")) & (rng.random(len(spec)) < 0.6)
    return np.where(old, rng.choice(_OLD_YEARS, len(spec)), first_year)


def ztf_tables(rng: np.random.Generator, spec: pd.DataFrame, namer: ZtfNamer, max_forced: int):
    """Return the rows of ZTF objects (those of ``spec`` detected at least once) and their cross-matches."""
    spec, visits = observe(rng, spec, max_forced, ZTF_CADENCE)
    firstmjd = visits[visits["is_det"]].groupby("_obj")["mjd"].min().to_numpy()
    order = np.argsort(firstmjd, kind="stable")
    names = np.empty(len(spec), dtype=object)
    names[order] = namer.names(_years(rng, spec, firstmjd)[order])
    spec["oid"] = [ztf_oid_of(name) for name in names]
    return ztf_rows(rng, spec, visits, namer)


def ztf_rows(rng: np.random.Generator, spec: pd.DataFrame, visits: pd.DataFrame, names) -> dict[str, pd.DataFrame]:
    """Return the rows of named ZTF objects (spec with oid) from their measured visits.

    Candids are numbered from ``names.gidx``, which is moved past them (grounded names have a range of their own).
    """
    pid, candid = candid_of(visits["mjd"].to_numpy(), names.gidx + np.arange(len(visits)))
    names.gidx += len(visits)
    rows = visits.join(spec[["oid", "ra", "dec"]], on="_obj").assign(
        sid=ZTF_SID, created_date=created_dates(visits["mjd"].to_numpy(), rng)
    )
    scatter = rng.normal(0.0, 0.25 / 3600.0, (len(rows), 2))
    detection = rows[rows["is_det"]].assign(measurement_id=candid[rows["is_det"].to_numpy()])
    detection["ra"] += scatter[rows["is_det"].to_numpy(), 0] / np.cos(np.radians(detection["dec"]))
    detection["dec"] += scatter[rows["is_det"].to_numpy(), 1]
    forced = rows[rows["is_forced"]].assign(measurement_id=pid[rows["is_forced"].to_numpy()])
    n_det = detection.groupby("oid").size()
    non_det = pd.Series(rng.poisson(0.4 * n_det.to_numpy()), index=n_det.index)
    objects = object_rows(detection, forced.groupby("oid").size(), non_det)
    drawn = ZtfDrawn(
        spec=spec.iloc[pd.Index(spec["oid"]).get_indexer(objects["oid"])].reset_index(drop=True),  # in object order
        objects=objects,
        detection=table_columns("detection", detection),
        forced_photometry=table_columns("forced_photometry", forced),
    )
    return rows_of("ztf", rng, drawn)
