"""Check an artifact's ``manifest.json`` against an allow-list of keys and types before any of it is used.

The manifest says how an artifact was made; loading reads its pipeline settings (stages, candidates, catalog, the
date stage's ``as_of``...), its adapter and, in ``evaluate``, its split. Like program.json it comes with a shared
folder, so each key is checked by name and type, and a value the program cannot take (a text ``as_of`` that is not
a date, an unknown catalog or adapter, a count of the wrong type) is refused with one line naming the key, instead
of a ``TypeError`` or ``ValueError`` deep in the settings.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from catalog import CATALOG_NAMES
from modules.errors import ArtifactRefused
from modules.options import ADAPTERS, SCHEMA_DETAILS
from modules.settings import PipelineSettings

__all__ = ["checked_manifest", "field_text", "pipeline_of"]

_FIELD_TEXT_MAX = 80


def field_text(where: str) -> str:
    """Return a field's dotted path as printable text of bounded length, for a one-line message.

    Examples:
        >>> field_text("pipeline.as_of")
        'pipeline.as_of'
        >>> field_text("a\\nb")
        'a\\\\nb'
        >>> len(field_text("x" * 10_000))
        81
    """
    text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in where[: _FIELD_TEXT_MAX + 1])
    return text if len(text) <= _FIELD_TEXT_MAX else text[:_FIELD_TEXT_MAX] + "…"


class _Refusal(Exception):
    """A value that does not fit; `why` completes "<field> ..."."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


Check = Callable[[Any], None]


def _of(*types: type, why: str) -> Check:
    def check(value: Any) -> None:
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise _Refusal(why)

    return check


def _optional(check: Check) -> Check:
    def optional(value: Any) -> None:
        if value is not None:
            check(value)

    return optional


def _one_of(names: tuple[str, ...], what: str) -> Check:
    def check(value: Any) -> None:
        if not isinstance(value, str):
            raise _Refusal(f"is not text naming {what} ({', '.join(names)})")
        if value not in names:
            raise _Refusal(f"names an unknown {what} {field_text(value)!r}; choose one of {', '.join(names)}")

    return check


def _iso_date(value: Any) -> None:
    if not isinstance(value, str):
        raise _Refusal("is not an ISO date text (YYYY-MM-DD)")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise _Refusal(f"{field_text(value)!r} is not an ISO date (YYYY-MM-DD)") from None


def _list_of(check: Check, why: str) -> Check:
    def checked(value: Any) -> None:
        if not isinstance(value, list):
            raise _Refusal(why)
        for item in value:
            check(item)

    return checked


def _object(value: Any) -> None:
    if not isinstance(value, dict):
        raise _Refusal("is not a JSON object")


_TEXT = _of(str, why="is not text")
_INT = _of(int, why="is not a whole number")
_NUMBER = _of(int, float, why="is not a number")
_SCALAR = _of(str, int, float, bool, why="is not text or a number")

