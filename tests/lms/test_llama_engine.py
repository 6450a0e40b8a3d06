"""LlamaCppEngine with a stand-in for llama_cpp: request and response shape, usage, caching, save and load."""

from __future__ import annotations

import copy
import sys

import dspy
import pytest
from dspy.lm15 import Config, ContextLengthError, Message, Request

from lms import LlamaCppEngine, LlamaSettings, LocalModelUnavailable
from lms.messages import render_completion_prompt


def _engine(**kwargs) -> LlamaCppEngine:
    return LlamaCppEngine("/models/fake.gguf", **kwargs)


def _request(system: str | None = "Be brief.", **config) -> Request:
    return Request(model="local/fake", messages=(Message.user("Hi"),), system=system, config=Config(**config))


def test_predict_through_engine_parses_chat_adapter_answer(fake_llama_cpp):
    lm = dspy.LM("local/fake", engine=_engine(stop=("[[ ## completed ## ]]",)), temperature=0.0, max_tokens=64)
    with dspy.context(lm=lm):
        pred = dspy.Predict("question -> sql")(question="How many objects?")
    assert pred.sql == "SELECT 1"
    call = fake_llama_cpp.calls[0]
    assert call["kind"] == "chat"
    assert [m["role"] for m in call["messages"]] == ["system", "user"]
    assert "How many objects?" in call["messages"][1]["content"]
    assert (call["temperature"], call["max_tokens"], call["seed"]) == (0.0, 64, 0)
    assert call["stop"] == ["[[ ## completed ## ]]"]
    assert "grammar" not in call


def test_model_loads_once_with_settings(fake_llama_cpp):
    engine = _engine(settings=LlamaSettings(n_ctx=2048, seed=7, n_threads=3))
    engine.complete(_request())
    engine.complete(_request())
    assert len(fake_llama_cpp.models) == 1
    kwargs = fake_llama_cpp.models[0].kwargs
    assert kwargs["model_path"] == "/models/fake.gguf"
    assert (kwargs["n_ctx"], kwargs["seed"], kwargs["n_threads"], kwargs["n_threads_batch"]) == (2048, 7, 3, 3)


def test_model_loads_without_extra_buffers_by_default(fake_llama_cpp):
    _engine().load()
    _engine(settings=LlamaSettings(extra_buffers=True)).load()
    assert [model.use_extra_bufts for model in fake_llama_cpp.models] == [False, True]
    assert fake_llama_cpp.module.llama_cpp.llama_model_default_params().use_extra_bufts is True


