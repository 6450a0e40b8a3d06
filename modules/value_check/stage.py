"""The value check stage's vocabulary: read from the engine when the program opens, shown to generation, checked."""

from __future__ import annotations

import logging

from catalog import load_catalog
from defaults.catalog import DEFAULT_CATALOG
from engines import Engine
from engines.errors import GuardError
from engines.guard import check_sql
from modules.run.findings import Finding, FindingKind
from modules.value_check.literals import find_unknown_values, replace_unknown_values
from modules.value_check.vocabulary import Vocabulary, linked_values_text, read_vocabulary
from modules.value_check.ztf_name_literals import (
    replace_ztf_names,
    stores_ztf_names_as_integers,
    ztf_name_findings,
    ztf_names_text,
)

__all__ = ["ValueCheck"]

logger = logging.getLogger(__name__)


class ValueCheck:
    """Valid values of the categorical columns of the connected database (none without a database).

    With `integer_oids` (a catalog that stores ZTF objects under integer oids), ZTF names compared with oid columns
    are findings too, replaced by their oids, and the names a question holds are shown with their oids.
    """

    def __init__(self, vocabulary: Vocabulary | None = None, *, integer_oids: bool = False) -> None:
        self.vocabulary = vocabulary
        self.integer_oids = integer_oids

    @classmethod
    def open(cls, engine: Engine | None, catalog: str = DEFAULT_CATALOG) -> ValueCheck:
        """Read the vocabulary of `catalog` from the database `engine` serves (cached per database fingerprint).

        No engine, or one that stands for no data (``engines.fake.FakeEngine``: it has no ``fingerprint``), gives
        an empty check.
        """
        integer_oids = stores_ztf_names_as_integers(load_catalog(catalog))
        if not callable(getattr(engine, "fingerprint", None)):
            return cls(integer_oids=integer_oids)
        vocabulary = read_vocabulary(engine, load_catalog(catalog))
        logger.debug("vocabulary of %d categorical columns read", len(vocabulary.values))
        return cls(vocabulary, integer_oids=integer_oids)

    def __deepcopy__(self, memo: dict) -> ValueCheck:
        return self  # immutable, and shared by every copy an optimizer makes

    def prompt_text(self, tables: list[str], columns: dict[str, list[str]] | None, question: str = "") -> str:
        """Return the valid values of the linked categorical columns and the oids of the question's ZTF names ("" when
        none)."""
        values = linked_values_text(self.vocabulary, tables, columns) if self.vocabulary is not None else ""
        names = ztf_names_text(question) if self.integer_oids else ""
        return "\n".join(filter(None, [values, names]))

    def findings(self, sql: str) -> list[Finding]:
        """Return the ``unknown_value`` findings of `sql` ([] without a vocabulary, or when the guard refuses it).

        The SQL is untrusted: only a statement the guard admits (bounded in size and parse time) is parsed here;
        a refused one is left to execution, which refuses it with the guard's message.
        """
        if not sql or not _is_admitted(sql):
            return []
        names = ztf_name_findings(sql) if self.integer_oids else []
        return names + (find_unknown_values(sql, self.vocabulary) if self.vocabulary is not None else [])

    def revision_finding(self, findings: list[Finding]) -> tuple[Finding, str]:
        """Merge the findings of one statement (see `findings`) into one for revision, with valid values as hints."""
        message = "\n".join(finding.message for finding in findings)
        columns: dict[str, list[str]] = {}
        for finding in findings:
            table, _, column = (finding.column or "").partition(".")
            columns.setdefault(table, []).append(column)
        hints = linked_values_text(self.vocabulary or Vocabulary(), list(columns), columns, max_values=60)
        return Finding(kind=FindingKind.UNKNOWN_VALUE, message=message), hints

    def replace(self, sql: str) -> str:
        """Replace each literal still unknown by its closest valid value (SQL the guard refuses stays as it is)."""
        if not sql or not _is_admitted(sql):
            return sql
        sql = replace_ztf_names(sql) if self.integer_oids else sql
        return replace_unknown_values(sql, self.vocabulary) if self.vocabulary is not None else sql


def _is_admitted(sql: str) -> bool:
    try:
        check_sql(sql)
    except GuardError:
        return False
    return True
