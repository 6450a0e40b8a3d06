"""The provider's adapter sends the compact prompt with what repeats across questions first, parses answers as
before, and marks Anthropic's cache breakpoints (carried by LiteLLM to the API) for Anthropic models only."""

import http.server
import json
import threading
from collections import Counter
from typing import ClassVar

import dspy
import pytest

from lms.fake import fake_lm, render_answer
from modules.predictors.compact_chat_adapter import CompactChatAdapter
from modules.predictors.prefix_cache_adapter import PrefixCacheAdapter, laid_out, question_rules, stable_inputs
from signatures import GeneratePlannedSQL, SelectTables

RULES = (
    "Write one query.\nRules:\n- Times are MJD days.\n- Class names: SNIa, SNII.\n  (exact spelling)\n"
    "- Use only the schema."
)
SCOPED = "- Class names: SNIa, SNII.\n  (exact spelling)"
TABLES = {"question": "How many SNIa?", "knowledge": "k", "table_catalog": "object: objects\nprobability: classes"}
PLANNED = {"question": "How many SNIa?", "knowledge": "k", "schema_text": "table probability", "plan": ["count"]}
DEMO = {**TABLES, "question": "Which QSOs?", "tables": ["probability"]}


def tables_signature():
    return laid_out(SelectTables, stable=("table_catalog",))


def planned_signature():
    return laid_out(GeneratePlannedSQL.with_instructions(RULES), rules=(SCOPED,))


def test_stable_inputs_come_first_and_the_question_rules_after_them():
    system, user = PrefixCacheAdapter().format(tables_signature(), [], TABLES)
    assert user["content"].startswith("[[ ## table_catalog ## ]]\nobject: objects\nprobability: classes\n\n")
    assert user["content"].index("[[ ## question ## ]]") < user["content"].index("[[ ## knowledge ## ]]")
    system, user = PrefixCacheAdapter().format(planned_signature(), [], PLANNED)
    assert SCOPED not in system["content"]
    assert system["content"].endswith("Rules:\n- Times are MJD days.\n- Use only the schema.")
    assert user["content"].startswith(f"{SCOPED}\n\n[[ ## question ## ]]\nHow many SNIa?")


@pytest.mark.parametrize(
    ("signature", "inputs", "demos"),
    [(tables_signature, TABLES, [DEMO]), (planned_signature, PLANNED, []), (lambda: SelectTables, TABLES, [DEMO])],
)
def test_the_prompt_holds_the_compact_prompts_lines_only_moved(signature, inputs, demos):
    def lines(messages):
        return Counter(line for m in messages for line in m["content"].splitlines() if line)

    ordered = PrefixCacheAdapter().format(signature(), demos, inputs)
    unordered = CompactChatAdapter().format(signature(), demos, inputs)
    assert [m["role"] for m in ordered] == [m["role"] for m in unordered]
    assert lines(ordered) == lines(unordered)


def test_without_marks_other_adapters_render_the_signature_as_before():
    plain = SelectTables.with_instructions(SelectTables.instructions)
    assert CompactChatAdapter().format(tables_signature(), [DEMO], TABLES) == CompactChatAdapter().format(
        plain, [DEMO], TABLES
    )
    assert stable_inputs(SelectTables) == () and question_rules(SelectTables) == ()


def test_laid_out_keeps_what_it_is_not_told_again_and_drops_rules_the_instructions_lost():
    signature = laid_out(planned_signature(), question_demos=True)
    assert question_rules(signature) == (SCOPED,)
    assert question_rules(signature.with_instructions("Write one query.")) == ()


