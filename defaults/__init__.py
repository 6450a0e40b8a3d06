"""Named defaults shared by several packages and checked against the README (imports nothing)."""
