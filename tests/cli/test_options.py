"""The shared --model, --dataset and --as-of options, and the argument types of every command."""

import argparse
import datetime as dt

import pytest

from cli import comma_choices, iso_date, positive_float, positive_int
from data.options import add_dataset_argument
from lms import DEFAULT_LOCAL_MODEL
from lms.options import add_model_argument
from modules.options import add_as_of_argument


def test_model_argument_defaults_to_the_local_model():
    parser = argparse.ArgumentParser()
    add_model_argument(parser)
    assert parser.parse_args([]).model == DEFAULT_LOCAL_MODEL
    assert parser.parse_args(["--model", "openai/gpt-4.1-mini"]).model == "openai/gpt-4.1-mini"
    help_text = parser.format_help()
    assert "local/smollm2-135m" in help_text
    assert "local/gemma3-270m" in help_text


def test_model_argument_with_a_purpose_has_no_default():
    parser = argparse.ArgumentParser()
    add_model_argument(parser, purpose="run the program with this model")
    assert parser.parse_args([]).model is None
    assert "run the program with this model" in parser.format_help()


def test_dataset_argument_names_the_environment_variable():
    parser = argparse.ArgumentParser()
    add_dataset_argument(parser)
    assert parser.parse_args(["--dataset", "dev.csv"]).dataset == "dev.csv"
    assert "$ALERCE_T2S_DATA" in parser.format_help()


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (positive_int, "0", "must be more than 0, got 0"),
        (positive_int, "-2", "must be more than 0, got -2"),
        (positive_int, "two", "expected a whole number, got 'two'"),
        (positive_int, "1.5", "expected a whole number, got '1.5'"),
        (positive_float, "soon", "expected a number, got 'soon'"),
        (positive_float, "0", "must be more than 0, got 0"),
        (positive_float, "nan", "must be more than 0, got nan"),
        (iso_date, "2026-12-1", "expected a date as YYYY-MM-DD, got '2026-12-1'"),
        (iso_date, "2026-02-30", "expected a date as YYYY-MM-DD, got '2026-02-30'"),
        (iso_date, "yesterday", "expected a date as YYYY-MM-DD, got 'yesterday'"),
        (
            comma_choices(("sql", "plan"), "--show item"),
            "sql,rows",
            "unknown --show item 'rows'; choose from sql, plan",
        ),
    ],
)
def test_argument_types_refuse_with_the_reason(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as info:
        parse(text)
    assert str(info.value) == message


def test_argument_types_accept_valid_values():
    assert positive_int("4") == 4
    assert positive_float("2.5") == 2.5
    assert comma_choices(("sql", "plan"), "item")(" plan ,sql") == ("plan", "sql")
    assert comma_choices(("sql", "plan"), "item")("none") == ()
    assert iso_date("2024-02-29") == dt.date(2024, 2, 29)


def test_as_of_argument_is_none_unless_given():
    parser = argparse.ArgumentParser()
    add_as_of_argument(parser)
    assert parser.parse_args([]).as_of is None
    assert parser.parse_args(["--as-of", "2026-12-01"]).as_of == dt.date(2026, 12, 1)
    assert "(default: today, UTC)" in parser.format_help()
