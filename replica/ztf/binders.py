"""How a value grounding chose for a ZTF table reference binds to an entity: its spec where the generator derives it
(ndet is the detection count, first/last MJD are the detection extremes), a patch of the generated rows elsewhere.

Each binder takes (entity, table, values, state); ``state`` gathers what several references of one entity tell
together (an MJD hint, features asked for, bands needed). ``replica.ztf.tables.TABLES`` names each table's binder.
"""

from replica.ztf import vocab

__all__ = [
    "bind_allwise",
    "bind_detection",
    "bind_feature",
    "bind_gaia",
    "bind_magstat",
    "bind_object",
    "bind_per_row",
    "bind_ps1",
    "bind_ss",
    "bind_xmatch",
    "patch_all",
]

_FEATURE_FIDS = {name: [f for n, f in vocab.FEATURE_KEYS if n == name] for name, _ in vocab.FEATURE_KEYS}
_SS_COLUMNS = ("ssnamenr", "ssdistnr", "ssmagnr")
_OBJECT_SPEC = {"firstmjd": "firstmjd", "lastmjd": "_lastmjd", "meanra": "ra", "meandec": "dec"}  # column -> spec key


def patch_all(entity, table: str, values: dict, state: dict) -> None:
    _patch(entity, table, _rest(values))


def _rest(values: dict, *drop: str) -> dict:
    """The values to patch: all but ``drop`` and the grounding's internal ``_`` keys."""
    return {column: value for column, value in values.items() if column not in drop and not column.startswith("_")}


def _to_spec(entity, values: dict, spec_keys: dict[str, str]) -> dict:
    """Set the spec key of each numeric value of a ``spec_keys`` column; return the values left to patch."""
    numbers = {k: v for k, v in values.items() if k in spec_keys and isinstance(v, int | float)}
    for column, value in numbers.items():
        entity.spec[spec_keys[column]] = float(value)
    return _rest(values, *numbers)


def _patch(entity, table: str, columns: dict) -> None:
    if columns:
        entity.patches.append((table, {}, columns))


def bind_object(entity, table: str, values: dict, state: dict) -> None:
    spec, rest = entity.spec, {}
    for column, value in values.items():
        if column in _OBJECT_SPEC:
            spec[_OBJECT_SPEC[column]] = float(value)
        elif column == "ndet":
            spec["_ndet"] = max(1, int(value))
        elif column == "deltajd":
            spec["span"] = max(0.0, float(value))
        elif column == "_span":
            if value:
                spec["span"] = value
        elif column in ("corrected", "stellar") and isinstance(value, bool):
            spec["distnr"] = 0.3 if (value or column == "stellar") else 2.5
            if column == "stellar":
                spec.update(distpsnr1=0.4 if value else 3.0, sgscore1=0.9 if value else 0.1)
        elif column == "reference_change" and isinstance(value, bool):
            spec["ref_change"] = value
        else:
            rest[column] = value
    _patch(entity, table, rest)


def bind_magstat(entity, table: str, values: dict, state: dict) -> None:
    spec = entity.spec
    fid = values.get("fid")
    fids = [int(fid)] if isinstance(fid, int | float) and fid in (1, 2) else [1, 2]
    rest = {}
    for column, value in values.items():
        if column == "fid":
            continue
        if column == "dmdt_first" and isinstance(value, int | float):
            for f in fids:
                spec[f"dmdt{f}"] = float(value)
        elif column == "ndet" and isinstance(value, int | float):
            spec["_ndet_g" if fids == [1] else "_ndet_r"] = max(1, int(value))
        elif column == "_span":
            if value:
                spec["span"] = max(spec.get("span", 0.0), value)
        elif column == "corrected" and isinstance(value, bool):
            spec["distnr"] = 0.3 if value else 2.5
        else:
            rest[column] = value
    state["band"].update(fids)
    if rest:
        entity.patches.append(("magstat", {"fid": fids[0]} if len(fids) == 1 else {}, rest))


