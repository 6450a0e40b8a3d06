"""The copies of the embedded databases the local DaCHS serves: which build each is, and whether it is still current.

`python -m db tap up` copies each catalog's database into DaCHS and records the copy per catalog (``source.json``
beside the catalog's resource descriptor). An embedded database can be rebuilt under a running DaCHS (``db up
--ground``, which evaluate and compile run); a copy is current while its database still has the build it was copied
from (same scale, seed, build checksum and grounding) and the resource descriptor still renders from the catalog as
it did. The check reads ``meta.build_info`` as the read-only reader, so any user can make it.
"""

import dataclasses
import datetime
import functools
import hashlib
import json
import os
from pathlib import Path

import psycopg

from catalog import load_catalog
from catalog.dachs_rd import render_index_ddl, render_rd, render_tables_ddl
from db.provision import BuildInfo, database_build_info
from db.server import ServerInfo, default_data_dir
from defaults.catalog import DEFAULT_CATALOG

__all__ = ["Freshness", "PublishedCopy", "check_copy", "forget_copy", "read_copy", "write_copy"]

GAVO_DIR = Path(os.environ.get("GAVO_ROOT", "/var/gavo"))
_CONNECT_TIMEOUT_S = 3
_BUILD = ("scale", "seed", "checksum", "grounding", "grounded_queries")
_IDENTITY = ("database", *_BUILD, "catalog")
"""What makes two copies the same data: the generator is deterministic, so a rebuild of the same build is not new."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class PublishedCopy:
    """One copy of an embedded database in DaCHS: where it came from and which build it is.

    Attributes:
        database: Name of the copied database (``alerce``, ``alerce_tiny``, ...).
        reader_dsn: The reader DSN of that database, to read its build now.
        data_dir: Data folder of its embedded server.
        scale, seed, checksum, grounding, grounded_queries: Its build (``meta.build_info``) when it was copied.
        built_at: When that build was made (ISO 8601).
        catalog: Digest of the resource descriptor and tables DaCHS got, rendered from the catalog.
    """

    database: str
    reader_dsn: str
    data_dir: str
    scale: str
    seed: int
    checksum: str
    grounding: str
    grounded_queries: int
    built_at: str
    catalog: str

    @classmethod
    def of(cls, source: ServerInfo, build: BuildInfo) -> "PublishedCopy":
        """Describe a copy of the database `source` names, made from its build `build`."""
        return cls(
            database=build.database,
            reader_dsn=source.reader_dsn,
            data_dir=str(source.data_dir),
            scale=build.scale,
            seed=build.seed,
            checksum=build.checksum,
            grounding=build.grounding,
            grounded_queries=build.grounded_queries,
            built_at=build.built_at.isoformat(),
            catalog=_catalog_digest(build.catalog),
        )

    def identity(self) -> dict[str, str | int]:
        """What tells this copy's data apart: the database, its build and the catalog (not where or when)."""
        return {key: getattr(self, key) for key in _IDENTITY}

    def same_data(self, other: "PublishedCopy | None") -> bool:
        """Tell whether `other` is a copy of the same build (when it was made does not matter)."""
        return other is not None and self.identity() == other.identity()

    def describe(self) -> str:
        """One line naming the build, e.g. ``scale tiny, seed 0, grounding ea8921cf5a946f37 (58 queries), ...``."""
        built = datetime.datetime.fromisoformat(self.built_at).astimezone(datetime.UTC)
        queries = f"{self.grounded_queries} {'query' if self.grounded_queries == 1 else 'queries'}"
        grounding = f"grounding {self.grounding} ({queries})" if self.grounding else "no grounding"
        return (
            f"scale {self.scale}, seed {self.seed}, {grounding}, checksum {self.checksum}, "
            f"built {built:%Y-%m-%d %H:%M:%S} UTC"
        )

    def refresh_command(self) -> str:
        """The `tap up` command that publishes this copy's database as it is now."""
        command = "python -m db tap up"  # publishes every catalog; copies still current are not made again
        if self.scale != "default":
            command += f" --scale {self.scale}"
        if Path(self.data_dir) != default_data_dir() and os.path.isdir(self.data_dir):  # a removed one is no use
            command += f" --data-dir {self.data_dir}"
        return command


