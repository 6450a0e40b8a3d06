"""The ``python -m compile`` command: compile the program for one model and freeze it under artifacts/."""
