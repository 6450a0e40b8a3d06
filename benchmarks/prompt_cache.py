"""How much of a run's prompts a provider's prefix cache could serve.

A provider that caches prompts (OpenAI, DeepSeek, Gemini implicitly; Anthropic on request) serves the longest start
of a prompt that an earlier request already sent, in blocks of tokens, and only from a minimum length (OpenAI: from
1,024 tokens, in blocks of 128): `PrefixCache`. Anthropic caches only what a request marks: each ``cache_control``
breakpoint writes the prompt's start up to it (from 1,024 tokens for Sonnet-class models), and a later request whose
start up to one of its own breakpoints was written is served up to there: `BreakpointCache`. A request can only hit
what finished before it was sent: calls sent together (the K candidates of one question, the pairwise choices of one
selection) do not serve each other, so calls of the same wave never count.

Example:
    >>> cache = PrefixCache(min_tokens=4, block_tokens=2)
    >>> cache.serve([1, 2, 3, 4, 5], wave="q1 generation")
    0
    >>> cache.serve([1, 2, 3, 4, 9], wave="q1 generation")  # sent together with the first
    0
    >>> cache.serve([1, 2, 3, 4, 5, 6], wave="q2 generation")
    4
"""

from collections.abc import Hashable, Sequence

__all__ = ["BreakpointCache", "PrefixCache"]


class PrefixCache:
    """The starts of the prompts sent so far, in blocks, with the waves that sent them."""

    def __init__(self, *, min_tokens: int, block_tokens: int) -> None:
        """Start empty.

        Args:
            min_tokens: Shortest prefix served (shorter shared starts are sent again in full).
            block_tokens: Granularity of the served prefix.
        """
        self.min_tokens = min_tokens
        self.block_tokens = block_tokens
        self._waves: dict[int, set[Hashable]] = {}

    def serve(self, tokens: Sequence[int], *, wave: Hashable) -> int:
        """Return how many leading tokens of this prompt a cache holds, then remember the prompt.

        Args:
            tokens: The prompt's tokens.
            wave: The calls sent together with this one (they cannot serve each other).
        """
        served, chained = 0, 0
        keys = []
        for end in range(self.block_tokens, len(tokens) + 1, self.block_tokens):
            chained = hash((chained, tuple(tokens[end - self.block_tokens : end])))
            keys.append(chained)
            senders = self._waves.get(chained, set())
            if served == end - self.block_tokens and senders - {wave}:
                served = end
        for key in keys:
            self._waves.setdefault(key, set()).add(wave)
        return served if served >= self.min_tokens else 0


class BreakpointCache:
    """The prompt starts written at breakpoints so far, with the waves that wrote them (Anthropic's rule).

    Example:
        >>> cache = BreakpointCache(min_tokens=3)
        >>> cache.serve([1, 2, 3, 4, 5], [2, 4], wave="q1")  # nothing written yet: writes 4 tokens (the 2 is short)
        (0, 4)
        >>> cache.serve([1, 2, 3, 4, 9], [4], wave="q1")  # sent together with the first: writes again
        (0, 4)
        >>> cache.serve([1, 2, 3, 4, 6, 7], [4, 6], wave="q2")  # reads the 4 tokens, writes the next 2
        (4, 2)
    """

    def __init__(self, *, min_tokens: int) -> None:
        """Start empty; `min_tokens` is the shortest start a breakpoint caches."""
        self.min_tokens = min_tokens
        self._waves: dict[int, set[Hashable]] = {}

    def serve(self, tokens: Sequence[int], breakpoints: Sequence[int], *, wave: Hashable) -> tuple[int, int]:
        """Return (tokens read from the cache, tokens written to it) for one request, then remember its writes.

        Args:
            tokens: The prompt's tokens.
            breakpoints: Token counts at which the request carries a breakpoint.
            wave: The calls sent together with this one (they cannot serve each other).
        """
        marks = sorted(end for end in set(breakpoints) if self.min_tokens <= end <= len(tokens))
        keys = {end: hash(tuple(tokens[:end])) for end in marks}
        read = max((end for end in marks if self._waves.get(keys[end], set()) - {wave}), default=0)
        written = marks[-1] - read if marks else 0
        for key in keys.values():
            self._waves.setdefault(key, set()).add(wave)
        return read, written