@dataclasses.dataclass(frozen=True, kw_only=True)
class Freshness:
    """Whether the published copy still holds what its database holds.

    Attributes:
        copy: The published copy, None when nothing is published (or a copy is being made).
        state: ``current``, ``stale`` (its database was rebuilt, or the catalog changed), ``unchecked`` (its
            database cannot be read) or ``none`` (nothing published).
        reason: Why it is not current (empty when it is).
    """

    copy: PublishedCopy | None
    state: str
    reason: str = ""

    @property
    def current(self) -> bool:
        """True when the copy holds what its database holds now."""
        return self.state == "current"

    def message(self, url: str) -> str:
        """One line for a command that cannot use the service: what is wrong and the command that fixes it."""
        if self.copy is None:
            return f"The local TAP service at {url} publishes no database; run `python -m db tap up` to publish one."
        command = self.copy.refresh_command()
        if self.state == "unchecked":
            return (
                f"The local TAP service at {url} serves a copy of {self.copy.database} that cannot be checked: "
                f"{self.reason}; run `{command}` to start its database and republish it if it changed."
            )
        return (
            f"The local TAP service at {url} serves a stale copy of {self.copy.database}: {self.reason}; "
            f"run `{command}` to republish it."
        )


def check_copy(catalog: str = DEFAULT_CATALOG) -> Freshness:
    """Compare the catalog's published copy with its database as it is now (read as the reader, 3 s to connect)."""
    copy = read_copy(catalog)
    if copy is None:
        return Freshness(copy=None, state="none", reason="no database is published")
    dsn = psycopg.conninfo.make_conninfo(copy.reader_dsn, connect_timeout=_CONNECT_TIMEOUT_S)
    try:
        build = database_build_info(dsn)
    except psycopg.Error as err:
        if not os.path.isdir(copy.data_dir):  # e.g. a test run's throwaway server
            return Freshness(copy=copy, state="stale", reason=f"its data folder {copy.data_dir} was removed")
        detail = " ".join(str(err).split()) or type(err).__name__
        reason = f"its database cannot be read (embedded server in {copy.data_dir}: {detail})"
        return Freshness(copy=copy, state="unchecked", reason=reason)
    if build is None:
        return Freshness(copy=copy, state="stale", reason="its database is being rebuilt")
    if copy.catalog != _catalog_digest(catalog):
        return Freshness(copy=copy, state="stale", reason="the catalog changed since it was copied")
    now = dataclasses.replace(copy, **{key: getattr(build, key) for key in _BUILD})
    changes = [
        f"{key} {getattr(copy, key)} -> {getattr(now, key)}"
        for key in _IDENTITY
        if getattr(copy, key) != getattr(now, key)
    ]
    if changes:
        return Freshness(copy=copy, state="stale", reason=f"its database was rebuilt ({', '.join(changes)})")
    return Freshness(copy=copy, state="current")


@functools.cache
def _catalog_digest(name: str) -> str:
    """Digest of what DaCHS gets from the catalog: its tables, indexes and resource descriptor."""
    catalog = load_catalog(name)
    text = "\x1f".join((render_tables_ddl(catalog), render_index_ddl(catalog), render_rd(catalog)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _marker(catalog: str) -> Path:
    return GAVO_DIR / "inputs" / load_catalog(catalog).tap_schema / "source.json"


def read_copy(catalog: str = DEFAULT_CATALOG) -> PublishedCopy | None:
    """Return the catalog's published copy, or None when none is recorded (or in an older format: republished)."""
    try:
        fields = json.loads(_marker(catalog).read_text())
        return PublishedCopy(**fields)
    except (OSError, ValueError, TypeError):
        return None


def write_copy(copy: PublishedCopy, catalog: str = DEFAULT_CATALOG) -> None:
    """Record `copy` as the catalog's published one (replacing the record in one step: no half record is read)."""
    marker = _marker(catalog)
    marker.parent.mkdir(parents=True, exist_ok=True)
    partial = marker.with_suffix(".tmp")
    partial.write_text(json.dumps(dataclasses.asdict(copy), indent=2))
    partial.replace(marker)


def forget_copy(catalog: str = DEFAULT_CATALOG) -> None:
    """Drop the catalog's record before its copy changes: meanwhile the service is not current for it."""
    _marker(catalog).unlink(missing_ok=True)
