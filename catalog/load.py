"""Read a catalog's data file, ``catalog/<name>.yaml``: its tables, the facts around them, its prompt rules."""

import functools
from pathlib import Path

import yaml

from catalog.model import CATALOG_NAMES, Catalog, Classifier, Column, ForeignKey, Index, Table

__all__ = ["load_catalog"]

_CATALOG_DIR = Path(__file__).parent
_RULES_WIDTH = 125
"""Most characters of a line of the rules' class list; a classifier's entry is never split across lines."""


@functools.cache
def load_catalog(name: str = "ztf") -> Catalog:
    """Load a catalog's data file (cached per name; treat the result as read-only).

    Args:
        name: One of `CATALOG_NAMES`.

    Returns:
        The catalog with partitions expanded to their parent's columns and keys.

    Raises:
        ValueError: The name is not a catalog, or a partition names an unknown parent.
    """
    if name not in CATALOG_NAMES:
        raise ValueError(f"Unknown catalog {name!r}; choose one of {', '.join(CATALOG_NAMES)}.")
    raw = yaml.safe_load((_CATALOG_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    tables: list[Table] = []
    by_name: dict[str, Table] = {}
    for entry in raw["tables"]:
        table = _build_table(entry, by_name)
        tables.append(table)
        by_name[table.name] = table
    classifiers = tuple(_build_classifier(entry) for entry in raw.get("classifiers", ()))
    return Catalog(
        name=raw["name"],
        schema=raw["schema"],
        tap_schema=raw["tap_schema"],
        tables=tables,
        categorical=tuple((table, column) for table, column in raw.get("categorical", ())),
        positions={table: (ra, dec) for table, ra, dec in raw.get("positions", ())},
        classifiers=classifiers,
        sql_rules=_render_rules(raw.get("sql_rules", ""), classifiers),
    )


def _build_classifier(entry: dict) -> Classifier:
    return Classifier(
        name=entry["name"],
        classes=tuple(entry["classes"]),
        versions=tuple(entry.get("versions", ())),
        taxonomy_version=entry.get("taxonomy_version"),
    )


def _render_rules(template: str, classifiers: tuple[Classifier, ...]) -> str:
    """Fill the rules' ``{class_names}`` (every classifier with its classes) and ``{classes[NAME]}`` (quoted list).

    Examples:
        >>> lc = Classifier("lc", ("A", "B")), Classifier("stamp", ("C",))
        >>> print(_render_rules("Classes:\\n{class_names}\\nIn lc: {classes[lc]}.", lc))
        Classes:
          lc: A, B; stamp: C.
        In lc: 'A', 'B'.
    """
    entries = [f"{classifier.name}: {', '.join(classifier.classes)}" for classifier in classifiers]
    lines: list[str] = []
    for number, entry in enumerate(entries, start=1):
        entry += "." if number == len(entries) else ";"
        if lines and len(lines[-1]) + 1 + len(entry) <= _RULES_WIDTH:
            lines[-1] += f" {entry}"
        else:
            lines.append(f"  {entry}")
    listed = "\n".join(lines)
    quoted = {classifier.name: ", ".join(f"'{name}'" for name in classifier.classes) for classifier in classifiers}
    return template.format(class_names=listed, classes=quoted)


def _build_table(entry: dict, known: dict[str, Table]) -> Table:
    parent_name = entry.get("partition_of")
    if parent_name:
        parent = known.get(parent_name)
        if parent is None:
            raise ValueError(f"Partition {entry['name']} names unknown parent {parent_name}; list the parent first.")
        return Table(
            name=entry["name"],
            description=entry["description"],
            columns=list(parent.columns),
            primary_key=list(parent.primary_key),
            foreign_keys=list(parent.foreign_keys),
            partition_of=parent_name,
            partition_value=str(entry["partition_value"]),
            tap=entry.get("tap", True),
        )
    return Table(
        name=entry["name"],
        description=entry["description"],
        columns=[Column(**column) for column in entry["columns"]],
        primary_key=list(entry["primary_key"]),
        foreign_keys=[ForeignKey(**fk) for fk in entry.get("foreign_keys", [])],
        indexes=[Index(**index) for index in entry.get("indexes", [])],
        partition_by=entry.get("partition_by"),
        tap=entry.get("tap", True),
    )
