"""Count what makes the replica package hard to change: its size, literal table-name lists, schema and catalog names.

Counting rules (the source is read, not run):
    lines: every line of every ``replica/**/*.py`` file, blank lines, comments and docstrings included.
    table_name_lists: list, tuple and set displays with two or more string elements, every one of them (starred
        parts aside) a table name of some catalog; dict displays whose two or more keys are all such table names
        (``**`` parts aside).
    schema_constants: string constants outside docstrings equal to a catalog's PostgreSQL schema name.
    catalog_defaults: parameter defaults (functions, and class attributes with an annotation) that are a catalog's
        name.
    cross_recipe_imports: imports in one catalog's recipe package (``replica/<catalog>/``) of another's.

Example:
    python -m benchmarks.replica_layout
"""

import ast
import json
import sys
from pathlib import Path

from catalog import CATALOG_NAMES, load_catalog

__all__ = ["layout"]

REPLICA = Path(__file__).resolve().parents[1] / "replica"


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the constant nodes that are docstrings (of the module, a class or a function, or after an assignment)."""
    found = set()
    for node in ast.walk(tree):
        for statement in getattr(node, "body", ()) if isinstance(getattr(node, "body", None), list) else ():
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def _strings(nodes: list) -> list[str] | None:
    """The string elements of a display (starred parts skipped), or None when another element is in it."""
    out = []
    for node in nodes:
        if isinstance(node, ast.Starred):
            continue
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return None
        out.append(node.value)
    return out


def _table_list(node: ast.AST, tables: set[str]) -> bool:
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        names = _strings(node.elts)
    elif isinstance(node, ast.Dict):
        names = _strings([key for key in node.keys if key is not None])  # ``**other`` parts aside
    else:
        return False
    return names is not None and len(names) >= 2 and all(name in tables for name in names)


def _defaults(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [node.value]
    return []


def _recipe(path: Path, root: Path) -> str | None:
    parts = path.relative_to(root).parts
    return parts[0] if len(parts) > 1 and parts[0] in CATALOG_NAMES else None


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module]
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return []


def layout(root: Path = REPLICA) -> dict[str, int]:
    """The counts of the module docstring for the package at ``root``."""
    catalogs = [load_catalog(name) for name in CATALOG_NAMES]
    tables = {name for catalog in catalogs for name in catalog.table_names}
    schemas = {catalog.schema for catalog in catalogs}
    counts = dict.fromkeys(
        ("lines", "files", "table_name_lists", "schema_constants", "catalog_defaults", "cross_recipe_imports"), 0
    )
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        docstrings = _docstrings(tree)
        recipe = _recipe(path, root)
        counts["files"] += 1
        counts["lines"] += len(text.splitlines())
        for node in ast.walk(tree):
            counts["table_name_lists"] += _table_list(node, tables)
            counts["schema_constants"] += (
                isinstance(node, ast.Constant) and node.value in schemas and id(node) not in docstrings
            )
            counts["catalog_defaults"] += sum(
                isinstance(d, ast.Constant) and d.value in CATALOG_NAMES for d in _defaults(node)
            )
            for module in _imported(node):
                parts = module.split(".")
                other = parts[1] if len(parts) > 1 and parts[0] == "replica" else None
                counts["cross_recipe_imports"] += bool(recipe and other in CATALOG_NAMES and other != recipe)
    return counts


if __name__ == "__main__":
    json.dump(layout(Path(sys.argv[1]) if len(sys.argv) > 1 else REPLICA), sys.stdout, indent=1)
    print()
