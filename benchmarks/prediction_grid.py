"""A grid of predictions built from gold queries: experiments x questions x runs, with the repeats real grids have.

Real evaluation grids (several models or ablations, each run several times) repeat much of their SQL: a model that
gets a question right writes the gold again, and a wrong answer often comes back in the next run. This grid
imitates that from the golds alone: each (experiment, question, run) item is the gold, or one of a few mutations of
it, drawn with a fixed seed.

Examples:
    >>> mutate("SELECT oid FROM object WHERE ndet > 10", ("number", 2))
    'SELECT oid FROM object WHERE ndet > 12'
    >>> mutate("SELECT oid FROM object", ("limit", 3))
    'SELECT * FROM (SELECT oid FROM object) AS grid_t LIMIT 3'
    >>> mutate("SELECT oid FROM object", ("count", 3))
    'SELECT count(*) FROM (SELECT oid FROM object LIMIT 3) AS grid_t'
"""

import random
import re
from collections.abc import Sequence

from evaluation.predictions import Prediction

__all__ = ["MUTATION_KINDS", "MUTATION_PARAMETERS", "build_grid", "mutate"]

MUTATION_KINDS = ("limit", "number", "misspelt", "count")
"""Limit the rows to the parameter, shift a number by it, misspell the name at it, count the first rows."""
MUTATION_PARAMETERS = range(1, 101)
"""Parameters a mutation draws from: a wrong answer comes back now and then, as a model's do."""

_NUMBER = re.compile(r"(?<![\w.'])(\d+(?:\.\d+)?)(?![\w.'])")
_NAME = re.compile(r"\b([a-z_]{4,})\b")


def mutate(gold_sql: str, mutation: tuple[str, int]) -> str:
    """Return the gold changed by one mutation (the gold itself when the mutation does not apply)."""
    kind, parameter = mutation
    sql = gold_sql.strip().rstrip(";").strip()
    if kind == "limit":
        return f"SELECT * FROM ({sql}) AS grid_t LIMIT {parameter}"
    if kind == "count":
        return f"SELECT count(*) FROM ({sql} LIMIT {parameter}) AS grid_t"
    pattern = _NUMBER if kind == "number" else _NAME
    matches = list(pattern.finditer(sql))
    if not matches:
        return sql
    found = matches[parameter % len(matches)]
    if kind == "number":
        replacement = str(int(float(found.group(1))) + parameter)
    else:
        replacement = found.group(1)[:-1] + "x"
    return sql[: found.start(1)] + replacement + sql[found.end(1) :]


def build_grid(golds: Sequence[tuple[int, str]], *, experiments: int, runs: int, seed: int = 0) -> list[Prediction]:
    """Build ``experiments x len(golds) x runs`` predictions, run ids ``e<experiment>r<run>``.

    Each experiment has its own accuracy (the share of items that are the gold, 0.1 to 0.5 across experiments)
    and draws its wrong answers from `MUTATION_KINDS` and `MUTATION_PARAMETERS`.

    Args:
        golds: (req_id, gold SQL) per question.
        experiments: Experiments (systems or configurations) in the grid.
        runs: Runs per experiment.
        seed: Seed of the draws.

    Returns:
        The predictions, experiment by experiment, run by run, in the order of `golds`.
    """
    rng = random.Random(seed)
    predictions = []
    for experiment in range(experiments):
        accuracy = 0.1 + 0.4 * experiment / max(1, experiments - 1)
        for run in range(runs):
            for req_id, gold_sql in golds:
                if rng.random() < accuracy:
                    sql = gold_sql
                else:
                    sql = mutate(gold_sql, (rng.choice(MUTATION_KINDS), rng.choice(MUTATION_PARAMETERS)))
                predictions.append(Prediction(req_id, f"e{experiment}r{run}", sql))
    return predictions
