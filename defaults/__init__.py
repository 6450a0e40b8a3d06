"""Named defaults shared by several packages and rendered in the documentation (imports nothing)."""
