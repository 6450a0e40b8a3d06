"""Every catalog column has a UCD1+ of the IVOA vocabulary, derived by the rules of ``catalog.ucd``."""

import pytest
from astropy.io.votable.ucd import parse_ucd

from catalog import CATALOG_NAMES, load_catalog


def _columns(name):
    return [(table, column) for table in load_catalog(name).tables for column in table.columns]


@pytest.mark.parametrize("name", CATALOG_NAMES)
def test_every_column_has_a_ucd_of_the_controlled_vocabulary(name):
    bad = []
    for table, column in _columns(name):
        try:
            parse_ucd(column.ucd, check_controlled_vocabulary=True)
        except (TypeError, ValueError) as error:
            bad.append(f"{table.name}.{column.name}: {column.ucd!r} ({error})")
    assert not bad, bad


@pytest.mark.parametrize(
    ("catalog", "table", "column", "ucd"),
    [
        ("ztf", "object", "meanra", "pos.eq.ra;meta.main"),
        ("ztf", "object", "meandec", "pos.eq.dec;meta.main"),
        ("ztf", "object", "firstmjd", "time.epoch"),
        ("ztf", "object", "oid", "meta.id;meta.main"),
        ("ztf", "object", "sigmara", "stat.stdev;pos.eq.ra"),
        ("ztf", "detection", "magpsf", "phot.mag"),
        ("ztf", "detection", "sigmapsf", "stat.error;phot.mag"),
        ("ztf", "detection", "fid", "meta.id;instr.filter"),
        ("ztf", "allwise", "w1mpro", "phot.mag;em.IR.3-4um"),
        ("ztf", "allwise", "k_msig_2mass", "stat.error;phot.mag;em.IR.K"),
        ("ztf", "ps1_ztf", "srmag1", "phot.mag;em.opt.R"),
        ("ztf", "xmatch", "dist", "pos.angDistance"),
        ("ztf", "probability", "probability", "stat.probability"),
        ("ztf", "lc_classifier", "probability", "stat.probability"),
        ("multisurvey", "lsst_dia_object", "g_psffluxmean", "phot.flux.density;em.opt.B"),
        ("multisurvey", "lsst_dia_object", "g_psffluxmeanerr", "stat.error;phot.flux.density;em.opt.B"),
        ("multisurvey", "lsst_detection", "raerr", "stat.error;pos.eq.ra"),
        ("multisurvey", "gaiadr3_source", "pmra", "pos.pm;pos.eq.ra"),
        ("multisurvey", "gaiadr3_source", "ruwe", "stat.fit.residual"),
        ("multisurvey", "lsst_mpc_orbits", "e_unc", "stat.error;src.orbital.eccentricity"),
        ("multisurvey", "object", "lastmjd", "time.epoch"),
    ],
)
def test_rules_give_the_expected_ucd(catalog, table, column, ucd):
    assert load_catalog(catalog).table(table).column(column).ucd == ucd


def test_every_mjd_column_in_days_is_a_time_epoch():
    for name in CATALOG_NAMES:
        for table, column in _columns(name):
            if "mjd" in column.name and column.unit == "d" and not column.name.startswith("delta"):
                assert column.ucd == "time.epoch", f"{table.name}.{column.name}"


def test_every_magnitude_and_flux_is_photometry():
    for name in CATALOG_NAMES:
        for table, column in _columns(name):
            if column.unit in {"mag", "nJy"}:
                assert "phot." in column.ucd or "phys.magAbs" in column.ucd, f"{table.name}.{column.name}"
