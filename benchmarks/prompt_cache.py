"""How much of a run's prompts a provider's prefix cache could serve.

A provider that caches prompts (OpenAI, DeepSeek, Gemini implicitly; Anthropic on request) serves the longest start
of a prompt that an earlier request already sent, in blocks of tokens, and only from a minimum length (OpenAI: from
1,024 tokens, in blocks of 128). A request can only hit what finished before it was sent: calls sent together (the
K candidates of one question, the pairwise choices of one selection) do not serve each other, so calls of the same
wave never count.

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

__all__ = ["PrefixCache"]


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
