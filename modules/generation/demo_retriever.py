"""Masked question similarity (MQS): pick, per question, the most similar training examples as generation demos.

Questions are compared after masking what differs between otherwise alike questions (object ids, dates,
coordinates, numbers, class and classifier names), with TF-IDF cosine similarity. The index is plain JSON
(examples, vocabulary, idf), never a pickle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import dspy
import numpy as np

from catalog import CATALOG_NAMES, load_catalog
from modules.run.knowledge import format_knowledge

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import TfidfVectorizer

__all__ = ["CLASS_NAMES", "DemoRetriever", "mask_question"]

CLASS_NAMES = tuple(dict.fromkeys(name for catalog in CATALOG_NAMES for name in load_catalog(catalog).class_names))
"""The class names of every catalog's classifiers (as stored in ``probability.class_name``), masked in questions."""

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_CLASSES = "|".join(re.escape(name) for name in sorted(CLASS_NAMES, key=len, reverse=True))
_MASKS = (
    (re.compile(r"\bZTF\d{2}[a-z]{7}\b", re.IGNORECASE), "<OID>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\b"), "<DATE>"),
    (re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"), "<DATE>"),
    (
        re.compile(
            rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?{_MONTHS}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?,?)?\s+\d{{4}}\b",
            re.IGNORECASE,
        ),
        "<DATE>",
    ),
    (re.compile(r"[+-]?\b\d{1,3}[h:d°]\s?\d{1,2}[m:']\s?\d{1,2}(?:\.\d+)?(?:s|\"|'')?"), "<COORD>"),
    (
        re.compile(r"\b\w*_classifier\w*\b|\b(?:lc|stamp|light[- ]curve)[ _]classifier\b", re.IGNORECASE),
        "<CLASSIFIER>",
    ),
    (re.compile(r"\bSNe?\s?I[abc]+\b"), "<CLASS>"),
    (re.compile(rf"(?<![\w/-])(?:{_CLASSES})(?![\w/-])"), "<CLASS>"),
    (re.compile(r"(?<![\w<])[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?\b", re.IGNORECASE), "<NUM>"),
)
_TOKENS = r"(?u)<\w+>|\b\w\w+\b"


def mask_question(question: str) -> str:
    """Replace object ids, dates, coordinates, classifier names, class names and numbers by placeholders.

    Examples:
        >>> mask_question("Light curve of ZTF21aaqfqkl since 2023-09-01")
        'Light curve of <OID> since <DATE>'
        >>> mask_question("SNIa with more than 20 detections by the lc_classifier in September 2023")
        '<CLASS> with more than <NUM> detections by the <CLASSIFIER> in <DATE>'
        >>> mask_question("objects within 0.5 deg of RA 12h30m49.4s, Dec +12d23m28s")
        'objects within <NUM> deg of RA <COORD>, Dec <COORD>'
        >>> mask_question("AGN or CV/Nova with probability above 0.7")
        '<CLASS> or <CLASS> with probability above <NUM>'
    """
    for pattern, placeholder in _MASKS:
        question = pattern.sub(placeholder, question)
    return question


def _vectorizer(**fitted: Any) -> TfidfVectorizer:
    from sklearn.feature_extraction.text import TfidfVectorizer  # seconds to import: only programs with demos pay

    return TfidfVectorizer(token_pattern=_TOKENS, lowercase=True, sublinear_tf=True, **fitted)


class DemoRetriever:
    """Per-question generation demos: the k training examples whose masked questions are most similar.

    Immutable after construction, so one instance serves every thread and deep copies share it.
    """

    def __init__(self, examples: list[dict[str, str]], vocabulary: dict[str, int], idf: list[float], k: int) -> None:
        """Rebuild the index from its saved parts (see ``fit`` and ``to_state``).

        Args:
            examples: One ``{"question", "knowledge", "sql"}`` per training example.
            vocabulary: TF-IDF term -> column index.
            idf: Inverse document frequency per column.
            k: Demos returned per question.
        """
        self.examples = examples
        self.vocabulary = vocabulary
        self.idf = idf
        self.k = k
        self._vectorizer = _vectorizer(vocabulary=vocabulary)
        self._vectorizer.idf_ = np.asarray(idf, dtype=float)
        self._matrix = self._vectorizer.transform([mask_question(e["question"]) for e in examples])

    @classmethod
    def fit(cls, trainset: Iterable[dspy.Example], k: int) -> DemoRetriever:
        """Index labelled examples (``question``, knowledge fields, ``gold_sql``).

        Raises:
            ValueError: The trainset is empty.
        """
        examples = [
            {
                "question": example.question,
                "knowledge": format_knowledge(
                    example.get("external_knowledge", ""), example.get("domain_knowledge", "")
                ),
                "sql": example.gold_sql,
            }
            for example in trainset
        ]
        if not examples:
            raise ValueError("MQS needs at least one training example.")
        fitted = _vectorizer().fit([mask_question(e["question"]) for e in examples])
        vocabulary = {term: int(index) for term, index in fitted.vocabulary_.items()}
        return cls(examples, vocabulary, fitted.idf_.tolist(), k)

    def neighbours(self, question: str) -> list[int]:
        """Return indices of the k most similar examples, best first; an identical question is never its own demo."""
        query = self._vectorizer.transform([mask_question(question)])
        similarity = (self._matrix @ query.T).toarray().ravel()
        order = sorted(range(len(self.examples)), key=lambda index: (-similarity[index], index))
        same = question.strip()
        return [index for index in order if self.examples[index]["question"].strip() != same][: self.k]

    def demos(self, question: str) -> list[dspy.Example]:
        """Return the demos for one question, as examples with ``question``, ``knowledge`` and ``sql``."""
        return [dspy.Example(**self.examples[index]) for index in self.neighbours(question)]

    def to_state(self) -> dict[str, Any]:
        """Return the JSON-ready index."""
        return {"k": self.k, "examples": self.examples, "vocabulary": self.vocabulary, "idf": self.idf}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> DemoRetriever:
        """Rebuild an index saved by ``to_state``."""
        return cls(state["examples"], state["vocabulary"], state["idf"], state["k"])

    def __deepcopy__(self, memo: dict) -> DemoRetriever:
        return self
