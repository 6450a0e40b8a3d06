"""The default catalog is named once in the tree (``defaults.catalog``): no parameter default names a catalog."""

import ast
from pathlib import Path

from catalog import CATALOG_NAMES
from defaults.catalog import DEFAULT_CATALOG

REPO = Path(__file__).resolve().parent.parent
PACKAGES = [path.parent for path in REPO.glob("*/__init__.py")]


def _catalog_defaults(tree: ast.AST) -> list[int]:
    """Lines of the parameter and annotated class-attribute defaults that are a catalog's name."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            defaults = [node.value]
        else:
            defaults = []
        found += [d.lineno for d in defaults if isinstance(d, ast.Constant) and d.value in CATALOG_NAMES]
    return found


def test_the_counting_rule_finds_a_catalog_default() -> None:
    tree = ast.parse('def f(catalog="ztf", other="x"): ...\nclass C:\n    catalog: str = "multisurvey"\n')
    assert _catalog_defaults(tree) == [1, 3]


def test_no_parameter_default_names_a_catalog() -> None:
    assert DEFAULT_CATALOG in CATALOG_NAMES
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        for line in _catalog_defaults(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []
