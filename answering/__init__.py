"""Answer questions about ALeRCE data: the Python API (``load``), the ``python -m ask`` command and its output.

Example:
    >>> from answering import clean_text
    >>> clean_text("Which objects?\\x07")
    'Which objects?'
"""

from answering.api import Answer, Text2SQL, load
from answering.conversation import Conversation
from answering.errors import AnsweringError, BadQuestion, CannotFollowUp
from answering.objects import ObjectView
from answering.objects import view_object as object
from answering.question import clean_text

__all__ = [
    "Answer",
    "AnsweringError",
    "BadQuestion",
    "CannotFollowUp",
    "Conversation",
    "ObjectView",
    "Text2SQL",
    "clean_text",
    "load",
    "object",
]
