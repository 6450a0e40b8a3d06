"""The default time limits of the commands and the library, in seconds, in one place: the documentation's "Time
limits" page renders this module. (Benchmarks keep their own fixed limits beside their other parameters.)

A leaf module (it imports nothing), so ``db/`` and ``engines/`` read their defaults here too.
"""

__all__ = [
    "ASK_CONNECT_S",
    "ASK_QUERY_S",
    "DACHS_START_S",
    "DATASET_DOWNLOAD_S",
    "EVALUATE_EMBEDDED_QUERY_S",
    "EVALUATE_EXTERNAL_QUERY_S",
    "GOLD_QUERY_FACTOR",
    "POSTGRES_CONNECT_S",
    "POSTGRES_QUERY_S",
    "TAP_CONNECT_S",
    "TAP_QUERY_S",
    "VOCABULARY_QUERY_S",
    "VOCABULARY_READ_S",
]

POSTGRES_QUERY_S = 30.0
"""One query on PostgreSQL when the caller sets no limit (compile, the library, the program's own queries)."""
POSTGRES_CONNECT_S = 10.0
"""Opening a PostgreSQL connection before the database counts as unavailable."""
TAP_QUERY_S = 60.0
"""One query on a TAP service when the caller sets no limit (compile with --engine tap)."""
TAP_CONNECT_S = 3.0
"""Opening a connection to a TAP service."""
ASK_QUERY_S = 30.0
"""One generated query of ``ask``, the web page and ``answering.load``, on any engine."""
ASK_CONNECT_S = 5.0
"""Reaching the database or TAP service from ``ask`` and ``answering.load``."""
EVALUATE_EMBEDDED_QUERY_S = 10.0
"""One predicted query of ``evaluate`` on the embedded database, whose synthetic tables are small."""
EVALUATE_EXTERNAL_QUERY_S = 120.0
"""One predicted query of ``evaluate`` on --dsn, ALERCE_DSN or TAP (the live ALeRCE role's limit)."""
GOLD_QUERY_FACTOR = 3.0
"""``evaluate``'s gold queries get this multiple of its default for the database (and never less than --timeout)."""
VOCABULARY_QUERY_S = 10.0
"""Each query that reads a categorical column's values when a program opens (``modules.value_check.vocabulary``)."""
VOCABULARY_READ_S = 30.0
"""The whole vocabulary read; tables left when it is spent are skipped (a live database scans big tables slowly)."""
DATASET_DOWNLOAD_S = 60.0
"""Downloading one benchmark file (``python -m data fetch``)."""
DACHS_START_S = 60.0
"""Waiting for the local DaCHS TAP server to answer (``python -m db tap up``)."""
