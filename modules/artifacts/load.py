"""Load a compiled program from its artifact (``program.json`` + ``manifest.json``), safely.

An artifact folder holds DSPy's JSON state of every named predictor (plus the MQS demo index when there is one)
and a manifest saying how it was made (``optimizers.saving`` writes it). Loading refuses an artifact whose program
version, program class or signature hash differs from the code, and loads predictor by predictor, so it fits any
stage ablation.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dspy

from defaults.catalog import DEFAULT_CATALOG
from fileio.json_data import UnreadableJSON, loads_json
from lms import model_slug
from modules.alerce_text2sql import AlerceText2SQL
from modules.artifacts.manifest import checked_manifest, field_text, pipeline_of
from modules.artifacts.state import checked_program_state
from modules.errors import RECOMPILE_HINT, ArtifactMismatch, ArtifactNotFound, ArtifactRefused, CatalogMismatch
from modules.generation.demo_retriever import DemoRetriever
from modules.settings import PipelineSettings, ProgramSettings

if TYPE_CHECKING:
    from engines import Engine

__all__ = [
    "MANIFEST_FILE",
    "PROGRAM_FILE",
    "PROGRAM_VERSION",
    "REPO_DIR",
    "RETRIEVER_KEY",
    "default_artifact_dir",
    "load_artifact",
    "load_program",
    "program_class",
    "signature_hash",
]

logger = logging.getLogger(__name__)

PROGRAM_VERSION = 1
"""Bump when the program's structure changes in a way the signature hash cannot see (routing, predictor roles)."""
PROGRAM_FILE = "program.json"
MANIFEST_FILE = "manifest.json"
RETRIEVER_KEY = "demo_retriever"
"""Top-level key of program.json holding the MQS demo index (absent for other strategies)."""
REPO_DIR = Path(__file__).resolve().parents[2]


def default_artifact_dir(model: str | None, catalog: str = DEFAULT_CATALOG) -> Path:
    """Return ``<repo>/artifacts/<model slug>/<catalog>``, where ``python -m compile`` freezes a model's program."""
    return REPO_DIR / "artifacts" / model_slug(model) / catalog


def program_class(program: dspy.Module) -> str:
    """Name the program's class as ``module:QualName``."""
    cls = type(program)
    return f"{cls.__module__}:{cls.__qualname__}"


def _type_name(annotation: object) -> str:
    return annotation.__qualname__ if isinstance(annotation, type) else str(annotation)


def signature_hash(program: dspy.Module, names: Collection[str] | None = None) -> str:
    """Hash every named predictor's signature: instructions, then each field's name, role, type and desc, in order.

    Call it on a program as built in code (before optimisation or loading), since optimisers may rewrite
    instructions.

    Args:
        program: The program.
        names: Hash only these predictors (those an artifact saved, so that a stage added later loads with its
            code-defined prompt); None hashes all.

    Returns:
        A sha256 hex digest.
    """
    described = []
    for name, predictor in program.named_predictors():
        if names is not None and name not in names:
            continue
        signature = predictor.signature
        fields = [
            [
                field_name,
                (field.json_schema_extra or {}).get("__dspy_field_type"),
                _type_name(field.annotation),
                (field.json_schema_extra or {}).get("desc"),
            ]
            for field_name, field in signature.fields.items()
        ]
        described.append([name, signature.instructions, fields])
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()


def _artifact_files(path: str | Path) -> tuple[Path, Path]:
    path = Path(path).expanduser()
    program_file = path / PROGRAM_FILE if path.is_dir() else path
    if not program_file.is_file():
        raise ArtifactNotFound(
            f"No compiled program at '{program_file}'; compile one with python -m compile --model MODEL.",
            str(program_file),
        )
    manifest_file = program_file.with_name(MANIFEST_FILE)
    if not manifest_file.is_file():
        raise ArtifactNotFound(
            f"'{program_file}' has no {MANIFEST_FILE} beside it; recompile with python -m compile --model MODEL.",
            str(manifest_file),
        )
    return program_file, manifest_file


def _read_json(file: Path) -> dict[str, Any]:
    try:
        data = loads_json(file.read_bytes())
    except OSError as err:
        raise ArtifactNotFound(
            f"Cannot read '{file}': {err.strerror or err}. Recompile with python -m compile.", str(file)
        ) from err
    except UnreadableJSON as err:
        raise ArtifactNotFound(f"Cannot read '{file}': {err}. Recompile with python -m compile.", str(file)) from err
    if not isinstance(data, dict):
        raise ArtifactNotFound(f"'{file}' does not hold a JSON object. Recompile with python -m compile.", str(file))
    return data


def _read_manifest(file: Path) -> dict[str, Any]:
    return checked_manifest(_read_json(file), str(file))


def _differences(program: dspy.Module, manifest: dict[str, Any], saved: Collection[str]) -> list[str]:
    expected = {
        "program_version": PROGRAM_VERSION,
        "program_class": program_class(program),
        "signature_hash": signature_hash(program, saved),
    }
    return [
        f"{key} {manifest.get(key)!r} (saved) vs. {value!r} (code)"
        for key, value in expected.items()
        if manifest.get(key) != value
    ]


