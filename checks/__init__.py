"""Checks around generation: result voting, literals against the database, results against the question."""

from checks.findings import Finding, FindingKind
from checks.result_checks import check_result
from checks.value_check import find_unknown_values, replace_unknown_values
from checks.vocabulary import Vocabulary, read_vocabulary
from checks.vote import Candidate, Vote, vote

__all__ = [
    "Candidate",
    "Finding",
    "FindingKind",
    "Vocabulary",
    "Vote",
    "check_result",
    "find_unknown_values",
    "read_vocabulary",
    "replace_unknown_values",
    "vote",
]
