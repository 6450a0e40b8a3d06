"""Give every catalog column an IVOA UCD1+ by rules a reader can check against the column's name, unit and text.

The rules run in order and the first that matches wins:

1. A column the catalog file gives a ``ucd`` keeps it.
2. An uncertainty (``sigma*``, ``e_*``, ``*err``, ``*_error``, ``*_unc``, ``*sig*`` photometry, or a description
   starting "err of", "uncertainty", "standard error") is ``stat.error;`` + the UCD of the quantity it is the
   error of; a scatter ("std", "standard deviation", "scatter") is ``stat.stdev;`` + that UCD.
3. The table's position (``catalog.positions``, else ``meanra``/``ra`` and ``meandec``/``dec`` in degrees) is
   ``pos.eq.ra;meta.main`` / ``pos.eq.dec;meta.main``; the table's single-column primary key is
   ``meta.id;meta.main``.
4. ``_RULES``: a name pattern, optionally a unit, and the UCD, e.g. an MJD in days is ``time.epoch``.
5. Photometry (``phot.mag``, ``phot.flux.density``) gets the band its name or description names
   (``_BANDS``: ZTF/LSST/PS1 u g r i z y, WISE W1-W4, 2MASS J H Ks, Gaia G BP RP).
6. Anything else: a flag (boolean) is ``meta.code``, a count is ``meta.number``, text is ``meta.note``, another
   number is ``stat.value``.

Example:
    >>> from catalog import load_catalog
    >>> load_catalog().table("object").column("meanra").ucd
    'pos.eq.ra;meta.main'
"""

from __future__ import annotations

import re

from catalog.model import Column, Table

__all__ = ["column_ucd"]

