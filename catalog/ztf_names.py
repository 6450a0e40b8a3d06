"""ZTF object names and the integer oids the multi-survey catalog stores them as (ALeRCE's idmapper,
alercebroker/pipeline branch multisurvey, ``libs/idmapper/idmapper/ztf.py``).

oid = 2**55 + YY * 26**7 + the seven letters read as a base-26 number ('a' = 0).
"""

from __future__ import annotations

import re

__all__ = ["ZTF_NAME", "is_ztf_oid", "ztf_name", "ztf_name_of", "ztf_oid_of"]

ZTF_NAME = re.compile(r"ZTF(\d{2})([a-z]{7})")
"""A ZTF object name, e.g. ``ZTF26aacextk``."""
_PREFIX = 1 << 55
_LETTERS = 26**7


def ztf_oid_of(name: str) -> int:
    """Return the multi-survey integer oid of a ZTF name.

    Raises:
        ValueError: `name` is not of the form ``ZTFYYabcdefg``.

    Examples:
        >>> ztf_oid_of("ZTF26aacextk")
        36029005847028852
    """
    found = ZTF_NAME.fullmatch(name)
    if found is None:
        raise ValueError(f"{name!r} is not a ZTF name like 'ZTF26aacextk'")
    number = 0
    for letter in found.group(2):
        number = number * 26 + ord(letter) - ord("a")
    return _PREFIX + int(found.group(1)) * _LETTERS + number


def is_ztf_oid(oid: int) -> bool:
    """Whether an integer oid carries the ZTF survey prefix.

    Examples:
        >>> is_ztf_oid(36029005847028852), is_ztf_oid(313853496686280764)
        (True, False)
    """
    return _PREFIX <= oid < 2 * _PREFIX


def ztf_name_of(oid: int) -> str:
    """Return the ZTF name an integer oid encodes.

    Raises:
        ValueError: `oid` has no ZTF prefix.

    Examples:
        >>> ztf_name_of(36029005847028852)
        'ZTF26aacextk'
    """
    if not is_ztf_oid(oid):
        raise ValueError(f"{oid} is not a ZTF oid of the multi-survey catalog")
    rest = oid - _PREFIX
    return ztf_name((rest // _LETTERS) % 100, rest % _LETTERS)


def ztf_name(year: int, number: int) -> str:
    """Return the ZTF name of a year (its last two digits count) and a number below 26**7 (the letters, base 26).

    Examples:
        >>> ztf_name(2026, 1_000_308), ztf_name(18, 0)
        ('ZTF26aacextk', 'ZTF18aaaaaaa')
    """
    letters = []
    for _ in range(7):
        number, digit = divmod(number, 26)
        letters.append(chr(ord("a") + digit))
    return f"ZTF{year % 100:02d}{''.join(reversed(letters))}"
