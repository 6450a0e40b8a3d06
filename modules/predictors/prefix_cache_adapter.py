"""The compact prompt in the order a provider's prompt cache can serve, with Anthropic's cache breakpoints.

A provider's prompt cache serves the longest start of a request that an earlier request already sent (OpenAI
automatically from 1,024 tokens on, in steps of 128; Anthropic up to a ``cache_control`` mark the request carries,
from 1,024 tokens for Sonnet-class models). So what repeats from one question to the next comes first and what
changes comes last:

1. the system message: the field list and the instructions with the rules that every question gets;
2. the demos (the compiled ones are the same for every question);
3. in the question's own message, first the inputs that are the same for every question (the catalog's table list
   for table linking, the whole schema for the one-call baseline), then the catalog's rules that only this
   question's linked schema needs (``catalog.ScopedRule``; ``CompactChatAdapter`` sends them among the other rules
   in the system message), then the question's inputs in the signature's order, and the reminder of the output
   markers last.

The content is `CompactChatAdapter`'s, part for part; only the order differs, and answers are parsed the same way.
For an Anthropic model (``anthropic/...``, or a model name with "claude") each of those three stable parts ends in a
``cache_control`` breakpoint, and so do the question's rules, which repeat for every question about the same kind of
tables (four at most, the most a request may carry; LiteLLM carries text blocks with ``cache_control`` to
Anthropic's API); other providers get plain text. A module says which inputs are the same for every
question, and which rules of the instructions this question added, on the signature of the call (`laid_out`); other
adapters ignore both.

Example of a rendered request for table linking (system, then user):

    Your input fields are:
    1. `question` (str): the astronomer's question
    2. `knowledge` (str): hints that come with the question, may be empty
    3. `table_catalog` (str): one line per table: name and description
    Your output fields are:
    1. `tables` (list[str]): table names from the catalog

    Select the tables of the ALeRCE database needed to answer the question.

    [[ ## table_catalog ## ]]
    object: one row per ZTF object ...

    [[ ## question ## ]]
    How many SNIa are there?

    [[ ## knowledge ## ]]


    Respond with `[[ ## tables ## ]]` (a valid Python list[str]), then `[[ ## completed ## ]]`.
"""

from __future__ import annotations

import contextvars
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

import dspy
from dspy.adapters.utils import format_field_value

from modules.predictors.compact_chat_adapter import CompactChatAdapter

__all__ = ["Breakpoint", "PrefixCacheAdapter", "laid_out", "marks_cache_for", "question_rules", "stable_inputs"]

Breakpoint = tuple[int, int]
"""A cache breakpoint: (message index, character offset in that message's text where the cached part ends)."""

CACHE_CONTROL = {"type": "ephemeral"}
"""Anthropic's mark of a cacheable prefix (the default lifetime, 5 minutes)."""

_STABLE_INPUTS = "prompt_stable_inputs"
_QUESTION_RULES = "prompt_question_rules"
_QUESTION_DEMOS = "prompt_question_demos"
_MARKS: contextvars.ContextVar[bool] = contextvars.ContextVar("prefix_cache_marks", default=False)


def laid_out(
    signature: type[dspy.Signature],
    *,
    stable: Iterable[str] | None = None,
    rules: Iterable[str] | None = None,
    question_demos: bool | None = None,
) -> type[dspy.Signature]:
    """Return a copy of `signature` (same instructions and fields) that tells `PrefixCacheAdapter` what repeats.

    What the signature already says is kept unless given again.

    Args:
        signature: The signature of the call.
        stable: Input fields whose values are the same for every question (sent first in the question's message).
        rules: Parts of the instructions (each as it stands there, after a line break) that only this question needs
            (sent after the stable inputs instead of in the system message).
        question_demos: The call's demos were picked for this question (no breakpoint after them).
    """
    copy = signature.with_instructions(signature.instructions)
    setattr(copy, _STABLE_INPUTS, tuple(stable) if stable is not None else stable_inputs(signature))
    setattr(copy, _QUESTION_RULES, tuple(rules) if rules is not None else question_rules(signature))
    setattr(copy, _QUESTION_DEMOS, question_demos if question_demos is not None else _question_demos(signature))
    return copy


def stable_inputs(signature: type[dspy.Signature]) -> tuple[str, ...]:
    """The input fields `laid_out` marked as the same for every question."""
    return tuple(getattr(signature, _STABLE_INPUTS, ()))


def question_rules(signature: type[dspy.Signature]) -> tuple[str, ...]:
    """The parts of the instructions `laid_out` marked as this question's own, that the instructions hold."""
    instructions = signature.instructions
    return tuple(rule for rule in getattr(signature, _QUESTION_RULES, ()) if f"\n{rule}" in instructions)


def _question_demos(signature: type[dspy.Signature]) -> bool:
    return bool(getattr(signature, _QUESTION_DEMOS, False))


def marks_cache_for(model: str | None) -> bool:
    """Whether a model's provider caches only up to explicit ``cache_control`` breakpoints (Anthropic's models).

    Examples:
        >>> marks_cache_for("anthropic/claude-sonnet-4-5"), marks_cache_for("openrouter/anthropic/claude-haiku-4.5")
        (True, True)
        >>> marks_cache_for("openai/gpt-4.1-mini"), marks_cache_for("local/gemma3-270m"), marks_cache_for(None)
        (False, False, False)
    """
    name = (model or "").lower()
    return name.startswith("anthropic/") or "claude" in name