def test_breakpoints_end_the_system_message_the_demos_the_stable_inputs_and_the_question_rules():
    adapter = PrefixCacheAdapter()
    messages, marks = adapter.layout(tables_signature(), [DEMO], TABLES)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert marks[:2] == [(0, len(messages[0]["content"])), (2, len(messages[2]["content"]))]
    assert messages[3]["content"][: marks[2][1]].endswith("probability: classes\n\n") and len(marks) == 3
    messages, marks = adapter.layout(planned_signature(), [], PLANNED)
    assert [messages[index]["content"][:offset] for index, offset in marks[1:]] == [f"{SCOPED}\n\n"]
    messages, marks = adapter.layout(laid_out(tables_signature(), question_demos=True), [DEMO], TABLES)
    assert marks == [(0, len(messages[0]["content"]))]  # nothing after demos picked for this question


class Seen(PrefixCacheAdapter):
    """Keeps the messages it builds and hands the fake LM (which takes text only) their text."""

    def __init__(self):
        super().__init__()
        self.sent = []

    def format(self, signature, demos, inputs):
        messages = super().format(signature, demos, inputs)
        self.sent.append(messages)
        return [{**m, "content": _text(m["content"])} for m in messages]


def _text(content):
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


@pytest.mark.parametrize(
    ("model", "marked"),
    [("anthropic/claude-sonnet-4-5", True), ("openai/gpt-4.1-mini", False), ("fake/scripted", False)],
)
def test_anthropic_models_get_text_blocks_with_cache_control_and_others_plain_text(model, marked):
    lm = fake_lm(lambda call: render_answer({"tables": ["object"]}))
    lm.model = model
    adapter = Seen()
    with dspy.context(lm=lm, adapter=adapter):
        assert dspy.Predict(tables_signature())(**TABLES).tables == ["object"]
    (system, user) = adapter.sent[0]
    plain = PrefixCacheAdapter().format(tables_signature(), [], TABLES)
    assert [_text(system["content"]), _text(user["content"])] == [m["content"] for m in plain]
    if not marked:
        assert isinstance(system["content"], str) and isinstance(user["content"], str)
        return
    assert system["content"] == [{"type": "text", "text": plain[0]["content"], "cache_control": {"type": "ephemeral"}}]
    assert ["cache_control" in block for block in user["content"]] == [True, False]
    assert user["content"][1]["text"].startswith("[[ ## question ## ]]")


def test_answers_parse_the_same_with_either_order():
    outputs = {}
    for adapter in (PrefixCacheAdapter(), CompactChatAdapter()):
        lm = fake_lm(lambda call: render_answer({"sql": "SELECT COUNT(*) FROM probability"}))
        with dspy.context(lm=lm, adapter=adapter):
            outputs[type(adapter).__name__] = dspy.Predict(planned_signature())(**PLANNED).sql
    assert set(outputs.values()) == {"SELECT COUNT(*) FROM probability"}


class _AnthropicStandIn(http.server.BaseHTTPRequestHandler):
    """Answers Anthropic's Messages API on this machine and keeps each request body."""

    bodies: ClassVar[list] = []

    def do_POST(self):
        self.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        text = '[[ ## tables ## ]]\n["object"]\n\n[[ ## completed ## ]]'
        body = json.dumps(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_litellm_carries_the_breakpoints_to_anthropics_api():
    server = http.server.HTTPServer(("127.0.0.1", 0), _AnthropicStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        lm = dspy.LM(
            "anthropic/claude-sonnet-4-5",
            api_key="test",
            api_base=f"http://127.0.0.1:{server.server_port}",
            cache=False,
            num_retries=0,
            max_tokens=50,
        )
        with dspy.context(lm=lm, adapter=PrefixCacheAdapter()):
            tables = dspy.Predict(tables_signature())(**TABLES).tables
    finally:
        server.shutdown()
        thread.join(timeout=10)
    assert tables == ["object"]
    body = _AnthropicStandIn.bodies[-1]
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    first, rest = body["messages"][-1]["content"]
    assert first["cache_control"] == {"type": "ephemeral"} and first["text"].startswith("[[ ## table_catalog ## ]]")
    assert "cache_control" not in rest and rest["text"].startswith("[[ ## question ## ]]")