def load_artifact(program: dspy.Module, path: str | Path) -> dict[str, Any]:
    """Load an artifact into a freshly built program, predictor by predictor.

    Predictors the artifact lacks (stages added since) keep their code-defined state and are left out of the
    signature check; saved predictors the program lacks are skipped (both logged). An MQS demo index is attached
    as ``program.demo_retriever``.

    Args:
        program: The program as built in code, with the artifact's stage settings or an ablation of them.
        path: The artifact folder or its ``program.json``.

    Returns:
        The manifest.

    Raises:
        ArtifactNotFound: No program.json or manifest.json, or unreadable JSON.
        ArtifactMismatch: The program version, class or signature hash differs from the code.
        ArtifactRefused: program.json holds a field an artifact may not set (an LM, LM options, unknown keys) or a
            demo index that cannot be built; manifest.json holds an unknown key or a value of the wrong type.
    """
    program_file, manifest_file = _artifact_files(path)
    manifest = _read_manifest(manifest_file)
    names = dict(program.named_predictors())
    state = checked_program_state(_read_json(program_file), set(names), str(program_file))
    differences = _differences(program, manifest, state.keys())
    if differences:
        hint = RECOMPILE_HINT.format(model=manifest.get("model") or "MODEL")
        raise ArtifactMismatch(
            f"The artifact '{program_file}' does not match the code: {'; '.join(differences)}. "
            f"It was compiled for another version of the program; {hint}.",
            str(program_file),
            differences,
        )
    for name, predictor in names.items():
        if name in state:
            predictor.load_state(state[name])
        else:
            logger.warning("artifact %s has no state for %s; it keeps its code-defined prompt", program_file, name)
    skipped = sorted(set(state) - set(names) - {"metadata", RETRIEVER_KEY})
    if skipped:
        logger.info("artifact predictors not in this program, skipped: %s", ", ".join(skipped))
    if RETRIEVER_KEY in state:
        program.demo_retriever = _retriever(state[RETRIEVER_KEY], str(program_file))
    return manifest


def _retriever(state: dict[str, Any], file: str) -> DemoRetriever:
    """Rebuild the demo index; one the index cannot be built from (its shape was checked) is refused."""
    try:
        return DemoRetriever.from_state(state)
    except (KeyError, IndexError, TypeError, ValueError) as err:
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ArtifactRefused(
            f"Refusing the artifact '{file}': demo_retriever is not a usable demo index ({field_text(reason)}); "
            "recompile with python -m compile.",
            file,
            RETRIEVER_KEY,
        ) from err


def _saved_pipeline(manifest: dict[str, Any] | None, catalog: str, path: Path | None) -> PipelineSettings:
    """The artifact's pipeline settings (an artifact from before catalogs wrote for ztf), or the catalog's defaults.

    Raises:
        CatalogMismatch: The artifact was compiled for another catalog.
        ArtifactRefused: Its pipeline settings are not usable.
    """
    if manifest is None:
        return PipelineSettings(catalog=catalog)
    pipeline = pipeline_of(manifest, str(path))
    if pipeline.catalog != catalog:
        raise CatalogMismatch(
            f"The artifact '{path}' was compiled for the {pipeline.catalog} catalog, not {catalog}; use "
            f"--catalog {pipeline.catalog}, or compile one with python -m compile --catalog {catalog}.",
            pipeline.catalog,
            catalog,
        )
    return pipeline


def load_program(
    model: str | None,
    *,
    executor: Engine | None,
    choice: ProgramSettings | None = None,
) -> tuple[AlerceText2SQL, dict[str, Any] | None]:
    """Build the program from its settings (the artifact's, adjusted by `choice`) and load the compiled state.

    Args:
        model: The model string; with the executor's catalog it names the default artifact folder
            (``default_artifact_dir``).
        executor: Runs the program's SQL (self-correction, selection, checks); the program writes for its catalog
            (ztf when there is none).
        choice: The artifact to load and the switches that adjust it (``choice.direct`` is not handled here).

    Returns:
        ``(program, manifest)``; the manifest is None when running uncompiled. ``manifest["adapter"]`` names the
        adapter to apply (``modules.predictors.adapter.make_adapter``).

    Raises:
        ArtifactNotFound: ``choice.artifact`` was given and holds no artifact.
        ArtifactMismatch: The artifact does not match the code.
        CatalogMismatch: The artifact was compiled for another catalog than the executor's.
        ArtifactRefused: The artifact holds a field it may not set, or a manifest value of the wrong type.
    """
    choice = choice or ProgramSettings()
    catalog = executor.catalog if executor is not None else DEFAULT_CATALOG
    manifest = None
    path = choice.artifact if choice.artifact is not None else default_artifact_dir(model, catalog)
    if choice.uncompiled:
        path = None
    elif choice.artifact is None and not (path / PROGRAM_FILE).is_file():
        logger.warning(
            "no compiled program for %s on the %s catalog; running uncompiled — compile one with "
            "python -m compile --catalog %s --model %s",
            model or "the default model",
            catalog,
            catalog,
            model or "MODEL",
        )
        path = None
    if path is not None:
        manifest = _read_manifest(_artifact_files(path)[1])
    program = AlerceText2SQL(executor, choice.pipeline(_saved_pipeline(manifest, catalog, path)))
    if path is None:
        return program, None
    manifest = load_artifact(program, path)
    if model and manifest.get("model") not in (None, model):
        logger.warning("the artifact at %s was compiled for %s, not %s", path, manifest.get("model"), model)
    return program, manifest
