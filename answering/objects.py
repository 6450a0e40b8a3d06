"""One object's view, independent of any answer: position, detections, light curve, classifications, features,
cross-matches, a solar-system orbit and links out, on either catalog and engine.

Example (in a notebook)::

    import answering
    view = answering.object("ztf", "ZTF20aaelulu")      # or ("multisurvey", 313629129709715483), or a ZTF name
    view                                                 # a summary table and the light curve, inline
    view.points                                          # every photometric point: mag and flux (nJy) side by side
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from answering.errors import AnsweringError
from answering.formats import mjd_to_utc, sexagesimal
from answering.lsst_curves import SURVEYS, fetch_flux_curve
from answering.object_links import links_of
from answering.object_points import POINT_COLUMNS, epochs_only, lsst_points, ztf_band, ztf_points
from answering.object_sql import MULTISURVEY_QUERIES, ZTF_QUERIES, multisurvey_object_sql, ztf_object_sql
from answering.sky_view import SkyView, sky_view_of
from catalog.ztf_names import ZTF_NAME, is_ztf_oid, ztf_name_of, ztf_oid_of

if TYPE_CHECKING:
    from answering.notebook_plots import NotebookPlot
    from engines import Engine, EngineSettings

__all__ = ["POINT_COLUMNS", "SUMMARY_UNITS", "ObjectView", "fetch_object", "view_object"]

"""The columns of ``ObjectView.points``: kind is detection, forced or non-detection; limit_mag is the faintest
magnitude a non-detection (or a non-positive flux, at 3 sigma) allows; flux and its error in nJy."""
SUMMARY_UNITS = {
    "ra_deg": "deg",
    "dec_deg": "deg",
    "position": "hh:mm:ss.ss +dd:mm:ss.s (ICRS)",
    "first_detection.mjd": "d (MJD)",
    "last_detection.mjd": "d (MJD)",
    "first_detection.utc": "ISO 8601 UTC",
    "period_days": "d",
    "crossmatches.separation_arcsec": "arcsec",
    "track.ra": "deg",
    "track.dec": "deg",
    "points.mag": "mag (AB)",
    "points.flux": "nJy",
}
"""Units of the numbers in ``ObjectView.summary``, by key (dotted for nested ones)."""
MAX_POINTS = 500_000
"""Rows fetched per light-curve query at most."""
PERIOD_FEATURES = ("Multiband_period", "Period_band")
"""Feature names that hold a light curve's period in days, in order of preference."""
_ZTF_OID = re.compile(r"ZTF\d{2}[a-z]{7}|[A-Za-z0-9_]{1,40}")


