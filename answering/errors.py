"""Exceptions raised while answering a question, under one root ``AnsweringError``."""

__all__ = ["AnsweringError", "BadQuestion", "CannotFollowUp"]


class AnsweringError(Exception):
    """Root of every exception raised by the answering package."""


class BadQuestion(AnsweringError, ValueError):
    """The question (or a knowledge text) is empty or too long; the message says what to ask instead.

    Attributes:
        field: The input at fault: "question", "external_knowledge" or "domain_knowledge".
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class CannotFollowUp(AnsweringError):
    """A follow-up question cannot build on the earlier answer; the message says why and what to ask instead.

    Attributes:
        reason: "failed" (the earlier answer has no SQL that ran), "catalog" (it is on another catalog) or
            "direct" (the direct baseline answers questions on their own).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
