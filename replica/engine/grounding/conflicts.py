"""Grounded rows take the place of the base rows that hold their keys, so that writing them breaks no key.

The builder keeps the base population clear of grounded keys (it never draws an oid a query names, and grounded
names and candids have ranges of their own), so in a fresh build only a chance AllWISE designation is replaced;
grounding onto any other database relies on this step.
"""

from __future__ import annotations

import logging

import pandas as pd
import psycopg

from replica.engine.grounding.constraints import primary_key
from replica.engine.grounding.profile import Profile
from replica.engine.grounding.thinning import delete_objects

__all__ = ["clear_base_rows"]

logger = logging.getLogger(__name__)


def clear_base_rows(conn: psycopg.Connection, tables: dict[str, pd.DataFrame], profile: Profile) -> None:
    """Delete what the database holds under the keys of the grounded rows about to be written.

    A base object named like a grounded object is deleted whole; in a table keyed by one column other than oid
    (AllWISE sources), the base row with a grounded key is deleted.

    Args:
        conn: Connection of the builder (search_path on the catalog's schema), inside the build transaction.
        tables: The grounded rows per table.
        profile: The catalog's grounding profile.
    """
    schema = profile.schema
    oids = tables["object"]["oid"].tolist() if "object" in tables else []
    taken = [row[0] for row in conn.execute(f"SELECT oid FROM {schema}.object WHERE oid = ANY(%s)", (oids,))]
    if taken:
        logger.info("%d base objects replaced by grounded objects of the same oid", len(taken))
        delete_objects(conn, sorted(taken), profile)
    for name, frame in tables.items():
        key = primary_key(name, profile.catalog)
        if len(key) == 1 and key != ("oid",) and not frame.empty:
            conn.execute(f"DELETE FROM {schema}.{name} WHERE {key[0]} = ANY(%s)", (frame[key[0]].tolist(),))
