"""Command-line plumbing shared by every command: logging flags, model, dataset, candidates, database and engine
options, argument types."""

from cli.argument_types import comma_choices, positive_float, positive_int
from cli.engine_options import add_dsn_argument, add_engine_arguments, engine_settings
from cli.run_options import (
    add_candidates_argument,
    add_dataset_argument,
    add_model_argument,
    add_query_timeout_argument,
)
from cli.verbosity import add_verbosity_arguments, logging_to_stderr

__all__ = [
    "add_candidates_argument",
    "add_dataset_argument",
    "add_dsn_argument",
    "add_engine_arguments",
    "add_model_argument",
    "add_query_timeout_argument",
    "add_verbosity_arguments",
    "comma_choices",
    "engine_settings",
    "logging_to_stderr",
    "positive_float",
    "positive_int",
]
