"""Benchmarks: `python -m benchmarks.<name>` prints one JSON object."""
