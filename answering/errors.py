"""Exceptions raised while answering a question, under one root ``AnsweringError``."""

__all__ = ["AnsweringError", "BadQuestion"]


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