_RULES: tuple[tuple[str, frozenset[str] | None, str], ...] = (
    # (full-match name pattern, units it needs or None for any, UCD)
    (r".*mjd.*|epoch_mjd|validitystart.*", frozenset({"d"}), "time.epoch"),
    (r"delta[mj]d|dt_first|arc_length.*|peri_time|dt", frozenset({"d"}), "time.interval"),
    (r"period", frozenset({"d"}), "time.period"),
    (r"exptime", None, "time.duration;obs.exposure"),
    (r".*date|created_at|updated_at|fitting_datetime", None, "time.processing"),
    (r"(mean)?ra|ranr|trailra|ephra", frozenset({"deg"}), "pos.eq.ra"),
    (r"(mean)?dec|decnr|traildec|ephdec", frozenset({"deg"}), "pos.eq.dec"),
    (r"ephoffsetra", None, "pos.eq.ra;arith.diff"),
    (r"ephoffsetdec", None, "pos.eq.dec;arith.diff"),
    (r"gallon", None, "pos.galactic.lon"),
    (r"gallat", None, "pos.galactic.lat"),
    (r"ecllambda", None, "pos.ecliptic.lon"),
    (r"eclbeta", None, "pos.ecliptic.lat"),
    (r"ra_dec_cov", None, "stat.covariance;pos.eq"),
    (r"pm", None, "pos.pm"),
    (r"pmra", None, "pos.pm;pos.eq.ra"),
    (r"pmdec", None, "pos.pm;pos.eq.dec"),
    (r"ephrate(ra|dec)?|mean_motion", None, "pos.pm"),
    (r"parallax", None, "pos.parallax"),
    (r"phaseangle", None, "pos.phaseAng"),
    (r"elongation", None, "pos.angDistance"),
    (r"trailangle|dipoleangle", None, "pos.posAng"),
    (r".*dist.*|neargaia.*|ephoffset.*|dipolelength", frozenset({"arcsec"}), "pos.angDistance"),
    (r"traillength", None, "phys.angSize"),
    (r"distance_.*|toporange|heliorange|earth_moid", None, "pos.distance"),
    (r"(helio|topo)_([xyz])", None, "pos.cartesian.{1}"),
    (r"(helio|topo)_v([xyz]|tot)|.*rangerate", None, "phys.veloc"),
    (r"radial_velocity", None, "spect.dopplerVeloc.opt"),
    (r"xpos|x", frozenset({"pix"}), "pos.cartesian.x;instr.det"),
    (r"ypos|y", frozenset({"pix"}), "pos.cartesian.y;instr.det"),
    (r"fwhm|sciinpseeing", None, "instr.obsty.seeing"),
    (r"seeratio", None, "instr.obsty.seeing;arith.ratio"),
    (r"aimage", None, "phys.size.smajAxis"),
    (r"bimage", None, "phys.size.sminAxis"),
    (r"mindtoedge", None, "pos.distance;instr.det"),
    (r"i[xy][xy](psf)?", None, "src.morph.param"),
    (r"a", frozenset({"AU"}), "phys.size.smajAxis"),
    (r"q", frozenset({"AU"}), "src.orbital.periastron"),
    (r"e", None, "src.orbital.eccentricity"),
    (r"i", frozenset({"deg"}), "src.orbital.inclination"),
    (r"node", None, "src.orbital.node"),
    (r"argperi", None, "src.orbital.periastron"),
    (r"mean_anomaly", None, "src.orbital.meanAnomaly"),
    (r"yarkovsky|srp|a[123]", None, "phys.acceleration"),
    (r"g_r_.*|bp_rp|bp_g|g_rp|clrmed|clrrms", frozenset({"mag"}), "phot.color"),
    (r"clrcoeff|clrcounc|zpclrcov", None, "phot.calib"),
    (r"magzp.*|zpmed", None, "phot.mag;arith.zp"),
    (r".*maglim.*", None, "phot.mag;stat.max"),
    (r"dm_first", None, "phot.mag;arith.diff"),
    (r"h", frozenset({"mag"}), "phys.magAbs"),
    (r"g", None, "stat.fit.param"),
    (r".*", frozenset({"mag/d"}), "arith.rate;phot.mag"),
    (r".*", frozenset({"nJy/d"}), "arith.rate;phot.flux.density"),
    (r".*", frozenset({"mag"}), "phot.mag"),
    (r".*", frozenset({"nJy"}), "phot.flux.density"),
    (r"teff.*", None, "phys.temperature.effective"),
    (r"logg.*", None, "phys.gravity"),
    (r"mh_.*", None, "phys.abund.Z"),
    (r".*flux_over_error|snr|scorr", None, "stat.snr"),
    (r".*chi2|chipsf", None, "stat.fit.chi2"),
    (r"chinr|sharpnr|.*rms|ruwe|astrometric_excess_noise.*|phot_bp_rp_excess_factor", None, "stat.fit.residual"),
    (r"psflnl", None, "stat.likelihood"),
    (r"sky|scibckgnd", None, "instr.skyLevel"),
    (r"scisigpix|dsnrms|ssnrms", None, "stat.stdev;instr.background"),
    (r"classtar|sgscore\d", None, "src.class.starGalaxy"),
    (r"extendedness", None, "src.morph.type"),
    (r".*rat|saturation_rate", None, "stat.value;arith.ratio"),
    (r"probability|rb|drb|classprob_.*|score|reliability", None, "stat.probability"),
    (r"class_name|class_catalog", None, "src.class"),
    (r"classes", None, "src.class"),
    (r"fid|band|band_name", None, "meta.id;instr.filter"),
    (r".*version.*|rbversion|drbversion", None, "meta.version"),
    (r"classifier_.*|pipeline_id|step_id.*", None, "meta.id;meta.software"),
    (r"field", None, "meta.id;obs.field"),
    (r"rcid|detector", None, "meta.id;instr.det"),
    (r"ranking|.*_order|diadistancerank", None, "meta.number"),
    (r"n.*|.*_n_obs|.*ndata|nmatches|nframesref|u_param|ncovhist", frozenset({""}), "meta.number"),
    (r"(o|)id|.*_id|.*oid|candid|.*candid|pid|rfid|nid|visit|catid|sid|tid|.*objectid.*|oid_catalog", None, "meta.id"),
    (r"measurement_id|designation|.*provisional_designation|ssnamenr|name|feature_name|catalog_name", None, "meta.id"),
    (r"survey_name", None, "meta.id"),
    (r".*flag.*|dubious|.*procstatus|programid|isdiffpos|isnegative", None, "meta.code.qual"),
)
_COMPILED = tuple((re.compile(pattern), units, ucd) for pattern, units, ucd in _RULES)

_ERROR_NAME = re.compile(
    r"(?:(?P<c>.+?)_?(?:err|error|unc|errmean))|(?:e_(?P<a>.+))|(?:sigma?(?P<b>.+))|(?P<d>.+)sig.*"
)
_ERROR_WORD = re.compile(r"\b(err|uncertainty)\b|(?<!weight )\berror\b", re.IGNORECASE)
_ERROR_TEXT = re.compile(r"(?:err|uncertainty|standard error|estimated uncertainty) of (?P<name>\w+)", re.IGNORECASE)
_SCATTER = re.compile(r"^(std|standard deviation|scatter)\b", re.IGNORECASE)
_FLAG_TYPES = {"boolean"}
_TEXT_TYPES = {"character varying", "text", "ARRAY"}

