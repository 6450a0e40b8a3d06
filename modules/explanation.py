"""Explanation: plain words on what the final SQL returns and what it assumed; it never changes the SQL."""

import dspy
from sqlglot import exp

from catalog import Catalog, render_schema_text
from engines.sql_tree import read_tree
from modules.predictors.predictor import make_predictor
from modules.predictors.stage_call import call_predictor
from modules.run.failures import FailureKind, StageFailure
from signatures import ExplainSQL

__all__ = ["Explanation", "read_schema_text", "render_explanation"]

STAGE = "explanation"


class Explanation(dspy.Module):
    """Explain the final SQL: ``{"summary", "conditions", "ordering", "assumptions"}``, or None on a failure."""

    def __init__(self, *, reasoning: bool = False) -> None:
        super().__init__()
        self.predict = make_predictor(ExplainSQL, reasoning)

    def forward(self, question: str, knowledge: str, schema_text: str, sql: str) -> dspy.Prediction:
        """Explain one query.

        Args:
            question: The astronomer's question.
            knowledge: Knowledge text the SQL was written with (may be empty).
            schema_text: The tables and columns the SQL reads (``read_schema_text``).
            sql: The final SQL.

        Returns:
            A prediction with ``explanation`` (a dict, or None when the LM gave no usable summary) and ``failures``.
        """
        inputs = {"question": question, "knowledge": knowledge, "schema_text": schema_text, "sql": sql}
        answer, failure = call_predictor(STAGE, self.predict, **inputs)
        explanation = None
        if answer is not None:
            explanation = {
                "summary": answer.summary.strip(),
                "conditions": [str(item).strip() for item in answer.conditions if str(item).strip()],
                "ordering": answer.ordering.strip(),
                "assumptions": [str(item).strip() for item in answer.assumptions if str(item).strip()],
            }
            if not explanation["summary"]:
                explanation, failure = None, StageFailure(STAGE, FailureKind.EMPTY, "The explanation has no summary.")
        return dspy.Prediction(explanation=explanation, failures=[failure] if failure else [])


def read_schema_text(sql: str, catalog: Catalog) -> str:
    """Render the catalog tables `sql` reads with the columns it names ("" when it cannot be parsed).

    Examples:
        >>> from catalog import load_catalog
        >>> [line.split()[0] for line in read_schema_text("SELECT oid FROM object WHERE ndet > 50", load_catalog())
        ...  .splitlines()]
        ['table', 'oid', 'ndet']
    """
    tree = read_tree(sql)
    if tree is None:
        return ""
    named = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    found = [catalog.table(table.name) for table in tree.find_all(exp.Table) if table.name not in named]
    tables = list(dict.fromkeys(table.name for table in found if table is not None))
    words = {column.name.lower() for column in tree.find_all(exp.Column)}
    columns = {name: [c for c in catalog.table(name).column_names if c in words] for name in tables}
    return render_schema_text(catalog, tables, columns)


def render_explanation(explanation: dict | None) -> str:
    """Render an explanation as plain text lines ("" for None).

    Examples:
        >>> print(render_explanation({"summary": "Objects with many detections.", "conditions": ["more than 50"],
        ...                           "ordering": "not ordered", "assumptions": []}))
        Objects with many detections.
        Conditions:
          - more than 50
        Order and limit: not ordered
    """
    if not explanation:
        return ""
    lines = [explanation["summary"]]
    if explanation["conditions"]:
        lines += ["Conditions:", *(f"  - {condition}" for condition in explanation["conditions"])]
    if explanation["ordering"]:
        lines.append(f"Order and limit: {explanation['ordering']}")
    if explanation["assumptions"]:
        lines += ["Assumptions:", *(f"  - {assumption}" for assumption in explanation["assumptions"])]
    return "\n".join(lines)
