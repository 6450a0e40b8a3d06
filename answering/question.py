"""Clean the texts a user asks with: control characters out, length limits, a helpful message for an empty question."""

import re

from answering.errors import BadQuestion

__all__ = ["EXAMPLE_QUESTION", "MAX_KNOWLEDGE_CHARS", "MAX_QUESTION_CHARS", "clean_text"]

MAX_QUESTION_CHARS = 8_000
"""Longest question accepted, in characters (after control characters are removed)."""
MAX_KNOWLEDGE_CHARS = 32_000
"""Longest external or domain knowledge text accepted, in characters."""
EXAMPLE_QUESTION = "How many objects have more than 50 detections?"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0/C1 controls except tab and newline


def clean_text(text: object, *, field: str = "question", max_chars: int = MAX_QUESTION_CHARS) -> str:
    """Remove control characters (tab and newline stay) and surrounding blanks; refuse an over-long text.

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
    """
    cleaned = _CONTROL.sub("", "" if text is None else str(text)).strip()
    if len(cleaned) > max_chars:
        raise BadQuestion(
            field,
            f"the {field.replace('_', ' ')} is {len(cleaned):,} characters long; the limit is {max_chars:,}. "
            "Shorten it to the part that matters.",
        )
    if field == "question" and not cleaned:
        raise BadQuestion(field, f'the question is empty; ask something like "{EXAMPLE_QUESTION}"')
    return cleaned
