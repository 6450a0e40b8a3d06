"""Read a catalog's data file, ``catalog/<name>.yaml``: its tables, the facts around them, its prompt rules."""

import datetime
import functools
from dataclasses import replace
from pathlib import Path

import yaml

from catalog.model import CATALOG_NAMES, Catalog, Classifier, Code, Column, ForeignKey, Index, ScopedRule, Table
from catalog.ucd import column_ucd
from defaults.catalog import DEFAULT_CATALOG

__all__ = ["load_catalog"]

_CATALOG_DIR = Path(__file__).parent
_RULES_WIDTH = 125
"""Most characters of a line of the rules' class list; a classifier's entry is never split across lines."""
_RULES_SHOWN = ("classes", "name")


@functools.cache
def load_catalog(name: str = DEFAULT_CATALOG) -> Catalog:
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
    positions = {table: (ra, dec) for table, ra, dec in raw.get("positions", ())}
    tables = [_with_ucds(table, positions.get(table.partition_of or table.name)) for table in tables]
    classifiers = tuple(_build_classifier(entry) for entry in raw.get("classifiers", ()))
    sql_rules = _render_rules(raw.get("sql_rules", ""), classifiers)
    return Catalog(
        name=raw["name"],
        schema=raw["schema"],
        tap_schema=raw["tap_schema"],
        tables=tables,
        categorical=tuple((table, column) for table, column in raw.get("categorical", ())),
        positions=positions,
        classifiers=classifiers,
        sql_rules=sql_rules,
        scoped_rules=tuple(
            rule for entry in raw.get("rule_scopes", ()) for rule in _scoped_rules(entry, sql_rules, tables)
        ),
        title=raw.get("title", ""),
        description=raw.get("description", ""),
        identifiers=tuple(raw.get("identifiers", ())),
        codes=tuple(Code(**{**entry, "scope": tuple(entry.get("scope", ()))}) for entry in raw.get("codes", ())),
        data_end=_data_end(raw.get("data_end"), name),
        prompt_notes=dict(raw.get("prompt_notes", {})),
        joins=tuple(raw.get("joins", ())),
        object_ids=tuple(raw.get("object_ids", ())),
        rows=_rows(raw.get("rows", {}), by_name, name),
        feature_names={fid: tuple(names) for fid, names in raw.get("feature_names", {}).items()},
    )


def _rows(raw: dict, tables: dict[str, Table], name: str) -> dict[str, tuple[dict, ...]]:
    """The catalog file's `rows` by table, each row's columns checked against its table's."""
    for table, rows in raw.items():
        columns = set(tables[table].column_names) if table in tables else None
        for row in rows:
            if columns is None or not set(row) <= columns:
                raise ValueError(f"catalog {name!r}: rows of {table!r} name a table or column it does not have")
    return {table: tuple(rows) for table, rows in raw.items()}


def _build_column(entry: dict) -> Column:
    return Column(**{**entry, "domain": tuple(entry["domain"])} if "domain" in entry else entry)


def _with_ucds(table: Table, position: tuple[str, str] | None) -> Table:
    columns = [replace(column, ucd=column.ucd or column_ucd(table, column, position)) for column in table.columns]
    return replace(table, columns=columns)


def _data_end(value, name: str) -> datetime.date | None:
    """The catalog file's `data_end` (an ISO date, unquoted in YAML), or None when it sets none."""
    if value is None or (isinstance(value, datetime.date) and not isinstance(value, datetime.datetime)):
        return value
    raise ValueError(f"catalog {name!r}: data_end must be a date such as 2026-07-01, got {value!r}")


def _scoped_rules(entry: dict, sql_rules: str, tables: list[Table]) -> list[ScopedRule]:
    """The rules of `sql_rules` that start with one of ``entry["rules"]``, needed only with ``entry``'s tables (or
    their partitions), or with columns whose unit is one of ``entry["units"]``."""
    named = set(entry.get("tables", ()))
    scope = frozenset(table.name for table in tables if table.name in named or table.partition_of in named)
    units = set(entry.get("units", ()))
    columns = frozenset(
        f"{table.name}.{column.name}" for table in tables for column in table.columns if column.unit in units
    )
    scoped, rules = [], _rule_texts(sql_rules)
    for start in entry["rules"]:
        found = [rule for rule in rules if rule.startswith(f"- {start}")]
        if len(found) != 1:
            raise ValueError(f"rule_scopes: {start!r} starts {len(found)} rules, not one.")
        scoped.append(ScopedRule(found[0], scope, columns))
    return scoped


