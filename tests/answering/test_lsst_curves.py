"""The astronomer's view of the multi-survey catalog: LSST light curves, solar-system tracks, units, VOTables."""

import matplotlib
import pandas as pd
import pytest
from astropy.table import Table

from answering import load
from answering.errors import AnsweringError
from answering.lsst_curves import BAND_COLOURS, ab_magnitude, fetch_flux_curve
from engines import EngineSettings
from engines.postgres import PostgresEngine, PostgresSettings
from modules.settings import ProgramSettings
from tests.answering.scripts import scripted_lm

matplotlib.use("Agg")

# The LSST object with the most detections that also has forced photometry, and the solar-system object with most.
BUSIEST_SQL = (
    "SELECT o.oid, o.sid, o.meanra, o.meandec FROM object o WHERE o.sid = {sid} AND o.n_det > 2 "
    "AND ({sid} = 2 OR o.n_forced > 0) ORDER BY o.n_det DESC, o.oid LIMIT 1"
)


@pytest.fixture(scope="module")
def engine(multisurvey_dsn):
    with PostgresEngine(PostgresSettings(dsn=multisurvey_dsn, catalog="multisurvey", timeout_s=30)) as opened:
        yield opened


def _ask(multisurvey_dsn, sql):
    engine = EngineSettings(dsn=multisurvey_dsn, catalog="multisurvey")
    t2s = load("fake/scripted", program=ProgramSettings(uncompiled=True), engine=engine, lm=scripted_lm(sql))
    with t2s:
        return t2s.ask("The busiest object")


def test_an_lsst_curve_has_named_bands_fluxes_and_forced_photometry(engine):
    oid = engine.execute(BUSIEST_SQL.format(sid=1)).frame.iloc[0, 0]
    curve = fetch_flux_curve(engine, oid)
    assert (curve.oid, curve.sid) == (oid, 1)
    assert len(curve.detections) > 2 and len(curve.forced) > 0
    assert set(curve.detections["band_name"]) <= set(BAND_COLOURS)
    assert list(curve.detections.columns) == ["mjd", "band_name", "psfflux", "psffluxerr", "ra", "dec"]


@pytest.mark.parametrize("unit", ["flux", "mag"])
def test_answer_plots_an_lsst_light_curve_per_band(multisurvey_dsn, engine, unit):
    answer = _ask(multisurvey_dsn, BUSIEST_SQL.format(sid=1))
    assert answer.catalog == "multisurvey"
    oid = answer.frame["oid"][0]
    figure = answer.plot_lightcurve(oid, unit=unit)
    (axes,) = figure.axes
    curve = fetch_flux_curve(engine, oid, 1)
    labels = axes.get_legend_handles_labels()[1]
    assert set(labels) == {*curve.detections["band_name"], *(f"{band} forced" for band in curve.forced["band_name"])}
    assert bool(axes.yaxis_inverted()) is (unit == "mag")
    assert axes.get_ylabel().startswith("AB magnitude" if unit == "mag" else "difference flux psfFlux (nJy)")


def test_a_solar_system_object_gets_its_track_on_the_sky(multisurvey_dsn):
    answer = _ask(multisurvey_dsn, BUSIEST_SQL.format(sid=2))
    figure = answer.plot_lightcurve(answer.frame["oid"][0])
    track, light, colorbar = figure.axes
    assert track.get_title() == "track on the sky" and bool(track.xaxis_inverted())
    assert colorbar.get_ylabel() == "MJD" and light.get_title().endswith("(LSST ssObject)")


def test_multisurvey_answers_carry_the_catalogs_units_into_votables(multisurvey_dsn, tmp_path):
    sql = (
        "SELECT d.oid, d.sid, d.mjd, l.psfflux, l.psffluxerr, d.ra, d.dec FROM detection d JOIN lsst_detection l "
        "ON l.oid = d.oid AND l.sid = d.sid AND l.measurement_id = d.measurement_id WHERE d.sid = 1 LIMIT 3"
    )
    answer = _ask(multisurvey_dsn, sql)
    table = Table.read(answer.to_votable(tmp_path / "lsst.xml"), format="votable")
    assert [str(table[name].unit) for name in ("mjd", "psfflux", "psffluxerr", "ra")] == ["d", "nJy", "nJy", "deg"]
    assert answer.has_coordinates


def test_ab_magnitude_follows_the_lsst_zero_point():
    mag, err = ab_magnitude(pd.Series([1.0, 10**4]), pd.Series([0.1, 100.0]))
    assert mag.tolist() == pytest.approx([31.4, 21.4]) and err.tolist() == pytest.approx([0.10857, 0.010857], 1e-4)


@pytest.mark.parametrize(
    ("oid", "message"),
    [
        ("ZTF20aaelulu", "'ZTF20aaelulu' is not an object id; multi-survey oids are integers"),
        ("1; DROP TABLE object", "'1; DROP TABLE object' is not an object id; multi-survey oids are integers"),
        (42, "object 42 is in no survey; give its sid (0 ZTF, 1 LSST, 2 solar system)"),
    ],
)
def test_a_bad_object_id_is_one_line(engine, oid, message):
    with pytest.raises(AnsweringError) as caught:
        fetch_flux_curve(engine, oid)
    assert str(caught.value) == message
