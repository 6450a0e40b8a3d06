"""The command line of ``python -m compile``, kept apart from the optimisers so that ``--help`` answers at once.

It imports nothing heavy (no DSPy, pandas or LiteLLM): ``compile.py`` parses the arguments with it and only then
imports ``optimizers.cli``.
"""

import argparse
from pathlib import Path

from cli import add_verbosity_arguments, positive_int
from data.options import add_dataset_argument
from engines.options import add_engine_arguments
from lms.options import add_model_argument
from modules.options import ADAPTERS, SCHEMA_DETAILS, add_as_of_argument, add_candidates_argument
from modules.stages import STAGES

__all__ = ["STRATEGY_NAMES", "build_parser"]

DESCRIPTION = """\
Compile the program for one model and freeze it under artifacts/.

Splits the dataset per difficulty into train (demo source), validation (selection, for the optimizers that
select) and held-out questions, scores the uncompiled program on the held-out ones with execution-based row
Perfect-Match, optimises, scores again on them, and writes the artifact.
"""

STRATEGY_NAMES = ("random-search", "mipro", "gepa", "labeled", "none", "mqs")
"""The ``--optimizer`` names, in the order of ``optimizers.strategies.STRATEGIES``."""

EPILOG = """\
examples:
  python -m compile --model openai/gpt-4.1-mini --optimizer random-search --max-lm-calls 2000
  python -m compile --model local/smollm2-135m --optimizer mqs --k 3 --examples
  python -m compile --model openai/gpt-4.1-mini --catalog multisurvey --optimizer mqs --examples

writes:
  artifacts/<model-slug>/<catalog>/program.json   prompts and demos of every stage (DSPy JSON)
  artifacts/<model-slug>/<catalog>/manifest.json  the command, model, catalog, optimizer settings, stages, as-of
                                                  date, adapter, dataset sha256, the req_ids of each part,
                                                  held-out PM before/after, tokens and cost, versions

The catalog (--catalog, default ztf) is the one the program writes SQL for; its questions come from --dataset,
or --examples (the project's example set of that catalog; multisurvey has no benchmark, so it defaults to its
example set). An artifact folder whose manifest git tracks (the committed artifacts/local-gemma3-270m/ztf) is
only replaced with --force; use --out DIR to compile beside it.

LM calls are cached in the user cache folder (alerce-t2s/dspy; $DSPY_CACHEDIR overrides), so a restarted
compile does not pay twice.

exit codes: 0 done, 1 error (one line on stderr), 2 bad command line, 130 interrupted
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``python -m compile``."""
    parser = argparse.ArgumentParser(
        prog="python -m compile",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_argument(parser)
    parser.add_argument(
        "--optimizer",
        choices=STRATEGY_NAMES,
        default="random-search",
        help="compile strategy (default: %(default)s)",
    )
    source = parser.add_mutually_exclusive_group()
    add_dataset_argument(source)
    source.add_argument(
        "--examples",
        action="store_true",
        help="use the project's own example set of the catalog (data/examples/, see its README)",
    )
    parser.add_argument(
        "--stages", nargs="+", choices=STAGES, default=list(STAGES), help="stages switched on (default: all)"
    )
    add_candidates_argument(parser)
    add_as_of_argument(parser)
    parser.add_argument(
        "--num-threads", type=positive_int, default=2, help="parallel program runs (default: %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the split and the optimiser (default: %(default)s)"
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--max-lm-calls", type=positive_int, help="task-LM call budget (default: the optimizer's)")
    budget.add_argument("--trials", type=positive_int, help="candidate programs or trials instead of a call budget")
    parser.add_argument(
        "--reflection-model", help="model that writes instructions: required by gepa, used by mipro for its proposals"
    )
    parser.add_argument(
        "--adapter", choices=ADAPTERS, help="prompt format (default: chat for local/ models, else compact)"
    )
    parser.add_argument("--k", type=positive_int, default=3, help="demos per question (mqs) or per stage (labeled) "
                        "(default: %(default)s)")  # fmt: skip
    parser.add_argument(
        "--schema-detail",
        choices=SCHEMA_DETAILS,
        default="full",
        help="schema text shown when schema_linking is off; names suits small models (default: %(default)s)",
    )
    parser.add_argument(
        "--train-fraction",
        type=float,
        default=0.4,
        help="share of each difficulty used as demo source; of the rest, half selects (random-search, mipro, gepa) "
        "and the others are held out to score the program (default: %(default)s)",
    )
    parser.add_argument("--out", type=Path, help="artifact folder (default: artifacts/<model-slug>/<catalog>)")
    parser.add_argument(
        "--force", action="store_true", help="replace an artifact that git tracks (a committed result) in --out"
    )
    add_engine_arguments(parser)
    add_verbosity_arguments(parser)
    return parser
