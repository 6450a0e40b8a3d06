"""Check a compiled program's saved state against an allow-list before any of it reaches DSPy.

Artifacts are shared: one team compiles per LLM, others load the folder. Loading one may change prompts and demos and
nothing else, so every field is checked by shape, and anything else (an LM, per-call ``config`` such as
``api_base``, an unknown key) is refused with one line naming the field. DSPy's own ``Predict.load_state`` copies
unknown keys onto the predictor, where ``config`` becomes per-call LM options.
"""

from __future__ import annotations

import math
from typing import Any

from modules.artifacts.manifest import field_text
from modules.errors import ArtifactRefused

__all__ = ["checked_program_state"]

_PREDICTOR_KEYS = {"traces", "train", "demos", "signature", "lm"}
_SIGNATURE_KEYS = {"instructions", "fields"}
_FIELD_KEYS = {"prefix", "description"}
_RETRIEVER_KEYS = {"k", "examples", "vocabulary", "idf"}
_RETRIEVER_EXAMPLE_KEYS = {"question", "knowledge", "sql"}
_METADATA_KEYS = {"dependency_versions"}
_SCALARS = (str, int, float, bool, type(None))


def _refuse(file: str, where: str, why: str) -> None:
    where = field_text(where)
    raise ArtifactRefused(
        f"Refusing the artifact '{file}': {where} {why}; an artifact may hold prompts and demos only.", file, where
    )


def _only(file: str, where: str, value: Any, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        _refuse(file, where, "is not a JSON object")
    for key in value:
        if key not in allowed:
            _refuse(file, f"{where}.{key}", "is not a field an artifact may set")
    return value


def _text(file: str, where: str, value: Any) -> None:
    if not isinstance(value, str):
        _refuse(file, where, "is not text")


def _demo(file: str, where: str, demo: Any) -> None:
    if not isinstance(demo, dict):
        _refuse(file, where, "is not a JSON object")
    for key, value in demo.items():
        if not isinstance(value, _SCALARS) and not (
            isinstance(value, list) and all(isinstance(item, _SCALARS) for item in value)
        ):
            _refuse(file, f"{where}.{key}", "is not text, a number or a list of them")


def _predictor(file: str, name: str, state: Any) -> None:
    state = _only(file, name, state, _PREDICTOR_KEYS)
    if state.get("lm") is not None:
        _refuse(file, f"{name}.lm", "sets a language model")
    signature = _only(file, f"{name}.signature", state.get("signature"), _SIGNATURE_KEYS)
    _text(file, f"{name}.signature.instructions", signature.get("instructions"))
    fields = signature.get("fields")
    if not isinstance(fields, list):
        _refuse(file, f"{name}.signature.fields", "is not a list")
    for index, field in enumerate(fields):
        where = f"{name}.signature.fields[{index}]"
        for key, value in _only(file, where, field, _FIELD_KEYS).items():
            _text(file, f"{where}.{key}", value)
    for key in ("demos", "traces", "train"):
        items = state.get(key, [])
        if not isinstance(items, list):
            _refuse(file, f"{name}.{key}", "is not a list")
        for index, item in enumerate(items):
            _demo(file, f"{name}.{key}[{index}]", item)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _retriever(file: str, state: Any) -> None:
    state = _only(file, "demo_retriever", state, _RETRIEVER_KEYS)
    k, examples, vocabulary, idf = (state.get(key) for key in ("k", "examples", "vocabulary", "idf"))
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        _refuse(file, "demo_retriever.k", "is not a count")
    if not isinstance(examples, list) or not examples:
        _refuse(file, "demo_retriever.examples", "is not a non-empty list")
    for index, example in enumerate(examples):
        where = f"demo_retriever.examples[{index}]"
        for key in _RETRIEVER_EXAMPLE_KEYS:
            _text(file, f"{where}.{key}", _only(file, where, example, _RETRIEVER_EXAMPLE_KEYS).get(key))
    if not isinstance(idf, list) or not idf or not all(_finite(x) for x in idf):
        _refuse(file, "demo_retriever.idf", "is not a non-empty list of finite numbers")
    if not isinstance(vocabulary, dict) or sorted(
        index if isinstance(index, int) and not isinstance(index, bool) else -1 for index in vocabulary.values()
    ) != list(range(len(idf))):
        _refuse(file, "demo_retriever.vocabulary", "does not map its terms one to one onto the positions of idf")


def checked_program_state(state: dict[str, Any], predictors: set[str], file: str) -> dict[str, Any]:
    """Return ``state`` (a program.json) once every field is one an artifact may hold.

    Args:
        state: The parsed program.json.
        predictors: The program's predictor names; other top-level keys are the demo index and metadata.
        file: The file, named in the refusal.

    Raises:
        ArtifactRefused: A field outside the allow-list (the field is named), or one of the wrong shape.
    """
    for key, value in state.items():
        if key == "demo_retriever":
            _retriever(file, value)
        elif key == "metadata":
            _only(file, "metadata", value, _METADATA_KEYS)
        elif key in predictors or "." in key:
            _predictor(file, key, value)
        else:
            _refuse(file, key, "is not a predictor of the program, its demo index or its metadata")
    return state
