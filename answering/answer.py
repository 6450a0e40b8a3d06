"""What one question gave: the SQL, its rows as a DataFrame and an astropy Table, sky and light-curve plots."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answering.astro_table import astropy_table
from answering.columns import ColumnInfo, result_columns, source_columns
from answering.errors import AnsweringError
from answering.lightcurve import object_figure
from answering.samp import send_table
from answering.sky import COORDINATE_PAIRS, coordinate_columns, plot_sky
from answering.sky_view import SkyView, sky_view_of
from answering.votable import write_votable
from defaults.catalog import DEFAULT_CATALOG

if TYPE_CHECKING:
    import astropy.table
    import pandas as pd
    from matplotlib.figure import Figure

    from engines import Engine, Result
    from engines.targets import TargetList

__all__ = ["Answer"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Answer:
    """What one question gave.

    Attributes:
        question: The question as asked (cleaned).
        sql: The final SQL ("" when the model gave none).
        catalog: The catalog the SQL was written for (a follow-up must stay on it; units, descriptions, light curves).
        frame: The rows of the final SQL, or None when it could not answer.
        truncated: True when the query had more rows than the executor keeps (``max_rows``).
        error: Why it could not answer, one line; None when it answered.
        error_kind: ``engines.errors.ErrorKind`` value of the final execution error, or "no_sql"; None when answered.
        as_of: The date stage's reference date ("YYYY-MM-DD"), or None (the stage is off).
        dates: One {"text", "start_mjd", "end_mjd", "kind"} per date expression of the question, the MJD range
            ``start_mjd <= mjd < end_mjd`` the stages saw (None: open on that side; equal ends: an instant).
        explanation: What the final SQL returns in plain words: {"summary", "conditions", "ordering",
            "assumptions"}; None when the explanation stage is off, failed, or the SQL did not run.
        alternatives: When the candidates disagreed, one {"sql", "rows", "difference", "candidates"} per runner-up
            interpretation (``difference``: one line on how its SQL differs from ``sql``); else [].
        follows: The earlier question this one followed up in a conversation (None for a question of its own).
        difficulty: "simple", "medium" or "advanced", or None (classification off or failed).
        plan: Decomposition steps ([] when not planned).
        attempts: One {"sql", "error_kind", "message"} per execution.
        failures: One {"stage", "kind", "message"} per stage whose LM output was unusable.
        usage: {stage: {"input_tokens", "output_tokens", "calls"}} of LM calls that were not cache hits.
        candidates: One {"path", "sql", "error_kind", "rows"} per SQL candidate written ([] for the direct baseline).
        selection: How the vote (and the pairwise selector) picked the candidate: {"selected", "clusters",
            "reasons"}; None when there was nothing to choose from.
        findings: One {"stage", "kind", "message", ...} per value-check or result-check finding.
        seconds: Wall time of the whole answer.
        adql: The ADQL the TAP engine sent for the final SQL ("" on PostgreSQL or when nothing ran).
        service_table: The astropy Table the TAP service returned, or None (``table`` builds on it).
        engine: The engine that ran the SQL; ``plot_lightcurve`` queries it (None: no light curves).
        notice: One line saying that a small demo model wrote the SQL and how to use a real one (None for other
            models).
        targets: The target list the question or SQL was about (the table ``mylist``), None without one; a
            follow-up question keeps it.
    """

    question: str
    sql: str
    frame: pd.DataFrame | None
    truncated: bool = False
    error: str | None = None
    error_kind: str | None = None
    catalog: str = DEFAULT_CATALOG
    as_of: str | None = None
    dates: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    explanation: dict[str, Any] | None = None
    alternatives: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    follows: str | None = None
    difficulty: str | None = None
    plan: list[str] = dataclasses.field(default_factory=list)
    attempts: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    failures: list[dict[str, str]] = dataclasses.field(default_factory=list)
    usage: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    candidates: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    selection: dict[str, Any] | None = None
    findings: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    adql: str = ""
    service_table: Any = None
    engine: Engine | None = dataclasses.field(default=None, repr=False, compare=False)
    notice: str | None = None
    targets: TargetList | None = None

    @classmethod
    def of_result(cls, result: Result, **fields: Any) -> Answer:
        """Return the answer holding `result`'s rows (from TAP, its ADQL and table too) and the other `fields`."""
        rows = dict(frame=result.frame, truncated=result.truncated, adql=result.adql, service_table=result.table)
        return cls(**(rows | fields))

    @property
    def is_answered(self) -> bool:
        """Tell whether the final SQL ran (even with no rows)."""
        return self.frame is not None

    @functools.cached_property
    def columns(self) -> list[ColumnInfo]:
        """Each result column's name, datatype, unit, UCD and description (None on computed columns).

        Raises:
            AnsweringError: The question was not answered (no rows).
        """
        labels = [str(label) for label in self._answered_frame().columns]
        return result_columns(self.sql, labels, catalog=self.catalog)

    @functools.cached_property
    def table(self) -> astropy.table.Table:
        """The rows as an astropy Table with the catalog's units and descriptions (NULLs masked).

        Raises:
            AnsweringError: The question was not answered (no rows).
        """
        return astropy_table(self._answered_frame(), self.sql, self.service_table, catalog=self.catalog)

    def to_votable(self, path: str | Path) -> Path:
        """Write ``table`` as a VOTable file (replacing it) and return its path."""
        path = Path(path)
        write_votable(self.table, path)
        return path

    def send(self, recipient: str | None = None, *, name: str | None = None) -> list[str]:
        """Send ``table`` over SAMP to TOPCAT, Aladin or another running client (``answering.samp.send_table``);
        return the names of the clients it went to.

        Raises:
            AnsweringError: No rows, no SAMP hub, or no client (called `recipient`) that loads tables.
        """
        label = name or (self.question or "ALeRCE result")[:80]
        return send_table(self.table, name=label, recipient=recipient)

    def plot_sky(self, *, projection: str = "aitoff") -> Figure:
        """Plot the result's positions on the sky (``aitoff`` or ``mollweide``).

        Raises:
            AnsweringError: No rows, or no RA/Dec columns (``answering.sky.COORDINATE_PAIRS``) among them.
        """
        figure = plot_sky(self._sourced_frame(), projection=projection)
        if figure is None:
            names = ", ".join("/".join(pair) for pair in COORDINATE_PAIRS)
            raise AnsweringError(f"the result has no coordinates; select {names} to plot it on the sky")
        return figure

    def sky(self) -> SkyView:
        """The result's positions (labelled by their oid) and the cones its SQL searches, centred and zoomed to hold
        them all: the workbench's sky view; in a notebook it shows as an interactive chart.

        Raises:
            AnsweringError: No rows, or neither RA/Dec columns nor a cone search.
        """
        frame = self._sourced_frame()
        found = coordinate_columns(frame)
        labels = [str(label).lower() for label in frame.columns]
        oids = frame.iloc[:, labels.index("oid")] if "oid" in labels else None
        ra, dec = (frame.iloc[:, found[0]], frame.iloc[:, found[1]]) if found else ([], [])
        view = sky_view_of(ra, dec, oids if found else None, sql=self.sql, title=(self.question or "")[:80])
        if not view.total and not view.cones:
            names = ", ".join("/".join(pair) for pair in COORDINATE_PAIRS)
            raise AnsweringError(f"the result has no coordinates and no cone; select {names} to see it on the sky")
        return view

    @property
    def has_coordinates(self) -> bool:
        """Tell whether the rows hold an RA/Dec pair that ``plot_sky`` can draw."""
        return self.frame is not None and coordinate_columns(self._sourced_frame()) is not None

    def _sourced_frame(self) -> pd.DataFrame:
        """The rows with each column named after its catalog source, so an aliased position still plots."""
        frame = self._answered_frame()
        labels = [str(label) for label in frame.columns]
        sources = [
            column.name if column else label
            for column, label in zip(source_columns(self.sql, labels, catalog=self.catalog), labels, strict=True)
        ]
        return frame.set_axis(sources, axis=1)

    def plot_lightcurve(self, oid: str | int, *, sid: int | None = None, unit: str = "flux") -> Figure:
        """Query and plot the light curve of `oid` on the answer's engine.

        ztf: magpsf per band with non-detection limits. multisurvey: the object (oid, sid; sid found when omitted)
        in flux (nJy) or AB magnitude (``unit="mag"``) per band u g r i z y with forced photometry, and for a
        solar-system object (sid 2) its track on the sky over time.

        Raises:
            AnsweringError: No engine, ``oid`` is not an object id, or ``sid``/``unit`` do not apply.
            engines.errors.ExecutionError: A light-curve query failed.
        """
        if self.engine is None:
            raise AnsweringError("this answer has no engine to query light curves on; ask through answering.load")
        return object_figure(self.engine, oid, sid=sid, unit=unit)

    def _answered_frame(self) -> pd.DataFrame:
        if self.frame is None:
            raise AnsweringError(f"there are no rows: {self.error}")
        return self.frame