PIPELINE_KEYS: dict[str, Check] = {
    "stages": _list_of(_TEXT, "is not a list of stage names"),
    "candidates": _optional(_INT),
    "min_agreement": _NUMBER,
    "max_corrections": _INT,
    "timeout_s": _optional(_NUMBER),
    "reasoning": _of(bool, why="is not true or false"),
    "schema_detail": _one_of(SCHEMA_DETAILS, "schema detail"),
    "catalog": _one_of(CATALOG_NAMES, "catalog"),
    "as_of": _optional(_iso_date),
}
"""The pipeline settings a manifest may record (``PipelineSettings``' fields), each with its type check."""
SPLIT_KEYS: dict[str, Check] = {
    **dict.fromkeys(("n_train", "n_validation", "n_heldout", "seed"), _INT),
    **dict.fromkeys(
        ("train_req_ids", "validation_req_ids", "heldout_req_ids"),
        _list_of(_of(int, str, why="is not a list of req_ids"), "is not a list of req_ids"),
    ),
}
DATASET_KEYS: dict[str, Check] = {"name": _TEXT, "sha256": _TEXT, "n_examples": _INT}
_FLAT_SCALARS = ("settings", "scores", "versions")
"""Records of the compile: objects whose values are text, numbers or null."""
TOP_KEYS: dict[str, Check | None] = {
    "program_version": _INT,
    "program_class": _TEXT,
    "signature_hash": _TEXT,
    "model": _optional(_TEXT),
    "catalog": _optional(_one_of(CATALOG_NAMES, "catalog")),
    "optimizer": _optional(_TEXT),
    "adapter": _optional(_one_of(ADAPTERS, "adapter")),
    "pipeline": None,
    "split": None,
    "dataset": None,
    **dict.fromkeys(_FLAT_SCALARS, None),
    "usage": _object,  # token counts per stage and model (nested), only reported
    "elapsed_s": _optional(_NUMBER),
    "created_at": _optional(_TEXT),
    "command": _optional(_TEXT),
}
"""Every key a manifest may hold; None: an object checked by its own allow-list below."""


def _refuse(file: str, where: str, why: str) -> ArtifactRefused:
    where = field_text(where)
    return ArtifactRefused(
        f"Refusing the artifact manifest '{file}': {where} {why}; recompile with python -m compile.", file, where
    )


def _checked_object(file: str, where: str, value: Any, allowed: dict[str, Check]) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        raise _refuse(file, where, "is not a JSON object")
    for key, item in value.items():
        if key not in allowed:
            raise _refuse(file, f"{where}.{key}", "is not a key a manifest may hold")
        try:
            allowed[key](item)
        except _Refusal as refusal:
            raise _refuse(file, f"{where}.{key}", refusal.why) from None


def _checked_flat(file: str, where: str, value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        raise _refuse(file, where, "is not a JSON object")
    for key, item in value.items():
        if item is not None and not isinstance(item, str | int | float | bool):
            raise _refuse(file, f"{where}.{key}", "is not text, a number or null")


def checked_manifest(manifest: Any, file: str) -> dict[str, Any]:
    """Return `manifest` (a parsed manifest.json) once every key is one a manifest may hold, of its type.

    Args:
        manifest: The parsed manifest.json.
        file: The file, named in the refusal.

    Raises:
        ArtifactRefused: An unknown key, a value of the wrong type, an unknown catalog or adapter, an ``as_of`` that
            is not an ISO date (the key is named, as a dotted path).
    """
    if not isinstance(manifest, dict):
        raise _refuse(file, "the manifest", "is not a JSON object")
    for key, value in manifest.items():
        if key not in TOP_KEYS:
            raise _refuse(file, key, "is not a key a manifest may hold")
        check = TOP_KEYS[key]
        if check is not None:
            try:
                check(value)
            except _Refusal as refusal:
                raise _refuse(file, key, refusal.why) from None
    _checked_object(file, "pipeline", manifest.get("pipeline"), PIPELINE_KEYS)
    _checked_object(file, "split", manifest.get("split"), SPLIT_KEYS)
    _checked_object(file, "dataset", manifest.get("dataset"), DATASET_KEYS)
    for key in _FLAT_SCALARS:
        _checked_flat(file, key, manifest.get(key))
    return manifest


def pipeline_of(manifest: dict[str, Any], file: str) -> PipelineSettings:
    """Build the pipeline settings a checked manifest records (an artifact from before catalogs: ztf).

    Raises:
        ArtifactRefused: A value of the right type the settings refuse (a negative count, an unknown stage...).
    """
    saved = dict(manifest.get("pipeline") or {})
    if "stages" in saved:
        saved["stages"] = tuple(saved["stages"])
    try:
        return PipelineSettings(**saved)
    except ValueError as err:  # UnknownStageError too
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise _refuse(file, "pipeline", f"is not usable ({reason.rstrip('.')})") from err
