"""Freeze a compiled program as an artifact: ``program.json`` and ``manifest.json``, written atomically."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import dspy
import orjson
from dspy.utils.saving import get_dependency_versions

import fileio
from modules.artifacts.load import (
    MANIFEST_FILE,
    PROGRAM_FILE,
    PROGRAM_VERSION,
    RETRIEVER_KEY,
    program_class,
    signature_hash,
)
from optimizers.errors import CompileError

__all__ = ["check_writable", "save_artifact"]

logger = logging.getLogger(__name__)


def _unwritable(folder: Path, err: OSError) -> CompileError:
    return CompileError(f"Cannot write the artifact to '{folder}': {err.strerror or err}. Choose a writable --out.")


def check_writable(folder: str | Path) -> None:
    """Create the artifact folder and check that a file can be written there (before a long compile).

    Raises:
        CompileError: The folder cannot be created or written.
    """
    try:
        fileio.check_writable(folder)
    except OSError as err:
        raise _unwritable(Path(folder), err) from err


def _program_state(program: dspy.Module) -> dict[str, Any]:
    """Dump the program's state with every predictor LM cleared (restored afterwards; DSPY_GUIDE.md §8.5)."""
    predictors = [predictor for _, predictor in program.named_predictors()]
    saved_lms = [predictor.lm for predictor in predictors]
    try:
        for predictor in predictors:
            predictor.lm = None
        state = program.dump_state()
    finally:
        for predictor, lm in zip(predictors, saved_lms, strict=True):
            predictor.lm = lm
    retriever = getattr(program, "demo_retriever", None)
    if retriever is not None:
        state[RETRIEVER_KEY] = retriever.to_state()
    state["metadata"] = {"dependency_versions": get_dependency_versions()}
    return state


def save_artifact(program: dspy.Module, out_dir: str | Path, manifest: dict[str, Any]) -> Path:
    """Write ``program.json`` and ``manifest.json`` atomically; a failure leaves a previous artifact intact.

    ``program_version``, ``program_class`` and (unless given, e.g. computed before optimisation)
    ``signature_hash`` are added to the manifest.

    Args:
        program: The compiled program; its predictor LMs are not saved (record the model in the manifest).
        out_dir: The artifact folder (created if missing).
        manifest: JSON-ready facts about the compile.

    Returns:
        The artifact folder.

    Raises:
        CompileError: The folder cannot be created or written.
    """
    out_dir = Path(out_dir)
    full_manifest = {
        "program_version": PROGRAM_VERSION,
        "program_class": program_class(program),
        "signature_hash": manifest.get("signature_hash") or signature_hash(program),
        **{key: value for key, value in manifest.items() if key != "signature_hash"},
    }
    options = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE | orjson.OPT_SERIALIZE_NUMPY
    program_bytes = orjson.dumps(_program_state(program), option=options)
    manifest_bytes = orjson.dumps(full_manifest, option=options | orjson.OPT_NON_STR_KEYS)
    try:
        fileio.write_files(out_dir, {PROGRAM_FILE: program_bytes, MANIFEST_FILE: manifest_bytes})
    except OSError as err:
        raise _unwritable(out_dir, err) from err
    logger.info("artifact written to %s", out_dir)
    return out_dir
