"""The value check reads every classifier and version of the embedded database and offers them to generation."""

from collections.abc import Iterator

import pytest

from catalog import load_catalog
from engines.postgres import PostgresEngine, PostgresSettings
from modules.value_check.stage import ValueCheck
from modules.value_check.vocabulary import clear_cache

CLASSIFIERS = load_catalog().classifiers
PAIRS = [(classifier, version) for classifier in CLASSIFIERS for version in classifier.versions]


def _offered(text: str) -> dict[tuple[str, str], set[str]]:
    """(classifier, version) -> class names, from lines "probability.class_name of a 1, 2; b 3: 'X', 'Y'"."""
    offered = {}
    for line in text.splitlines():
        if line.startswith("probability.class_name of "):
            owners, names = line.removeprefix("probability.class_name of ").split(": ")
            classes = {name.strip("'") for name in names.split(", ")}
            for owner in owners.split("; "):
                name, versions = owner.split(" ", 1)
                offered |= {(name, version): classes for version in versions.split(", ")}
    return offered


@pytest.fixture(scope="module")
def check(tiny_dsn: str) -> Iterator[ValueCheck]:
    clear_cache()
    with PostgresEngine(PostgresSettings(dsn=tiny_dsn)) as engine:
        yield ValueCheck.open(engine)
    clear_cache()


@pytest.mark.parametrize(("classifier", "version"), PAIRS, ids=[f"{c.name} {v}" for c, v in PAIRS])
def test_the_value_check_reads_each_classifier_version_and_its_classes(check, classifier, version):
    vocabulary = check.vocabulary
    assert classifier.name in vocabulary.values[("probability", "classifier_name")]
    assert version in vocabulary.values[("probability", "classifier_version")]
    assert vocabulary.classes[("probability", classifier.name, version)] == set(classifier.classes)
    assert _offered(check.prompt_text(["probability"], None))[(classifier.name, version)] == set(classifier.classes)


@pytest.mark.parametrize(("classifier", "version"), PAIRS, ids=[f"{c.name} {v}" for c, v in PAIRS])
def test_a_misspelt_classifier_version_or_class_is_offered_the_right_one(check, classifier, version):
    wanted = {"classifier_name": classifier.name, "classifier_version": version, "class_name": classifier.classes[-1]}
    for column, value in wanted.items():
        spelled = {**wanted, column: f"{value}x"}
        conditions = " AND ".join(f"{name} = '{spelled[name]}'" for name in wanted)
        findings = check.findings(f"SELECT oid FROM probability WHERE {conditions}")
        assert [finding.closest[0] for finding in findings] == [value], column
