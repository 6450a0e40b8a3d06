"""The shared --model and --dataset options, and the argument types of every command."""

import argparse

import pytest

from cli import comma_choices, positive_float, positive_int
from data.options import add_dataset_argument
from lms import DEFAULT_LOCAL_MODEL
from lms.options import add_model_argument


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
