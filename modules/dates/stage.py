"""The date stage: find the dates and periods a question names and turn them into MJD ranges (no LM).

A range is half-open, ``start_mjd <= mjd < end_mjd``, with UTC midnight boundaries (``modules.dates.calendar``);
the single expressions and their conventions are in ``modules.dates.atoms``. Expressions that join two of them:
- "between X and Y", "from X to Y", "X to Y", "X - Y": from the start of X to the end of Y (the whole of Y is
  included). When one end has no year it takes the other's: "between March and May 2024" is March-May 2024,
  "between November and February 2024" starts in November 2023.
- "since X", "starting X", "on or after X", "X onwards", "X and later": from the start of X; "after X", "later
  than X": from the end of X. "before X", "prior to X", "earlier than X": up to the start of X; "until X",
  "till X", "through X", "up to X", "on or before X", "no later than X", "X or earlier": up to the end of X. The
  other side is left open (None) rather than bound by a survey's first or last night: the data bound it, and
  surveys differ. "from X" alone is X itself ("the SNe from 2023").
- "after X and before Y" (any lower and upper words): both bounds.
- An MJD or JD number is an instant, a range with ``start_mjd == end_mjd``; as a bound it is used as is.
Where matches overlap the longest wins. A span that runs backwards, or an impossible date (31 February), yields
nothing for its text.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from modules.dates.atoms import ATOMS, Atom, year_period
from modules.dates.calendar import CALENDAR_MJD, DateKind, Period, instant, iso_text

__all__ = ["DateKind", "DateRange", "date_ranges", "render_range", "render_ranges"]

_LOWER_WORDS = {"since": "start", "starting": "start", "starting from": "start"}
_LOWER_WORDS |= {"starting on": "start", "starting in": "start", "on or after": "start"}
_LOWER_WORDS |= {"after": "end", "later than": "end"}
_UPPER_WORDS = {"before": "start", "prior to": "start", "earlier than": "start", "until": "end", "till": "end"}
_UPPER_WORDS |= {"through": "end", "up to": "end", "on or before": "end", "no later than": "end"}
_LOWER_SUFFIXES = {"onwards": "start", "onward": "start", "and later": "start", "or later": "start"}
_UPPER_SUFFIXES = {"and earlier": "end", "or earlier": "end"}
"""Words that make a date a lower or an upper bound, and which end of the dated period gives the bound."""


def _words(words: Iterable[str]) -> str:
    return "|".join(word.replace(" ", r"\s+") for word in sorted(words, key=len, reverse=True))


_FIRST = r"\x00(?P<a>\d+)\x01"
_SECOND = r"(?:\x00(?P<b>\d+)\x01|(?P<raw>\d+(?:\.\d+)?)\b)"
_LOWER, _UPPER = _words(_LOWER_WORDS), _words(_UPPER_WORDS)
_SUFFIXES = _words(_LOWER_SUFFIXES | _UPPER_SUFFIXES)


@dataclass(frozen=True)
class DateRange:
    """A date expression of a question and its MJD range [start_mjd, end_mjd) in UTC.

    ``None`` on one side means open ("since 2023"); ``start_mjd == end_mjd`` is an instant (a given MJD or JD).
    """

    text: str
    start_mjd: float | None
    end_mjd: float | None
    kind: DateKind

    def as_dict(self) -> dict[str, str | float | None]:
        """Return ``{"text", "start_mjd", "end_mjd", "kind"}``, JSON-ready."""
        return {"text": self.text, "start_mjd": self.start_mjd, "end_mjd": self.end_mjd, "kind": self.kind.value}


_Built = tuple[float | None, float | None, DateKind]
"""A composite's start and end MJD (None: open) and kind."""


@dataclass(frozen=True)
class _Found:
    """A match in the question: its character offsets, and the atom and match behind it."""

    start: int
    end: int
    match: re.Match[str]
    atom: Atom | None = None


def _longest_first(found: Iterable[_Found]) -> list[_Found]:
    """Keep the longest of overlapping matches (the earlier on a tie), in question order."""
    chosen: list[_Found] = []
    for item in sorted(found, key=lambda item: (item.start - item.end, item.start)):
        if all(item.end <= other.start or item.start >= other.end for other in chosen):
            chosen.append(item)
    return sorted(chosen, key=lambda item: item.start)


def _find_atoms(question: str) -> list[_Found]:
    found = (
        _Found(match.start(), match.end(), match, atom)
        for atom in ATOMS
        for match in atom.pattern.finditer(question)
        if atom.applies(match)
    )
    return _longest_first(found)


def _placeholders(question: str, atoms: Sequence[_Found]) -> tuple[str, list[int]]:
    """Write each atom as ``\\x00<index>\\x01``; return that text and, per character, its offset in the question."""
    pieces, offsets, cursor = [], [], 0
    for index, atom in enumerate(atoms):
        token = f"\x00{index}\x01"
        pieces += [question[cursor : atom.start], token]
        offsets += [*range(cursor, atom.start), *[atom.start] * (len(token) - 1), atom.end - 1]
        cursor = atom.end
    pieces.append(question[cursor:])
    offsets += range(cursor, len(question))
    return "".join(pieces), offsets


