"""Schema linking: tables, then columns, checked against the catalog, with the full schema as fallback."""

import dspy

from catalog import Catalog, load_catalog, render_schema_text, render_table_catalog
from defaults.catalog import DEFAULT_CATALOG
from modules.predictors.predictor import make_predictor
from modules.predictors.prefix_cache_adapter import laid_out
from modules.predictors.stage_call import call_predictor
from modules.run.failures import FailureKind, StageFailure
from signatures import SelectColumns, SelectTables

__all__ = ["SchemaLinking"]

STAGE = "schema_linking"

# PostgreSQL's own views are not in the ALeRCE catalog, but questions about the schema itself need them.
SYSTEM_TABLES = {
    "information_schema.tables": (
        "PostgreSQL view of all tables: table_schema ('{schema}' here), table_name, table_type"
    ),
    "information_schema.columns": "PostgreSQL view of all columns: table_schema, table_name, column_name, data_type",
}


class SchemaLinking(dspy.Module):
    """Pick tables, then columns; drop and report names the catalog does not know."""

    def __init__(self, *, reasoning: bool = False, catalog: str = DEFAULT_CATALOG) -> None:
        super().__init__()
        self.catalog = catalog
        notes = load_catalog(catalog).prompt_notes
        self.tables = make_predictor(SelectTables, reasoning, rules=notes.get(SelectTables.__name__, ""))
        self.columns = make_predictor(SelectColumns, reasoning, rules=notes.get(SelectColumns.__name__, ""))

    def forward(self, question: str, knowledge: str = "", catalog: Catalog | None = None) -> dspy.Prediction:
        """Link the question to the schema.

        Args:
            question: The astronomer's question.
            knowledge: Knowledge text for the prompt (may be empty).
            catalog: The tables to link to (default: the whole catalog the stage was built for; a TAP engine serves
                fewer).

        Returns:
            A prediction with `tables`, `columns` (None when not pruned), `schema_text`, `dropped_names` and
            `failures`; when no valid table remains, `tables` is the whole catalog.
        """
        catalog = catalog or load_catalog(self.catalog)
        failures: list[StageFailure] = []
        answer, failure = call_predictor(
            STAGE,
            self.tables,
            signature=laid_out(self.tables.signature, stable=("table_catalog",)),  # the same for every question
            question=question,
            knowledge=knowledge,
            table_catalog=render_table_catalog(catalog),
        )
        tables, dropped = _known_tables(catalog, answer.tables if answer else [])
        if failure or not tables:
            failures.append(failure or StageFailure(STAGE, FailureKind.EMPTY, "No known table selected."))
            tables = list(catalog.table_names)
            return _linked(catalog, tables, None, dropped, failures)
        answer, failure = call_predictor(
            STAGE,
            self.columns,
            question=question,
            knowledge=knowledge,
            schema_text=render_schema_text(catalog, tables, detail="brief"),
        )
        if failure:
            failures.append(failure)
        columns, dropped_columns = _known_columns(catalog, tables, answer.columns if answer else None)
        return _linked(catalog, tables, columns, dropped + dropped_columns, failures)


def _linked(catalog: Catalog, tables: list[str], columns, dropped: list[str], failures) -> dspy.Prediction:
    system = [
        f"table {name}: {SYSTEM_TABLES[name].format(schema=catalog.schema)}" for name in tables if name in SYSTEM_TABLES
    ]
    schema_text = "\n".join(filter(None, [render_schema_text(catalog, tables, columns), *system]))
    return dspy.Prediction(
        tables=tables, columns=columns, schema_text=schema_text, dropped_names=dropped, failures=failures
    )


def _known_tables(catalog: Catalog, names: object) -> tuple[list[str], list[str]]:
    """Split the answer into canonical known table names (deduplicated, in order) and unknown ones."""
    known: list[str] = []
    dropped: list[str] = []
    for name in names if isinstance(names, list) else []:
        table = catalog.table(str(name))
        canonical = table.name if table else str(name).strip().lower()
        if table is None and canonical not in SYSTEM_TABLES:
            dropped.append(str(name))
        elif canonical not in known:
            known.append(canonical)
    return known, dropped


def _known_columns(
    catalog: Catalog, tables: list[str], answer: object
) -> tuple[dict[str, list[str]] | None, list[str]]:
    """Keep known columns of the linked tables; a linked table without valid columns keeps all its columns."""
    if not isinstance(answer, dict):
        return None, []
    columns: dict[str, list[str]] = {}
    dropped: list[str] = []
    for table_name, names in answer.items():
        table = catalog.table(str(table_name))
        if table is None or table.name not in tables:
            dropped.append(str(table_name))
            continue
        for name in names if isinstance(names, list) else []:
            column = table.column(str(name).split(".")[-1])
            if column is None:
                dropped.append(f"{table.name}.{name}")
            elif column.name not in columns.setdefault(table.name, []):
                columns[table.name].append(column.name)
    return {table: names for table, names in columns.items() if names}, dropped
