"""What the engine needs from one catalog's generator: a ``Recipe`` (each ``replica.<catalog>.recipe`` defines one).

The engine's build loop (``replica.engine.build``) is the same for every catalog; the schema, the tables and their
load order come from the catalog.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from catalog import load_catalog
from replica.engine.grounding.profile import Profile
from replica.engine.loader import Loader

__all__ = ["Recipe", "fixed_frames"]

Tables = dict[str, pd.DataFrame]


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """One catalog's generator as the engine runs it.

    Attributes:
        profile: The catalog as the grounding engine sees it (its ``catalog`` names the catalog file).
        scales: Scale name -> the recipe's size knobs, smallest first.
        fixed_rows: Rows of fixed content the recipe makes (bookkeeping), by table, besides the catalog's ``rows``.
        populate: Writes the random population: (loader, seed, scale, object ids the gold queries name).
        grounded_tables: The rows of grounded entities: (entities, random generator, scale) -> rows by table.
        drawn: Table -> column -> SQL expression the database draws it from (``Loader``).
        decimals: Decimal places floats are written with (None: as given, real columns in float4 precision).
        null_columns: The ``table.column`` names the recipe leaves NULL in every row (tests/replica/test_columns.py
            checks that every other column of the catalog is generated).
    """

    profile: Profile
    scales: Mapping[str, Any]
    populate: Callable[[Loader, int, Any, set], None]
    grounded_tables: Callable[[list, np.random.Generator, Any], Tables]
    drawn: Mapping[str, Mapping[str, str]]
    decimals: int | None
    fixed_rows: Callable[[], Tables] = dict
    null_columns: frozenset[str] = frozenset()

    @property
    def catalog(self) -> str:
        """The catalog's name (``catalog.load_catalog``)."""
        return self.profile.catalog

    def scale(self, name: str) -> Any:
        """Return the scale called ``name``.

        Raises:
            ValueError: for an unknown name (the message lists the valid ones).
        """
        try:
            return self.scales[name]
        except KeyError:
            raise ValueError(f"Unknown scale {name!r}; use one of {', '.join(self.scales)}.") from None


def fixed_frames(catalog: str) -> Tables:
    """The catalog file's rows of fixed content (``Catalog.rows``) as frames, by table."""
    return {table: pd.DataFrame(list(rows)) for table, rows in load_catalog(catalog).rows.items()}