def _resolve(found: _Found, as_of: date, year: int | None = None) -> Period | None:
    """Resolve an atom; None for an impossible date."""
    try:
        return found.atom.resolve(found.match, as_of, year)
    except (ValueError, OverflowError):
        return None


def _raw_period(raw: str, first: Period) -> Period | None:
    """A bare number closing a span: in the first end's scale (a JD is above 2400000), or a year."""
    value = float(raw)
    if first.kind is DateKind.NUMBER:
        return instant(value, is_jd=value > 2_400_000)
    return year_period(int(raw)) if re.fullmatch(r"(?:19|20)\d\d", raw) else None


def _pair(match: re.Match[str], atoms: Sequence[_Found], as_of: date) -> tuple[Period, Period] | None:
    """Resolve both ends of a span; an end without a year takes the other's."""
    first = atoms[int(match["a"])]
    if match["raw"] is not None:
        start = _resolve(first, as_of)
        end = _raw_period(match["raw"], start) if start else None
    elif first.atom.needs_year:
        end = _resolve(atoms[int(match["b"])], as_of)
        start = _end_of_span(first, as_of, end, is_last=False)
    else:
        start = _resolve(first, as_of)
        end = _end_of_span(atoms[int(match["b"])], as_of, start, is_last=True)
    return (start, end) if start and end else None


def _end_of_span(found: _Found, as_of: date, other: Period | None, *, is_last: bool) -> Period | None:
    """Resolve one end of a span, given the other: without a year of its own it takes the other's, or the year
    next to it when the span would otherwise run backwards ("between November and February 2024")."""
    if other is None or not found.atom.needs_year or other.year is None:
        return _resolve(found, as_of) if other else None
    period = _resolve(found, as_of, other.year)
    if period and (period.end <= other.start if is_last else period.start >= other.start):
        return _resolve(found, as_of, other.year + (1 if is_last else -1))
    return period


def _kind(*periods: Period) -> DateKind:
    kinds = {period.kind for period in periods}
    if DateKind.RELATIVE in kinds:
        return DateKind.RELATIVE
    return DateKind.NUMBER if kinds == {DateKind.NUMBER} else DateKind.ABSOLUTE


def _side(period: Period, side: str) -> float:
    return period.start if side == "start" else period.end


def _span(match: re.Match[str], atoms: Sequence[_Found], as_of: date) -> _Built | None:
    pair = _pair(match, atoms, as_of)
    return (pair[0].start, pair[1].end, _kind(*pair)) if pair else None


def _window(match: re.Match[str], atoms: Sequence[_Found], as_of: date) -> _Built | None:
    pair = _pair(match, atoms, as_of)
    if not pair:
        return None
    lower, upper = (" ".join(match[name].lower().split()) for name in ("low", "high"))
    return _side(pair[0], _LOWER_WORDS[lower]), _side(pair[1], _UPPER_WORDS[upper]), _kind(*pair)


def _bound(match: re.Match[str], atoms: Sequence[_Found], as_of: date) -> _Built | None:
    period = _resolve(atoms[int(match["a"])], as_of)
    if not period:
        return None
    word = " ".join(match["op"].lower().split())
    lower = (_LOWER_WORDS | _LOWER_SUFFIXES).get(word)
    if lower:
        return _side(period, lower), None, period.kind
    return None, _side(period, (_UPPER_WORDS | _UPPER_SUFFIXES)[word]), period.kind


_Builder = Callable[[re.Match[str], Sequence[_Found], date], _Built | None]
_COMPOSITES: tuple[tuple[re.Pattern[str], _Builder], ...] = (
    (re.compile(rf"\bbetween\s+{_FIRST}\s+and\s+{_SECOND}", re.I), _span),
    (re.compile(rf"(?:\bfrom\s+)?{_FIRST}\s*(?:(?:to|until|till|through)\b|[-\u2013])\s*{_SECOND}", re.I), _span),
    (re.compile(rf"\b(?P<low>{_LOWER})\s+{_FIRST}\s*,?\s*(?:and|but)\s+(?P<high>{_UPPER})\s+{_SECOND}", re.I), _window),
    (re.compile(rf"\b(?P<op>{_LOWER}|{_UPPER})\s+{_FIRST}", re.I), _bound),
    (re.compile(rf"(?:\bfrom\s+)?{_FIRST}\s+(?P<op>{_SUFFIXES})\b", re.I), _bound),
)


def _raw_fits(match: re.Match[str], atoms: Sequence[_Found], as_of: date) -> bool:
    """Tell whether a bare number closing a span can be read ("between MJD 60188 and 60218", "from 2019 to 2021")."""
    if match.groupdict().get("raw") is None:
        return True
    first = _resolve(atoms[int(match["a"])], as_of)
    return first is not None and _raw_period(match["raw"], first) is not None


