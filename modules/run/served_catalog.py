"""The part of the catalog an engine serves: stages never offer the model a table the service lacks."""

from catalog import Catalog, load_catalog
from defaults.catalog import DEFAULT_CATALOG
from engines import Engine

__all__ = ["served_catalog"]


def served_catalog(engine: Engine | None, catalog: Catalog | None = None) -> Catalog:
    """Return `catalog` (default: the engine's) restricted to the tables `engine` serves.

    That is all of them, unless `tables()` names fewer. Without an engine (generation only) the whole catalog
    (default: ztf) is served.
    """
    catalog = catalog or load_catalog(engine.catalog if engine is not None else DEFAULT_CATALOG)
    served = engine.tables() if engine is not None else None
    return catalog if served is None else catalog.only(served)
