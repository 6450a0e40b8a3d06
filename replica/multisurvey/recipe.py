"""The multi-survey catalog's recipe for the replica engine: lookups, diaObjects, solar-system and ZTF objects."""

import numpy as np

from replica.engine.loader import Loader
from replica.engine.recipe import Recipe
from replica.multisurvey.crossmatch import attach_sources
from replica.multisurvey.dia_objects import dia_tables
from replica.multisurvey.dia_sources import observe
from replica.multisurvey.grounding import MULTISURVEY_PROFILE, grounded_tables
from replica.multisurvey.lsst_tables import DETECTION_SQL
from replica.multisurvey.population import random_spec
from replica.multisurvey.scales import SCALES, Scale
from replica.multisurvey.ss_objects import ss_observations
from replica.multisurvey.ss_tables import ss_tables
from replica.multisurvey.tables import rows_of
from replica.multisurvey.ztf import ZtfNamer, counterpart_spec, ztf_only_spec, ztf_tables

__all__ = ["RECIPE"]

_SS_CHUNK = 1000


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def _populate(loader: Loader, seed: int, scale: Scale, reserved: set) -> None:
    """LSST diaObjects with their ZTF counterparts, then solar-system objects, then objects ZTF alone saw.

    Candidates never detected are dropped. The population does not avoid the ids gold queries name: grounded
    objects take ids of a range of their own.
    """
    counter = int(np.random.default_rng([seed, 0]).integers(10**6, 10**9))  # the next LSST id counter
    namer = ZtfNamer(np.random.default_rng([seed, 9]))
    for k, n in enumerate(_chunks(scale.n_dia, scale.chunk_objects)):
        rng = np.random.default_rng([seed, 1, k])
        spec, visits = observe(rng, random_spec(rng, n), scale.max_forced_rows)
        tables, spec, used = dia_tables(rng, spec, visits, counter)
        counter += used
        loader.write(tables, rng)
        loader.write(ztf_tables(rng, counterpart_spec(rng, spec), namer, scale.max_forced_rows), rng)
    taken: set[str] = set()  # the designations drawn so far
    for k, n in enumerate(_chunks(scale.n_ss, _SS_CHUNK)):
        rng = np.random.default_rng([seed, 2, k])
        orbits, det = ss_observations(rng, n)
        loader.write(ss_tables(rng, orbits, det, counter, taken), rng)
        counter += len(det)
    for k, n in enumerate(_chunks(scale.n_ztf, scale.chunk_objects)):
        rng = np.random.default_rng([seed, 3, k])
        spec = ztf_only_spec(rng, n)
        attach_sources(rng, spec)
        loader.write(ztf_tables(rng, spec, namer, scale.max_forced_rows) | rows_of("sources", rng, spec), rng)


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
