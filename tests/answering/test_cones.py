"""Cones read from SQL and ADQL: q3c_radial_query and CIRCLE with constant centre and radius, wherever they stand."""

import pytest

from answering.cones import Cone, cones_of

Q = "SELECT oid FROM object WHERE "


@pytest.mark.parametrize(
    ("sql", "cones"),
    [
        (Q + "q3c_radial_query(meanra, meandec, 10.5, -20.25, 0.1)", [Cone(10.5, -20.25, 0.1)]),
        (Q + "q3c_radial_query(10.5, -20.25, meanra, meandec, 0.1)", [Cone(10.5, -20.25, 0.1)]),
        (Q + "q3c_radial_query(meanra, meandec, -10, 5, (2.0 / 60))", [Cone(350.0, 5.0, 2 / 60)]),
        ("SELECT * FROM (" + Q + "q3c_radial_query(meanra, meandec, 1, 2, 3)) AS s "
         "UNION " + Q + "q3c_radial_query(meanra, meandec, 4, 5, 6)", [Cone(4, 5, 6), Cone(1, 2, 3)]),
        ("SELECT TOP 3 oid FROM ztf.object WHERE 1 = CONTAINS(POINT(meanra, meandec), CIRCLE(150, 2, 30 / 3600.))",
         [Cone(150.0, 2.0, 30 / 3600)]),
        (Q + "q3c_radial_query(meanra, meandec, 150, 2, 0)", []),  # no radius
        (Q + "q3c_radial_query(meanra, meandec, 150, 95, 1)", []),  # no such declination
        (Q + "q3c_radial_query(meanra, meandec, ra0, dec0, 1)", []),  # columns, not numbers
        (Q + "q3c_radial_query(meanra, meandec, 150, 2, 1 / 0)", []),
        (Q + "meanra > 10", []),
        ("SELEC oid FROM", []),
        ("SELECT " + "(" * 2000 + "1" + ")" * 2000, []),  # too deep to read: no cone, no error
    ],
    ids=["q3c", "centre-first", "negative-ra-arcmin", "two-cones", "adql-circle", "zero-radius", "bad-dec",
         "column-centre", "division-by-zero", "no-cone", "unreadable", "too-deep"],
)  # fmt: skip
def test_cones_of(sql, cones):
    assert cones_of(sql) == cones
