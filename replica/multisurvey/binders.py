"""How a value grounding chose for a multi-survey table reference binds to an entity: spec keys and patches.

Each binder takes (entity, table, values); ``replica.multisurvey.tables.TABLES`` names each table's binder. Spec keys
(read by ``grounding``): n_det, firstmjd, lastmjd, span, ra, dec, mjd_hint, bands (band -> fewest detections),
only_band, flux (band -> mean psfflux level, nJy), positive, n_forced, classes (classifier -> (class_id, probability,
ranking)), sources (wise, gaia), features, measured (flux values of measurement rows), designation, orbit, unfilled.
"""

import re

from replica.multisurvey.crossmatch import ALLWISE_CATID, GAIA_CATID
from replica.multisurvey.features import MULTIBAND_BAND, is_multiband
from replica.multisurvey.ids import pack_designation, unpack_designation
from replica.multisurvey.lookups import FEATURE_NAMES, LSST_BANDS, STAMP_CLASSIFIERS, classifier_version_code
from replica.multisurvey.roles import MEASUREMENT_EXTENSIONS, MEASUREMENTS

__all__ = [
    "bind_dia_object",
    "bind_feature",
    "bind_object",
    "bind_orbit",
    "bind_probability",
    "bind_rows",
    "bind_source",
    "bind_xmatch",
]

MEASURED = ("psfflux", "psffluxerr", "scienceflux", "sciencefluxerr", "snr", "isnegative")
"""Measurement columns the object's aggregates derive from: set before the aggregates are computed."""
_MEASUREMENT_HINTS = {"band": "only_band", "ra": "ra", "dec": "dec"}
"""Columns of a measurement -> the spec keys they set (its ra and dec are its object's, give or take an arcsecond)."""
_SKIPPED = {"oid", "sid", "tid", "ssobjectid", "diaobjectid", "measurement_id", "oid_catalog"}
_BAND_STAT = re.compile(r"^([ugrizy])_(\w+)$")
_FLUX_STATS = ("psffluxmean", "sciencefluxmean", "psffluxmax", "fpfluxmean")
_R_BAND = LSST_BANDS["r"]
_VERSION_CLASSIFIER = {classifier_version_code(c): c for c in STAMP_CLASSIFIERS}
_OBJECT_KEYS = {"n_det": "n_det", "n_forced": "n_forced", "firstmjd": "firstmjd", "lastmjd": "lastmjd"}
_OBJECT_KEYS |= {"deltamjd": "span", "meanra": "ra", "meandec": "dec"}
_DIA_OBJECT_KEYS = {"ndiasources": "n_det", "firstdiasourcemjdtai": "firstmjd", "lastdiasourcemjdtai": "lastmjd"}
_DIA_OBJECT_KEYS |= {"ra": "ra", "dec": "dec"}
"""Columns of object and lsst_dia_object -> the spec keys they set."""


def _number(value) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _rest(values: dict, used: set[str]) -> dict:
    return {c: v for c, v in values.items() if c not in used and c not in _SKIPPED and not c.startswith("_")}


def bind_rows(entity, table: str, values: dict) -> None:
    """A measurement table: its band, epoch and flux values go to the spec, the others to half of its rows."""
    spec = entity.spec
    used = set()
    if table in MEASUREMENTS:  # a detection's epoch puts the first one a little before it (``grounding.visits``)
        hints = _MEASUREMENT_HINTS | ({"mjd": "mjd_hint"} if table == "detection" else {})
        for column, key in hints.items():
            value = _number(values.get(column))
            if value is not None:
                spec.setdefault(key, int(value) if column == "band" else value)
                used.add(column)
    if table == "lsst_ss_detection" and isinstance(values.get("designation"), str):
        if _unpacked(values["designation"]):
            spec.setdefault("designation", _unpacked(values["designation"]))
        used.add("designation")
    violate = values.get("_violate", {})
    measured = {c: v for c, v in _rest(values, used).items() if c in MEASURED}
    if measured and table in MEASUREMENT_EXTENSIONS:
        kind = "detection" if MEASUREMENT_EXTENSIONS[table] == "detection" else "forced"
        spec.setdefault("measured", []).append((kind, measured, {c: v for c, v in violate.items() if c in measured}))
        used |= set(measured)
    rest = _rest(values, used)
    if rest:
        entity.alternating.append((table, {}, rest, {c: v for c, v in violate.items() if c in rest}))


def _unpacked(designation: str) -> str | None:
    """The unpacked form of a provisional designation, written either way; None for text that is not one."""
    for form in (lambda: designation, lambda: unpack_designation(designation)):
        try:
            unpacked = form()
            if unpack_designation(pack_designation(unpacked)) == unpacked:
                return unpacked
        except (KeyError, ValueError, IndexError, StopIteration):
            continue
    return None


