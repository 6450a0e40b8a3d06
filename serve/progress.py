"""Report the program's stages as they run: a DSPy callback for the stage modules, the checks and the executions.

The program tells the callbacks of the current question (``dspy.settings.callbacks``), so concurrent questions
(each in its own ``dspy.context``) never see each other's events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dspy
from dspy.utils.callback import BaseCallback

from engines.errors import ExecutionError

__all__ = ["StageReporter", "stage_names"]

Emit = Callable[[dict[str, Any]], None]
_SHOWN_FIELDS = ("tables", "difficulty", "plan", "sql", "winner", "chosen")
_DETAIL_CHARS = 400


def stage_names(program: dspy.Module) -> dict[int, str]:
    """Map each direct sub-module of the program (its stages, whatever they are) to its attribute name."""
    return {id(module): name for name, module in vars(program).items() if isinstance(module, dspy.Module)}


class StageReporter(BaseCallback):
    """Emit ``{"type": "stage", "stage", "status": running|done|failed, "detail"}`` around each stage module."""

    def __init__(self, names: dict[int, str], emit: Emit) -> None:
        self.names = names
        self.emit = emit
        self._open: dict[str, str] = {}

    def on_module_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        """Report a stage that starts."""
        name = self.names.get(id(instance))
        if name is not None:
            self._open[call_id] = name
            self.emit({"type": "stage", "stage": name, "status": "running", "detail": ""})

    def on_module_end(self, call_id: str, outputs: Any, exception: Exception | None) -> None:
        """Report a stage that ended, with the gist of what it gave."""
        name = self._open.pop(call_id, None)
        if name is not None:
            status = "failed" if exception is not None else "done"
            self.emit({"type": "stage", "stage": name, "status": status, "detail": _gist(outputs, exception)})

    def on_stage_start(self, name: str) -> None:
        """Report a stage that is not a module (the value and result checks) as it starts."""
        if name not in self.names.values():
            self.emit({"type": "stage", "stage": name, "status": "running", "detail": ""})

    def on_stage_end(self, name: str, exception: BaseException | None) -> None:
        """Report a stage that is not a module as it ends (module stages end in ``on_module_end``)."""
        if name not in self.names.values():
            status = "failed" if exception is not None else "done"
            self.emit({"type": "stage", "stage": name, "status": status, "detail": _gist(None, exception)})

    def on_execute(self, error: ExecutionError | None, rows: int | None) -> None:
        """Report one execution of SQL on the engine."""
        # The SQL itself is in the detail of the stage that wrote it (generation, self_correction, ...).
        detail = f"{error.kind.value}: {error.message}" if error is not None else f"{rows:,} rows"
        status = "failed" if error is not None else "done"
        self.emit({"type": "stage", "stage": "execution", "status": status, "detail": detail})


def _gist(outputs: Any, exception: BaseException | None) -> str:
    if exception is not None:
        return f"{type(exception).__name__}: {exception}"[:_DETAIL_CHARS]
    if not isinstance(outputs, dspy.Prediction):
        return ""
    parts = [f"{key}: {outputs[key]}" for key in _SHOWN_FIELDS if key in outputs and outputs[key] not in (None, "")]
    return "\n".join(parts)[:_DETAIL_CHARS]