def _rule_texts(sql_rules: str) -> list[str]:
    """Split the rules into their "- " items, each with the indented lines under it.

    Examples:
        >>> _rule_texts("Rules:\\n- one\\n  more\\n- two")
        ['- one\\n  more', '- two']
    """
    rules: list[str] = []
    for line in sql_rules.splitlines():
        if line.startswith("- "):
            rules.append(line)
        elif rules and line.startswith(" "):
            rules[-1] += f"\n{line}"
    return rules


def _build_classifier(entry: dict) -> Classifier:
    rules = entry.get("rules", "classes")
    if rules not in _RULES_SHOWN:
        raise ValueError(f"Classifier {entry['name']} has rules {rules!r}; use one of {', '.join(_RULES_SHOWN)}.")
    return Classifier(
        name=entry["name"],
        classes=tuple(entry["classes"]),
        versions=tuple(entry.get("versions", ())),
        taxonomy_version=entry.get("taxonomy_version"),
        rules=rules,
    )


def _render_rules(template: str, classifiers: tuple[Classifier, ...]) -> str:
    """Fill the rules' placeholders from the classifiers.

    ``{class_names}`` lists each classifier whose ``rules`` is "classes" with its classes, ``{classes[NAME]}`` quotes
    the classes of one; ``{named_classifiers}`` names the others (a classifier's parts, NAME_suffix, as suffixes)
    and ``{named_classes}`` lists the classes only they have.

    Examples:
        >>> lc = Classifier("lc", ("A", "B")), Classifier("stamp", ("C",))
        >>> new = Classifier("new", ("A", "D"), rules="name"), Classifier("new_top", ("T",), rules="name")
        >>> print(_render_rules("Classes:\\n{class_names}\\nIn lc: {classes[lc]}.", lc))
        Classes:
          lc: A, B; stamp: C.
        In lc: 'A', 'B'.
        >>> print(_render_rules("Newer: {named_classifiers}; classes only they have: {named_classes}.", lc + new))
        Newer: new (also _top); classes only they have: D, T.
    """
    listed = tuple(classifier for classifier in classifiers if classifier.rules == "classes")
    named = tuple(classifier for classifier in classifiers if classifier.rules == "name")
    quoted = {classifier.name: ", ".join(f"'{name}'" for name in classifier.classes) for classifier in classifiers}
    known = {name for classifier in listed for name in classifier.classes}
    only_named = dict.fromkeys(name for classifier in named for name in classifier.classes if name not in known)
    return template.format(
        class_names=_class_lists(listed),
        classes=quoted,
        named_classifiers=_names_with_parts(named),
        named_classes=", ".join(only_named),
    )


def _class_lists(classifiers: tuple[Classifier, ...]) -> str:
    """List each classifier with its classes, lines of at most `_RULES_WIDTH` characters, entries never split."""
    entries = [f"{classifier.name}: {', '.join(classifier.classes)}" for classifier in classifiers]
    lines: list[str] = []
    for number, entry in enumerate(entries, start=1):
        entry += "." if number == len(entries) else ";"
        if lines and len(lines[-1]) + 1 + len(entry) <= _RULES_WIDTH:
            lines[-1] += f" {entry}"
        else:
            lines.append(f"  {entry}")
    return "\n".join(lines)


def _names_with_parts(classifiers: tuple[Classifier, ...]) -> str:
    """Name each classifier once; one called NAME_suffix after NAME is written as "(also _suffix)" beside NAME."""
    parts: dict[str, list[str]] = {}
    for classifier in classifiers:
        whole = next((name for name in parts if classifier.name.startswith(f"{name}_")), None)
        if whole is None:
            parts[classifier.name] = []
        else:
            parts[whole].append(classifier.name.removeprefix(whole))
    return ", ".join(f"{name} (also {', '.join(suffixes)})" if suffixes else name for name, suffixes in parts.items())


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
            partition_values=tuple(str(value) for value in entry["partition_values"]),
            tap=entry.get("tap", True),
        )
    return Table(
        name=entry["name"],
        description=entry["description"],
        columns=[_build_column(column) for column in entry["columns"]],
        primary_key=list(entry["primary_key"]),
        foreign_keys=[ForeignKey(**fk) for fk in entry.get("foreign_keys", [])],
        indexes=[Index(**index) for index in entry.get("indexes", [])],
        partition_by=entry.get("partition_by"),
        tap=entry.get("tap", True),
    )
