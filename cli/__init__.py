"""Command-line plumbing shared by every command: logging flags, database and engine options."""

from cli.engine_options import add_dsn_argument, add_engine_arguments, engine_settings
from cli.verbosity import add_verbosity_arguments, logging_to_stderr

__all__ = [
    "add_dsn_argument",
    "add_engine_arguments",
    "add_verbosity_arguments",
    "engine_settings",
    "logging_to_stderr",
]
