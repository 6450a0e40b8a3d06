"""Planted objects and values REQUIRED BY THE DEV BENCHMARK (dev.csv gold queries).

Gold queries name literal oids, AllWISE designations, solar-system names and positions, and need rare combinations.
These data requirements live here as plain data (spec overrides; per-table values applied by `patches.py`), with
near-miss siblings across each threshold so that plausibly wrong queries return different identifier sets.
"""

import numpy as np

__all__ = [
    "ALLWISE_NEAR",
    "CATALOG_NAMES",
    "CHIPSF",
    "CLASSTAR_FIRST",
    "DUBIOUS_G",
    "FEATURE_VALUES",
    "PLANTED",
    "PROCSTATUS",
    "planted_name",
]


def planted_name(year: int, n: int) -> str:
    """Synthetic planted oid 'ZTF<yy>zz<5 letters>' (random oids never start with 'zz')."""
    letters = ""
    for _ in range(5):
        n, r = divmod(n, 26)
        letters = chr(97 + r) + letters
    return f"ZTF{year % 100:02d}zz{letters}"


def _lc(cls: str, p: float, **kw) -> dict:
    return {"lc_class": cls, "lc_p": p, **kw}


def _var(cls: str, p: float, **kw) -> dict:
    return {"lc_class": cls, "lc_p": p, "ndet_g": 40, "ndet_r": 50, "span": 900.0, **kw}


def _sn(cls: str, p: float, **kw) -> dict:
    return {"lc_class": cls, "lc_p": p, "ndet_g": 8, "ndet_r": 10, "span": 60.0, **kw}


def _stamp(cls: str, p: float, ver: int = 2, **kw) -> dict:
    return {"stamp_class": cls, "stamp_p": p, "stamp_ver": ver, **kw}


def _ss(name: str, dist: float, mag: float, **kw) -> dict:
    return {"ssnamenr": name, "ssdistnr": dist, "ssmagnr": mag, "ndet_g": 1, "ndet_r": 0, "span": 0.0, **kw}


_ABELL370 = (39.970416666666665, -1.5768055555555556)
_C1 = (160.18301441363647, 33.0164673528409)
_C2 = (174.21524897555543, 44.83789535222221)

