"""A DSPy engine that runs a GGUF model in process with llama-cpp-python.

``dspy.LM(model, engine=LlamaCppEngine(...))`` keeps caching, retries, history and usage; this class only
turns a ``dspy.lm15.Request`` into one llama.cpp call and the result into a ``dspy.lm15.Response``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dspy.lm15 import ContextLengthError, Message, Request, Response, TextPart, Usage

from lms.errors import LocalModelUnavailable
from lms.local_models import LOCAL_PREFIX, PromptStyle, local_model
from lms.messages import chat_messages, render_completion_prompt, system_text

__all__ = ["LLAMA_CPP_PACKAGE", "LlamaCppEngine", "LlamaSettings", "build_engine", "import_llama_cpp"]

logger = logging.getLogger(__name__)

LLAMA_CPP_PACKAGE = "llama-cpp-python==0.3.36"
_DEFAULTS_LOCK = threading.Lock()


@dataclass(frozen=True, kw_only=True)
class LlamaSettings:
    """How llama.cpp runs a model.

    Attributes:
        n_ctx: Context window in tokens (prompt plus answer). 8192 holds the full schema (about 5,000-6,000 tokens
            with these tokenizers), a few demos and the answer; it is also SmolLM2's training context.
        seed: Sampling seed; with temperature 0 decoding is greedy anyway.
        n_threads: CPU threads; None means ``os.cpu_count()``.
        max_tokens: Answer budget when the request does not set one.
        extra_buffers: Let llama.cpp repack weights into extra buffer types (AMX, CPU repack). Off by default: on
            VMs that advertise AMX without supporting it the AMX kernels crash the process (SIGSEGV in ldtilecfg).
    """

    n_ctx: int = 8192
    seed: int = 0
    n_threads: int | None = None
    max_tokens: int = 1024
    extra_buffers: bool = False


class LlamaCppEngine:
    """Run one GGUF model with llama.cpp behind DSPy's engine interface ``complete(Request) -> Response``.

    The model is loaded on the first call and shared by every copy of the program (``__deepcopy__`` returns self);
    a lock serialises calls because llama.cpp has one context.

    Args:
        model_path: Path of the GGUF file.
        name: Registered local model name (e.g. "smollm2-135m"); saved programs store it instead of the path.
        prompt_style: "chat" uses the model's chat template; "completion" renders plain text for base models.
        stop: Stop strings added to every request's own.
        settings: Context size, seed, threads and default answer budget.
    """

    supports_response_schema = True
    supported_params = frozenset({"temperature", "max_tokens", "top_p", "top_k", "stop", "seed", "response_format"})

    def __init__(
        self,
        model_path: str | Path,
        *,
        name: str | None = None,
        prompt_style: PromptStyle = "chat",
        stop: tuple[str, ...] = (),
        settings: LlamaSettings | None = None,
    ) -> None:
        self.model_path = str(model_path)
        self.name = name
        self.prompt_style = prompt_style
        self.stop = tuple(stop)
        self.settings = settings or LlamaSettings()
        self.merges_system = False
        self._llm: Any = None
        self._lock = threading.RLock()  # complete() holds it while load() takes it

    def complete(self, request: Request) -> Response:
        """Answer one DSPy request with llama.cpp.

        Args:
            request: The canonical request (system, messages, config).

        Returns:
            The assistant message, finish reason and token usage.

        Raises:
            LocalModelUnavailable: llama-cpp-python is not installed.
            dspy.lm15.ContextLengthError: the prompt does not fit in ``n_ctx``.
        """
        system = system_text(request.system)
        turns = [(m.role, m.text or "") for m in request.messages]
        params = self._params(request)
        with self._lock:
            llm = self.load()
            try:
                if self.prompt_style == "completion":
                    out = llm.create_completion(prompt=render_completion_prompt(system, turns), **params)
                    text = out["choices"][0]["text"].lstrip()  # the space after "Assistant:" is not the answer
                else:
                    out = self._chat(llm, system, turns, params)
                    text = out["choices"][0]["message"]["content"]
            except ValueError as err:
                if "context window" in str(err):
                    raise ContextLengthError(f"{err} (raise n_ctx or shorten the prompt)") from err
                raise
        usage = out.get("usage") or {}
        return Response(
            id=out.get("id"),
            model=self.name or Path(self.model_path).name,
            message=Message.assistant([TextPart(text or "")]),
            finish_reason=_finish_reason(out["choices"][0].get("finish_reason")),
            usage=Usage(
                input_tokens=usage.get("prompt_tokens"),
                output_tokens=usage.get("completion_tokens"),
                total_tokens=usage.get("total_tokens"),
            ),
        )

    def _params(self, request: Request) -> dict[str, Any]:
        cfg = request.config
        params: dict[str, Any] = {
            "temperature": cfg.temperature if cfg.temperature is not None else 0.0,
            "max_tokens": cfg.max_tokens or self.settings.max_tokens,
            "seed": cfg.seed if cfg.seed is not None else self.settings.seed,
            "stop": [*cfg.stop, *self.stop] or None,
        }
        if cfg.top_p is not None:
            params["top_p"] = cfg.top_p
        if cfg.top_k is not None:
            params["top_k"] = cfg.top_k
        if cfg.response_format:
            params["grammar"] = _grammar(import_llama_cpp(self.name or self.model_path), cfg.response_format)
        return params

    def _chat(self, llm: Any, system: str, turns: list[tuple[str, str]], params: dict[str, Any]) -> dict[str, Any]:
        from jinja2 import TemplateError

        if not self.merges_system:
            try:
                return llm.create_chat_completion(messages=chat_messages(system, turns, merge=False), **params)
            except TemplateError as err:
                if not system:
                    raise
                logger.info(
                    "chat template of %s refused a system turn (%s); merging it into the user turn",
                    self.model_path,
                    err,
                )
                self.merges_system = True
        return llm.create_chat_completion(messages=chat_messages(system, turns, merge=True), **params)

    def load(self) -> Any:
        """Load the model now (otherwise the first call loads it) and return the ``llama_cpp.Llama``.

        Raises:
            LocalModelUnavailable: llama-cpp-python is not installed.
        """
        with self._lock:
            if self._llm is None:
                self._llm = self._create()
            return self._llm

    def _create(self) -> Any:
        llama_cpp = import_llama_cpp(self.name or self.model_path)
        threads = self.settings.n_threads or os.cpu_count() or 1
        logger.info("loading %s (n_ctx=%d, threads=%d)", self.model_path, self.settings.n_ctx, threads)
        with _model_defaults(llama_cpp, extra_buffers=self.settings.extra_buffers):
            return llama_cpp.Llama(
                model_path=self.model_path,
                n_ctx=self.settings.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                seed=self.settings.seed,
                verbose=False,
            )

    def __deepcopy__(self, memo: dict[int, Any]) -> LlamaCppEngine:
        return self

    def dump_state(self) -> dict[str, Any]:
        """Describe the engine for a saved program: the registered name if any, else the file and its style."""
        state: dict[str, Any] = {"settings": dataclasses.asdict(self.settings)}
        if self.name:
            return {"name": self.name, **state}
        return {"model_path": self.model_path, "prompt_style": self.prompt_style, "stop": list(self.stop), **state}

    @classmethod
    def load_state(cls, state: dict[str, Any]) -> LlamaCppEngine:
        """Rebuild an engine from ``dump_state()``, finding a registered model's file on this machine."""
        settings = LlamaSettings(**state.get("settings", {}))
        if state.get("name"):
            return build_engine(state["name"], settings=settings)
        return cls(
            state["model_path"], prompt_style=state["prompt_style"], stop=tuple(state["stop"]), settings=settings
        )


