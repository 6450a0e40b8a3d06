"""The single date expressions of the date stage: their patterns and how each resolves to a period.

Conventions (see ``modules.dates.stage`` for spans and open bounds):
- Years in words, quarters and ISO dates are absolute; a month or a day given without a year ("September",
  "September 1") is its latest occurrence that began on or before the reference date; "last June" is the latest
  June that ended before the reference date's month. Month names without a year or a day must be written in full,
  and "May" and "March" capitalized, so that "may be" or "Dec" (declination) are not read as dates.
- A bare year counts only after a word that introduces a time ("in 2023", "since 2019", "between 2020 and ..."),
  or after "for" when no word follows it (a follow-up's "same for 2024", but not "for 2000 objects").
- "the first/second/third/fourth week of <month>" is days 1-7, 8-14, 15-21, 22-28; "the last week" is the
  month's last seven days. "week 35 of 2023" is the ISO week (Monday to Sunday). Quarters are Jan-Mar, ...
- Rolling periods ("the last 30 days", "the past 2 weeks", "the past month") end with the reference day included:
  [reference day + 1 - length, reference day + 1). "last week/month/quarter/year" (no "the", no number) is the
  previous calendar period, "this ..." the current one; weeks are ISO weeks starting on Monday.
- "last night" is the night that ends on the reference day, counted from noon to noon UTC (the LSST convention
  for a night, dayobs): [reference day - 0.5, reference day + 0.5).
- Numbers pass through: "MJD 60200" and "JD 2460200.5" are instants.
- Dates in words: "1 Sept 2023", "1st of September, 2023", "Sept. 1, 2023", "September 1st 2023", and the
  year-first style of astronomical circulars, "2023 Sep 1".
- Not covered: seasons (hemisphere and astronomical or meteorological meaning differ), "early/mid/late"
  months, numeric dates other than ISO (01/09/2023 reads differently in the US and in Europe), hours.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from modules.dates.calendar import (
    DateKind,
    Period,
    day_period,
    instant,
    iso_text,
    month_period,
    recent_year,
    shift_months,
    span_period,
    week_start,
)

__all__ = ["ATOMS", "Atom", "year_period"]

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_NUMBERS |= {"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1}

_MONTH = r"(?P<month>(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?)"
_FULL_MONTH = (
    r"(?P<month>(?:january|february|april|june|july|august|september|october|november|december|(?-i:May|March))\b)"
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?\b"
_YEAR = r"(?P<year>\d{4})\b"
_COUNT = r"(?P<count>\d+|" + "|".join(_NUMBERS) + r")"
_ORDINAL = r"(?:the\s+)?(?P<ordinal>" + "|".join(_ORDINALS) + r")"
_UNIT = r"(?P<unit>day|week|month|quarter|year)"
_NOT_OF = r"(?!\s+of\b)"  # "the last month of 2023" is not the month before the reference date
_YEAR_CONTEXT = re.compile(
    r"\b(?:in|during|since|before|after|until|till|through|throughout|from|between|and|or|year)\s+$", re.I
)
_FOR, _WORD_AFTER = re.compile(r"\bfor\s+$", re.I), re.compile(r"\s+[a-z]", re.I)


@dataclass(frozen=True)
class Atom:
    """A date expression: its pattern and its resolver.

    ``resolve`` returns None, or raises ValueError or OverflowError, for an impossible date (31 February, year
    0, week 53 of a 52-week year): the text is then claimed and yields nothing.
    ``needs_year`` marks an expression without its own year, which takes the other end's year inside a span.
    """

    pattern: re.Pattern[str]
    resolve: Callable[[re.Match[str], date, int | None], Period | None]
    needs_year: bool = False
    applies: Callable[[re.Match[str]], bool] = lambda match: True


def _month(match: re.Match[str]) -> int:
    return _MONTHS[match["month"].lower().rstrip(".")]


def _count(match: re.Match[str]) -> int:
    """The number of units; 1 when the expression gives none ("the past month")."""
    if "count" not in match.re.groupindex:
        return 1
    text = match["count"].lower()
    return _NUMBERS[text] if text in _NUMBERS else int(text)


def _day(year: int, month: int, day: int) -> Period | None:
    try:
        return day_period(date(year, month, day))
    except ValueError:
        return None


def year_period(year: int) -> Period:
    """Return the period of one calendar year."""
    return span_period(date(year, 1, 1), date(year + 1, 1, 1))


def _iso_date(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    return _day(int(match["year"]), int(match["m"]), int(match["d"]))


def _iso_moment(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    return instant(datetime.fromisoformat(match["moment"].replace(" ", "T")))


def _iso_month(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    month = int(match["m"])
    return month_period(int(match["year"]), month) if 1 <= month <= 12 else None


def _day_month_year(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    return _day(int(match["year"]), _month(match), int(match["day"]))


def _relative(period: Period | None) -> Period | None:
    return replace(period, kind=DateKind.RELATIVE) if period else None


def _day_month(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    """A day without a year: the given year, else the latest occurrence (29 February: the latest leap year)."""
    month, day = _month(match), int(match["day"])
    if year is not None:
        return _day(year, month, day)
    latest = recent_year(month, as_of, day=day)
    return _relative(next(filter(None, (_day(latest - back, month, day) for back in range(8))), None))


def _month_year(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    return month_period(int(match["year"]), _month(match))


def _bare_month(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    month = _month(match)
    return month_period(year, month) if year else _relative(month_period(recent_year(month, as_of), month))


def _last_month_name(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    month = _month(match)
    return _relative(month_period(recent_year(month, as_of, strictly_before=True), month))


def _month_of_relative_year(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    return _relative(month_period(as_of.year - (match["which"].lower() == "last"), _month(match)))


def _year(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    return year_period(int(match["year"]))


def _follows_time_word(match: re.Match[str]) -> bool:
    if _YEAR_CONTEXT.search(match.string, 0, match.start()):
        return True
    return bool(_FOR.search(match.string, 0, match.start())) and not _WORD_AFTER.match(match.string, match.end())


def _year_range(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    first, last = int(match["year"]), int(match["last"])
    return span_period(date(first, 1, 1), date(last + 1, 1, 1)) if first < last else None


def _quarter(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    quarter = int(match["q"]) if "q" in match.re.groupindex else _ORDINALS[match["ordinal"].lower()]
    quarter = 4 if quarter < 0 else quarter
    first = date(int(match["year"]), 3 * quarter - 2, 1)
    return span_period(first, shift_months(first, 3))


def _half(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    first = date(int(match["year"]), 1 if _ORDINALS[match["ordinal"].lower()] == 1 else 7, 1)
    return span_period(first, shift_months(first, 6))


def _week_of_month(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    month = _month(match)
    year = int(match["year"]) if "year" in match.re.groupindex else year
    month_days = month_period(recent_year(month, as_of) if year is None else year, month)
    ordinal = _ORDINALS[match["ordinal"].lower()]
    first = month_days.end - 7 if ordinal < 0 else month_days.start + 7 * (ordinal - 1)
    week = Period(first, first + 7, DateKind.ABSOLUTE, month_days.year)
    return week if year else _relative(week)


def _iso_week(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    monday = date.fromisocalendar(int(match["year"]), int(match["week"]), 1)
    return span_period(monday, monday + timedelta(days=7))


def _named_day(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    words = " ".join(match[0].lower().split())
    if words == "last night":
        midnight = day_period(as_of).start
        return Period(midnight - 0.5, midnight + 0.5, DateKind.RELATIVE, as_of.year)
    back = {"today": 0, "yesterday": 1}.get(words, 2)
    return day_period(as_of - timedelta(days=back), DateKind.RELATIVE)


def _days_ago(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    days = _count(match) * (7 if match["unit"].lower() == "week" else 1)
    return day_period(as_of - timedelta(days=days), DateKind.RELATIVE)


def _rolling(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    count, unit = _count(match), match["unit"].lower()
    stop = as_of + timedelta(days=1)
    months = {"month": 1, "quarter": 3, "year": 12}.get(unit)
    days = count * (7 if unit == "week" else 1)
    first = shift_months(stop, -count * months) if months else stop - timedelta(days=days)
    return span_period(first, stop, DateKind.RELATIVE)


def _calendar_unit(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    unit, back = match["unit"].lower(), int(match["which"].lower().split()[-1] in ("last", "previous"))
    if unit == "week":
        first = week_start(as_of) - timedelta(days=7 * back)
        return span_period(first, first + timedelta(days=7), DateKind.RELATIVE)
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    current = date(as_of.year, 1 if months == 12 else (as_of.month - 1) // months * months + 1, 1)
    first = shift_months(current, -months * back)
    return span_period(first, shift_months(first, months), DateKind.RELATIVE)


def _number(match: re.Match[str], as_of: date, year: int | None) -> Period | None:
    period = instant(float(match["value"]), is_jd=match["scale"].lower().startswith(("jd", "julian")))
    iso_text(period.start)  # raises ValueError (ErfaError) for a number no calendar date can show
    return period


def _atom(pattern: str, resolve: Callable, **options: object) -> Atom:
    return Atom(re.compile(pattern, re.IGNORECASE), resolve, **options)


ATOMS = (
    _atom(r"\b(?P<moment>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?:\s*UTC\b|Z\b)?", _iso_moment),
    _atom(r"\b(?P<year>\d{4})(?P<sep>[-/])(?P<m>\d{2})(?P=sep)(?P<d>\d{2})\b", _iso_date),
    _atom(r"\b(?P<year>\d{4})-(?P<m>\d{2})\b", _iso_month),
    _atom(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}", _day_month_year),
    _atom(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}", _day_month_year),
    _atom(rf"\b{_YEAR}\s+{_MONTH}\s+{_DAY}", _day_month_year),
    _atom(rf"\b{_DAY}\s+(?:of\s+)?{_FULL_MONTH}", _day_month, needs_year=True),
    _atom(rf"\b{_FULL_MONTH}\s+{_DAY}", _day_month, needs_year=True),
    _atom(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}", _month_year),
    _atom(rf"\b{_FULL_MONTH}", _bare_month, needs_year=True),
    _atom(rf"\b(?:last|previous)\s+{_FULL_MONTH}", _last_month_name),
    _atom(rf"\b{_MONTH}\s+(?:of\s+)?(?P<which>last|this)\s+year\b", _month_of_relative_year),
    _atom(r"\b(?P<year>(?:19|20)\d\d)\b", _year, applies=_follows_time_word),
    _atom(r"\b(?P<year>(?:19|20)\d\d)\s*[-\u2013]\s*(?P<last>(?:19|20)\d\d)\b", _year_range),
    _atom(rf"\bQ(?P<q>[1-4])\s*(?:of\s+)?{_YEAR}", _quarter),
    _atom(rf"\b{_YEAR}\s*-?\s*Q(?P<q>[1-4])\b", _quarter),
    _atom(rf"\b{_ORDINAL}\s+quarter\s+of\s+{_YEAR}", _quarter),
    _atom(rf"\b(?:the\s+)?(?P<ordinal>first|1st|second|2nd)\s+half\s+of\s+{_YEAR}", _half),
    _atom(rf"\b{_ORDINAL}\s+week\s+(?:of|in)\s+{_MONTH},?\s+(?:of\s+)?{_YEAR}", _week_of_month),
    _atom(rf"\b{_ORDINAL}\s+week\s+(?:of|in)\s+{_FULL_MONTH}", _week_of_month, needs_year=True),
    _atom(rf"\b(?:ISO\s+)?week\s+(?P<week>\d{{1,2}}),?\s+(?:of\s+)?{_YEAR}", _iso_week),
    _atom(r"\b(?:today|yesterday|the\s+day\s+before\s+yesterday|last\s+night)\b", _named_day),
    _atom(rf"\b{_COUNT}\s+(?P<unit>day|week)s?\s+ago\b", _days_ago),
    _atom(rf"\b(?:the\s+)?(?:last|past|previous)\s+{_COUNT}\s+{_UNIT}s?\b", _rolling),
    _atom(rf"\b(?:the\s+(?:last|past)|past)\s+{_UNIT}\b{_NOT_OF}", _rolling),
    _atom(
        r"\b(?P<which>last|previous|the\s+previous|this|current|the\s+current)\s+(?P<unit>week|month|quarter|year)\b"
        + _NOT_OF,
        _calendar_unit,
    ),
    _atom(r"\b(?P<scale>MJD|modified\s+julian\s+date)\s*(?:=|:|of)?\s*(?P<value>\d+(?:\.\d+)?)", _number),
    _atom(r"\b(?P<scale>JD|julian\s+date)\s*(?:=|:|of)?\s*(?P<value>\d+(?:\.\d+)?)", _number),
)
"""Every single date expression; where matches overlap, the longest wins (``modules.dates.stage``)."""
