"""The compact adapter sends ChatAdapter's information in fewer tokens and parses the same answers."""

import dspy
import pytest

from lms.fake import fake_lm, render_answer
from modules.predictors.adapter import ADAPTERS, make_adapter
from modules.predictors.compact_chat_adapter import CompactChatAdapter
from signatures import ClassifyDifficulty, GenerateSQL, SelectColumns, SelectTables


def rendered(adapter: dspy.Adapter, signature, **inputs) -> tuple[str, str]:
    system, user = adapter.format(signature, demos=[], inputs=inputs)
    return system["content"], user["content"]


def test_the_system_message_is_the_field_list_and_the_instructions_as_written():
    system, _ = rendered(CompactChatAdapter(), ClassifyDifficulty, question="q", schema_text="s")
    fields = dspy.ChatAdapter().format_field_description(ClassifyDifficulty)
    assert system == f"{fields}\n\n{ClassifyDifficulty.instructions.strip()}"
    assert "{question}" not in system and "\n        " not in system


def test_the_reminder_names_every_output_marker_with_its_format():
    _, user = rendered(CompactChatAdapter(), ClassifyDifficulty, question="q", schema_text="s")
    assert user.endswith(
        "Respond with `[[ ## difficulty ## ]]` (must exactly match (no extra characters) one of: simple; medium; "
        "advanced), then `[[ ## completed ## ]]`."
    )
    _, user = rendered(CompactChatAdapter(), SelectColumns, question="q", knowledge="", schema_text="s")
    assert user.endswith(
        "Respond with `[[ ## columns ## ]]` (a valid Python dict[str, list[str]]), then `[[ ## completed ## ]]`."
    )
    _, user = rendered(CompactChatAdapter(), GenerateSQL, question="q", knowledge="", schema_text="s")
    assert user.endswith("\n\nRespond with `[[ ## sql ## ]]`, then `[[ ## completed ## ]]`.")
    assert user.startswith("[[ ## question ## ]]\nq\n\n[[ ## knowledge ## ]]\n\n\n[[ ## schema_text ## ]]\ns")


@pytest.mark.parametrize(
    ("signature", "inputs"),
    [
        (SelectTables, {"question": "q", "knowledge": "k", "table_catalog": "object: objects"}),
        (SelectColumns, {"question": "q", "knowledge": "k", "schema_text": "table object: oid"}),
        (GenerateSQL, {"question": "q", "knowledge": "k", "schema_text": "table object: oid"}),
    ],
)
def test_it_sends_fewer_characters_than_chat_adapter(signature, inputs):
    compact = "".join(rendered(CompactChatAdapter(), signature, **inputs))
    chat = "".join(rendered(dspy.ChatAdapter(), signature, **inputs))
    assert len(compact) < len(chat) - 200


def test_answers_parse_as_chat_adapter_parses_them():
    answers = iter(
        [
            render_answer({"tables": ["object", "probability"]}),
            render_answer({"difficulty": "medium"}),
            render_answer({"columns": {"object": ["oid"]}}),
        ]
    )
    with dspy.context(lm=fake_lm(lambda call: next(answers)), adapter=make_adapter("compact")):
        tables = dspy.Predict(SelectTables)(question="q", knowledge="", table_catalog="object: objects").tables
        difficulty = dspy.Predict(ClassifyDifficulty)(question="q", schema_text="s").difficulty
        columns = dspy.Predict(SelectColumns)(question="q", knowledge="", schema_text="s").columns
    assert (tables, difficulty, columns) == (["object", "probability"], "medium", {"object": ["oid"]})


def test_make_adapter_knows_every_name_and_refuses_others():
    assert [type(make_adapter(name)).__name__ for name in ADAPTERS] == [
        "PrefixCacheAdapter",
        "ChatAdapter",
        "JSONAdapter",
    ]
    with pytest.raises(ValueError) as info:
        make_adapter("xml")
    assert str(info.value) == "Unknown adapter 'xml'; choose from compact, chat, json."
