"""The catalog a command, an engine or a stage serves when none is named (the one place the default is written)."""

DEFAULT_CATALOG = "ztf"
