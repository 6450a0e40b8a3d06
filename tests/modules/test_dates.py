"""The date stage: the case table of tests/fixtures/date_cases.yaml, and the edges of the calendar."""

import calendar
import dataclasses
from datetime import date, timedelta
from pathlib import Path

import pytest
import yaml

from modules.dates.stage import DateKind, DateRange, date_ranges, render_range, render_ranges

CASES = yaml.safe_load((Path(__file__).parents[1] / "fixtures" / "date_cases.yaml").read_text())
AS_OF = date(2023, 10, 15)


def expected_ranges(case: dict) -> list[DateRange]:
    return [DateRange(r["text"], r["start"], r["end"], DateKind(r["kind"])) for r in case["ranges"]]


@pytest.mark.parametrize("case", CASES["matches"], ids=[case["id"] for case in CASES["matches"]])
def test_date_ranges_match_the_case_table(case):
    assert date_ranges(case["question"], case["as_of"]) == expected_ranges(case)


@pytest.mark.parametrize("question", CASES["non_matches"])
def test_questions_without_a_readable_date_give_no_range(question):
    assert date_ranges(question, AS_OF) == []


def test_case_table_has_at_least_40_expressions():
    assert len(CASES["matches"]) >= 40


@pytest.mark.parametrize("year", [2023, 2024])
@pytest.mark.parametrize("month", range(1, 13))
def test_a_month_lasts_its_calendar_length(year, month):
    (found,) = date_ranges(f"Objects detected in {calendar.month_name[month]} {year}", AS_OF)
    assert found.end_mjd - found.start_mjd == calendar.monthrange(year, month)[1]


def test_consecutive_months_meet_across_the_new_year():
    (december,) = date_ranges("in December 2023", AS_OF)
    (january,) = date_ranges("in January 2024", AS_OF)
    assert december.end_mjd == january.start_mjd == 60310.0


def test_a_leap_year_is_one_day_longer():
    (common,) = date_ranges("in 2023", AS_OF)
    (leap,) = date_ranges("in 2024", AS_OF)
    assert (common.end_mjd - common.start_mjd, leap.end_mjd - leap.start_mjd) == (365, 366)


def test_absolute_dates_do_not_depend_on_the_reference_date():
    question = "between 1 Sept 2023 and 2023-10-31"
    assert date_ranges(question, date(2024, 1, 1)) == date_ranges(question, date(2030, 6, 30))


def test_relative_dates_move_with_the_reference_date():
    (before,) = date_ranges("in the last 30 days", date(2023, 10, 15))
    (after,) = date_ranges("in the last 30 days", date(2023, 10, 16))
    assert (after.start_mjd - before.start_mjd, after.end_mjd - before.end_mjd) == (1, 1)


def test_the_longest_of_overlapping_expressions_wins():
    found = date_ranges("Detections in the last week of February 2024", AS_OF)
    assert [r.text for r in found] == ["the last week of February 2024"]


def test_an_impossible_date_is_not_read_as_its_month():
    assert date_ranges("on 31 February 2023", AS_OF) == []


def test_several_expressions_come_in_question_order():
    found = date_ranges("Objects seen since yesterday but first detected before 2020", AS_OF)
    assert [r.text for r in found] == ["since yesterday", "before 2020"]


def test_a_date_range_is_frozen():
    (found,) = date_ranges("in 2023", AS_OF)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.start_mjd = 0.0


def test_acceptance_question_renders_its_half_open_range():
    found = date_ranges("Which SNe Ia were first detected in September 2023?", date(2026, 12, 1))
    assert render_ranges(found) == '-- "September 2023": 60188.0 <= mjd < 60218.0 (2023-09-01 to 2023-10-01, UTC)'


@pytest.mark.parametrize(
    ("date_range", "line"),
    [
        (
            DateRange("before 2023", None, 59945.0, DateKind.ABSOLUTE),
            '-- "before 2023": mjd < 59945.0 (before 2023-01-01, UTC; no lower bound)',
        ),
        (
            DateRange("since yesterday", 60231.0, None, DateKind.RELATIVE),
            '-- "since yesterday": mjd >= 60231.0 (from 2023-10-14, UTC; no upper bound)',
        ),
        (
            DateRange("last night", 60231.5, 60232.5, DateKind.RELATIVE),
            '-- "last night": 60231.5 <= mjd < 60232.5 (2023-10-14 12:00:00 to 2023-10-15 12:00:00, UTC)',
        ),
        (
            DateRange("JD 2460200.5", 60200.0, 60200.0, DateKind.NUMBER),
            '-- "JD 2460200.5": mjd = 60200.0 (2023-09-13 UTC)',
        ),
    ],
    ids=["open-lower", "open-upper", "fractional-days", "instant"],
)
def test_render_range_states_each_shape_clearly(date_range, line):
    assert render_range(date_range) == line


def test_render_ranges_gives_one_line_per_range_and_nothing_for_none():
    found = date_ranges("between 2019 and 2021, or since yesterday", AS_OF)
    assert len(render_ranges(found).splitlines()) == 2
    assert render_ranges([]) == ""


def test_far_years_convert_without_warnings(recwarn):
    (found,) = date_ranges("in 2040", date(2041, 1, 1))
    assert (found.start_mjd, found.end_mjd) == (66154.0, 66520.0)
    assert not recwarn.list


def _days(question: str, as_of: date) -> tuple[date, date]:
    """The one range read from `question`, as its first day and the day after its last."""
    (found,) = date_ranges(question, as_of)
    origin = date(1858, 11, 17)  # MJD 0
    return origin + timedelta(days=found.start_mjd), origin + timedelta(days=found.end_mjd)


@pytest.mark.parametrize(
    ("question", "as_of", "first", "stop"),
    [
        ("objects from the previous month", date(2024, 3, 10), date(2024, 2, 1), date(2024, 3, 1)),
        ("objects from the previous year", date(2024, 3, 10), date(2023, 1, 1), date(2024, 1, 1)),
        # Wednesday 13 March 2024: its week starts on Monday the 11th, the previous one on Monday the 4th.
        ("objects from the previous week", date(2024, 3, 13), date(2024, 3, 4), date(2024, 3, 11)),
        ("objects from the previous quarter", date(2024, 5, 2), date(2024, 1, 1), date(2024, 4, 1)),
    ],
    ids=["month", "year", "week", "quarter"],
)
def test_the_previous_calendar_unit_is_the_one_before_the_current(question, as_of, first, stop):
    assert _days(question, as_of) == (first, stop)


def test_weeks_ago_count_seven_days_each():
    # Two weeks before Wednesday 20 March 2024 is Wednesday 6 March.
    assert _days("objects detected 2 weeks ago", date(2024, 3, 20)) == (date(2024, 3, 6), date(2024, 3, 7))


def test_the_day_before_yesterday_is_two_days_back_across_a_leap_day():
    # Asked on 1 March 2024: yesterday is 29 February, the day before it 28 February.
    assert _days("objects detected the day before yesterday", date(2024, 3, 1)) == (
        date(2024, 2, 28),
        date(2024, 2, 29),
    )


def test_the_last_quarter_of_a_year_is_october_to_december():
    assert _days("objects in the last quarter of 2023", date(2024, 3, 1)) == (date(2023, 10, 1), date(2024, 1, 1))


def test_a_month_asked_on_its_first_day_is_the_month_now_running():
    assert _days("objects detected in September", date(2023, 9, 1)) == (date(2023, 9, 1), date(2023, 10, 1))
    assert _days("objects detected in September", date(2023, 8, 31)) == (date(2022, 9, 1), date(2022, 10, 1))
