"""A Jupyter notebook in ``docs/`` as a page: Markdown cells as they are, code cells as Python blocks with their
text outputs (read from the notebook's JSON; nothing is executed at build time)."""

from __future__ import annotations

import json
from pathlib import Path


def _text(source: str | list[str]) -> str:
    return "".join(source) if isinstance(source, list) else source


def notebook_markdown(file: Path) -> str:
    notebook = json.loads(file.read_text(encoding="utf-8"))
    parts = []
    for cell in notebook.get("cells", []):
        source = _text(cell.get("source", "")).rstrip()
        if cell.get("cell_type") == "markdown":
            parts.append(source)
        elif cell.get("cell_type") == "code" and source:
            parts.append(f"```python\n{source}\n```")
            for output in cell.get("outputs", []):
                text = _text(output.get("text", "") or output.get("data", {}).get("text/plain", "")).rstrip()
                if text:
                    parts.append(f"```text\n{text}\n```")
    return "\n\n".join(parts) + "\n"