_BANDS = (  # (name or description pattern, UCD band word)
    (re.compile(r"^w1|\bW1\b"), "em.IR.3-4um"),
    (re.compile(r"^w2|\bW2\b"), "em.IR.4-8um"),
    (re.compile(r"^w3|\bW3\b"), "em.IR.8-15um"),
    (re.compile(r"^w4|\bW4\b"), "em.IR.15-30um"),
    (re.compile(r"^j_|\bJ\b"), "em.IR.J"),
    (re.compile(r"^h_|\bH\b"), "em.IR.H"),
    (re.compile(r"^k_|\bKs?\b"), "em.IR.K"),
    (re.compile(r"_bp_|\bBP\b"), "em.opt.B"),
    (re.compile(r"_rp_|\bRP\b"), "em.opt.R"),
    (re.compile(r"^u_|\bu-band\b"), "em.opt.U"),
    (re.compile(r"^g_|^sg|\bg-band\b|\bg mag\b"), "em.opt.B"),
    (re.compile(r"^r_|^sr|\br-band\b|\br mag\b"), "em.opt.R"),
    (re.compile(r"^i_|^si|\bi-band\b|\bi mag\b"), "em.opt.I"),
    (re.compile(r"^z_|^sz|\bz-band\b|\bz mag\b"), "em.opt.I"),
    (re.compile(r"^y_|\by-band\b"), "em.IR.NIR"),
    (re.compile(r"\bV\b|V-band"), "em.opt.V"),
    (re.compile(r"\bG\b|G-band|maggaia"), "em.opt"),
)


def column_ucd(table: Table, column: Column, position: tuple[str, str] | None = None) -> str:
    """Return the UCD1+ of `column` of `table` (`position`: the table's RA and Dec column names, if declared).

    Examples:
        >>> from catalog.model import Column, Table
        >>> mag = Column("sigmapsf", "real", "real", True, "err of magpsf", "mag")
        >>> column_ucd(Table("detection", "", [mag], []), mag)
        'stat.error;phot.mag'
        >>> mjd = Column("firstmjd", "double precision", "float8", True, "MJD of first detection", "d")
        >>> column_ucd(Table("object", "", [mjd], []), mjd)
        'time.epoch'
    """
    if _SCATTER.match(column.description) and column.data_type not in _TEXT_TYPES:
        return f"stat.stdev;{_plain(_measured(table, column), table, position)}"
    measured = _error_of(table, column)
    if measured is not None:
        return f"stat.error;{_plain(measured, table, position)}"
    return _main(table, column, position) or _plain(column, table, position)


def _main(table: Table, column: Column, position: tuple[str, str] | None) -> str | None:
    ra, dec = position or _default_position(table)
    if column.name == ra:
        return "pos.eq.ra;meta.main"
    if column.name == dec:
        return "pos.eq.dec;meta.main"
    if table.primary_key == [column.name]:
        return "meta.id;meta.main"
    return None


def _default_position(table: Table) -> tuple[str | None, str | None]:
    for ra, dec in (("meanra", "meandec"), ("ra", "dec")):
        ra_column, dec_column = table.column(ra), table.column(dec)
        if ra_column and dec_column and ra_column.unit == "deg" and dec_column.unit == "deg":
            return ra, dec
    return None, None


def _error_of(table: Table, column: Column) -> Column | None:
    """The column whose uncertainty `column` is (named by its description, else by its name), or None."""
    if column.data_type in _TEXT_TYPES | _FLAG_TYPES:
        return None
    found = _ERROR_TEXT.search(column.description)
    if found and table.column(found.group("name")) is not None:
        return table.column(found.group("name"))
    if not _ERROR_WORD.search(column.description):
        return None
    return _measured(table, column)


def _measured(table: Table, column: Column) -> Column:
    """The quantity `column` is an error or scatter of: its name without the error marker, or itself reworded."""
    match = _ERROR_NAME.fullmatch(column.name)
    if match:
        base = next(group for group in match.groups() if group)
        for name in (base, f"mag{base}", f"mean{base}", base.replace("sig", "")):
            if table.column(name) is not None and name != column.name:
                return table.column(name)
        return Column(base, column.data_type, column.sql_type, column.nullable, column.description, column.unit)
    return column


def _plain(column: Column, table: Table, position: tuple[str, str] | None) -> str:
    unit = column.unit or ""
    for pattern, units, ucd in _COMPILED:
        match = pattern.fullmatch(column.name)
        if match and (units is None or unit in units):
            ucd = ucd.format(*match.groups())
            return _with_band(ucd, column)
    if column.data_type in _FLAG_TYPES:
        return "meta.code"
    if column.data_type in _TEXT_TYPES:
        return "meta.note"
    if column.data_type in {"integer", "smallint", "bigint"}:
        return "meta.number"
    return "stat.value"


def _with_band(ucd: str, column: Column) -> str:
    if not ucd.endswith(("phot.mag", "phot.flux.density")):
        return ucd
    for pattern, band in _BANDS:
        if pattern.search(column.name) or pattern.search(column.description):
            return f"{ucd};{band}"
    return ucd
