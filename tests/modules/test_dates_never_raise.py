"""The date stage never raises: a date it cannot place stays text, with a note (red team round 4, finding 7)."""

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from modules.dates.calendar import DateKind
from modules.dates.stage import date_ranges, render_ranges

AS_OF = date(2026, 12, 4)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.integers(min_value=1, max_value=400).map(lambda digits: "9" * digits),
    st.floats(min_value=0, max_value=1e300, allow_nan=False).map(lambda value: f"{value:f}"),
)
FORMS = st.sampled_from(
    [
        "objects between MJD {a} and {b}",
        "detections between JD {a} and {b}",
        "objects first seen after MJD {a}",
        "alerts before JD {b}",
        "objects detected from {a} to {b}",
        "objects seen in {a}",
        "objects with last detection since MJD {a} until MJD {b}",
        "objects in the last {a} days",
        "objects from {a} weeks ago",
    ]
)


@settings(max_examples=300, deadline=None)
@given(form=FORMS, a=NUMBERS, b=NUMBERS)
def test_any_span_of_numbers_gives_ranges_or_notes_never_an_exception(form, a, b):
    question = form.format(a=a, b=b)
    ranges = date_ranges(question, AS_OF)
    text = render_ranges(ranges)
    for date_range in ranges:
        assert date_range.text in question
        if date_range.kind is DateKind.UNPLACED:
            assert date_range.start_mjd is None and date_range.end_mjd is None
    assert text.count("\n") == max(len(ranges) - 1, 0)


def test_an_end_beyond_the_calendar_is_left_as_written_with_a_note():
    (unplaced,) = date_ranges("objects between MJD 60000 and 99999999999", AS_OF)
    assert unplaced.kind is DateKind.UNPLACED
    assert "use it as written" in render_ranges([unplaced])
    (huge,) = date_ranges("objects between MJD 60000 and " + "9" * 400, AS_OF)
    assert huge.kind is DateKind.UNPLACED


def test_a_span_inside_the_calendar_is_still_placed():
    (placed,) = date_ranges("objects between MJD 59000 and 60000", AS_OF)
    assert (placed.start_mjd, placed.end_mjd, placed.kind) == (59000.0, 60000.0, DateKind.NUMBER)
