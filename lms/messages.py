"""Render DSPy's canonical messages for llama.cpp: chat messages for instruct models, plain text for base models."""

from __future__ import annotations

from typing import Any

__all__ = ["chat_messages", "render_completion_prompt", "system_text"]

_ROLE_LABELS = {"user": "User", "assistant": "Assistant"}


def render_completion_prompt(system: str, turns: list[tuple[str, str]]) -> str:
    """Render a conversation as plain text for a base model, ending with the assistant's turn.

    Args:
        system: System text, or "" for none.
        turns: (role, text) pairs, role "user" or "assistant".

    Returns:
        The prompt text.

    Example:
        >>> render_completion_prompt("Be brief.", [("user", "Hi")])
        'Be brief.\\n\\nUser: Hi\\n\\nAssistant:'
    """
    blocks = [system.strip()] if system.strip() else []
    blocks += [f"{_ROLE_LABELS.get(role, role.title())}: {text.strip()}" for role, text in turns]
    blocks.append(f"{_ROLE_LABELS['assistant']}:")
    return "\n\n".join(blocks)


def system_text(system: Any) -> str:
    """Return a request's system prompt as text (it may be a string or a tuple of parts)."""
    if system is None:
        return ""
    if isinstance(system, str):
        return system
    return "".join(getattr(part, "text", "") or "" for part in system)


def chat_messages(system: str, turns: list[tuple[str, str]], *, merge: bool) -> list[dict[str, str]]:
    """Build chat-completion messages; with ``merge`` the system text opens the first user turn instead.

    Example:
        >>> chat_messages("Be brief.", [("user", "Hi")], merge=True)
        [{'role': 'user', 'content': 'Be brief.\\n\\nHi'}]
    """
    messages = [{"role": role, "content": text} for role, text in turns]
    if not system:
        return messages
    if merge and messages and messages[0]["role"] == "user":
        messages[0] = {"role": "user", "content": f"{system}\n\n{messages[0]['content']}"}
        return messages
    if merge:
        return [{"role": "user", "content": system}, *messages]
    return [{"role": "system", "content": system}, *messages]
