"""Identifiers of the multi-survey database: MPC designations, LSST ids and visits (ZTF names: catalog.ztf_names).

The ZTF rule is ALeRCE's idmapper (alercebroker/pipeline, libs/idmapper); the ssObjectId is the packed
designation's ASCII bytes read as a big-endian integer, which reproduces the sample ssObjectIds of
ALeRCE_LSST_Tables c30.
"""

import numpy as np

from replica.multisurvey.cadence import VISIT_SLOT_D
from replica.multisurvey.sky import MJD_UNIX_EPOCH

__all__ = ["designation_of", "lsst_ids", "pack_designation", "ss_object_id", "unpack_designation", "visit_ids"]

_CENTURIES = {"I": 1800, "J": 1900, "K": 2000}
# Cycle counts of 100 and more are written with a letter for the tens: A = 10, ..., Z = 35, a = 36, ..., z = 61.
_CYCLE_TENS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_LSST_ID_BASE = 160_000_000_000_000_000
_LSST_ID_SPAN = 1 << 57
_LSST_ID_MULTIPLIER = 0x9E3779B97F4A7C15  # odd, so k -> k * m mod 2**57 is a bijection


def pack_designation(unpacked: str) -> str:
    """Return the packed form of a provisional designation.

    >>> pack_designation("2008 AB")
    'K08A00B'
    >>> pack_designation("2000 SK234")
    'K00SN4K'
    """
    year, code = unpacked.split(" ")
    century = next(letter for letter, start in _CENTURIES.items() if start == int(year) // 100 * 100)
    cycle = int(code[2:] or 0)
    return f"{century}{year[2:]}{code[0]}{_CYCLE_TENS[cycle // 10]}{cycle % 10}{code[1]}"


def unpack_designation(packed: str) -> str:
    """Return the unpacked form of a packed provisional designation.

    >>> unpack_designation("K08A00B")
    '2008 AB'
    >>> unpack_designation("K00SN4K")
    '2000 SK234'
    """
    year = _CENTURIES[packed[0]] + int(packed[1:3])
    cycle = _CYCLE_TENS.index(packed[4]) * 10 + int(packed[5])
    return f"{year} {packed[3]}{packed[6]}{cycle or ''}"


def ss_object_id(packed: str) -> int:
    """Return the LSST ssObjectId of a packed designation (its ASCII bytes as a big-endian integer).

    >>> ss_object_id("K08A00B")
    21163641423278146
    """
    return int.from_bytes(packed.encode("ascii"), "big")


def designation_of(ssobjectid: int) -> str | None:
    """Return the unpacked designation an ssObjectId encodes (the inverse of `ss_object_id`), or None.

    >>> designation_of(21165806405629509), designation_of(313853496686280764)
    ('2020 TE16', None)
    """
    try:
        packed = int(ssobjectid).to_bytes(8, "big").lstrip(b"\x00").decode("ascii")
        return unpack_designation(packed) if len(packed) == 7 and packed[0] in _CENTURIES else None
    except (ValueError, KeyError, IndexError, OverflowError, UnicodeDecodeError):
        return None


def lsst_ids(counters: np.ndarray) -> np.ndarray:
    """Return distinct 18-digit LSST ids (diaObjectId, diaSourceId, diaForcedSourceId) for distinct counters.

    >>> ids = lsst_ids(np.arange(1000))
    >>> len(set(ids.tolist())), int(ids.min()) >= 160_000_000_000_000_000
    (1000, True)
    """
    mixed = (np.asarray(counters, dtype=np.uint64) * np.uint64(_LSST_ID_MULTIPLIER)) % np.uint64(_LSST_ID_SPAN)
    return mixed.astype(np.int64) + _LSST_ID_BASE


def visit_ids(mjd: np.ndarray) -> np.ndarray:
    """Return LSST visit ids: the observing night's YYYYMMDD (UTC-12h) then a five-digit exposure number.

    >>> int(visit_ids(np.array([61023.2]))[0])
    2025121301511
    """
    shifted = np.asarray(mjd, dtype=float) - 0.5
    night = np.floor(shifted)
    days = (night - MJD_UNIX_EPOCH).astype("int64").astype("datetime64[D]")
    yyyymmdd = np.char.replace(days.astype(str), "-", "").astype(np.int64)
    return yyyymmdd * 100_000 + np.floor((shifted - night) / VISIT_SLOT_D).astype(np.int64)
