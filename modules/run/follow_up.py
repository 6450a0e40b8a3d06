"""Follow-up questions: the earlier turn a question builds on, rendered as knowledge the stages see."""

from dataclasses import dataclass

__all__ = ["FollowUp", "render_follow_up"]


@dataclass(frozen=True)
class FollowUp:
    """The earlier turn of a conversation that a question follows up.

    Attributes:
        question: The earlier question ("" for SQL written by hand).
        sql: The earlier final SQL, which ran.
        explanation: What that SQL returns, in plain words ("" when there is none).
    """

    question: str
    sql: str
    explanation: str = ""


def render_follow_up(earlier: FollowUp | None) -> str:
    """Render the earlier turn as knowledge lines ("" for None).

    Examples:
        >>> print(render_follow_up(FollowUp("Which objects have more than 50 detections?",
        ...                                 "SELECT oid FROM object WHERE ndet > 50")))
        -- This question follows up an earlier one: start from the earlier query, change what this question asks \
and keep the rest.
        -- Earlier question: Which objects have more than 50 detections?
        -- Earlier query:
        SELECT oid FROM object WHERE ndet > 50
    """
    if earlier is None:
        return ""
    lines = [
        "-- This question follows up an earlier one: start from the earlier query, change what this question asks "
        "and keep the rest."
    ]
    if earlier.question:
        lines.append(f"-- Earlier question: {earlier.question}")
    lines += ["-- Earlier query:", earlier.sql.strip()]
    if earlier.explanation:
        lines += ["-- What the earlier query returns:", *(f"-- {line}" for line in earlier.explanation.splitlines())]
    return "\n".join(lines)
