"""Interactive plots in notebooks: an object's light curve and a sky view carry Plotly's own notebook output (its JSON,
and its HTML in a notebook kernel) and a PNG for front ends without a browser."""

import numpy as np
import pandas as pd
import plotly.io as pio
import pytest

from answering import Answer
from answering.objects import POINT_COLUMNS, ObjectView
from answering.sky_view import sky_view_of

PNG_MAGIC = b"\x89PNG"
PLOTLY_JSON = "application/vnd.plotly.v1+json"


def lsst_view() -> ObjectView:
    """An LSST object with two detections in g, one forced point of negative flux in r and one non-detection."""
    points = pd.DataFrame(
        [
            (61000.0, "g", "detection", 21.0, 0.1, np.nan, 1445.4, 133.1),
            (61000.5, "g", "detection", 20.5, 0.1, np.nan, 2290.9, 211.0),
            (61001.2, "r", "forced", np.nan, np.nan, 23.4, -150.0, 50.0),
            (61002.0, "r", "non-detection", np.nan, np.nan, 22.0, 57.5, np.nan),
        ],
        columns=list(POINT_COLUMNS),
    )
    empty = pd.DataFrame()
    return ObjectView(
        catalog="multisurvey", oid="42", sid=1, name="", ra=150.0, dec=2.0, first_mjd=61000.0, last_mjd=61002.0,
        n_det=2, points=points, probabilities=empty, features=empty, crossmatches=[], orbit=None,
        track=pd.DataFrame(columns=["mjd", "ra", "dec"]), period=None, links={}, notes=[],
    )  # fmt: skip


def traces(plot) -> dict:
    return {trace.name: trace for trace in plot.figure.data}


def test_the_light_curve_in_flux_keeps_negative_fluxes_and_shows_as_plotly_and_png():
    plot = lsst_view().light_curve(unit="flux")
    assert list(traces(plot)["r forced"].y) == [-150.0]
    bundle = plot._repr_mimebundle_()
    assert bundle["image/png"].startswith(PNG_MAGIC)
    shown = bundle[PLOTLY_JSON]
    assert [trace["name"] for trace in shown["data"]] == ["g detection", "r forced", "r limit"]
    assert shown["layout"]["yaxis"]["title"]["text"] == "difference flux (nJy)"


def test_the_light_curve_in_magnitude_is_brighter_up_with_limits():
    plot = lsst_view().light_curve()
    shown = traces(plot)
    assert plot.figure.layout.yaxis.autorange == "reversed"
    assert list(shown["g detection"].y) == [21.0, 20.5] and list(shown["g detection"].error_y.array) == [0.1, 0.1]
    assert sorted(shown["r limit"].y) == [22.0, 23.4]  # the non-detection and the negative flux, as limits
    assert "MJD %{customdata:.5f}" in shown["g detection"].hovertemplate


def test_a_folded_light_curve_shows_two_cycles_of_phase():
    plot = lsst_view().light_curve(period=0.75)
    phases = np.concatenate([trace.x for trace in plot.figure.data])
    assert len(phases) == 2 * 4 and phases.min() >= 0 and 1 < phases.max() < 2
    assert plot.figure.layout.xaxis.title.text == "phase (period 0.75 d)"
    with pytest.raises(ValueError, match="unit 'nJy' is neither 'mag' nor 'flux'"):
        lsst_view().light_curve(unit="nJy")


def test_plotlys_renderer_of_the_notebook_chooses_the_output_and_the_png_stays(monkeypatch):
    monkeypatch.setattr(pio.renderers, "default", "json")  # in a kernel: plotly_mimetype+notebook, ipython's
    bundle = lsst_view().light_curve()._repr_mimebundle_()
    assert set(bundle) == {"application/json", "image/png", "text/plain"}
    assert bundle["image/png"].startswith(PNG_MAGIC)


def test_an_answers_sky_shows_its_positions_and_cone_inline():
    sql = "SELECT oid, meanra, meandec FROM object WHERE q3c_radial_query(meanra, meandec, 150.0, 2.0, 0.25)"
    frame = pd.DataFrame({"oid": ["ZTF20a", "ZTF20b"], "meanra": [150.05, 149.9], "meandec": [2.1, 1.95]})
    view = Answer(question="cone", sql=sql, frame=frame).sky()
    assert view.total == 2 and list(view.positions["label"]) == ["ZTF20a", "ZTF20b"]
    bundle = view._repr_mimebundle_()
    assert bundle["image/png"].startswith(PNG_MAGIC)
    data = bundle[PLOTLY_JSON]["data"]
    assert [trace["name"] for trace in data] == ["positions", "cone 900 arcsec"]
    cone = view.plot().figure.data[1]
    assert max(cone.y) == pytest.approx(2.25) and min(cone.y) == pytest.approx(1.75)
    assert bundle[PLOTLY_JSON]["layout"]["xaxis"]["range"][0] > bundle[PLOTLY_JSON]["layout"]["xaxis"]["range"][1]


def test_an_objects_sky_is_its_position():
    view = lsst_view().sky()
    assert (view.ra, view.dec, view.total) == (150.0, 2.0, 1) and view.fov_deg == pytest.approx(2 / 60)


def test_a_sky_view_without_positions_or_cone_is_refused():
    from answering import AnsweringError

    with pytest.raises(AnsweringError, match="the result has no coordinates and no cone"):
        Answer(question="n", sql="SELECT 1 AS n", frame=pd.DataFrame({"n": [1]})).sky()
    assert sky_view_of([], [], sql="SELECT 1").fov_deg == 360.0