# (oid, kind, spec overrides)
_LITERAL = [
    ("ZTF17aaaqqtd", "var", _var("E", 0.6, firstmjd=58280.41, has_xmatch=True, w1w2=0.12, feat_old=True)),
    ("ZTF19aazhdoy", "var", _var("QSO", 0.55, firstmjd=58620.33, has_xmatch=True, w1w2=1.21, feat_old=True)),
    ("ZTF18abwxduj", "asteroid", _ss("52768", 1.0, 18.4, firstmjd=58370.31)),
    ("ZTF19aactlln", "asteroid", _ss("2003FP134", 2.0, 19.5, firstmjd=58500.29)),
    ("ZTF20abmaqeh", "asteroid", _ss("4179", 0.0, 17.9, firstmjd=59050.27)),
    ("ZTF18adqxemz", "short", {"firstmjd": 58450.3, "ndet_g": 2, "ndet_r": 3, "span": 12.0}),
    ("ZTF19aaxqrku", "SN", _sn("SNIa", 0.6, firstmjd=58620.2)),
    ("ZTF19adceucq", "short", {"firstmjd": 58800.3}),
    ("ZTF19adcftfw", "short", {"firstmjd": 58801.2}),
    ("ZTF20aawwmqv", "SN", _sn("SNII", 0.5, firstmjd=58980.4)),
    ("ZTF21aasqvza", "var", _var("RRL", 0.7, firstmjd=59330.2, span=300.0)),
    ("ZTF20aaelulu", "var", _var("RRL", 0.75, firstmjd=58870.3)),
    ("ZTF20abfcszi", "short", {"firstmjd": 59040.3, "ndet_g": 3, "ndet_r": 4, "span": 20.0}),
    ("ZTF21aaqwjlz", "short", {"firstmjd": 59310.4, "ndet_g": 2, "ndet_r": 3, "span": 15.0}),
    ("ZTF20abxgxjd", "SN", _sn("SNIa", 0.65, firstmjd=59080.3)),
    ("ZTF20abywohm", "SN", _sn("SNIbc", 0.45, firstmjd=59085.2)),
    ("ZTF20actqnhg", "short", {"firstmjd": 59150.3, "ndet_g": 2, "ndet_r": 3, "span": 9.0}),
    ("ZTF20adadshh", "short", {"firstmjd": 59190.3, "ndet_g": 3, "ndet_r": 2, "span": 8.0}),
    ("ZTF21aaabvit", "short", {"firstmjd": 59216.3, "ndet_g": 3, "ndet_r": 3, "span": 8.0}),
    ("ZTF21aaabvjk", "short", {"firstmjd": 59216.4, "ndet_g": 4, "ndet_r": 2, "span": 8.0}),
    ("ZTF21aadoizf", "SN", _sn("SNIa", 0.55, firstmjd=59230.3, stamp_ver=3)),
    ("ZTF21aaqosff", "asteroid", _ss("12345", 1.0, 18.8, firstmjd=59300.31)),
    ("ZTF21aaqosfj", "asteroid", _ss("23456", 1.0, 19.1, firstmjd=59300.32)),
    ("ZTF21aaqosfm", "asteroid", _ss("34567", 2.0, 18.2, firstmjd=59300.33)),
    ("ZTF21aaqosfo", "asteroid", _ss("null", -999.0, -999.0, firstmjd=59300.34)),
    ("ZTF21aaqosfs", "asteroid", _ss("45678", 0.0, 19.9, firstmjd=59300.35)),
    ("ZTF21aaqosgi", "asteroid", _ss("56789", 4.0, 20.3, firstmjd=59300.36)),
    ("ZTF21aaqoski", "asteroid", _ss("null", -999.0, -999.0, firstmjd=59300.37)),
    ("ZTF21aaqoskz", "asteroid", _ss("67890", 3.0, 17.7, firstmjd=59300.38, ndet_r=1, span=0.03)),
    ("ZTF21aaqosly", "asteroid", _ss("78901", 1.0, 18.5, firstmjd=59300.39)),
    ("ZTF21aaqospe", "asteroid", _ss("89012", 0.0, 19.0, firstmjd=59300.4)),
    ("ZTF21aaqosmi", "asteroid", {"firstmjd": 59300.41, "ndet_g": 1, "ndet_r": 1, "span": 0.03}),
    ("ZTF21aaqosmj", "asteroid", {"firstmjd": 59300.42, "ndet_g": 1, "ndet_r": 0, "span": 0.0}),
    ("ZTF21aaqosmk", "asteroid", {"firstmjd": 59300.43, "ndet_g": 0, "ndet_r": 1, "span": 0.0}),
    ("ZTF21aaqosmm", "asteroid", {"firstmjd": 59300.44, "ndet_g": 1, "ndet_r": 1, "span": 0.02}),
    ("ZTF21aaqosmp", "asteroid", {"firstmjd": 59300.45, "ndet_g": 1, "ndet_r": 0, "span": 0.0}),
    ("ZTF21aaqosmq", "asteroid", {"firstmjd": 59300.46, "ndet_g": 0, "ndet_r": 1, "span": 0.0}),
    ("ZTF21aaqytjr", "var", _var("LPV", 0.7, firstmjd=59330.3, feat_old=True, span=500.0)),
    ("ZTF21abfrbnm", "SN", _sn("SNII", 0.6, firstmjd=59380.3)),
    ("ZTF22aayjqah", "short", {"firstmjd": 59750.3, "ref_change": True, "ndet_g": 2, "ndet_r": 3, "span": 20.0}),
    ("ZTF22abftjko", "var", _var("E", 0.65, firstmjd=59820.4, has_gaia=True, span=600.0)),
    ("ZTF22abpxoyy", "var", _var("CV/Nova", 0.6, firstmjd=59900.3, span=700.0, forced=True)),
    ("ZTF23aaqmddq", "SN", _sn("SNII", 0.62, firstmjd=60110.3, ndet_g=5, ndet_r=7)),
    ("ZTF23aatekmu", "SN", _sn("SNIa", 0.7, firstmjd=60260.3, forced=True)),
    ("ZTF23abkhwgb", "SN", _sn("SNIa", 0.58, firstmjd=60230.2, feat_old=True)),
]


