"""Literals of multi-survey gold queries redrawn from the catalog's value domains (``perturbed_golds``' rules).

Object ids are redrawn as ids of the same survey (an 18-digit LSST id, a ZTF name's integer, a designation's
ssObjectId), designations as designations (packed or unpacked, as written), class names, band names and feature
names within their lookup tables; MJDs move together, staying within the LSST window; other thresholds move by a
random factor, and positions to the LSST sky. Survey, classifier, band and class ids, rankings and limits stay.

Example:
    >>> perturb_multisurvey("SELECT oid FROM object WHERE sid = 1 AND n_det >= 10", 1)
    'SELECT oid FROM object WHERE sid = 1 AND n_det >= 14.4'
"""

from __future__ import annotations

import random
import re

import sqlglot
from sqlglot import exp

from catalog.ztf_names import is_ztf_oid, ztf_oid_of
from replica.multisurvey.features import is_multiband
from replica.multisurvey.ids import pack_designation, ss_object_id
from replica.multisurvey.lookups import CLASS_NAMES, FEATURE_NAMES, LSST_BANDS
from replica.multisurvey.sky import LSST_END_MJD, LSST_START_MJD

__all__ = ["perturb_multisurvey"]

_IDS = {"oid", "ssobjectid", "measurement_id", "diaobjectid"}
_KEPT = {"sid", "tid", "band", "ranking", "classifier_id", "class_id", "catid", "version", "feature_id"}
_KEPT |= {"classifier_version", "band_order", "taxonomy_order", "version_id"}
_UNPACKED = re.compile(r"^(19|20)\d{2} [A-HJ-Y][A-HJ-Z]\d*$")
_PACKED = re.compile(r"^[IJK]\d{2}[A-HJ-Y][0-9A-Za-z]\d[A-HJ-Z]$")
_LSST_IDS = (160_000_000_000_000_000, 160_000_000_000_000_000 + 2**57)
_MJD_SHIFT_D = 60.0
_DEC_RANGE = (-70.0, 20.0)


_HALF_MONTHS = "ABCDEFGHJKLMNOPQRSTUVWXY"
_ORDER_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _designation(rng: random.Random) -> str:
    year, cycle = rng.randint(1995, 2025), rng.randint(0, 250)
    return f"{year} {rng.choice(_HALF_MONTHS)}{rng.choice(_ORDER_LETTERS)}{cycle or ''}"


def _object_id(value: int, rng: random.Random) -> int:
    """A new id of the same survey as ``value``."""
    if is_ztf_oid(value):
        return ztf_oid_of(f"ZTF{rng.randint(18, 25)}" + "".join(rng.choice(_LETTERS) for _ in range(7)))
    if value < _LSST_IDS[0]:
        return ss_object_id(pack_designation(_designation(rng)))
    return rng.randrange(*_LSST_IDS)


def _string(value: str, column: str, rng: random.Random) -> str:
    if value.isdigit() and column in _IDS:
        return str(_object_id(int(value), rng))
    if _UNPACKED.match(value):
        return _designation(rng)
    if _PACKED.match(value):
        return pack_designation(_designation(rng))
    if value in CLASS_NAMES:
        return rng.choice(CLASS_NAMES)
    if value in LSST_BANDS and column == "band_name":
        return rng.choice(sorted(LSST_BANDS))
    if value in FEATURE_NAMES:
        return rng.choice([name for name in FEATURE_NAMES if is_multiband(name) == is_multiband(value)])
    return value


def _column_of(node: exp.Literal) -> str:
    for parent in (node.parent, node.parent.parent if node.parent else None):
        if isinstance(parent, exp.Binary | exp.In | exp.Between):
            columns = list(parent.find_all(exp.Column))
            if columns:
                return columns[0].name.lower()
    return ""


def _number(node: exp.Literal, rng: random.Random, shifts: dict) -> str | None:
    """The literal's new text, or None to keep it; literals compared with the same column move together."""
    value, column = float(node.this), _column_of(node)
    if column in _IDS and node.this.isdigit():
        return str(_object_id(int(node.this), rng))
    parent = node.parent
    while isinstance(parent, exp.Neg | exp.Paren):
        parent = parent.parent
    if isinstance(parent, exp.Limit) or column in _KEPT or node.find_ancestor(exp.Values, exp.Anonymous):
        return None
    if value > 50000:
        return str(round(value + shifts["_mjd"], 1))
    if 0 < value < 1:
        return str(round(min(0.95, max(0.05, value + shifts.setdefault(column, rng.uniform(-0.15, 0.15)))), 2))
    if value >= 2:
        scaled = value * shifts.setdefault(column, rng.uniform(0.6, 1.5))
        return str(float(max(1, round(scaled))) if value >= 20 and value == int(value) else round(scaled, 1))
    return None


def _mjd_shift(tree: exp.Expression, rng: random.Random) -> float:
    """One shift for every MJD of the query, keeping them within the LSST window (else none)."""
    mjds = [float(n.this) for n in tree.find_all(exp.Literal) if not n.is_string and float(n.this) > 50000]
    shift = rng.uniform(-_MJD_SHIFT_D, _MJD_SHIFT_D)
    for candidate in (shift, -shift):
        if all(LSST_START_MJD <= mjd + candidate <= LSST_END_MJD + 1.0 for mjd in mjds):
            return candidate
    return 0.0


def _positions(tree: exp.Expression, rng: random.Random) -> None:
    """Move every literal (ra, dec) pair of a VALUES row or q3c call to a new position in the LSST sky."""
    for holder in list(tree.find_all(exp.Tuple)) + list(tree.find_all(exp.Anonymous)):
        numbers = [a for a in holder.expressions if isinstance(a, exp.Literal) and not a.is_string]
        if len(numbers) >= 2 and 0 <= float(numbers[0].this) <= 360 and abs(float(numbers[1].this)) <= 90:
            numbers[0].replace(exp.Literal.number(round(rng.uniform(0, 360), 5)))
            numbers[1].replace(exp.Literal.number(round(rng.uniform(*_DEC_RANGE), 5)))


def perturb_multisurvey(sql: str, seed: int) -> str:
    """The multi-survey gold query with its literals redrawn (deterministic for a seed)."""
    rng = random.Random(f"{seed}:{sql}")
    tree = sqlglot.parse_one(sql, read="postgres")
    _positions(tree, rng)
    strings: dict[str, str] = {}
    shifts = {"_mjd": _mjd_shift(tree, rng)}
    for node in list(tree.find_all(exp.Literal)):
        if node.is_string:
            if node.this not in strings:  # the same literal twice gets the same new value
                strings[node.this] = _string(node.this, _column_of(node), rng)
            node.replace(exp.Literal.string(strings[node.this]))
            continue
        new = _number(node, rng, shifts)
        if new is not None:
            node.replace(exp.Literal.number(new))
    return tree.sql(dialect="postgres")
