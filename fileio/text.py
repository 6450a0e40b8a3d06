"""Text that every file, socket and terminal accepts: no lone surrogates.

Python strings may hold code points U+D800-U+DFFF (from a JSON ``\\ud800`` escape, or bytes decoded with
``surrogateescape``) that UTF-8 cannot encode; writing one raises ``UnicodeEncodeError`` wherever it lands. Texts
that enter from outside pass through `encodable` before anything stores, logs, prints or sends them.
"""

import re

__all__ = ["encodable"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """Return `text` with each surrogate pair joined into its character and each lone one replaced by U+FFFD.

    Examples:
        >>> encodable("bad \\udcff end") == "bad \\ufffd end"
        True
        >>> encodable("\\ud83d\\ude00") == "\\U0001f600"
        True
        >>> encodable("plain")
        'plain'
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
