"""Turn the dataset's knowledge fields, and what the program adds to them, into the single `knowledge` prompt input."""

import math

__all__ = ["format_knowledge", "is_absent"]

_PLACEHOLDERS = frozenset({"", "0", "nan", "none"})


def is_absent(text: object) -> bool:
    """Tell whether a knowledge value means "no knowledge" ("0", empty, NaN or None).

    Examples:
        >>> is_absent("0"), is_absent(float("nan")), is_absent(" -- mjd 60188 ")
        (True, True, False)
    """
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return True
    return str(text).strip().lower() in _PLACEHOLDERS


def format_knowledge(*texts: object) -> str:
    """Join the present knowledge texts, one after the other; absent ones leave no trace.

    The program passes the external and domain knowledge, then the date stage's ranges and an earlier turn.

    Examples:
        >>> format_knowledge("0", "\\n-- SNe are explosions\\n")
        '-- SNe are explosions'
        >>> format_knowledge("0", "0")
        ''
    """
    return "\n".join(str(text).strip() for text in texts if not is_absent(text))
