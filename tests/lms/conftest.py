"""Fixtures for the lms tests: DSPy reset per test and a stand-in for the llama_cpp package."""

from __future__ import annotations

import os
import sys
import types
from typing import Any

import dspy
import pytest
from jinja2 import TemplateError

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _reset_dspy():
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with dspy.context(lm=None, adapter=None, trace=[]):
        yield
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)


class FakeLlama:
    """Answers like llama_cpp.Llama from a script and records every call."""

    def __init__(self, fake: FakeLlamaCpp, **kwargs: Any) -> None:
        self.fake = fake
        self.kwargs = kwargs
        self.use_extra_bufts = fake.module.llama_cpp.llama_model_default_params().use_extra_bufts

    def create_chat_completion(self, *, messages: list[dict[str, str]], **params: Any) -> dict[str, Any]:
        self.fake.calls.append({"kind": "chat", "messages": messages, **params})
        if self.fake.error:
            raise self.fake.error
        if self.fake.rejects_system and any(m["role"] == "system" for m in messages):
            raise TemplateError("System role not supported")
        choice = {"message": {"role": "assistant", "content": self.fake.reply}, "finish_reason": self.fake.finish}
        return {"id": "chatcmpl-1", "choices": [choice], "usage": self.fake.usage}

    def create_completion(self, *, prompt: str, **params: Any) -> dict[str, Any]:
        self.fake.calls.append({"kind": "completion", "prompt": prompt, **params})
        if self.fake.error:
            raise self.fake.error
        choice = {"text": self.fake.reply, "finish_reason": self.fake.finish}
        return {"id": "cmpl-1", "choices": [choice], "usage": self.fake.usage}


class FakeLlamaCpp:
    """A stand-in ``llama_cpp`` module plus the script its models follow."""

    def __init__(self) -> None:
        self.reply = "[[ ## sql ## ]]\nSELECT 1\n\n[[ ## completed ## ]]"
        self.finish: str | None = "stop"
        self.usage = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        self.rejects_system = False
        self.error: Exception | None = None
        self.calls: list[dict[str, Any]] = []
        self.models: list[FakeLlama] = []
        module = types.ModuleType("llama_cpp")

        def llama(**kwargs: Any) -> FakeLlama:
            model = FakeLlama(self, **kwargs)
            self.models.append(model)
            return model

        grammar = types.SimpleNamespace(
            from_json_schema=lambda text, verbose=True: ("json_schema", text),
            from_string=lambda text, verbose=True: ("gbnf", text),
        )
        module.Llama = llama
        module.LlamaGrammar = grammar
        module.llama_grammar = types.SimpleNamespace(JSON_GBNF="root ::= object")
        module.llama_cpp = types.SimpleNamespace(
            llama_model_default_params=lambda: types.SimpleNamespace(use_extra_bufts=True)
        )
        self.module = module


@pytest.fixture
def fake_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> FakeLlamaCpp:
    """Replace the llama_cpp package with a scripted stand-in (no model is loaded)."""
    fake = FakeLlamaCpp()
    monkeypatch.setitem(sys.modules, "llama_cpp", fake.module)
    return fake
