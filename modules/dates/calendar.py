"""Calendar arithmetic of the date stage, and the conversions between calendar dates and MJD (astropy, UTC).

Every period is a half-open span of whole UTC days [first day, day after the last). Conversions go through
``astropy.time.Time`` in the UTC scale, so a day starts at an integer MJD (MJD = JD - 2400000.5).
"""

import calendar
import warnings
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum

from astropy.time import Time
from erfa import ErfaWarning

__all__ = [
    "CALENDAR_MJD",
    "DateKind",
    "Period",
    "day_period",
    "instant",
    "iso_text",
    "jd_to_mjd",
    "month_period",
    "recent_year",
    "shift_months",
    "span_period",
    "week_start",
]


class DateKind(StrEnum):
    """What a date range rests on."""

    ABSOLUTE = "absolute"
    """Calendar dates the question names ("September 2023", "2023-09-01")."""
    RELATIVE = "relative"
    """Periods that depend on the reference date: "last June", "in the last 30 days", "since yesterday", and months
    or days given without a year ("in September")."""
    NUMBER = "number"
    """MJD or JD numbers the question gives ("MJD 60200", "JD 2460200.5")."""
    UNPLACED = "unplaced"
    """An expression the stage cannot place on the calendar (beyond years 1-9999): left as the question wrote it."""


@dataclass(frozen=True)
class Period:
    """One resolved date expression: [start, end) in MJD; ``start == end`` marks an instant (a given number)."""

    start: float
    end: float
    kind: DateKind
    year: int | None = None
    """Calendar year of the first day, used to give a year to the other end of a span ("March and May 2024")."""


def _utc(value: str | float, **options: object) -> Time:
    """A UTC Time, without ERFA's "dubious year" warning.

    ERFA warns for years outside its leap-second table (before 1960, or a few years after its release). Leap
    seconds change neither the MJD of a midnight nor the date of an MJD, so the warning says nothing here.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErfaWarning)
        return Time(value, scale="utc", **options)


def _mjd(moment: date | datetime) -> float:
    return float(_utc(moment.isoformat()).mjd)


def span_period(first: date, stop: date, kind: DateKind = DateKind.ABSOLUTE) -> Period:
    """Return the period of the whole UTC days from ``first`` up to, not including, ``stop``.

    Examples:
        >>> span_period(date(2023, 9, 1), date(2023, 10, 1))
        Period(start=60188.0, end=60218.0, kind=<DateKind.ABSOLUTE: 'absolute'>, year=2023)
    """
    return Period(_mjd(first), _mjd(stop), kind, first.year)


def day_period(day: date, kind: DateKind = DateKind.ABSOLUTE) -> Period:
    """Return the period of one UTC day."""
    return span_period(day, day + timedelta(days=1), kind)


def month_period(year: int, month: int, kind: DateKind = DateKind.ABSOLUTE) -> Period:
    """Return the period of one calendar month."""
    first = date(year, month, 1)
    return span_period(first, shift_months(first, 1), kind)


_JD_MINUS_MJD = 2_400_000.5
CALENDAR_MJD = (-678575.0, 2973484.0)
"""MJDs of 0001-01-01 and 10000-01-01: beyond them a number is kept as given (the calendar cannot convert it)."""


def instant(moment: datetime | float, *, is_jd: bool = False) -> Period:
    """Return an instant: a UTC moment, or an MJD (or a JD when ``is_jd``) given as a number.

    Examples:
        >>> instant(2460200.5, is_jd=True).start
        60200.0
    """
    if isinstance(moment, datetime):
        return Period(_mjd(moment), _mjd(moment), DateKind.ABSOLUTE, moment.year)
    mjd = float(moment) - _JD_MINUS_MJD if is_jd else float(moment)
    if CALENDAR_MJD[0] <= mjd <= CALENDAR_MJD[1]:
        mjd = jd_to_mjd(moment) if is_jd else float(_utc(moment, format="mjd").mjd)
    return Period(mjd, mjd, DateKind.NUMBER)


def jd_to_mjd(jd: float) -> float:
    """Convert a Julian date to an MJD."""
    return float(_utc(jd, format="jd").mjd)


def iso_text(mjd: float) -> str:
    """Return the UTC date of an MJD, with the time of day unless it is midnight.

    Examples:
        >>> iso_text(60188.0), iso_text(60188.5)
        ('2023-09-01', '2023-09-01 12:00:00')
    """
    moment = _utc(mjd, format="mjd", precision=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErfaWarning)
        return moment.to_value("iso", subfmt="date") if mjd == int(mjd) else moment.iso


def shift_months(day: date, months: int) -> date:
    """Move ``day`` by whole months, clamping the day to the target month's length (31 March - 1 → 28/29 Feb)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def recent_year(month: int, as_of: date, *, day: int = 1, strictly_before: bool = False) -> int:
    """Return the year of the latest occurrence of ``month`` (and ``day``) not after ``as_of``.

    With ``strictly_before`` the occurrence must fall in an earlier month than ``as_of``'s ("last June" said in
    June means the June of the year before).
    """
    if strictly_before:
        return as_of.year if month < as_of.month else as_of.year - 1
    return as_of.year if (month, day) <= (as_of.month, as_of.day) else as_of.year - 1


def week_start(day: date) -> date:
    """Return the Monday of the ISO week holding ``day``."""
    return day - timedelta(days=day.weekday())
