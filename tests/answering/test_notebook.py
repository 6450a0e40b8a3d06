"""Answers in a notebook: astropy tables with catalog units, VOTable files, sky and light-curve figures."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from astropy.table import Table
from matplotlib.collections import PathCollection

from answering import Answer, AnsweringError, load
from answering.lightcurve import fetch_lightcurve, lightcurve_sql
from answering.sky import coordinate_columns
from engines import EngineSettings
from modules.settings import ProgramSettings
from tests.answering.scripts import scripted_lm

POSITIONS_SQL = (
    "SELECT o.oid, o.meanra, o.meandec AS dec_deg, o.ndet, d.magpsf, count(*) AS n "
    "FROM object o JOIN detection d ON d.oid = o.oid GROUP BY o.oid, d.magpsf"
)


def positions_answer(**fields) -> Answer:
    frame = pd.DataFrame(
        {
            "oid": ["ZTF20aaaaaaa", "ZTF21bbbbbbb"],
            "meanra": [10.5, 350.0],
            "dec_deg": [-20.0, 45.0],
            "ndet": [3, None],
            "magpsf": [18.2, 19.1],
            "n": [1, 2],
        }
    )
    return Answer(question="Where?", sql=POSITIONS_SQL, frame=frame, **fields)


def test_table_carries_units_and_descriptions_of_plain_columns():
    table = positions_answer().table
    assert table.colnames == ["oid", "meanra", "dec_deg", "ndet", "magpsf", "n"]
    assert [str(table[name].unit) if table[name].unit else None for name in table.colnames] == [
        None,
        "deg",
        "deg",
        None,
        "mag",
        None,
    ]
    assert table["meanra"].description == "mean RA, deg J2000"
    assert table["ndet"].description == "detections in ALeRCE (rows in detection)"
    assert table["n"].description is None
    assert list(table["ndet"].mask) == [False, True]


def test_repeated_labels_become_unique_columns():
    answer = Answer(
        question="q", sql="SELECT oid, oid FROM object", frame=pd.DataFrame([["a", "a"]], columns=["oid", "oid"])
    )
    assert answer.table.colnames == ["oid", "oid_"]


def test_to_votable_writes_a_file_astropy_reads_back_with_units(tmp_path):
    path = positions_answer().to_votable(tmp_path / "answer.xml")
    table = Table.read(path, format="votable")
    assert list(table["oid"]) == ["ZTF20aaaaaaa", "ZTF21bbbbbbb"]
    assert str(table["magpsf"].unit) == "mag" and str(table["meanra"].unit) == "deg"
    assert np.allclose(table["dec_deg"], [-20.0, 45.0])


def test_an_unanswered_question_has_no_table():
    answer = Answer(question="q", sql="", frame=None, error="could not answer (no_sql): nothing")
    with pytest.raises(AnsweringError, match=r"there are no rows: could not answer \(no_sql\)"):
        answer.table  # noqa: B018


def test_plot_sky_draws_every_position():
    figure = positions_answer().plot_sky(projection="mollweide")
    axes = figure.axes[0]
    assert axes.name == "mollweide"
    offsets = axes.collections[0].get_offsets()
    # RA grows to the left: 10.5 deg sits just left of the centre, 350 deg just right of it.
    assert np.allclose(offsets[:, 0], np.radians([-10.5, 10.0])) and np.allclose(offsets[:, 1], np.radians([-20, 45]))


def test_plot_sky_refuses_rows_without_coordinates():
    answer = Answer(question="q", sql="SELECT 1 AS n", frame=pd.DataFrame({"n": [1]}))
    with pytest.raises(AnsweringError, match="the result has no coordinates; select meanra/meandec, ra/dec"):
        answer.plot_sky()


def test_coordinate_columns_need_numbers():
    assert coordinate_columns(pd.DataFrame({"ra": ["x"], "dec": ["y"]})) is None
    assert coordinate_columns(pd.DataFrame({"RA": [1.0], "Dec": [2.0]})) == (0, 1)


def test_lightcurve_sql_refuses_anything_but_an_identifier():
    with pytest.raises(AnsweringError, match=r"^\"x' OR 1=1 --\" is not an object id"):
        lightcurve_sql("x' OR 1=1 --")


def test_plot_lightcurve_queries_the_answer_engine(tiny_dsn):
    matplotlib.use("Agg")
    sql = "SELECT oid, count(*) AS n FROM detection GROUP BY oid HAVING count(*) > 5 ORDER BY oid LIMIT 1"
    with load(
        "fake/scripted",
        program=ProgramSettings(uncompiled=True),
        engine=EngineSettings(dsn=tiny_dsn),
        lm=scripted_lm(sql),
    ) as t2s:
        answer = t2s.ask("Which object has more than 5 detections?")
        oid = answer.frame["oid"][0]
        curve = fetch_lightcurve(t2s.executor, oid)
        figure = answer.plot_lightcurve(oid)
    axes = figure.axes[0]
    assert axes.yaxis_inverted() and axes.get_title() == oid
    plotted = sum(len(line.get_xdata()) for line in axes.lines)
    arrows = sum(len(c.get_offsets()) for c in axes.collections if isinstance(c, PathCollection))
    assert plotted == len(curve.detections) > 5
    assert arrows == len(curve.non_detections) > 0
    assert set(curve.detections.columns) == {"mjd", "fid", "magpsf", "sigmapsf"}


def test_plot_lightcurve_needs_an_engine():
    with pytest.raises(AnsweringError, match="this answer has no engine"):
        positions_answer().plot_lightcurve("ZTF20aaaaaaa")
