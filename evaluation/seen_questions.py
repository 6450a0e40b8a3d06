"""Find the questions of an evaluation that the program was compiled on (from its manifest's split)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dspy

__all__ = ["SPLIT_PARTS", "seen_in_compile"]

SPLIT_PARTS = ("train_req_ids", "validation_req_ids")
"""Keys of a manifest's ``split`` listing the req_ids compile drew demos from and selected on."""


def seen_in_compile(
    manifest: dict[str, Any] | None, examples: Sequence[dspy.Example], dataset_sha256: str
) -> list[object]:
    """Return the req_ids of ``examples`` that compile used, when the artifact was compiled on this very file.

    Args:
        manifest: The loaded artifact's manifest (None: uncompiled, nothing seen).
        examples: The questions being scored.
        dataset_sha256: The sha256 of the file they come from; req_ids of another file name other questions.

    Returns:
        The req_ids seen by compile, in the examples' order (empty when none, or another dataset).

    Examples:
        >>> manifest = {"dataset": {"sha256": "ab"}, "split": {"train_req_ids": [1], "validation_req_ids": [3]}}
        >>> questions = [dspy.Example(req_id=n) for n in (1, 2, 3)]
        >>> seen_in_compile(manifest, questions, "ab"), seen_in_compile(manifest, questions, "cd")
        ([1, 3], [])
    """
    if not manifest or (manifest.get("dataset") or {}).get("sha256") != dataset_sha256:
        return []
    split = manifest.get("split") or {}
    used = {str(req_id) for part in SPLIT_PARTS for req_id in split.get(part) or ()}
    return [example.req_id for example in examples if str(example.get("req_id")) in used]
