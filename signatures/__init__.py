"""Typed DSPy signatures, one per prompt: the docstring is the instruction sent to the model.

The docstrings name no catalog's tables or columns: a catalog's own sentences come from its file
(``catalog/<name>.yaml``: ``sql_rules`` for the SQL-writing prompts, ``prompt_notes`` per signature), appended to
the instructions by ``modules.predictors.predictor.make_predictor``.

Editing a docstring, or a field's name, type or order, changes the prompt: recompile the artifacts and update
the golden prompts (`UPDATE_GOLDEN=1 pytest tests/signatures`).
"""

from signatures.choose_candidate import ChooseCandidate
from signatures.classify_difficulty import ClassifyDifficulty
from signatures.correct_sql import CorrectSQL
from signatures.explain_sql import ExplainSQL
from signatures.generate_planned_sql import GeneratePlannedSQL
from signatures.generate_sql import GenerateSQL
from signatures.plan_query import PlanQuery
from signatures.revise_sql import FINDING_KINDS, ReviseSQL
from signatures.select_columns import SelectColumns
from signatures.select_tables import SelectTables

__all__ = [
    "FINDING_KINDS",
    "ChooseCandidate",
    "ClassifyDifficulty",
    "CorrectSQL",
    "ExplainSQL",
    "GeneratePlannedSQL",
    "GenerateSQL",
    "PlanQuery",
    "ReviseSQL",
    "SelectColumns",
    "SelectTables",
]
