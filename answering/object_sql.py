"""The queries of one object's view, per catalog: plain PostgreSQL that the guard accepts and the TAP engine turns
into ADQL. Ids reach them already checked (a ZTF name, or an integer oid and sid)."""

from __future__ import annotations

__all__ = ["MULTISURVEY_QUERIES", "ZTF_QUERIES", "multisurvey_object_sql", "ztf_object_sql"]

ZTF_QUERIES = {
    "detections": "SELECT mjd, fid, magpsf, sigmapsf, isdiffpos FROM detection WHERE oid = '{oid}' ORDER BY mjd",
    "non_detections": "SELECT mjd, fid, diffmaglim FROM non_detection WHERE oid = '{oid}' ORDER BY mjd",
    "forced": "SELECT mjd, fid, mag, e_mag, isdiffpos FROM forced_photometry WHERE oid = '{oid}' ORDER BY mjd",
    "probabilities": "SELECT classifier_name, classifier_version, class_name, probability, ranking FROM probability "
    "WHERE oid = '{oid}' ORDER BY classifier_name, classifier_version, ranking",
    "features": "SELECT name, fid, \"value\", version FROM feature WHERE oid = '{oid}' ORDER BY name, fid",
    "xmatch": "SELECT x.catid, x.oid_catalog, x.dist, x.class_catalog, x.period, a.ra, a.dec, a.w1mpro, a.w2mpro, "
    "a.w3mpro, a.w4mpro, a.j_m_2mass, a.h_m_2mass, a.k_m_2mass FROM xmatch x "
    "LEFT JOIN allwise a ON a.oid_catalog = x.oid_catalog WHERE x.oid = '{oid}'",
    "ps1": "SELECT candid, objectidps1, distpsnr1, sgscore1, sgmag1, srmag1, simag1, szmag1 FROM ps1_ztf "
    "WHERE oid = '{oid}' ORDER BY candid",
    "gaia": "SELECT neargaia, maggaia, neargaiabright, maggaiabright FROM gaia_ztf WHERE oid = '{oid}'",
    "solar_system": "SELECT ssnamenr, ssdistnr, ssmagnr FROM ss_ztf WHERE oid = '{oid}'",
}
"""What the ztf catalog holds about an object, by part of the view (``{oid}``: a ZTF name)."""

_ZTF_OBJECT = "SELECT oid, meanra, meandec, firstmjd, lastmjd, ndet FROM object WHERE oid = '{oid}'"

_WHERE = "WHERE {alias}oid = {oid} AND {alias}sid = {sid}"
MULTISURVEY_QUERIES = {
    "probabilities": "SELECT c.classifier_name, c.classifier_version, t.class_name, p.probability, p.ranking "
    "FROM probability p JOIN classifier c ON c.classifier_id = p.classifier_id "
    "LEFT JOIN taxonomy t ON t.classifier_id = p.classifier_id AND t.class_id = p.class_id "
    + _WHERE.format(alias="p.", oid="{oid}", sid="{sid}")
    + " ORDER BY c.classifier_name, p.ranking",
    "features": "SELECT n.feature_name AS name, b.band_name, f.band, f.feature_value AS value, v.version_name "
    "AS version FROM feature f LEFT JOIN feature_name_lut n ON n.feature_id = f.feature_id "
    "LEFT JOIN band b ON b.sid = f.sid AND b.band = f.band "
    "LEFT JOIN feature_version_lut v ON v.version_id = f.version "
    + _WHERE.format(alias="f.", oid="{oid}", sid="{sid}")
    + " ORDER BY n.feature_name, f.band",
    "xmatch": "SELECT l.catalog_name, x.catid, x.oid_catalog, x.dist, a.w1mpro, a.w2mpro, a.w3mpro, a.w4mpro, "
    "g.phot_g_mean_mag, g.bp_rp, g.parallax, g.pmra, g.pmdec, g.ruwe FROM xmatch x "
    "LEFT JOIN catalog_id_lut l ON l.catid = x.catid "
    "LEFT JOIN allwise a ON x.catid = 0 AND a.oid_catalog = x.oid_catalog "
    "LEFT JOIN gaiadr3_source g ON x.catid = 1 AND CAST(g.oid_catalog AS VARCHAR) = x.oid_catalog "
    + _WHERE.format(alias="x.", oid="{oid}", sid="{sid}"),
    "ztf_epochs": "SELECT d.mjd, b.band_name, d.ra, d.dec FROM detection d "
    "LEFT JOIN band b ON b.sid = d.sid AND b.band = d.band "
    + _WHERE.format(alias="d.", oid="{oid}", sid="{sid}")
    + " ORDER BY d.mjd",
    "orbit": "SELECT designation, a, q, e, i, node, argperi, epoch_mjd, period, h, g, arc_length_total, nopp, "
    "nobs_total FROM lsst_mpc_orbits WHERE ssobjectid = {oid}",
}
"""What the multisurvey catalog holds about an object (``{oid}``, ``{sid}``: integers), besides its fluxes
(``answering.lsst_curves``); ``ztf_epochs`` and ``orbit`` apply to sid 0 and sid 2 only."""

_MULTISURVEY_OBJECT = (
    "SELECT oid, sid, meanra, meandec, firstmjd, lastmjd, n_det, n_forced FROM object WHERE oid = {oid}"
)


def ztf_object_sql(oid: str) -> str:
    """The object row of a ZTF name (already checked).

    Examples:
        >>> ztf_object_sql("ZTF20aaelulu")
        "SELECT oid, meanra, meandec, firstmjd, lastmjd, ndet FROM object WHERE oid = 'ZTF20aaelulu'"
    """
    return _ZTF_OBJECT.format(oid=oid)


def multisurvey_object_sql(oid: int, sid: int | None) -> str:
    """The object rows of an integer oid, in one survey or all.

    Examples:
        >>> multisurvey_object_sql(7, 1).split("FROM ")[1]
        'object WHERE oid = 7 AND sid = 1 ORDER BY sid'
    """
    return _MULTISURVEY_OBJECT.format(oid=oid) + ("" if sid is None else f" AND sid = {sid}") + " ORDER BY sid"
