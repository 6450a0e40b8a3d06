"""The TAP engine's error mapping, retries and fingerprint, without a server (stand-ins for pyvo)."""

import pytest
import requests
from astropy.table import Table
from pyvo.dal import DALQueryError, DALServiceError

from engines import TapSettings
from engines.errors import DatabaseUnavailable, ErrorKind, ExecutionError
from engines.tap.engine import TapEngine


class Flaky:
    """Raise the given errors in turn, then return `value`; count the calls."""

    def __init__(self, errors, value="done"):
        self.errors, self.value, self.calls = list(errors), value, 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return self.value


@pytest.fixture
def engine(monkeypatch):
    monkeypatch.setattr("engines.tap.engine.time.sleep", lambda seconds: None)
    return TapEngine(TapSettings(url="http://tap.invalid/tap", retries=2))


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        (
            "Field query: No such field known: column 'nosuch' could not be located in table metadata",
            "missing_structure",
        ),
        ("Could not locate table 'public.objekt'", "missing_structure"),
        ("Query timed out (took too long).", "timeout"),
        ("Field query: Expected end of text, found 'LIMIT' (at char 30)", "general"),
    ],
)
def test_service_query_errors_keep_their_message_and_get_a_kind(engine, message, kind):
    with pytest.raises(ExecutionError) as caught:
        engine._with_retries(Flaky([DALQueryError(message)]))
    assert caught.value.kind is ErrorKind(kind)
    assert caught.value.message == message


def test_transient_http_failures_are_retried_then_succeed(engine):
    call = Flaky([DALServiceError("busy", code=503), DALServiceError("busy", code=502)])
    assert engine._with_retries(call) == "done"
    assert call.calls == 3


def test_retries_are_bounded(engine):
    call = Flaky([DALServiceError("busy", code=503)] * 5)
    with pytest.raises(DatabaseUnavailable, match=r"^Cannot use the TAP service at http://tap.invalid/tap: busy\."):
        engine._with_retries(call)
    assert call.calls == 3


def test_a_client_error_is_not_retried(engine):
    call = Flaky([DALServiceError("not found", code=404)])
    with pytest.raises(DatabaseUnavailable):
        engine._with_retries(call)
    assert call.calls == 1


def test_a_read_timeout_is_a_timeout(engine):
    call = Flaky([requests.ReadTimeout("read timed out")])
    with pytest.raises(ExecutionError) as caught:
        engine._with_retries(call)
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert call.calls == 1


def test_an_unsupported_query_fails_before_any_request(monkeypatch):
    engine = TapEngine(TapSettings(url="http://tap.invalid/tap"))
    monkeypatch.setattr(engine, "target", lambda: pytest.fail("the service was asked"))
    monkeypatch.setattr("engines.tap.engine.translate", lambda sql, target: pytest.fail("translated before the guard"))
    with pytest.raises(ExecutionError, match="Only one SELECT or WITH statement is allowed, got DROP"):
        engine.execute("DROP TABLE object")


class ListingService:
    """A stand-in pyvo TAPService whose ``tap_schema.tables`` lists the given {table: nrows} (nrows may be absent)."""

    hardlimit = 1000

    def __init__(self, nrows, *, has_nrows=True):
        self.nrows, self.has_nrows = nrows, has_nrows

    def run_sync(self, query, maxrec=None):
        if "nrows" in query and not self.has_nrows:
            raise DALQueryError("Field query: No such field known: nrows")
        names = [f"ztf.{name}" for name in self.nrows]
        table = Table(
            {"table_name": names, "nrows": list(self.nrows.values())} if self.has_nrows else {"table_name": names}
        )
        return type("Rows", (), {"to_table": lambda self: table})()


def fingerprint_of(monkeypatch, service, url="http://tap.invalid/tap"):
    engine = TapEngine(TapSettings(url=url))
    monkeypatch.setattr(engine, "_service", lambda read_timeout_s: service)
    return engine.fingerprint()


def test_the_fingerprint_follows_the_row_counts_read_from_tap_schema(monkeypatch):
    first = fingerprint_of(monkeypatch, ListingService({"object": 20149, "probability": 341809}))
    assert first.startswith("tap-") and len(first) == 20
    assert fingerprint_of(monkeypatch, ListingService({"probability": 341809, "object": 20149})) == first
    assert fingerprint_of(monkeypatch, ListingService({"object": 549, "probability": 341809})) != first
    assert fingerprint_of(monkeypatch, ListingService({"object": 20149})) != first
    assert (
        fingerprint_of(monkeypatch, ListingService({"object": 20149, "probability": 341809}), "http://b/tap") != first
    )


def test_without_row_counts_the_fingerprint_follows_the_published_tables(monkeypatch):
    first = fingerprint_of(monkeypatch, ListingService({"object": None, "probability": None}, has_nrows=False))
    assert fingerprint_of(monkeypatch, ListingService({"object": None}, has_nrows=False)) != first


@pytest.mark.parametrize(("value", "expected"), [("", None), ("60", 60.0), (" 12.5 ", 12.5)])
def test_the_service_sync_limit_comes_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("ALERCE_TAP_SYNC_LIMIT_S", value)
    assert TapSettings(url="http://tap.invalid/tap").sync_limit_s == expected


@pytest.mark.parametrize("value", ["soon", "0", "-5"])
def test_a_sync_limit_that_is_not_seconds_is_one_line(monkeypatch, value):
    monkeypatch.setenv("ALERCE_TAP_SYNC_LIMIT_S", value)
    with pytest.raises(DatabaseUnavailable) as caught:
        TapSettings(url="http://tap.invalid/tap")
    assert str(caught.value) == (
        f"$ALERCE_TAP_SYNC_LIMIT_S must be the TAP service's sync time limit in seconds, got {value!r}; unset it "
        "when the limit is unknown."
    )
