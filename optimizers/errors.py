"""Exceptions raised while compiling and saving programs, under one root ``OptimizerError``."""

__all__ = ["CompileError", "OptimizerError"]


class OptimizerError(Exception):
    """Root of every exception raised by the optimizers package."""


class CompileError(OptimizerError):
    """A compile could not run or could not be saved (bad settings, unwritable output, missing optional package)."""