def import_llama_cpp(model: str) -> Any:
    """Import llama_cpp, or raise LocalModelUnavailable naming the package to install."""
    try:
        import llama_cpp
    except ImportError as err:
        raise LocalModelUnavailable(model, LLAMA_CPP_PACKAGE, "llama-cpp-python is not installed") from err
    return llama_cpp


@contextlib.contextmanager
def _model_defaults(llama_cpp: Any, *, extra_buffers: bool) -> Iterator[None]:
    """Set llama.cpp's ``use_extra_bufts`` model parameter while a model loads.

    llama-cpp-python 0.3.36 exposes no argument for it (llama.cpp's ``--no-repack``), so the default-parameter
    factory that ``Llama.__init__`` calls is swapped for the duration of the load.
    """
    lib = getattr(llama_cpp, "llama_cpp", None)
    if extra_buffers or lib is None:
        yield
        return
    original = lib.llama_model_default_params

    def defaults() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    with _DEFAULTS_LOCK:
        lib.llama_model_default_params = defaults
        try:
            yield
        finally:
            lib.llama_model_default_params = original


def _grammar(llama_cpp: Any, response_format: dict[str, Any]) -> Any:
    """Build the llama.cpp grammar that forces the requested JSON shape."""
    schema = response_format.get("schema")
    if response_format.get("type") == "json_schema" and schema is None:
        schema = (response_format.get("json_schema") or {}).get("schema")
    if schema:
        return llama_cpp.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    return llama_cpp.LlamaGrammar.from_string(llama_cpp.llama_grammar.JSON_GBNF, verbose=False)


def _finish_reason(reason: str | None) -> str:
    return "length" if reason == "length" else "stop"


def build_engine(name: str, *, settings: LlamaSettings | None = None) -> LlamaCppEngine:
    """Find a local model's file and wrap it in a LlamaCppEngine (the weights load on the first call).

    Args:
        name: Local model name, with or without the ``local/`` prefix.
        settings: llama.cpp settings; defaults to ``LlamaSettings()``.

    Raises:
        UnknownModel: no shipped model has that name.
        LocalModelUnavailable: llama-cpp-python or the model's package is missing.
    """
    spec = local_model(name)
    model = f"{LOCAL_PREFIX}{spec.name}"
    import_llama_cpp(model)
    try:
        path = spec.locate()
    except (ImportError, OSError, ValueError) as err:
        raise LocalModelUnavailable(model, spec.package, f"its weights were not found ({err})") from err
    return LlamaCppEngine(path, name=spec.name, prompt_style=spec.prompt_style, stop=spec.stop, settings=settings)
