"""Run SQL you wrote, without a model, through the same SQL guard and read-only role as generated SQL."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from answering.answer import Answer
from answering.errors import AnsweringError
from answering.question import clean_text
from answering.targets import crossmatch_sql, target_list
from defaults.catalog import DEFAULT_CATALOG
from engines.errors import ExecutionError
from engines.guard import MAX_SQL_CHARS
from engines.targets import uploaded

if TYPE_CHECKING:
    from engines import Engine, EngineSettings
    from engines.targets import TargetList

__all__ = ["crossmatch", "run_sql"]


def run_sql(
    sql: str,
    *,
    catalog: str = DEFAULT_CATALOG,
    engine: Engine | EngineSettings | None = None,
    timeout_s: float | None = None,
    max_rows: int | None = None,
    targets: Any = None,
) -> Answer:
    """Run one SELECT on the catalog's data and return it as an ``Answer`` (``answering.run_sql`` is this).

    Example::

        import answering

        answer = answering.run_sql("SELECT oid, meanra, meandec FROM object WHERE ndet > 50 LIMIT 10")
        answer.table      # an astropy Table with the catalog's units and UCDs
        answering.run_sql("SELECT count(*) FROM object", engine=EngineSettings(engine="tap"))  # as ADQL on TAP
        answering.run_sql("SELECT t.*, o.oid FROM mylist t JOIN object o ON o.oid = t.objectid", targets="ids.csv")

    Args:
        sql: PostgreSQL (on TAP it is translated to ADQL, as generated SQL is).
        catalog: ``ztf`` or ``multisurvey``: whose tables the SQL names.
        engine: A running engine (left open), or the settings of one to open and close (default: the embedded
            database of `catalog`, or ``$ALERCE_DSN``).
        timeout_s: Time limit of the query (None: the engine's).
        max_rows: Row cap (None: the engine's).
        targets: A target list the SQL names as ``mylist`` (or ``tap_upload.mylist``): a CSV or VOTable file,
            an astropy Table or a DataFrame of positions (ra, dec) or object ids (``answering.targets``).

    Returns:
        The answer; when the guard refused the SQL or it failed, ``frame`` is None and ``error`` says why in one
        line (``error_kind`` ``refused`` for the guard).

    Raises:
        AnsweringError: Empty or too long SQL, an unknown catalog, an engine of another catalog, or a bad target
            list.
        engines.errors.EngineError: The database could not be reached.
    """
    from db.engine import open_engine
    from engines import EngineSettings

    sql = clean_text(sql, field="sql", max_chars=MAX_SQL_CHARS)
    if not sql:
        raise AnsweringError("the SQL is empty; write one SELECT statement")
    if catalog not in ("ztf", "multisurvey"):
        raise AnsweringError(f"unknown catalog {catalog!r}; choose ztf or multisurvey")
    checked = target_list(targets)
    if engine is not None and not isinstance(engine, EngineSettings):
        return _run(engine, sql, catalog, timeout_s, max_rows, checked, keep=True)
    opened = open_engine(dataclasses.replace(engine or EngineSettings(), catalog=catalog))
    try:
        return _run(opened, sql, catalog, timeout_s, max_rows, checked, keep=False)
    finally:
        opened.close()


def crossmatch(targets: Any, *, radius_arcsec: float = 2.0, **run_options: Any) -> Answer:
    """Cross-match a target list with the catalog's objects by a radius in arcsec, nearest first
    (``answering.targets.crossmatch_sql``; `run_options` as ``run_sql`` takes them: catalog, engine...).

    Raises:
        AnsweringError: A bad list or radius, or as ``run_sql``.
    """
    checked = target_list(targets)
    return run_sql(crossmatch_sql(checked, radius_arcsec), targets=checked, **run_options)


def _run(
    engine: Engine,
    sql: str,
    catalog: str,
    timeout_s: float | None,
    max_rows: int | None,
    targets: TargetList | None,
    *,
    keep: bool,
) -> Answer:
    served = getattr(getattr(engine, "settings", None), "catalog", catalog)
    if served != catalog:
        raise AnsweringError(f"the engine serves the {served} catalog, not {catalog}")
    try:
        with uploaded(targets):
            result = engine.execute(sql, timeout_s=timeout_s, max_rows=max_rows)
    except ExecutionError as err:
        return Answer(
            question="", sql=sql, frame=None, error=str(err), error_kind=err.label, catalog=catalog, targets=targets
        )
    return Answer.of_result(
        result,
        question="",
        sql=sql,
        catalog=catalog,
        engine=engine if keep else None,
        attempts=[{"sql": sql, "error_kind": None, "message": None}],
        targets=targets,
    )
