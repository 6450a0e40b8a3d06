"""Command-line plumbing shared by every command: logging flags, model, dataset, candidates, database and engine
options, argument types."""

from cli.argument_types import comma_choices, iso_date, positive_float, positive_int
from cli.engine_options import add_dsn_argument, add_engine_arguments, engine_settings
from cli.run_options import (
    add_as_of_argument,
    add_candidates_argument,
    add_dataset_argument,
    add_model_argument,
    add_query_timeout_argument,
    today_utc,
)
from cli.verbosity import add_verbosity_arguments, logging_to_stderr

__all__ = [
    "add_as_of_argument",
    "add_candidates_argument",
    "add_dataset_argument",
    "add_dsn_argument",
    "add_engine_arguments",
    "add_model_argument",
    "add_query_timeout_argument",
    "add_verbosity_arguments",
    "comma_choices",
    "engine_settings",
    "iso_date",
    "logging_to_stderr",
    "positive_float",
    "positive_int",
    "today_utc",
]