def test_usage_is_recorded_in_history(fake_llama_cpp):
    lm = dspy.LM("local/fake", engine=_engine(), temperature=0.0)
    with dspy.context(lm=lm):
        dspy.Predict("question -> sql")(question="q")
    usage = lm.history[-1]["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (12, 5, 17)


@pytest.mark.parametrize(("llama_reason", "expected"), [("stop", "stop"), ("length", "length"), (None, "stop")])
def test_finish_reason_is_mapped(fake_llama_cpp, llama_reason, expected):
    fake_llama_cpp.finish = llama_reason
    assert _engine().complete(_request()).finish_reason == expected


def test_response_carries_text_and_model_name(fake_llama_cpp):
    fake_llama_cpp.reply = "hello"
    response = _engine(name="smollm2-135m").complete(_request())
    assert (response.message.text, response.model, response.usage.input_tokens) == ("hello", "smollm2-135m", 12)


def test_system_is_merged_when_the_template_rejects_it(fake_llama_cpp):
    fake_llama_cpp.rejects_system = True
    engine = _engine()
    assert engine.complete(_request()).message.text.startswith("[[ ## sql ## ]]")
    assert engine.merges_system
    assert fake_llama_cpp.calls[-1]["messages"] == [{"role": "user", "content": "Be brief.\n\nHi"}]
    engine.complete(_request())
    assert len(fake_llama_cpp.calls) == 3  # the second request goes straight to the merged form


def test_completion_style_sends_plain_text(fake_llama_cpp):
    engine = _engine(prompt_style="completion", stop=("\nUser:",))
    request = Request(
        model="local/fake",
        system="Write SQL.",
        messages=(Message.user("Q1"), Message.assistant("A1"), Message.user("Q2")),
        config=Config(max_tokens=8, stop=("END",)),
    )
    engine.complete(request)
    call = fake_llama_cpp.calls[0]
    assert call["kind"] == "completion"
    assert call["prompt"] == "Write SQL.\n\nUser: Q1\n\nAssistant: A1\n\nUser: Q2\n\nAssistant:"
    assert call["stop"] == ["END", "\nUser:"]


def test_completion_text_loses_the_space_after_the_role_label(fake_llama_cpp):
    fake_llama_cpp.reply = " [[ ## sql ## ]]\nSELECT 1"
    response = _engine(prompt_style="completion").complete(_request())
    assert response.message.text == "[[ ## sql ## ]]\nSELECT 1"


def test_render_completion_prompt_without_system():
    assert render_completion_prompt("", [("user", "Hi")]) == "User: Hi\n\nAssistant:"


def test_json_adapter_schema_becomes_a_grammar(fake_llama_cpp):
    fake_llama_cpp.reply = '{"sql": "SELECT 2"}'
    lm = dspy.LM("local/fake", engine=_engine(), temperature=0.0)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        pred = dspy.Predict("question -> sql")(question="q")
    assert pred.sql == "SELECT 2"
    kind, schema = fake_llama_cpp.calls[0]["grammar"]
    assert kind == "json_schema"
    assert '"sql"' in schema


def test_json_object_format_uses_the_json_grammar(fake_llama_cpp):
    _engine().complete(_request(response_format={"type": "json_object"}))
    assert fake_llama_cpp.calls[0]["grammar"] == ("gbnf", "root ::= object")


def test_context_overflow_raises_context_length_error(fake_llama_cpp):
    fake_llama_cpp.error = ValueError("Requested tokens (5000) exceed context window of 4096")
    with pytest.raises(ContextLengthError, match="raise n_ctx or shorten the prompt"):
        _engine().complete(_request())


def test_other_value_errors_propagate(fake_llama_cpp):
    fake_llama_cpp.error = ValueError("bad grammar")
    with pytest.raises(ValueError, match="bad grammar"):
        _engine().complete(_request())


def test_same_call_twice_is_answered_from_the_cache(fake_llama_cpp):
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    lm = dspy.LM("local/fake", engine=_engine(), temperature=0.0, cache=True)
    with dspy.context(lm=lm):
        first = dspy.Predict("question -> sql")(question="cached?")
        second = dspy.Predict("question -> sql")(question="cached?")
    assert first.sql == second.sql == "SELECT 1"
    assert len(fake_llama_cpp.calls) == 1


def test_deepcopy_shares_the_engine(fake_llama_cpp):
    engine = _engine()
    predict = dspy.Predict("question -> sql")
    predict.lm = dspy.LM("local/fake", engine=engine)
    assert copy.deepcopy(engine) is engine
    assert copy.deepcopy(predict).lm.engine is engine


def test_saved_predict_loads_with_its_engine(fake_llama_cpp, tmp_path):
    settings = LlamaSettings(n_ctx=1024, seed=3)
    predict = dspy.Predict("question -> sql")
    predict.lm = dspy.LM("local/fake", engine=_engine(prompt_style="completion", stop=("x",), settings=settings))
    predict.save(tmp_path / "program.json")
    loaded = dspy.Predict("question -> sql")
    loaded.load(tmp_path / "program.json", allow_unsafe_lm_state=True)
    engine = loaded.lm.engine
    assert isinstance(engine, LlamaCppEngine)
    assert (engine.model_path, engine.prompt_style, engine.stop, engine.settings) == (
        "/models/fake.gguf",
        "completion",
        ("x",),
        settings,
    )


def test_named_engine_state_stores_no_path():
    state = _engine(name="smollm2-135m").dump_state()
    assert state == {
        "name": "smollm2-135m",
        "settings": {
            "n_ctx": 8192,
            "seed": 0,
            "n_threads": None,
            "max_tokens": 1024,
            "extra_buffers": False,
        },
    }


def test_named_engine_is_found_again_on_load(fake_llama_cpp):
    engine = LlamaCppEngine.load_state({"name": "smollm2-135m", "settings": {"n_ctx": 2048}})
    assert engine.model_path.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert (engine.name, engine.prompt_style, engine.settings.n_ctx) == ("smollm2-135m", "chat", 2048)


def test_missing_llama_cpp_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(LocalModelUnavailable) as info:
        _engine().complete(_request())
    assert str(info.value) == (
        "Local model '/models/fake.gguf' is unavailable: llama-cpp-python is not installed. "
        "Install it with: pip install llama-cpp-python==0.3.36"
    )
    assert info.value.package == "llama-cpp-python==0.3.36"
