"""Write a generator's rows table by table, in the catalog's order (parents before the tables that refer to them)."""

from collections.abc import Mapping

import numpy as np
import pandas as pd

from replica.engine.writer import TableWriter

__all__ = ["Loader"]


class Loader:
    """Writes rows by table through a ``TableWriter``, in the catalog's table order.

    Columns of ``drawn`` tables are drawn by the database (``TableWriter.write_generated``) from a seed the
    generator's random stream gives once per write.
    """

    def __init__(self, writer: TableWriter, order: list[str], drawn: Mapping[str, Mapping[str, str]]) -> None:
        self.writer, self.order, self.drawn = writer, order, drawn

    def write(self, tables: Mapping[str, pd.DataFrame], rng: np.random.Generator | None = None) -> None:
        """Write the rows of random objects; a drawn table's seed is ``rng``'s next uniform draw in [-1, 1).

        Raises:
            ValueError: a table is not in the catalog.
        """
        seed = None
        for name in self._ordered(tables):
            if name in self.drawn:
                seed = float(rng.uniform(-1.0, 1.0)) if seed is None else seed
                self.writer.write_generated(name, tables[name], self.drawn[name], seed)
            else:
                self.writer.write(name, tables[name])

    def write_grounded(self, tables: Mapping[str, pd.DataFrame]) -> None:
        """Write grounded rows: a drawn column the grounding set keeps its value, the database draws the others."""
        for name in self._ordered(tables):
            frame = tables[name]
            if frame.empty:
                continue
            if name in self.drawn:
                drawn = {c: f'coalesce("{c}", {e})' if c in frame.columns else e for c, e in self.drawn[name].items()}
                self.writer.write_generated(name, frame, drawn, 0.0)
            else:
                self.writer.write(name, frame)

    def _ordered(self, tables: Mapping[str, pd.DataFrame]) -> list[str]:
        unknown = sorted(set(tables) - set(self.order))
        if unknown:
            raise ValueError(f"the catalog has no table {', '.join(unknown)}")
        return [name for name in self.order if tables.get(name) is not None]
