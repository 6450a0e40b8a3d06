"""build(): fill an empty multi-survey schema (alerce_tap) with a deterministic synthetic population."""

import logging
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
import psycopg

from replica.multisurvey.classifications import probability_rows, solar_system_probability_rows
from replica.multisurvey.crossmatch import allwise_rows, attach_sources, xmatch_rows
from replica.multisurvey.dia_objects import dia_chunk
from replica.multisurvey.features import feature_rows
from replica.multisurvey.gaia import gaia_rows
from replica.multisurvey.grounding.ground import check_answers, ground_queries
from replica.multisurvey.lookups import LSST_BANDS, lookup_frames
from replica.multisurvey.lsst_tables import DETECTION_SQL
from replica.multisurvey.scales import Scale, get_scale
from replica.multisurvey.ss_objects import ss_observations
from replica.multisurvey.ss_tables import mpc_orbit_rows, ss_detection_tables
from replica.multisurvey.summaries import dia_object_rows, object_rows
from replica.multisurvey.ztf import ZtfNamer, counterpart_spec, ztf_only_spec, ztf_tables
from replica.schema_ops import analyze, create_indexes, prepare, row_counts
from replica.synthetic.copy import TableWriter

__all__ = ["SCHEMA", "build"]

log = logging.getLogger(__name__)

SCHEMA = "alerce_tap"
LSST_TID = 1
_SS_CHUNK = 1000


class _Run:
    """What the chunks share: the writer, the next LSST id counter and ZTF candid index, names taken."""

    def __init__(self, writer: TableWriter, seed: int, scale: Scale) -> None:
        self.writer, self.scale = writer, scale
        self.lsst_counter = int(np.random.default_rng([seed, 0]).integers(10**6, 10**9))
        self.ztf_index = 0
        self.namer = ZtfNamer(np.random.default_rng([seed, 9]))
        self.designations: set[str] = set()

    def write(self, tables: dict[str, pd.DataFrame], rng: np.random.Generator) -> None:
        for name, frame in tables.items():
            if name == "lsst_detection":
                self.writer.write_generated(name, frame, DETECTION_SQL, float(rng.uniform(-1.0, 1.0)))
            else:
                self.writer.write(name, frame)


def _in_oid_order(spec: pd.DataFrame, objects: pd.DataFrame) -> pd.DataFrame:
    return spec.set_index("oid").loc[objects["oid"].to_numpy()].reset_index()


def _ztf(run: _Run, rng: np.random.Generator, spec: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """ZTF rows of the objects of `spec` (sources already attached), their cross-matches included."""
    tables, spec, used = ztf_tables(rng, spec, run.namer, run.ztf_index, run.scale.max_forced_rows)
    run.ztf_index += used
    objects = tables["object"]
    tables["xmatch"] = xmatch_rows(_in_oid_order(spec, objects), objects, objects["created_date"].to_numpy())
    return tables


def _dia(run: _Run, rng: np.random.Generator, n: int) -> None:
    chunk = dia_chunk(rng, n, run.lsst_counter, run.scale.max_forced_rows)
    run.lsst_counter += chunk.ids_used
    attach_sources(rng, chunk.spec)
    objects = object_rows(chunk.tables["detection"], chunk.forced.groupby("oid").size(), LSST_TID)
    spec = _in_oid_order(chunk.spec, objects)
    wise = allwise_rows(rng, spec)
    tables = {
        "object": objects,
        **chunk.tables,
        "lsst_dia_object": dia_object_rows(chunk.detections, chunk.forced, objects),
        "probability": probability_rows(rng, objects, spec["kind"].to_numpy()),
        "feature": feature_rows(rng, spec, chunk.detections, objects, wise, LSST_BANDS),
        "xmatch": xmatch_rows(spec, objects, objects["created_date"].to_numpy()),
        "allwise": wise,
        "gaiadr3_source": gaia_rows(rng, spec),
    }
    run.write(tables, rng)
    run.write(_ztf(run, rng, counterpart_spec(rng, spec)), rng)


def _solar_system(run: _Run, rng: np.random.Generator, n: int) -> None:
    orbits, det = ss_observations(rng, n, run.lsst_counter, run.designations)
    run.lsst_counter += len(det)
    tables = ss_detection_tables(rng, orbits, det)
    objects = object_rows(tables["detection"], pd.Series(dtype=np.int64), LSST_TID)
    first_mjd = det.groupby("_obj")["mjd"].min().to_numpy()
    tables = {"object": objects, **tables, "lsst_mpc_orbits": mpc_orbit_rows(rng, orbits, first_mjd)}
    tables["probability"] = solar_system_probability_rows(objects)
    run.write(tables, rng)


def _ztf_only(run: _Run, rng: np.random.Generator, n: int) -> None:
    spec = ztf_only_spec(rng, n)
    attach_sources(rng, spec)
    tables = _ztf(run, rng, spec)
    run.write({**tables, "allwise": allwise_rows(rng, spec), "gaiadr3_source": gaia_rows(rng, spec)}, rng)


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def build(
    conn: psycopg.Connection, *, scale: str = "default", seed: int = 0, schema: str = SCHEMA, ground: Sequence[str] = ()
) -> dict[str, int]:
    """Fill `schema` (its tables must exist, e.g. from the multisurvey catalog's DDL) and commit.

    Args:
        conn: psycopg 3 connection with rights to write the schema's tables.
        scale: 'tiny' or 'default' (see scales.py).
        seed: random seed; the same (scale, seed, ground) always gives the same rows.
        schema: the PostgreSQL schema holding the catalog's tables.
        ground: gold queries whose answers (and near misses) are added on top of the random population (see
            ``grounding.ground_queries``); the summary is logged in one line, each grounded query still without
            rows in one warning line.

    Returns:
        Rows per table.
    """
    size = get_scale(scale)
    started = time.monotonic()
    indexes = prepare(conn, schema)
    run = _Run(TableWriter(conn, schema, decimals=None), seed, size)
    for name, frame in lookup_frames().items():
        run.writer.write(name, frame)
    for k, n in enumerate(_chunks(size.n_dia, size.chunk_objects)):
        _dia(run, np.random.default_rng([seed, 1, k]), n)
    for k, n in enumerate(_chunks(size.n_ss, _SS_CHUNK)):
        _solar_system(run, np.random.default_rng([seed, 2, k]), n)
    for k, n in enumerate(_chunks(size.n_ztf, size.chunk_objects)):
        _ztf_only(run, np.random.default_rng([seed, 3, k]), n)
    report = ground_queries(conn, list(ground), seed=seed, schema=schema, writer=run.writer) if ground else None
    create_indexes(conn, indexes)
    if report is not None:
        check_answers(conn, report)
    conn.execute("SET session_replication_role = origin")
    conn.commit()
    analyze(conn)
    log.info("built multisurvey scale %s (seed %d) in %.1f s", scale, seed, time.monotonic() - started)
    return row_counts(conn, schema)
