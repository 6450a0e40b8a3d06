"""Follow-up questions: a conversation answers each question from the one before it, its SQL and its explanation.

Example (in a notebook)::

    with load("openai/gpt-4.1-mini") as t2s:
        talk = t2s.conversation()
        talk.ask("Which SNe Ia were first detected in September 2023?")
        talk.ask("now only those with more than 50 detections")
        talk.ask("same for 2024").sql
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from answering.answer import Answer

__all__ = ["Conversation"]


class _Asker(Protocol):
    """What a conversation asks through: ``answering.Text2SQL`` (which builds conversations, so not imported)."""

    def ask(
        self, question: str, external_knowledge: str = "", domain_knowledge: str = "", *, follows: Answer | None = None
    ) -> Answer:
        """Answer a question, as a follow-up of `follows` when given."""


class Conversation:
    """Questions asked one after the other, each a follow-up of the answer before it (not thread-safe).

    Attributes:
        answers: The answers so far, oldest first.
    """

    def __init__(self, t2s: _Asker) -> None:
        """Start a conversation on a loaded program; prefer ``Text2SQL.conversation()``."""
        self.t2s = t2s
        self.answers: list[Answer] = []

    def ask(self, question: str, external_knowledge: str = "", domain_knowledge: str = "") -> Answer:
        """Answer a question; after the first, as a follow-up of the latest answer.

        Raises:
            CannotFollowUp: The latest answer failed (nothing is added; ask a question of its own with
                ``restart``) or is on another catalog.
            BadQuestion, engines.errors.DatabaseUnavailable, dspy.LMError: As ``Text2SQL.ask``.
        """
        earlier = self.answers[-1] if self.answers else None
        answer = self.t2s.ask(question, external_knowledge, domain_knowledge, follows=earlier)
        self.answers.append(answer)
        return answer

    def restart(self) -> None:
        """Forget the answers so far: the next question stands on its own."""
        self.answers.clear()