@dataclasses.dataclass(frozen=True)
class ObjectView:
    """What a catalog holds about one object.

    Attributes:
        catalog: ``ztf`` or ``multisurvey``.
        oid: The object id as the catalog stores it (a ZTF name, or the integer as text).
        sid: The survey (multisurvey: 0 ZTF, 1 LSST diaObject, 2 LSST ssObject); None on ztf.
        name: The ZTF name when the object is a ZTF one, else "".
        ra, dec: Mean position (deg).
        first_mjd, last_mjd: First and last detection (MJD).
        n_det: Detections, as the object row counts them.
        points: The light curve, ``POINT_COLUMNS``.
        probabilities: classifier_name, classifier_version, class_name, probability, ranking.
        features: name, band, value, version.
        crossmatches: catalog, id, separation_arcsec, details (a dict of what that catalog has).
        orbit: The MPC orbit of a solar-system object (lsst_mpc_orbits), else None.
        track: mjd, ra, dec of each detection of a solar-system object, else empty.
        period: The period from the features (days), else None.
        links: Link name -> URL (nothing is fetched).
        notes: What the view could not show, in one line each.
        surveys: The other surveys that hold the same oid.
    """

    catalog: str
    oid: str
    sid: int | None
    name: str
    ra: float | None
    dec: float | None
    first_mjd: float | None
    last_mjd: float | None
    n_det: int | None
    points: pd.DataFrame
    probabilities: pd.DataFrame
    features: pd.DataFrame
    crossmatches: list[dict[str, Any]]
    orbit: dict[str, Any] | None
    track: pd.DataFrame
    period: float | None
    links: dict[str, str]
    notes: list[str]
    surveys: list[int] = dataclasses.field(default_factory=list)

    @property
    def position(self) -> str:
        """The position in sexagesimal (``hh:mm:ss.ss +dd:mm:ss.s``), or "" when the object has none."""
        return "" if self.ra is None or self.dec is None else sexagesimal(self.ra, self.dec)

    @property
    def title(self) -> str:
        """The object's name with its survey."""
        survey = f" ({SURVEYS.get(self.sid, self.sid)})" if self.sid is not None else ""
        return f"{self.name or self.oid}{survey}" if self.name != self.oid else f"{self.oid}{survey}"

    def to_dict(self, *, max_points: int | None = None) -> dict[str, Any]:
        """A JSON-ready summary (the MCP tool's and the page's data); `max_points` caps the points sent."""
        points = self.points if max_points is None else self.points.iloc[:max_points]
        return {
            "catalog": self.catalog,
            "oid": self.oid,
            "sid": self.sid,
            "name": self.name,
            "title": self.title,
            "ra_deg": self.ra,
            "dec_deg": self.dec,
            "position": self.position,
            "first_detection": _epoch(self.first_mjd),
            "last_detection": _epoch(self.last_mjd),
            "n_det": self.n_det,
            "n_points": len(self.points),
            "points": _records(points),
            "points_truncated": len(points) < len(self.points),
            "classifications": classifications(self.probabilities),
            "features": _records(self.features),
            "crossmatches": self.crossmatches,
            "orbit": self.orbit,
            "track": _records(self.track),
            "period_days": self.period,
            "links": self.links,
            "notes": self.notes,
            "surveys": self.surveys,
        }

    def summary(self) -> dict[str, Any]:
        """The view without its points, with the number of points per band and kind and the units of its numbers
        (the MCP tool ``object`` returns this)."""
        summary = self.to_dict(max_points=0)
        summary.pop("points")
        summary.pop("points_truncated")
        counts = self.points.groupby(["band", "kind"]).size() if len(self.points) else pd.Series(dtype=int)
        summary["points_per_band"] = [
            {"band": str(band), "kind": str(kind), "count": int(count)} for (band, kind), count in counts.items()
        ]
        summary["units"] = SUMMARY_UNITS
        return summary

    def light_curve(self, *, unit: str = "mag", period: float | None = None) -> NotebookPlot:
        """The interactive light curve, inline in notebooks (a PNG without a browser): magnitude (``unit="mag"``,
        limits for non-detections and non-positive fluxes) or flux in nJy; folded at `period` days when given."""
        from answering.notebook_plots import curve_plot

        return curve_plot(self, unit=unit, period=period)

    def sky(self) -> SkyView:
        """The object on the sky: its position, or a solar-system object's detections along its track."""
        if len(self.track):
            labels = [f"MJD {mjd:.5f}" for mjd in self.track["mjd"]]
            return sky_view_of(self.track["ra"], self.track["dec"], labels, title=f"{self.title}: track")
        known = self.ra is not None and self.dec is not None
        return sky_view_of([self.ra] if known else [], [self.dec] if known else [], [self.title], title=self.title)

    def _repr_html_(self) -> str:
        from answering.object_html import summary_html

        return summary_html(self)


