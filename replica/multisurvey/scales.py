"""Named sizes of the multi-survey replica."""

from dataclasses import dataclass

__all__ = ["SCALES", "Scale"]


@dataclass(frozen=True)
class Scale:
    """Size knobs of one build.

    Attributes:
        n_dia: LSST diaObjects (sid 1).
        n_ss: solar-system objects (sid 2).
        n_ztf: ZTF objects (sid 0) besides the ZTF counterparts of LSST objects.
        chunk_objects: diaObjects generated and copied per chunk (bounds memory).
        max_forced_rows: cap on forced-photometry epochs per object.
    """

    n_dia: int
    n_ss: int
    n_ztf: int
    chunk_objects: int = 1500
    max_forced_rows: int = 120


SCALES = {
    "tiny": Scale(n_dia=300, n_ss=40, n_ztf=120, chunk_objects=300, max_forced_rows=40),
    "default": Scale(n_dia=6000, n_ss=600, n_ztf=2500),
}
