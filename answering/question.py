"""A question checked once, where it comes in: clean texts within their limits, and the answer it follows up."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from answering.errors import BadQuestion, CannotFollowUp
from fileio.text import encodable

if TYPE_CHECKING:
    from answering.answer import Answer
    from modules.run.follow_up import FollowUp

__all__ = ["EXAMPLE_QUESTION", "MAX_KNOWLEDGE_CHARS", "MAX_QUESTION_CHARS", "Question", "clean_text"]

MAX_QUESTION_CHARS = 8_000
"""Longest question accepted, in characters (after control characters are removed)."""
MAX_KNOWLEDGE_CHARS = 32_000
"""Longest external or domain knowledge text accepted, in characters."""
EXAMPLE_QUESTION = "How many objects have more than 50 detections?"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0/C1 controls except tab and newline
# PostgreSQL ends a -- comment at a CR as at a LF, and editors show CR, NEL and the Unicode separators as line
# breaks: each becomes a newline, so SQL runs as it reads instead of being joined to the comment's line.
_LINE_BREAK = re.compile("\r\n?|[\x85\u2028\u2029]")


def clean_text(text: object, *, field: str = "question", max_chars: int = MAX_QUESTION_CHARS) -> str:
    """Make line breaks newlines, remove other control characters (tab stays) and surrounding blanks, replace what
    UTF-8 cannot encode (lone surrogates) with U+FFFD; refuse an over-long text.

    Args:
        text: The text (None counts as empty).
        field: Its name in messages: "question", "external_knowledge" or "domain_knowledge".
        max_chars: Longest text accepted.

    Returns:
        The cleaned text.

    Raises:
        BadQuestion: The text is longer than ``max_chars``, or it is the question and it is empty.

    Examples:
        >>> clean_text("  How many\\x00 objects?\\x1b ")
        'How many objects?'
        >>> clean_text("SELECT 1 AS a -- note\\r, 2 AS b\\r\\n")
        'SELECT 1 AS a -- note\\n, 2 AS b'
    """
    lines = _LINE_BREAK.sub("\n", "" if text is None else str(text))
    cleaned = encodable(_CONTROL.sub("", lines)).strip()
    if len(cleaned) > max_chars:
        raise BadQuestion(
            field,
            f"the {field.replace('_', ' ')} is {len(cleaned):,} characters long; the limit is {max_chars:,}. "
            "Shorten it to the part that matters.",
        )
    if field == "question" and not cleaned:
        raise BadQuestion(field, f'the question is empty; ask something like "{EXAMPLE_QUESTION}"')
    return cleaned


@dataclasses.dataclass(frozen=True)
class Question:
    """A question and its knowledge texts, checked where they came in (``of``), with the earlier turn it follows up
    (``following``) or None; ``Text2SQL.answer`` takes it as it is."""

    text: str
    external_knowledge: str = ""
    domain_knowledge: str = ""
    follow_up: FollowUp | None = None

    @classmethod
    def of(
        cls, text: object, external: object = "", domain: object = "", *, max_chars: int = MAX_QUESTION_CHARS
    ) -> Question:
        """Clean the texts (``clean_text``, the question within `max_chars`); ``BadQuestion``: empty or too long."""
        return cls(
            clean_text(text, max_chars=max_chars),
            clean_text(external, field="external_knowledge", max_chars=MAX_KNOWLEDGE_CHARS),
            clean_text(domain, field="domain_knowledge", max_chars=MAX_KNOWLEDGE_CHARS),
        )

    def following(self, earlier: Answer, catalog: str) -> Question:
        """Return the question following up `earlier` (its question, SQL and explanation join what the stages see)
        on a program for `catalog`; raise ``CannotFollowUp`` when `earlier` failed or is on another catalog."""
        from modules.explanation import render_explanation  # the command-line parser reads this module: stay light
        from modules.run.follow_up import FollowUp

        if earlier.catalog != catalog:
            raise CannotFollowUp(
                "catalog",
                f"cannot follow up an answer on the {earlier.catalog} catalog with a program for the {catalog} "
                "catalog; ask the question on its own",
            )
        if not earlier.is_answered:
            raise CannotFollowUp(
                "failed",
                f"cannot follow up an answer that failed ({earlier.error_kind or 'no rows'}); ask the question on "
                "its own, or rephrase the earlier one",
            )
        earlier_turn = FollowUp(earlier.question, earlier.sql, render_explanation(earlier.explanation))
        return dataclasses.replace(self, follow_up=earlier_turn)