def _find_composites(text: str, offsets: Sequence[int], atoms: Sequence[_Found], as_of: date) -> list[_Found]:
    found = (
        _Found(offsets[match.start()], offsets[match.end() - 1] + 1, match)
        for pattern, _ in _COMPOSITES
        for match in pattern.finditer(text)
        if _raw_fits(match, atoms, as_of)
    )
    return _longest_first(found)


def _build(composite: _Found, atoms: Sequence[_Found], as_of: date, question: str) -> DateRange | None:
    """Resolve a composite; None when a part is impossible or the range runs backwards."""
    builder = next(build for pattern, build in _COMPOSITES if pattern is composite.match.re)
    built = builder(composite.match, atoms, as_of)
    if built is None or (built[0] is not None and built[1] is not None and built[0] >= built[1]):
        return None
    return DateRange(question[composite.start : composite.end], *built)


def _atom_range(atom: _Found, as_of: date, question: str) -> DateRange | None:
    period = _resolve(atom, as_of)
    return DateRange(question[atom.start : atom.end], period.start, period.end, period.kind) if period else None


def date_ranges(question: str, as_of: date) -> list[DateRange]:
    """Find the date expressions of a question and return their MJD ranges, in question order.

    Args:
        question: The question in English.
        as_of: The reference date ("today") for relative expressions and for months and days given without a
            year; callers pass the UTC date of the run unless ``--as-of`` names one.

    Returns:
        One range per expression; [] when the question names no date.

    Examples:
        >>> date_ranges("Which SNe Ia were first detected in September 2023?", date(2026, 12, 1))
        [DateRange(text='September 2023', start_mjd=60188.0, end_mjd=60218.0, kind=<DateKind.ABSOLUTE: 'absolute'>)]
        >>> date_ranges("How many objects have more than 50 detections?", date(2026, 12, 1))
        []
    """
    atoms = _find_atoms(question)
    text, offsets = _placeholders(question, atoms)
    found, used = [], set()
    for composite in _find_composites(text, offsets, atoms, as_of):
        used |= {int(composite.match[name]) for name in ("a", "b") if composite.match.groupdict().get(name)}
        found.append((composite.start, _placed(_build, composite, atoms, as_of, question)))
    found += [
        (atom.start, _placed(_atom_range, atom, as_of, question))
        for index, atom in enumerate(atoms)
        if index not in used
    ]
    return [date_range for _, date_range in sorted(found, key=lambda item: item[0]) if date_range]


def _placed(build: Callable[..., DateRange | None], found: _Found, *args: object) -> DateRange | None:
    """Build one range; one the calendar cannot hold (or any number it cannot read) stays text, with a note."""
    try:
        built = build(found, *args)
        if built is None or all(
            side is None or CALENDAR_MJD[0] <= side <= CALENDAR_MJD[1] for side in (built.start_mjd, built.end_mjd)
        ):
            return built
    except (ArithmeticError, ValueError, TypeError):
        pass
    question = args[-1]
    return DateRange(question[found.start : found.end], None, None, DateKind.UNPLACED)


def _number(mjd: float) -> str:
    text = f"{mjd:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def render_range(date_range: DateRange) -> str:
    """Render one range as a knowledge line, with its UTC dates.

    Examples:
        >>> render_range(DateRange("since 2023", 59945.0, None, DateKind.ABSOLUTE))
        '-- "since 2023": mjd >= 59945.0 (from 2023-01-01, UTC; no upper bound)'
        >>> render_range(DateRange("MJD 60200.5", 60200.5, 60200.5, DateKind.NUMBER))
        '-- "MJD 60200.5": mjd = 60200.5 (2023-09-13 12:00:00 UTC)'
    """
    start, end = date_range.start_mjd, date_range.end_mjd
    if date_range.kind is DateKind.UNPLACED:
        return f'-- "{date_range.text}": not a date the calendar can place (years 1-9999); use it as written'
    if start is not None and start == end:
        condition = f"mjd = {_number(start)} ({iso_text(start)} UTC)"
    elif end is None:
        condition = f"mjd >= {_number(start)} (from {iso_text(start)}, UTC; no upper bound)"
    elif start is None:
        condition = f"mjd < {_number(end)} (before {iso_text(end)}, UTC; no lower bound)"
    else:
        condition = f"{_number(start)} <= mjd < {_number(end)} ({iso_text(start)} to {iso_text(end)}, UTC)"
    return f'-- "{date_range.text}": {condition}'


def render_ranges(ranges: Iterable[DateRange]) -> str:
    """Render ranges as knowledge lines, one per range ('' when there are none).

    Examples:
        >>> print(render_ranges(date_ranges("first detected in September 2023", date(2026, 12, 1))))
        -- "September 2023": 60188.0 <= mjd < 60218.0 (2023-09-01 to 2023-10-01, UTC)
    """
    return "\n".join(render_range(date_range) for date_range in ranges)
