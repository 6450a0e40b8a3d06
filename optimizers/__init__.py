"""Compile the program for one model: the strategies, the compile run and the `python -m compile` command."""