def bind_feature(entity, table: str, values: dict, state: dict) -> None:
    state["features"] = True
    version = values.get("version")
    version = version if version in vocab.FEATURE_VERSIONS else vocab.FEATURE_VERSIONS[0]
    if version != vocab.FEATURE_VERSIONS[0]:
        entity.spec["feat_old"] = True
    name = values.get("name")
    if not isinstance(name, str) or name not in _FEATURE_FIDS:
        return
    fid = values.get("fid")
    fids = _FEATURE_FIDS[name]
    fid = int(fid) if isinstance(fid, int | float) and int(fid) in fids else fids[0]
    if isinstance(values.get("value"), int | float):
        entity.patches.append(("feature", {"name": name, "fid": fid, "version": version}, {"value": values["value"]}))


def bind_detection(entity, table: str, values: dict, state: dict) -> None:
    fid = values.get("fid")
    fid = int(fid) if isinstance(fid, int | float) and fid in (1, 2, 3) else None
    if fid in (1, 2):
        state["band"].add(fid)
    rest = _rest(values, "fid")
    if isinstance(rest.get("mjd"), int | float):
        state["mjd_hint"] = float(rest.pop("mjd"))
    if isinstance(rest.get("magpsf"), int | float):
        magpsf = float(rest.pop("magpsf"))
        entity.spec.update(mag_lo=magpsf - 0.4, mag_hi=magpsf + 0.2, color=0.0)
    _alternate(entity, table, {"fid": fid} if fid else {}, rest, values)


def bind_per_row(entity, table: str, values: dict, state: dict) -> None:
    if table == "forced_photometry":
        entity.spec["forced"] = True
    fid = values.get("fid")
    filt = {"fid": int(fid)} if isinstance(fid, int | float) and table != "dataquality" else {}
    rest = _rest(values, "fid")
    if table == "forced_photometry" and isinstance(rest.get("mjd"), int | float):
        state["mjd_hint"] = float(rest.pop("mjd"))
    _alternate(entity, table, filt, rest, values)


def _alternate(entity, table: str, row_filter: dict, rest: dict, values: dict) -> None:
    """The rows ``row_filter`` selects take ``rest``; with ``_violate`` values, every other row takes those instead."""
    if rest:
        violate = {k: v for k, v in values.get("_violate", {}).items() if k in rest}
        entity.alternating.append((table, row_filter, rest, violate))


def bind_ps1(entity, table: str, values: dict, state: dict) -> None:
    entity.spec["ps1_both"] = True
    state["band"].update((1, 2))
    _patch(entity, table, _to_spec(entity, values, {"sgscore1": "sgscore1", "distpsnr1": "distpsnr1"}))


def bind_gaia(entity, table: str, values: dict, state: dict) -> None:
    entity.spec["has_gaia"] = True
    rest = _rest(values)
    if isinstance(rest.get("unique1"), bool):
        entity.spec["gaia_unique1"] = rest.pop("unique1")
    _patch(entity, table, rest)


def bind_ss(entity, table: str, values: dict, state: dict) -> None:
    spec = entity.spec
    for column in _SS_COLUMNS:
        if values.get(column) is not None:
            spec[column] = str(values[column]) if column == "ssnamenr" else float(values[column])
    name = spec.get("ssnamenr")
    if name == "null":
        spec.update(ssdistnr=-999.0, ssmagnr=-999.0)
    elif name or "ssdistnr" in spec or "ssmagnr" in spec:
        # a named solar-system body near the object: an asteroid detection
        spec.setdefault("kind", "asteroid")
        spec.setdefault("ssdistnr", 1.0)
        spec.setdefault("ssmagnr", 18.5)
        spec.setdefault("ssnamenr", str(100000 + round(spec["ssdistnr"] * 7919 + spec["ssmagnr"] * 104729) % 500000))
    _patch(entity, table, _rest(values, *_SS_COLUMNS))


def bind_xmatch(entity, table: str, values: dict, state: dict) -> None:
    _cross_matched(entity, table, _rest(values, "catid"))


def bind_allwise(entity, table: str, values: dict, state: dict) -> None:
    _cross_matched(entity, table, _to_spec(entity, values, {"w1mpro": "w1mpro", "w2mpro": "_w2mpro"}))


def _cross_matched(entity, table: str, rest: dict) -> None:
    """The object has a cross-match: a named oid_catalog goes to its xmatch row, the other values to the table."""
    entity.spec["has_xmatch"] = True
    if "oid_catalog" in rest:
        entity.patches.append(("xmatch_catalog", {}, {"oid_catalog": rest.pop("oid_catalog")}))
    _patch(entity, table, rest)