def view_object(
    catalog: str,
    oid: object,
    *,
    sid: int | None = None,
    engine: Engine | EngineSettings | None = None,
    timeout_s: float | None = None,
) -> ObjectView:
    """Open the catalog's engine (or use `engine`) and fetch one object's view; ``answering.object`` is this.

    Args:
        catalog: ``ztf`` or ``multisurvey``.
        oid: A ZTF name (both catalogs: on multisurvey it becomes its integer oid) or a multi-survey integer oid.
        sid: The multi-survey survey (0 ZTF, 1 LSST diaObject, 2 LSST ssObject); None: the one survey holding it.
        engine: A running engine, or the settings of one to open and close (default: the embedded database).
        timeout_s: Time limit of each query.

    Raises:
        AnsweringError: Bad id, unknown catalog, no such object, or the engine serves another catalog.
        engines.errors.EngineError: The database could not be reached or a query failed.
    """
    from db.engine import open_engine
    from engines import EngineSettings

    if catalog not in ("ztf", "multisurvey"):
        raise AnsweringError(f"unknown catalog {catalog!r}; choose ztf or multisurvey")
    if engine is not None and not isinstance(engine, EngineSettings):
        return fetch_object(engine, oid, sid=sid, catalog=catalog, timeout_s=timeout_s)
    settings = engine if isinstance(engine, EngineSettings) else EngineSettings(catalog=catalog)
    if settings.catalog != catalog:
        settings = dataclasses.replace(settings, catalog=catalog)
    opened = open_engine(settings)
    try:
        return fetch_object(opened, oid, sid=sid, timeout_s=timeout_s)
    finally:
        opened.close()


def fetch_object(
    engine: Engine, oid: object, *, sid: int | None = None, catalog: str | None = None, timeout_s: float | None = None
) -> ObjectView:
    """Fetch one object's view through `engine` (its guard and read-only role apply).

    Raises:
        AnsweringError: Bad id, no such object, or `catalog` is not the engine's.
        engines.errors.EngineError: A query failed.
    """
    catalog = catalog or engine.catalog
    if catalog != engine.catalog:
        raise AnsweringError(f"this engine serves catalog {engine.catalog}, not {catalog}")
    run = _Runner(engine, timeout_s)
    if catalog == "ztf":
        if sid is not None:
            raise AnsweringError("ZTF objects have no sid; give the object name only")
        return _ztf_view(run, _ztf_id(oid))
    return _multisurvey_view(run, _multisurvey_id(oid), sid)


def classifications(probabilities: pd.DataFrame) -> list[dict[str, Any]]:
    """Group probability rows per classifier and version, classes ranked (1 first)."""
    groups = []
    if probabilities.empty:
        return groups
    for (name, version), rows in probabilities.groupby(["classifier_name", "classifier_version"], sort=True):
        ranked = rows.sort_values(["ranking", "probability"], ascending=[True, False])
        classes = [
            {"class_name": str(row.class_name), "probability": _number(row.probability), "ranking": _int(row.ranking)}
            for row in ranked.itertuples(index=False)
        ]
        groups.append({"classifier": str(name), "version": str(version), "classes": classes})
    return groups


class _Runner:
    """Runs the view's queries on one engine with one time limit."""

    def __init__(self, engine: Engine, timeout_s: float | None) -> None:
        self.engine = engine
        self.timeout_s = timeout_s

    def frame(self, sql: str) -> pd.DataFrame:
        return self.engine.execute(sql, timeout_s=self.timeout_s, max_rows=MAX_POINTS).frame