class PrefixCacheAdapter(CompactChatAdapter):
    """`CompactChatAdapter`'s prompt with what repeats across questions first, and Anthropic breakpoints."""

    def __init__(self, *, breakpoints: bool | None = None, **kwargs: Any) -> None:
        """Build the adapter.

        Args:
            breakpoints: Send ``cache_control`` breakpoints: None (default) for Anthropic models only
                (`marks_cache_for`), True or False for every model.
            **kwargs: ChatAdapter's options.
        """
        super().__init__(**kwargs)
        self.breakpoints = breakpoints

    def __call__(self, lm, lm_kwargs, signature, demos, inputs):
        """Call the LM as ChatAdapter does, marking breakpoints when the model needs them."""
        token = _MARKS.set(self._marks(lm))
        try:
            return super().__call__(lm, lm_kwargs, signature, demos, inputs)
        finally:
            _MARKS.reset(token)

    async def acall(self, lm, lm_kwargs, signature, demos, inputs):
        """The async counterpart of `__call__`."""
        token = _MARKS.set(self._marks(lm))
        try:
            return await super().acall(lm, lm_kwargs, signature, demos, inputs)
        finally:
            _MARKS.reset(token)

    def _marks(self, lm: Any) -> bool:
        return self.breakpoints if self.breakpoints is not None else marks_cache_for(getattr(lm, "model", None))

    def format(self, signature, demos, inputs):
        """Build the messages; with breakpoints, as text blocks whose stable ones carry ``cache_control``."""
        messages, breakpoints = self.layout(signature, demos, inputs)
        return with_cache_control(messages, breakpoints) if _MARKS.get() else messages

    def layout(
        self, signature: type[dspy.Signature], demos: list[dict[str, Any]], inputs: dict[str, Any]
    ) -> tuple[list[dict[str, Any]], list[Breakpoint]]:
        """The messages as plain text and where a cached prefix may end (at most four places): after the system
        message; unless the demos were picked for this question, after the last demo, after the stable inputs of the
        question's message and after its rules (questions about the same kind of tables share them)."""
        messages = super().format(signature, demos, inputs)
        breakpoints: list[Breakpoint] = []
        if messages and messages[0]["role"] == "system" and messages[0]["content"]:
            breakpoints.append((0, len(messages[0]["content"])))
        if _question_demos(signature):
            return messages, breakpoints
        last = len(messages) - 1
        if demos and last >= 2 and messages[last - 1]["role"] == "assistant":
            breakpoints.append((last - 1, len(messages[last - 1]["content"])))
        if last < 1 or messages[last]["role"] != "user":
            return messages, breakpoints
        head = ""
        for part in ("\n\n".join(self._stable_sections(signature, inputs)), "\n".join(question_rules(signature))):
            if part and messages[last]["content"].startswith(head + part + "\n\n"):
                head += part + "\n\n"
                breakpoints.append((last, len(head)))
        return messages, breakpoints  # four at most, the most Anthropic takes

    def format_task_description(self, signature: type[dspy.Signature]) -> str:
        """The instructions as written, without the rules that only this question needs."""
        instructions = signature.instructions
        for rule in question_rules(signature):
            instructions = instructions.replace(f"\n{rule}", "", 1)
        return textwrap.dedent(instructions).strip()

    def format_user_message_content(
        self,
        signature: type[dspy.Signature],
        inputs: dict[str, Any],
        prefix: str = "",
        suffix: str = "",
        main_request: bool = False,
    ) -> str:
        """The stable inputs, then (for the question itself) its own rules, the other inputs and the reminder."""
        stable = stable_inputs(signature)
        parts = [prefix, *self._stable_sections(signature, inputs)]
        if main_request and (rules := question_rules(signature)):
            parts.append("\n".join(rules))
        parts += [
            _section(name, info, inputs[name])
            for name, info in signature.input_fields.items()
            if name in inputs and name not in stable
        ]
        if main_request:
            parts.append(self.user_message_output_requirements(signature))
        parts.append(suffix)
        return "\n\n".join(parts).strip()

    @staticmethod
    def _stable_sections(signature: type[dspy.Signature], inputs: dict[str, Any]) -> list[str]:
        stable = stable_inputs(signature)
        return [
            _section(name, info, inputs[name])
            for name, info in signature.input_fields.items()
            if name in stable and name in inputs
        ]


def _section(name: str, info: Any, value: Any) -> str:
    return f"[[ ## {name} ## ]]\n{format_field_value(field_info=info, value=value)}"


def with_cache_control(messages: Sequence[dict[str, Any]], breakpoints: Sequence[Breakpoint]) -> list[dict[str, Any]]:
    """The messages with each breakpoint's message as text blocks, the block before the breakpoint marked.

    Examples:
        >>> message = {"role": "user", "content": "stable\\n\\nquestion"}
        >>> stable, rest = with_cache_control([message], [(0, 8)])[0]["content"]
        >>> stable
        {'type': 'text', 'text': 'stable\\n\\n', 'cache_control': {'type': 'ephemeral'}}
        >>> rest
        {'type': 'text', 'text': 'question'}
    """
    cuts: dict[int, list[int]] = {}
    for index, offset in breakpoints:
        cuts.setdefault(index, []).append(offset)
    marked = []
    for index, message in enumerate(messages):
        text = message["content"]
        if index not in cuts or not isinstance(text, str):
            marked.append(dict(message))
            continue
        blocks, start = [], 0
        for offset in sorted(set(cuts[index])):
            if offset > start:
                blocks.append({"type": "text", "text": text[start:offset], "cache_control": dict(CACHE_CONTROL)})
                start = offset
        if start < len(text):
            blocks.append({"type": "text", "text": text[start:]})
        marked.append({**message, "content": blocks})
    return marked
