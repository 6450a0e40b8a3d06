"""The multi-survey catalog's recipe for the replica engine: lookups, diaObjects, solar-system and ZTF objects."""

import numpy as np
import pandas as pd

from replica.engine.loader import Loader
from replica.engine.recipe import Recipe
from replica.multisurvey.crossmatch import attach_sources, source_rows
from replica.multisurvey.dia_objects import dia_tables
from replica.multisurvey.dia_sources import observe
from replica.multisurvey.grounding import MULTISURVEY_PROFILE, grounded_tables
from replica.multisurvey.lsst_tables import DETECTION_SQL
from replica.multisurvey.population import random_spec
from replica.multisurvey.scales import SCALES, Scale
from replica.multisurvey.ss_objects import ss_observations
from replica.multisurvey.ss_tables import ss_tables
from replica.multisurvey.ztf import ZtfNamer, counterpart_spec, ztf_only_spec, ztf_tables

__all__ = ["RECIPE"]

_SS_CHUNK = 1000


class _Run:
    """What the chunks share: the loader, the next LSST id counter and ZTF candid index, names taken."""

    def __init__(self, loader: Loader, seed: int, scale: Scale) -> None:
        self.loader, self.scale = loader, scale
        self.lsst_counter = int(np.random.default_rng([seed, 0]).integers(10**6, 10**9))
        self.ztf_index = 0
        self.namer = ZtfNamer(np.random.default_rng([seed, 9]))
        self.designations: set[str] = set()


def _ztf(run: _Run, rng: np.random.Generator, spec: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """ZTF rows of the objects of `spec` (sources already attached), their cross-matches included."""
    tables, _, used = ztf_tables(rng, spec, run.namer, run.ztf_index, run.scale.max_forced_rows)
    run.ztf_index += used
    return tables


def _dia(run: _Run, rng: np.random.Generator, n: int) -> None:
    """Draw ``n`` candidate diaObjects; those detected at least once are written, with their ZTF counterparts."""
    spec, visits = observe(rng, random_spec(rng, n), run.scale.max_forced_rows)
    tables, spec, used = dia_tables(rng, spec, visits, run.lsst_counter)
    run.lsst_counter += used
    run.loader.write(tables, rng)
    run.loader.write(_ztf(run, rng, counterpart_spec(rng, spec)), rng)


def _solar_system(run: _Run, rng: np.random.Generator, n: int) -> None:
    orbits, det = ss_observations(rng, n, run.lsst_counter, run.designations)
    run.lsst_counter += len(det)
    run.loader.write(ss_tables(rng, orbits, det), rng)


def _ztf_only(run: _Run, rng: np.random.Generator, n: int) -> None:
    spec = ztf_only_spec(rng, n)
    attach_sources(rng, spec)
    tables = _ztf(run, rng, spec)
    run.loader.write(tables | source_rows(rng, spec), rng)


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def _populate(loader: Loader, seed: int, scale: Scale, reserved: set) -> None:
    """LSST diaObjects with their ZTF counterparts, then solar-system objects, then objects ZTF alone saw.

    The population does not avoid the ids gold queries name: grounded objects take ids of a range of their own.
    """
    run = _Run(loader, seed, scale)
    for k, n in enumerate(_chunks(scale.n_dia, scale.chunk_objects)):
        _dia(run, np.random.default_rng([seed, 1, k]), n)
    for k, n in enumerate(_chunks(scale.n_ss, _SS_CHUNK)):
        _solar_system(run, np.random.default_rng([seed, 2, k]), n)
    for k, n in enumerate(_chunks(scale.n_ztf, scale.chunk_objects)):
        _ztf_only(run, np.random.default_rng([seed, 3, k]), n)


RECIPE = Recipe(
    profile=MULTISURVEY_PROFILE,
    scales=SCALES,
    populate=_populate,
    grounded_tables=lambda entities, rng, scale: grounded_tables(entities, rng),
    drawn={"lsst_detection": DETECTION_SQL},
    decimals=None,
    # not modelled: Gaia's radial velocities, withdrawn epochs, the non-gravitational terms of orbits
    null_columns=frozenset(
        {
            "gaiadr3_source.radial_velocity",
            "gaiadr3_source.radial_velocity_error",
            "gaiadr3_source.rv_method_used",
            "lsst_detection.timewithdrawnmjdtai",
            "lsst_forced_photometry.timewithdrawnmjdtai",
            *(
                f"lsst_mpc_orbits.{term}{suffix}"
                for term in ("a1", "a2", "a3", "dt", "srp", "yarkovsky")
                for suffix in ("", "_unc")
            ),
        }
    ),
)
