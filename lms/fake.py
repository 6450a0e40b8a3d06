"""Deterministic fake LMs for tests and benchmarks: a scripted engine and a dev-set oracle.

`FnEngine(fn)` answers each request with `fn(Call)`, where `Call` exposes the signature's input and output field
names and input values parsed from the ChatAdapter prompt. `OracleAnswers` answers every stage from the dev
labels (tables, difficulty, gold SQL).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import dspy
import pandas as pd
from dspy.lm15 import Message, Response, TextPart, Usage

from lms.retries import RetryingLM

_FIELD_LIST = re.compile(r"^\d+\. `(\w+)`", re.MULTILINE)
_SECTION = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\n\nRespond with|\Z)", re.DOTALL)


@dataclass(frozen=True)
class Call:
    """One LM request as the stage saw it."""

    system: str
    user: str
    inputs: dict[str, str]
    input_fields: tuple[str, ...]
    output_fields: tuple[str, ...]

    @property
    def stage(self) -> str:
        """Name the predictor from its fields: tables, columns, difficulty, plan, choice, explanation, correct,
        revise, planned, direct."""
        outputs = set(self.output_fields) - {"reasoning"}
        for name in ("tables", "columns", "difficulty", "plan", "choice"):
            if name in outputs:
                return name
        if "assumptions" in outputs:
            return "explanation"
        if "failed_sql" in self.input_fields:
            return "correct"
        if "checked_sql" in self.input_fields:
            return "revise"
        return "planned" if "plan" in self.input_fields else "direct"


EXPLANATION = {
    "summary": "The rows the query returns.",
    "conditions": ["each condition of the query"],
    "ordering": "not ordered",
    "assumptions": [],
}
"""A fixed answer of the explanation stage."""


def parse_call(system: str, messages: list[tuple[str, str]]) -> Call:
    """Parse a ChatAdapter or CompactChatAdapter request (no demos) into a `Call`."""
    inputs_part, _, rest = system.partition("Your output fields are:")
    outputs_part = rest.partition("All interactions")[0].partition("\n\n")[0]
    user = messages[-1][1] if messages else ""
    return Call(
        system=system,
        user=user,
        inputs={name: value for name, value in _SECTION.findall(user)},
        input_fields=tuple(_FIELD_LIST.findall(inputs_part)),
        output_fields=tuple(_FIELD_LIST.findall(outputs_part)),
    )


def render_answer(fields: dict[str, object]) -> str:
    """Render output fields the way ChatAdapter parses them (lists and dicts as JSON)."""
    parts = [f"[[ ## {name} ## ]]\n{_render(value)}" for name, value in fields.items()]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


def _render(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def text_response(text: str, usage: Usage | None = None) -> Response:
    """Wrap a fake answer as the `dspy.lm15.Response` an engine returns."""
    message = Message.assistant([TextPart(text)])
    usage = usage or Usage(input_tokens=10, output_tokens=5)
    return Response(id=None, model="fake", message=message, finish_reason="stop", usage=usage)


class FnEngine:
    """A DSPy engine that answers with `fn(call)`; counts calls; usage from `count_tokens` or 10/5."""

    def __init__(self, fn: Callable[[Call], str], count_tokens: Callable[[str], int] | None = None) -> None:
        self.fn = fn
        self.count_tokens = count_tokens
        self.calls: list[Call] = []

    def complete(self, request) -> Response:
        """Answer one `dspy.lm15.Request`."""
        system = request.system if isinstance(request.system, str) else ""
        messages = [(m.role, m.text or "") for m in request.messages]
        call = parse_call(system, messages)
        self.calls.append(call)
        text = self.fn(call)
        if self.count_tokens:
            prompt = system + "".join(content for _, content in messages)
            usage = Usage(input_tokens=self.count_tokens(prompt), output_tokens=self.count_tokens(text))
            return text_response(text, usage)
        return text_response(text)

    def __deepcopy__(self, memo: dict) -> FnEngine:
        return self

    def stages(self) -> list[str]:
        """Return the stage of every call so far, in order."""
        return [call.stage for call in self.calls]


def fake_lm(fn: Callable[[Call], str], count_tokens: Callable[[str], int] | None = None) -> dspy.LM:
    """Return an uncached `RetryingLM` over `FnEngine(fn)`, as the project builds LMs; the engine is `lm.engine_obj`."""
    engine = FnEngine(fn, count_tokens)
    lm = RetryingLM("fake/scripted", engine=engine, cache=False)
    lm.engine_obj = engine
    return lm


class OracleAnswers:
    """Answer every stage from the dev labels of the question found in the prompt (tests and benchmarks only).

    It reads the gold SQL of the questions it is given, so nothing that answers users may use it.
    """

    def __init__(self, dev: pd.DataFrame, columns_of: Callable[[str], list[str]] | None = None) -> None:
        self.rows = {str(row.request).strip(): row for row in dev.itertuples()}
        self.columns_of = columns_of

    def __call__(self, call: Call) -> str:
        """Answer the call (see `Call.stage`)."""
        row = self.rows[call.inputs["question"].strip()]
        tables = ast.literal_eval(row.table_info)
        answers = {
            "tables": {"tables": tables},
            "columns": {"columns": self._columns(tables, row.gold_query)},
            "difficulty": {"difficulty": row.difficulty},
            "plan": {"plan": [f"Answer with tables {', '.join(tables)}."]},
            "choice": {"choice": "first", "reason": "From the labels."},
            "explanation": EXPLANATION,
        }
        fields = answers.get(call.stage, {"sql": row.gold_query})
        if "reasoning" in call.output_fields:
            fields = {"reasoning": "From the labels.", **fields}
        return render_answer(fields)

    def _columns(self, tables: list[str], gold_sql: str) -> dict[str, list[str]]:
        words = set(re.findall(r"[A-Za-z_][\w-]*", gold_sql.lower()))
        if self.columns_of is None:
            return {}
        return {table: [c for c in self.columns_of(table) if c in words] for table in tables}
