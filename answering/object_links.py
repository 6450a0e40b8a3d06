"""Links out of an object's view to the services astronomers look objects up in (links only: nothing is fetched)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

__all__ = ["SEARCH_RADIUS_ARCSEC", "links_of"]

SEARCH_RADIUS_ARCSEC = 5.0
"""Radius of the position searches the links ask for."""


def links_of(
    *,
    ztf_name: str = "",
    lsst_oid: int | None = None,
    ra: float | None = None,
    dec: float | None = None,
    designation: str = "",
) -> dict[str, str]:
    """Name -> URL of the object's pages: ALeRCE's explorer by id, TNS, SIMBAD and NED by position, and JPL's
    small-body database by designation for a solar-system object.

    Examples:
        >>> links = links_of(ztf_name="ZTF20aaelulu", ra=10.5, dec=-3.25)
        >>> links["ALeRCE explorer"]
        'https://alerce.online/object/ZTF20aaelulu'
        >>> sorted(links)
        ['ALeRCE explorer', 'NED', 'SIMBAD', 'TNS']
    """
    links: dict[str, str] = {}
    if ztf_name:
        links["ALeRCE explorer"] = f"https://alerce.online/object/{quote(ztf_name)}"
    elif lsst_oid is not None:
        links["ALeRCE explorer"] = f"https://alerce.online/object/{lsst_oid}?" + urlencode({"survey": "lsst"})
    if ra is not None and dec is not None:
        radius = SEARCH_RADIUS_ARCSEC
        links["TNS"] = "https://www.wis-tns.org/search?" + urlencode(
            {"ra": f"{ra:.6f}", "decl": f"{dec:.6f}", "radius": radius, "coords_unit": "arcsec"}
        )
        links["SIMBAD"] = "https://simbad.cds.unistra.fr/simbad/sim-coo?" + urlencode(
            {"Coord": f"{ra:.6f} {dec:+.6f}", "Radius": radius, "Radius.unit": "arcsec"}
        )
        links["NED"] = "https://ned.ipac.caltech.edu/conesearch?" + urlencode(
            {"coordinates": f"{ra:.6f}d {dec:+.6f}d", "radius": f"{radius / 60:.4f}", "in_csys": "Equatorial"}
        )
    if designation:
        links["JPL small-body database"] = "https://ssd.jpl.nasa.gov/tools/sbdb_lookup.html#/?" + urlencode(
            {"sstr": designation}
        )
    return links
