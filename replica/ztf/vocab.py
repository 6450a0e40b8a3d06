"""The generator's vocabularies: classes, versions and the data end from the catalog, population mixes, feature names,
step ids."""

import datetime

from catalog import load_catalog
from replica.ztf import CATALOG

_ZTF = load_catalog(CATALOG)
CLASSIFIERS = _ZTF.classifiers
LC_VERSION, LC_VERSION_TODAY = _ZTF.classifier("lc_classifier").versions  # the benchmark's, then today's
STAMP = _ZTF.classifier("stamp_classifier")
STAMP_VERSIONS = STAMP.versions
# the catalog's feature_version rows: the lc-classified objects' (current, older), and one a few objects also carry
FEATURE_VERSIONS = tuple(row["version"] for row in _ZTF.rows["feature_version"][:2])
FEATURE_VERSION_TRANSITIONAL = _ZTF.rows["feature_version"][2]["version"]
STEP_ID_CORR = next(row["step_id"] for row in _ZTF.rows["step"] if row["name"] == "corr")  # the correction step

BRANCH_PARTS = ("transient", "stochastic", "periodic")  # a hierarchical classifier's branches, in their order
TRANSIENT, STOCHASTIC, PERIODIC = BRANCHES = tuple(_ZTF.classifier(f"lc_classifier_{b}").classes for b in BRANCH_PARTS)
TOP = _ZTF.classifier("lc_classifier_top").classes
LC_CLASSES = TRANSIENT + STOCHASTIC + PERIODIC
STAMP_CLASSES = STAMP.classes

# Today's classifiers (catalog `rules: name`): the hierarchical forced-photometry BHRF, two flat betas, the stamp beta.
BHRF = "lc_classifier_BHRF_forced_phot"
BHRF_VERSION = _ZTF.classifier(BHRF).versions[0]
BHRF_BRANCHES = tuple(_ZTF.classifier(f"{BHRF}_{part}").classes for part in BRANCH_PARTS)
LC_BETAS = tuple(
    _ZTF.classifier(name) for name in ("LC_classifier_ATAT_forced_phot(beta)", "LC_classifier_BHRF_forced_phot(beta)")
)
STAMP_BETA = _ZTF.classifier("stamp_classifier_2025_beta")

# Population mix of object kinds, and of forced photometry's processing status codes.
KIND_WEIGHTS = {"asteroid": 0.28, "bogus": 0.22, "short": 0.20, "SN": 0.15, "var": 0.15}
PROCSTATUS_WEIGHTS = {"0": 0.9, "57": 0.05, "56": 0.03, "58": 0.01, "255": 0.01}

# Population mix of lc classes for SN-like and variable objects.
SN_CLASS_WEIGHTS = {"SNIa": 0.55, "SNII": 0.28, "SNIbc": 0.12, "SLSN": 0.05}
VAR_CLASS_WEIGHTS = {
    "LPV": 0.12,
    "E": 0.18,
    "DSCT": 0.06,
    "RRL": 0.12,
    "CEP": 0.03,
    "Periodic-Other": 0.09,
    "QSO": 0.10,
    "AGN": 0.10,
    "Blazar": 0.04,
    "CV/Nova": 0.08,
    "YSO": 0.06,
}

# Stamp-classifier class mix per object kind, in STAMP_CLASSES order.
STAMP_MIX = {
    "asteroid": (0.02, 0.0, 0.01, 0.95, 0.02),
    "bogus": (0.03, 0.01, 0.02, 0.02, 0.92),
    "short": (0.42, 0.10, 0.20, 0.08, 0.20),
    "SN": (0.92, 0.03, 0.046, 0.0, 0.004),
    "periodic": (0.04, 0.04, 0.9185, 0.0, 0.0015),
    "stochastic": (0.06, 0.84, 0.0985, 0.0, 0.0015),
}

# (name, fid) of the 174 feature rows per object and version, in the catalog's order
FEATURE_KEYS = tuple((name, fid) for fid, names in _ZTF.feature_names.items() for name in names)

_MJD_ZERO = datetime.date(1858, 11, 17)
MJD_SURVEY_START = 58194.0
MJD_FIRST_ALERT = 58270.0
MJD_END = float((_ZTF.data_end - _MJD_ZERO).days)  # the catalog's data_end: no epoch on or after it
MJD_FORCED_START = 60250.0  # forced photometry is stored for objects detected since late 2023
YEAR_START_MJD = {year: (datetime.date(year, 1, 1) - _MJD_ZERO).days for year in range(2018, _ZTF.data_end.year + 1)}
"""MJD of 1 January of each year to the data end's, for oid year prefixes (in year order: ``objects.year_of``)."""
MJD_2025 = float(YEAR_START_MJD[2025])  # the betas classify objects seen since