def _ztf_view(run: _Runner, oid: str) -> ObjectView:
    found = run.frame(ztf_object_sql(oid))
    if found.empty:
        raise AnsweringError(f"no object {oid!r} in the ztf catalog")
    row = found.iloc[0]
    parts = {part: run.frame(sql.format(oid=oid)) for part, sql in ZTF_QUERIES.items()}
    features = parts["features"].rename(columns={"fid": "band"})
    features["band"] = features["band"].map(ztf_band)
    ra, dec = _number(row["meanra"]), _number(row["meandec"])
    solar = parts["solar_system"].dropna(subset=["ssnamenr"])
    solar = parts["solar_system"] = solar[solar["ssnamenr"].astype(str).str.lower() != "null"]  # ZTF: none near
    solar_name = str(solar["ssnamenr"].iloc[0]) if len(solar) else ""
    return ObjectView(
        catalog="ztf",
        oid=oid,
        sid=None,
        name=oid,
        ra=ra,
        dec=dec,
        first_mjd=_number(row["firstmjd"]),
        last_mjd=_number(row["lastmjd"]),
        n_det=_int(row["ndet"]),
        points=ztf_points(parts["detections"], parts["non_detections"], parts["forced"]),
        probabilities=parts["probabilities"],
        features=features,
        crossmatches=_ztf_crossmatches(parts),
        orbit=None,
        track=pd.DataFrame(columns=["mjd", "ra", "dec"]),
        period=_period(features),
        links=links_of(ztf_name=oid, ra=ra, dec=dec, designation=solar_name),
        notes=[f"known solar-system object {solar_name} nearby (ss_ztf)"] if solar_name else [],
    )


def _multisurvey_view(run: _Runner, oid: int, sid: int | None) -> ObjectView:
    if sid is not None and sid not in SURVEYS:
        raise AnsweringError(f"{sid!r} is not a survey id; use 0 (ZTF), 1 (LSST diaObject) or 2 (LSST ssObject)")
    rows = run.frame(multisurvey_object_sql(oid, None))
    surveys = [int(value) for value in rows["sid"]]
    if not surveys:
        raise AnsweringError(f"no object {oid} in the multisurvey catalog")
    if sid is None:
        if len(surveys) > 1:
            raise AnsweringError(f"object {oid} is in surveys {', '.join(map(str, surveys))}; give its sid")
        sid = surveys[0]
    if sid not in surveys:
        raise AnsweringError(f"object {oid} is not in survey {sid}; it is in {', '.join(map(str, surveys))}")
    row = rows[rows["sid"] == sid].iloc[0]
    parts = {
        part: run.frame(sql.format(oid=oid, sid=sid))
        for part, sql in MULTISURVEY_QUERIES.items()
        if (part != "ztf_epochs" or sid == 0) and (part != "orbit" or sid == 2)
    }
    notes: list[str] = []
    name = ztf_name_of(oid) if sid == 0 and is_ztf_oid(oid) else ""
    track = pd.DataFrame(columns=["mjd", "ra", "dec"])
    if sid == 0:
        points = epochs_only(parts["ztf_epochs"])
        notes.append(
            "ZTF magnitudes are not in the multisurvey catalog (its detections hold times and bands only); "
            + (f"open {name} in the ztf catalog for its light curve" if name else "see the ztf catalog")
        )
    else:
        curve = fetch_flux_curve(run.engine, oid, sid, timeout_s=run.timeout_s)
        points = lsst_points(curve.detections, curve.forced)
        if sid == 2:
            track = curve.detections[["mjd", "ra", "dec"]].dropna().reset_index(drop=True)
    orbit = None
    if sid == 2:
        found = parts["orbit"]
        orbit = {key: _plain(value) for key, value in found.iloc[0].items()} if len(found) else None
        if orbit is None:
            notes.append("no MPC orbit for this solar-system object (lsst_mpc_orbits)")
    features = parts["features"].copy()
    features["band"] = features["band_name"].where(features["band_name"].notna(), "multiband")
    features = features[["name", "band", "value", "version"]]
    ra, dec = _number(row["meanra"]), _number(row["meandec"])
    designation = str((orbit or {}).get("designation") or "")
    return ObjectView(
        catalog="multisurvey",
        oid=str(oid),
        sid=sid,
        name=name,
        ra=ra,
        dec=dec,
        first_mjd=_number(row["firstmjd"]),
        last_mjd=_number(row["lastmjd"]),
        n_det=_int(row["n_det"]),
        points=points,
        probabilities=parts["probabilities"],
        features=features,
        crossmatches=_multisurvey_crossmatches(parts["xmatch"]),
        orbit=orbit,
        track=track,
        period=_period(features),
        links=links_of(ztf_name=name, lsst_oid=oid if sid else None, ra=ra, dec=dec, designation=designation),
        notes=notes,
        surveys=[other for other in surveys if other != sid],
    )


