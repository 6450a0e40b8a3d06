"""Read JSON that came from a file or a peer as data only: bounded nesting, one-line errors of one type.

``json.loads`` recurses once per nesting level: 100,000 ``[`` raise ``RecursionError`` (not a ``ValueError``), and
a value that parsed just under the interpreter's limit can still overflow whoever walks it later (``repr``, a deep
copy, a validator) from a deeper stack. `loads_json` refuses both the same way as a syntax error, with
`UnreadableJSON`, so every reader of outside JSON (artifacts, manifests, predictions, checkpoints, cache entries)
turns one exception into its own typed error.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "UnreadableJSON", "loads_json"]

MAX_JSON_DEPTH = 100
"""Deepest nesting of arrays and objects accepted (the project's own files nest fewer than 10 levels)."""


class UnreadableJSON(ValueError):
    """The text is not JSON, or nests deeper than allowed; the message is one line."""


def _depth_over(value: Any, limit: int) -> bool:
    """Tell whether `value` nests arrays and objects more than `limit` levels deep (iteratively: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON text, refusing nesting deeper than `max_depth` levels.

    Args:
        text: The JSON text (bytes are read as UTF-8).
        max_depth: The deepest nesting of arrays and objects accepted.

    Returns:
        The parsed value.

    Raises:
        UnreadableJSON: The text is not JSON (the decoder's one-line reason) or nests too deep.

    Examples:
        >>> loads_json('{"a": [1, 2]}')
        {'a': [1, 2]}
        >>> loads_json("[" * 100_000 + "]" * 100_000)
        Traceback (most recent call last):
        ...
        fileio.json_data.UnreadableJSON: nested deeper than 100 levels
        >>> loads_json("[[[1]]]", max_depth=2)
        Traceback (most recent call last):
        ...
        fileio.json_data.UnreadableJSON: nested deeper than 2 levels
        >>> loads_json("{'a': 1}")
        Traceback (most recent call last):
        ...
        fileio.json_data.UnreadableJSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise UnreadableJSON(f"nested deeper than {max_depth} levels") from None
    except ValueError as err:  # JSONDecodeError; UnicodeDecodeError for bytes that are not UTF-8
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise UnreadableJSON(reason) from err
    if _depth_over(value, max_depth):
        raise UnreadableJSON(f"nested deeper than {max_depth} levels")
    return value