def _read(spec: dict, values: dict, keys: dict[str, str]) -> set[str]:
    """Copy the numeric values of the columns of ``keys`` to their spec keys (counts as integers): the columns read."""
    used = set()
    for column, key in keys.items():
        if _number(values.get(column)) is not None:
            spec[key] = int(values[column]) if key.startswith("n_") else float(values[column])
            used.add(column)
    return used


def bind_object(entity, table: str, values: dict) -> None:
    used = _read(entity.spec, values, _OBJECT_KEYS)
    if values.get("_span"):
        entity.spec["span"] = max(entity.spec.get("span", 0.0), values["_span"])
    _patch(entity, table, _rest(values, used))


def bind_dia_object(entity, table: str, values: dict) -> None:
    spec = entity.spec
    used = _read(spec, values, _DIA_OBJECT_KEYS)
    for column, value in values.items():
        match = _BAND_STAT.match(column)
        if match and _number(value) is not None and _band_statistic(spec, LSST_BANDS[match[1]], match[2], value):
            used.add(column)
    _patch(entity, table, _rest(values, used))


def _band_statistic(spec: dict, band: int, statistic: str, value: float) -> bool:
    """Read a per-band statistic of lsst_dia_object into the spec; whether the spec holds it."""
    if statistic == "psffluxndata":
        if value >= 1:
            spec.setdefault("bands", {})[band] = max(spec.get("bands", {}).get(band, 0), int(value))
    elif statistic in _FLUX_STATS:
        spec.setdefault("flux", {})[band] = float(value)
    elif statistic == "psffluxmin":
        spec["positive"] = True
        spec.setdefault("flux", {})[band] = max(spec.get("flux", {}).get(band, 0.0), 2.0 * float(value), 200.0)
    else:
        return False
    return True


def bind_probability(entity, table: str, values: dict) -> None:
    classifier = _number(values.get("classifier_id"))
    version = _number(values.get("classifier_version"))
    if classifier is None and version is not None:
        classifier = _VERSION_CLASSIFIER.get(int(version), STAMP_CLASSIFIERS[0])
    classifier = int(classifier) if classifier is not None else STAMP_CLASSIFIERS[-1]
    class_id = _number(values.get("class_id"))
    rank = _number(values.get("ranking"))
    p = _number(values.get("probability"))
    wanted = (None if class_id is None else int(class_id), p if p is not None and 0 < p < 1 else None, int(rank or 1))
    entity.spec.setdefault("classes", {}).setdefault(classifier, wanted)


def bind_feature(entity, table: str, values: dict) -> None:
    feature = _number(values.get("feature_id"))
    if feature is None or not 0 <= feature < len(FEATURE_NAMES):
        return
    name = FEATURE_NAMES[int(feature)]
    band = _number(values.get("band"))
    band = MULTIBAND_BAND if is_multiband(name) else int(band) if band else _R_BAND
    entity.spec.setdefault("features", []).append((int(feature), band))
    value = _number(values.get("feature_value"))
    if value is not None:
        entity.patches.append(("feature", {"feature_id": int(feature), "band": band}, {"feature_value": value}))


def bind_xmatch(entity, table: str, values: dict) -> None:
    gaia = _number(values.get("catid")) == GAIA_CATID
    entity.spec.setdefault("sources", {})["gaia" if gaia else "wise"] = True
    _patch(entity, table, _rest(values, {"catid"}), {"catid": GAIA_CATID if gaia else ALLWISE_CATID})


def bind_source(entity, table: str, values: dict) -> None:
    entity.spec.setdefault("sources", {})["gaia" if table == "gaiadr3_source" else "wise"] = True
    _patch(entity, table, _rest(values, set()))


def bind_orbit(entity, table: str, values: dict) -> None:
    spec, used = entity.spec, set()
    for column in ("designation", "unpacked_primary_provisional_designation", "packed_primary_provisional_designation"):
        if isinstance(values.get(column), str):
            if _unpacked(values[column]):
                spec.setdefault("designation", _unpacked(values[column]))
            used.add(column)
    for column in ("a", "e", "i", "q", "h"):
        if _number(values.get(column)) is not None:
            spec.setdefault("orbit", {})[column] = float(values[column])
            used.add(column)
    if spec.get("orbit", {}).get("a") == 0.0:
        spec["unfilled"] = True
        del spec["orbit"]["a"]
    _patch(entity, table, _rest(values, used))


def _patch(entity, table: str, columns: dict, key: dict | None = None) -> None:
    """Patch the columns into the entity's rows of ``table`` (those with the ``key`` values, if any)."""
    if columns:
        entity.patches.append((table, key or {}, columns))
