"""Every row of q3c_vectors.csv against the active q3c (tiny database) and against the SQL fallback."""

import csv
import json
import math
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from db.q3c import install_q3c, is_q3c_available

FUNCTIONS = ("q3c_dist", "q3c_sindist", "q3c_join", "q3c_radial_query", "q3c_ellipse_query", "q3c_poly_query")
FALLBACK_DB = "q3c_fallback_test"


def load_vectors(docs_dir: Path) -> list[dict]:
    """Read q3c_vectors.csv into dicts with ``function``, ``args`` (parsed JSON) and ``expected``."""
    with (docs_dir / "q3c_vectors.csv").open(newline="", encoding="utf-8") as handle:
        return [{**row, "args": json.loads(row["args_json"])} for row in csv.DictReader(handle)]


@pytest.fixture(scope="module")
def vectors(alerce_docs_dir: Path) -> list[dict]:
    rows = load_vectors(alerce_docs_dir)
    assert len(rows) == 900
    return rows


@pytest.fixture(scope="module")
def fallback_dsn(admin_dsn_tiny: str, tiny_dsn: str) -> Iterator[str]:
    """Reader DSN of a scratch database of the test server with the SQL fallback forced in."""
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(FALLBACK_DB)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(FALLBACK_DB)))
    dsn = psycopg.conninfo.make_conninfo(admin_dsn_tiny, dbname=FALLBACK_DB)
    with psycopg.connect(dsn) as conn:
        assert install_q3c(conn, force_fallback=True) == "fallback"
    yield psycopg.conninfo.make_conninfo(tiny_dsn, dbname=FALLBACK_DB)
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(FALLBACK_DB)))


def run_batch(dsn: str, function: str, rows: list[dict]) -> list[object]:
    """Evaluate ``function`` on every row in one query; returns the results in row order."""
    if function == "q3c_poly_query":
        return _run_poly_batch(dsn, rows)
    columns = list(zip(*(row["args"] for row in rows), strict=True))
    names = [f"a{i}" for i in range(len(columns))]
    query = sql.SQL("SELECT {fn}({args}) FROM unnest({arrays}) WITH ORDINALITY AS t({names}, i) ORDER BY i").format(
        fn=sql.Identifier(function),
        args=sql.SQL(", ").join(map(sql.Identifier, names)),
        arrays=sql.SQL(", ").join(sql.SQL("%s::float8[]") for _ in names),
        names=sql.SQL(", ").join(map(sql.Identifier, names)),
    )
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute(query, [list(c) for c in columns]).fetchall()]


def _run_poly_batch(dsn: str, rows: list[dict]) -> list[object]:
    # The real q3c caches the polygon of a call site for the whole query, so each polygon gets its own query.
    # A polygon literal is cast to polygon, a list of numbers to float8[].
    results: dict[int, object] = {}
    groups: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        groups.setdefault(json.dumps(row["args"][2]), []).append(index)
    with psycopg.connect(dsn) as conn:
        for key, indexes in groups.items():
            poly = json.loads(key)
            cast = "%s::polygon" if isinstance(poly, str) else "%s::float8[]"
            query = f"SELECT q3c_poly_query(ra, dec, {cast}) FROM unnest(%s::float8[], %s::float8[]) "
            query += "WITH ORDINALITY AS t(ra, dec, i) ORDER BY i"
            ras = [rows[i]["args"][0] for i in indexes]
            decs = [rows[i]["args"][1] for i in indexes]
            for index, (value,) in zip(indexes, conn.execute(query, [poly, ras, decs]).fetchall(), strict=True):
                results[index] = value
    return [results[i] for i in range(len(rows))]


def mismatches(function: str, rows: list[dict], got: list[object]) -> list[str]:
    """Describe every result outside Q3C.md's tolerances."""
    bad = []
    for row, value in zip(rows, got, strict=True):
        expected = row["expected"]
        if expected == "NULL" or value is None:
            ok = expected == "NULL" and value is None
        elif function in ("q3c_dist", "q3c_sindist"):
            want = float(expected)
            tolerance = 1e-15 if function == "q3c_sindist" else (1e-10 if want > 150 else 1e-12)
            ok = math.isclose(value, want, rel_tol=0, abs_tol=tolerance)
        else:
            ok = value == (expected == "true")
        if not ok:
            bad.append(f"{function}{tuple(row['args'])}: got {value}, expected {expected}")
    return bad


@pytest.mark.parametrize("implementation", ["active", "fallback"])
@pytest.mark.parametrize("function", FUNCTIONS)
def test_q3c_matches_every_vector(
    request: pytest.FixtureRequest, vectors: list[dict], function: str, implementation: str
) -> None:
    dsn = request.getfixturevalue("tiny_dsn" if implementation == "active" else "fallback_dsn")
    rows = [row for row in vectors if row["function"] == function and row["expected"] != "ERROR"]
    assert rows
    assert mismatches(function, rows, run_batch(dsn, function, rows)) == []


@pytest.mark.parametrize("implementation", ["active", "fallback"])
def test_q3c_error_rows_raise_or_return_a_boolean(
    request: pytest.FixtureRequest, vectors: list[dict], implementation: str
) -> None:
    dsn = request.getfixturevalue("tiny_dsn" if implementation == "active" else "fallback_dsn")
    rows = [row for row in vectors if row["expected"] == "ERROR"]
    assert len(rows) == 3
    for row in rows:
        try:
            result = run_batch(dsn, row["function"], [row])
        except psycopg.Error:
            continue
        assert result[0] in (True, False)


def test_fallback_rejects_a_two_vertex_polygon(fallback_dsn: str) -> None:
    with psycopg.connect(fallback_dsn) as conn, pytest.raises(psycopg.errors.RaiseException, match="Invalid polygon"):
        conn.execute("SELECT q3c_poly_query(5, 0, ARRAY[0, 0, 10, 0])")


def test_fallback_functions_are_immutable_parallel_safe_and_in_public(fallback_dsn: str) -> None:
    with psycopg.connect(fallback_dsn) as conn:
        rows = conn.execute(
            "SELECT p.proname, n.nspname, p.provolatile, p.proparallel FROM pg_proc p "
            "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.proname LIKE 'q3c%' ORDER BY 1"
        ).fetchall()
    names = {row[0] for row in rows}
    assert {*FUNCTIONS, "q3c_ellipse_join", "q3c_in_poly"} == names
    assert {(row[1], row[2], row[3]) for row in rows} == {("public", "i", "s")}


def test_install_q3c_prefers_the_extension_when_available(admin_dsn_tiny: str) -> None:
    with psycopg.connect(admin_dsn_tiny) as conn:
        available = is_q3c_available(conn)
        installed = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'q3c'").fetchone()[0]
    assert installed == (1 if available else 0)


def test_integer_polygon_array_and_polygon_literal_agree(tiny_dsn: str) -> None:
    with psycopg.connect(tiny_dsn) as conn:
        row = conn.execute(
            "SELECT q3c_poly_query(1.5, 0.25, ARRAY[0,0,2,0,2,1]),"
            " q3c_poly_query(1.5, 0.25, '((0,0),(2,0),(2,1))'::polygon),"
            " q3c_in_poly(0.5, 0.5, ARRAY[0,0,2,0,2,1]),"
            " q3c_in_poly(0.5, 0.5, '((0,0),(2,0),(2,1))'::polygon)"
        ).fetchone()
    assert row == (True, True, False, False)