def _queries() -> list[tuple[int, str, dict]]:
    """(year, kind, overrides) of the non-literal planted objects, grouped by the need they serve."""
    a370 = _ABELL370
    return [
        # lc YSO r1 p>0.7 with Multiband_period in (3, 10) and Amplitude > 0.5; siblings miss one condition
        *[
            (2019, "var", _var("YSO", p, mag_lo=15.0, mag_hi=hi, feat={("Multiband_period", 12): per}))
            for p, hi, per in (
                (0.8, 16.8, 5.0),
                (0.85, 16.8, 7.5),
                (0.75, 16.8, 4.2),
                (0.8, 16.8, 12.0),
                (0.65, 16.8, 5.5),
                (0.8, 15.4, 6.0),
            )
        ],
        # lc YSO r1 p>0.7 last detected in June 2023, and just outside
        *[(2021, "var", _var("YSO", 0.8, firstmjd=59500.3, span=s)) for s in (610.4, 620.2, 625.4, 595.6)],
        (2023, "var", _var("YSO", 0.8, firstmjd=60100.3, span=60.0)),
        # lc SNII p>0.6 with a fast rise, ndet > 50 / > 30, and siblings
        *[
            (
                2020,
                "SN",
                _sn(
                    "SNII",
                    p,
                    ndet_g=nd // 2,
                    ndet_r=nd - nd // 2,
                    firstmjd=59000.3 + i,
                    span=span,
                    dmdt1=d,
                    dmdt2=d + 0.1,
                    feat=ft,
                ),
            )
            for i, (p, nd, d, span, ft) in enumerate(
                (
                    (0.7, 60, -0.8, 160.0, {("delta_mag_fid", 1): 2.4}),
                    (0.75, 64, -0.9, 170.0, {("delta_mag_fid", 1): 1.5, ("delta_mag_fid", 2): 2.6}),
                    (0.7, 45, -0.7, 150.0, {}),
                    (0.7, 60, 0.7, 160.0, {("delta_mag_fid", 1): 2.2}),
                    (0.7, 60, -0.8, 60.0, {}),
                    (0.55, 60, -0.8, 160.0, {("delta_mag_fid", 1): 2.5}),
                )
            )
        ],
        # stamp SN r1 first detected in January 2023 (and one day outside)
        *[(2023, "SN", _stamp("SN", 0.8, firstmjd=f)) for f in (59950.3, 59970.2, 59975.5, 59944.7)],
        # Abell 370 cone (16.6667 deg), July 2023, stamp r1 not asteroid/bogus, sgscore1 < 0.3
        *[
            (2023, "SN", _sn("SNIa", 0.6, ra=a370[0], dec=a370[1] + d, firstmjd=f, sgscore1=sg, **_stamp(sc, 0.7)))
            for d, f, sg, sc in (
                (5.0, 60130.3, 0.1, "SN"),
                (10.0, 60140.2, 0.05, "AGN"),
                (-12.0, 60150.6, 0.2, "VS"),
                (6.0, 60135.3, 0.1, "bogus"),
                (7.0, 60136.3, 0.5, "SN"),
                (17.5, 60137.3, 0.1, "SN"),
                (4.0, 60156.4, 0.1, "SN"),
            )
        ],
        # lc SNIa r1 with CV/Nova r2 close behind (< 0.1), and wider / reversed siblings
        (2022, "SN", _sn("SNIa", 0.31, lc_second="CV/Nova", lc_p2=0.25)),
        (2022, "SN", _sn("SNIa", 0.36, lc_second="CV/Nova", lc_p2=0.3)),
        (2022, "SN", _sn("SNIa", 0.40, lc_second="CV/Nova", lc_p2=0.22)),
        (2022, "SN", _sn("CV/Nova", 0.33, lc_second="SNIa", lc_p2=0.28)),
        # lc SNIa r1 first detected in September 2023, g-r at max < 1, magmax > 19
        *[
            (2023, "SN", _sn("SNIa", 0.6, firstmjd=f, color=c, mag_lo=18.0, mag_hi=hi))
            for f, c, hi in ((60195.3, 0.3, 19.8), (60200.4, 0.2, 19.6), (60201.3, 1.4, 19.8), (60202.3, 0.2, 18.6))
        ],
        # stamp SN r1 first detected on 1 September 2023 with dmdt_first < -0.25, and siblings
        *[
            (2023, "short", _stamp("SN", 0.7, firstmjd=f, dmdt1=d, dmdt2=d, ndet_g=2, ndet_r=3, span=6.0))
            for f, d in ((60188.3, -0.5), (60188.7, -0.4), (60189.4, -0.5), (60188.5, 0.4), (60187.6, -0.6))
        ],
        # lc AGN/QSO r1 p>0.95 or Blazar r1 p>0.8 with deltajd > 200 and ndet > 40, and siblings
        *[
            (2019, "var", _var(c, p, span=s, ndet_g=nd // 2, ndet_r=nd - nd // 2))
            for c, p, s, nd in (
                ("AGN", 0.96, 900.0, 80),
                ("QSO", 0.97, 800.0, 90),
                ("Blazar", 0.85, 700.0, 70),
                ("AGN", 0.88, 900.0, 80),
                ("Blazar", 0.75, 900.0, 80),
                ("QSO", 0.97, 150.0, 80),
                ("AGN", 0.96, 900.0, 36),
                ("AGN", 0.7, 900.0, 30),
                ("QSO", 0.7, 900.0, 200),
            )
        ],
        # lc RRL r1 with ndet exactly 100 and 99
        (2019, "var", _var("RRL", 0.7, ndet_g=45, ndet_r=55)),
        (2019, "var", _var("RRL", 0.7, ndet_g=45, ndet_r=54)),
        # two 10 deg cones, first week of February 2023, stamp SN r1 p > 0.4, and siblings
        *[
            (2023, "SN", _sn("SNIa", 0.6, ra=c[0], dec=c[1] + dd, firstmjd=f, **_stamp(sc, sp)))
            for c, dd, f, sc, sp in (
                (_C1, 3.0, 59977.3, "SN", 0.7),
                (_C2, -5.0, 59979.4, "SN", 0.6),
                (_C1, -6.0, 59980.2, "AGN", 0.7),
                (_C2, 2.0, 59978.5, "SN", 0.38),
                (_C1, 11.0, 59978.4, "SN", 0.7),
                (_C1, 1.0, 59982.4, "SN", 0.7),
                (_C2, 1.0, 59975.6, "SN", 0.7),
                (_C2, -9.0, 59981.2, "SN", 0.45),
            )
        ],
        # lc r1 first detected on 1-2 February 2023
        *[(2023, "SN", _sn("SNII", 0.5, firstmjd=f)) for f in (59976.4, 59977.6, 59978.3)],
        # stamp SN r1 at the end of August 2022: low p with a single detection
        (2022, "bogus", _stamp("SN", 0.45, firstmjd=59820.3, ndet_g=1, ndet_r=0, span=0.0)),
        # stamp asteroid p = 0.995
        (2022, "asteroid", _stamp("asteroid", 0.995, firstmjd=59700.3)),
        # lc CEP/DSCT/RRL p > 0.6 with PS1 sgscore1 > 0.8
        *[(2020, "var", _var(c, 0.7, sgscore1=s)) for c, s in (("RRL", 0.9), ("CEP", 0.95), ("DSCT", 0.5))],
        # lc LPV/E p > 0.7 with gaia unique1
        *[
            (2020, "var", _var(c, p, has_gaia=True, gaia_unique1=u))
            for c, p, u in (("LPV", 0.8, True), ("E", 0.75, True), ("LPV", 0.8, False))
        ],
        # stamp 1.0.4 AGN p > 0.6 together with lc LPV p > 0.7; sibling only in stamp 1.0.0
        *[(2022, "var", _var("LPV", 0.8, firstmjd=59600.3, **_stamp("AGN", 0.7, v))) for v in (2, 2, 1)],
        # lc QSO p > 0.7 with AllWISE, lc LPV p > 0.5 with 7 < W1 < 8, and siblings
        *[(2020, "var", _var("QSO", p, has_xmatch=True)) for p in (0.8, 0.78, 0.6)],
        *[
            (2020, "var", _var("LPV", p, has_xmatch=True, w1mpro=w1, w1w2=0.3))
            for p, w1 in ((0.6, 7.5), (0.65, 7.2), (0.6, 8.5), (0.45, 7.5))
        ],
        # lc AGN p > 0.7 with a close PS1 source (classtar set in patches), and a 3 arcsec sibling
        *[(2020, "var", _var("AGN", 0.8, distpsnr1=d, sgscore1=0.1, classtar_first=0.3)) for d in (0.5, 0.8, 3.0)],
        # stamp 1.0.4 bogus p > 0.9 on lc objects with ndet > 20; siblings in 1.0.0 and with ndet = 20
        *[
            (2022, "var", _var("E", 0.6, firstmjd=59650.3, ndet_g=g, ndet_r=r, **_stamp("bogus", p, v)))
            for g, r, p, v in (
                (12, 18, 0.93, 2),
                (15, 20, 0.95, 2),
                (10, 15, 0.92, 2),
                (12, 18, 0.93, 1),
                (8, 12, 0.95, 2),
            )
        ],
        # LinearTrend > 5 (patched) on lc objects with deltajd > 1; sibling with deltajd < 1
        (2020, "var", _var("E", 0.6, feat={("LinearTrend", 1): 6.5, ("LinearTrend", 2): 7.2})),
        (2020, "var", _var("RRL", 0.6, feat={("LinearTrend", 1): 5.8})),
        (2021, "short", _lc("SNIa", 0.5, ndet_g=0, ndet_r=6, span=0.6, feat={("LinearTrend", 2): 5.5})),
        (2021, "var", _var("E", 0.6, feat={("LinearTrend", 2): 4.0})),
        # objects near solar-system bodies 115185, 213673 and 49894
        *[
            (2021, "asteroid", _ss(n, d, m, firstmjd=59400.3 + i))
            for i, (n, d, m) in enumerate(
                (
                    ("115185", 0.0, 18.1),
                    ("115185", 1.0, 18.3),
                    ("115185", 1.0, 18.2),
                    ("115185", 3.0, 18.4),
                    ("213673", 0.0, 19.2),
                    ("213673", 0.0, 19.3),
                    ("49894", 0.0, 17.6),
                    ("213673", 0.4, 19.1),
                    ("49894", 0.4, 17.8),
                )
            )
        ],
        # the objects matched to two named AllWISE sources
        (2018, "var", _var("E", 0.6, ra=267.5234583, dec=-14.2282778, firstmjd=58300.3, has_xmatch=True)),
        (2019, "var", _var("LPV", 0.6, ra=112.3911667, dec=3.1362222, firstmjd=58600.3, has_xmatch=True)),
    ]


def _planted() -> list[tuple[str, str, dict]]:
    out = list(_LITERAL)
    for i, (year, kind, over) in enumerate(_queries()):
        out.append((planted_name(year, i), kind, over))
    return out


PLANTED = _planted()
# feature values (oid, name, fid) -> value in the current feature version, from the `feat` overrides
FEATURE_VALUES = {(oid, name, fid): v for oid, _, over in PLANTED for (name, fid), v in over.get("feat", {}).items()}
CHIPSF = {"ZTF20abfcszi": [1.2, 2.99, 3.0, 4.5, 0.8, 6.0, 2.0], "ZTF21aaqwjlz": [3.5, 1.1, 3.0, 2.5, 7.0]}
DUBIOUS_G = {"ZTF20adadshh": 0, "ZTF21aaabvit": 0, "ZTF21aaabvjk": 2}
PROCSTATUS = {"ZTF22abpxoyy": ["0", "0", "57", "0", "56"], "ZTF23aatekmu": ["0", "57", "0", "0", "56", "0"]}
CLASSTAR_FIRST = {oid: over["classtar_first"] for oid, _, over in PLANTED if "classtar_first" in over}
CATALOG_NAMES = {PLANTED[-2][0]: "J175005.63-141341.8", PLANTED[-1][0]: "J072933.88+030810.4"}
# unlinked AllWISE sources: (ra, dec) near the two positions of the 5"/10" cone question, inside and outside
ALLWISE_NEAR = [
    (132.961, 41.397 + 2.0 / 3600),
    (132.961 + 3.0 / 3600 / np.cos(np.radians(41.397)), 41.397),
    (132.961, 41.397 + 7.0 / 3600),
    (139.01, 41.5653 - 6.0 / 3600),
    (139.01, 41.5653 + 12.0 / 3600),
]