def _ztf_crossmatches(parts: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    found = []
    for row in parts["xmatch"].to_dict("records"):
        details = {key: _plain(row[key]) for key in row if key not in ("catid", "oid_catalog", "dist")}
        found.append(_match(str(row["catid"]), row["oid_catalog"], row["dist"], details))
    ps1 = parts["ps1"]
    if len(ps1):
        latest = ps1.iloc[-1]
        details = {key: _plain(latest[key]) for key in ("sgscore1", "sgmag1", "srmag1", "simag1", "szmag1")}
        found.append(_match("PS1", latest["objectidps1"], latest["distpsnr1"], details))
    for row in parts["gaia"].to_dict("records"):
        details = {"maggaia": _plain(row["maggaia"]), "maggaiabright": _plain(row["maggaiabright"])}
        details["neargaiabright_arcsec"] = _plain(row["neargaiabright"])
        found.append(_match("Gaia (nearest, ZTF alert)", None, row["neargaia"], details))
    for row in parts["solar_system"].to_dict("records"):
        found.append(_match("MPC (ss_ztf)", row["ssnamenr"], row["ssdistnr"], {"ssmagnr": _plain(row["ssmagnr"])}))
    return found


def _multisurvey_crossmatches(frame: pd.DataFrame) -> list[dict[str, Any]]:
    found = []
    for row in frame.to_dict("records"):
        catalog = str(row["catalog_name"] or row["catid"])
        prefix = ("w",) if row["catid"] == 0 else ("phot", "bp", "parallax", "pm", "ruwe")
        details = {
            key: _plain(value)
            for key, value in row.items()
            if key.startswith(prefix) and value is not None and not _is_nan(value)
        }
        found.append(_match(catalog, row["oid_catalog"], row["dist"], details))
    return found


def _match(catalog: str, identifier: object, distance: object, details: dict[str, Any]) -> dict[str, Any]:
    """One cross-match; ZTF's -999 (no match) is no separation."""
    return {
        "catalog": catalog,
        "id": None if identifier is None or _is_nan(identifier) else str(identifier),
        "separation_arcsec": None if (separation := _number(distance)) is None or separation < 0 else separation,
        "details": details,
    }


def _period(features: pd.DataFrame) -> float | None:
    for name in PERIOD_FEATURES:
        values = pd.to_numeric(features.loc[features["name"] == name, "value"], errors="coerce").dropna()
        values = values[values > 0]
        if len(values):
            return float(values.iloc[0])
    return None


def _ztf_id(oid: object) -> str:
    text = str(oid).strip()
    if not _ZTF_OID.fullmatch(text):
        raise AnsweringError(f"{text!r} is not a ZTF object id; give one like 'ZTF20aaelulu'")
    return text


def _multisurvey_id(oid: object) -> int:
    text = str(oid).strip()
    if ZTF_NAME.fullmatch(text):
        return ztf_oid_of(text)
    try:
        return int(text)
    except ValueError:
        raise AnsweringError(
            f"{text!r} is not a multisurvey oid; give an integer or a ZTF name like 'ZTF26aacextk'"
        ) from None


def _epoch(mjd: float | None) -> dict[str, Any] | None:
    if mjd is None:
        return None
    return {"mjd": mjd, "utc": mjd_to_utc(mjd)}


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{key: _plain(value) for key, value in row.items()} for row in frame.to_dict("records")]


def _plain(value: object) -> Any:
    if value is None or _is_nan(value):
        return None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, float, str, bool)):
        return value
    return str(value)


def _is_nan(value: object) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _number(value: object) -> float | None:
    plain = _plain(value)
    return float(plain) if isinstance(plain, (int, float)) and not isinstance(plain, bool) else None


def _int(value: object) -> int | None:
    number = _number(value)
    return None if number is None else int(number)
