"""Command-line plumbing every command shares and that knows nothing of the project: -v/-q logging, argument types.

The options that choose a model, a dataset, an engine or candidates live beside what they configure
(``lms.options``, ``data.options``, ``engines.options``, ``modules.options``).
"""

from cli.argument_types import comma_choices, iso_date, positive_float, positive_int
from cli.verbosity import add_verbosity_arguments, logging_to_stderr

__all__ = [
    "add_verbosity_arguments",
    "comma_choices",
    "iso_date",
    "logging_to_stderr",
    "positive_float",
    "positive_int",
]
