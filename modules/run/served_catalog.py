"""The part of the catalog an engine serves: stages never offer the model a table the service lacks.

A target list uploaded in the context (``engines.targets``) joins it as one more table (`with_targets`, at each
question), so schema linking and the stages after it see its columns.
"""

from dataclasses import replace

from catalog import Catalog, load_catalog
from catalog.model import Column, Table
from defaults.catalog import DEFAULT_CATALOG
from engines import Engine
from engines.targets import TargetList, current_targets

__all__ = ["served_catalog", "target_table", "with_targets"]


def served_catalog(engine: Engine | None, catalog: Catalog | None = None) -> Catalog:
    """Return `catalog` (default: the engine's) restricted to the tables `engine` serves.

    That is all of them, unless `tables()` names fewer. Without an engine (generation only) the whole catalog
    (default: ztf) is served.
    """
    catalog = catalog or load_catalog(engine.catalog if engine is not None else DEFAULT_CATALOG)
    served = engine.tables() if engine is not None else None
    return catalog if served is None else catalog.only(served)


def with_targets(catalog: Catalog) -> Catalog:
    """Return `catalog` with the target list uploaded in this context as one more table (as it is without one)."""
    targets = current_targets()
    if targets is None or catalog.table(targets.name) is not None:
        return catalog
    return replace(catalog, tables=[*catalog.tables, target_table(targets)])


def target_table(targets: TargetList) -> Table:
    """The target list as a catalog table: its columns, with degrees and position UCDs on RA and Dec."""
    columns = []
    for name, kind in zip(targets.columns, targets.types, strict=True):
        unit, ucd, description = None, None, f"column {name} of the uploaded list"
        if name == targets.ra:
            unit, ucd, description = "deg", "pos.eq.ra", "right ascension of the target, deg J2000"
        elif name == targets.dec:
            unit, ucd, description = "deg", "pos.eq.dec", "declination of the target, deg J2000"
        elif name == targets.objectid:
            ucd, description = "meta.id", "object id of the target (compare with object.oid)"
        columns.append(Column(name, kind, kind, True, description, unit=unit, ucd=ucd))
    return Table(name=targets.name, description=targets.describe(), columns=columns, primary_key=[])
