"""Package names imported on first use, so that a command parses its arguments before the program is imported."""

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return a package's ``__getattr__`` and ``__dir__`` for names that live in its submodules (PEP 562).

    Args:
        package: The package's ``__name__``.
        exports: ``{name: "module"}``, or ``{name: "module:attribute"}`` for a name the module calls otherwise.
            A name must not be the name of a submodule (importing the submodule would hide it).
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 (the module hook's name)
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module_name), attribute or name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(set(exports) | set(vars(importlib.import_module(package))))

    return __getattr__, __dir__
