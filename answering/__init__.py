"""Answer questions about ALeRCE data: the Python API (``load``, ``run_sql``, ``object``), the ``python -m ask``
command and its output.

Example:
    >>> from answering import clean_text
    >>> clean_text("Which objects?\x07")
    'Which objects?'
"""

from cli.lazy_exports import lazy_exports

__all__ = [
    "Answer",
    "AnsweringError",
    "BadQuestion",
    "CannotFollowUp",
    "Conversation",
    "ObjectView",
    "Question",
    "Text2SQL",
    "clean_text",
    "load",
    "object",
    "run_sql",
]

# Imported on first use: a command's --help must not wait for the program (benchmarks/startup.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Answer": "answering.api",
        "Text2SQL": "answering.api",
        "load": "answering.api",
        "Conversation": "answering.conversation",
        "AnsweringError": "answering.errors",
        "BadQuestion": "answering.errors",
        "CannotFollowUp": "answering.errors",
        "ObjectView": "answering.objects",
        "object": "answering.objects:view_object",
        "Question": "answering.question",
        "clean_text": "answering.question",
        "run_sql": "answering.sql",
    },
)
