"""ChatAdapter's prompt without the parts that repeat what the prompt already says, in fewer tokens.

DSPy's ChatAdapter sends, besides the fields, the instructions and the inputs: a template that repeats every input
field with a placeholder ("All interactions will be structured in the following way ... {question}"), a sentence
introducing the instructions, an eight-space indent on every instruction line, and a long reminder of the output
markers. This adapter sends the field list, the instructions as written, the inputs under the same markers, and one
reminder line naming the output markers in order with the format of each typed one. Answers are parsed exactly as
ChatAdapter parses them (with its JSON fallback), so demos and answers look the same.

Example of a rendered request (system, then user):

    Your input fields are:
    1. `question` (str): the astronomer's question
    Your output fields are:
    1. `difficulty` (Literal['simple', 'medium', 'advanced']): the difficulty class

    Classify how hard it is to write the SQL query that answers the question.

    [[ ## question ## ]]
    How many SNIa are there?

    Respond with `[[ ## difficulty ## ]]` (must exactly match (no extra characters) one of: simple; medium;
    advanced), then `[[ ## completed ## ]]`.
"""

import textwrap
import typing

import dspy
from dspy.adapters.utils import get_annotation_name, translate_field_type
from pydantic.fields import FieldInfo

__all__ = ["CompactChatAdapter"]

_NOTE = "# note: the value you produce "


class CompactChatAdapter(dspy.ChatAdapter):
    """A ChatAdapter whose system message is the field list and the instructions, and whose reminder is one line."""

    def format_field_structure(self, signature: type[dspy.Signature]) -> str:
        """Send no template: the inputs carry their markers, and the reminder names the output markers."""
        return ""

    def format_task_description(self, signature: type[dspy.Signature]) -> str:
        """Return the instructions as written (no introduction, no indent)."""
        return textwrap.dedent(signature.instructions).strip()

    def format_system_message(self, signature: type[dspy.Signature]) -> str:
        """Return the field list, a blank line and the instructions."""
        return f"{self.format_field_description(signature)}\n\n{self.format_task_description(signature)}"

    def user_message_output_requirements(self, signature: type[dspy.Signature]) -> str:
        """Name the output markers in order, each typed one with the format its value must have."""
        markers = []
        for name, info in signature.output_fields.items():
            note = output_format(name, info)
            markers.append(f"`[[ ## {name} ## ]]`" + (f" ({note})" if note else ""))
        return "Respond with " + ", then ".join([*markers, "`[[ ## completed ## ]]`"]) + "."


def output_format(name: str, info: FieldInfo) -> str:
    """Say what format an output field's value must have ("" for text).

    Lists and dicts name their Python type (their JSON schema would say the same at greater length); closed sets,
    numbers, booleans and structured types say what ChatAdapter's template says of them.
    """
    annotation = info.annotation
    if annotation is str:
        return ""
    if typing.get_origin(annotation) in (list, dict):
        return f"a valid Python {get_annotation_name(annotation)}"
    return translate_field_type(name, info).partition(_NOTE)[2]
