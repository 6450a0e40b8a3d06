"""Named sizes of the synthetic database."""

from dataclasses import dataclass

__all__ = ["SCALES", "Scale"]


@dataclass(frozen=True)
class Scale:
    """Size knobs of one synthetic build.

    Attributes:
        n_objects: random (non-grounded) objects.
        chunk_objects: objects generated and copied per chunk (bounds memory).
        allwise_unlinked_per_object: AllWISE sources without a ZTF match, per object.
        old_feature_fraction: share of lc-classified objects that also carry the older feature version.
        max_forced_rows: cap on forced-photometry epochs per object.
    """

    n_objects: int
    chunk_objects: int = 25_000
    allwise_unlinked_per_object: float = 0.3
    old_feature_fraction: float = 0.3
    max_forced_rows: int = 80


# Objects first seen per day stay those of the benchmark's era (data to January 2025) now that the data runs through
# June 2026 (catalog data_end): 23 % more objects than then.
SCALES = {
    "tiny": Scale(n_objects=495, chunk_objects=495, max_forced_rows=20),
    "default": Scale(n_objects=24_800),
    "large": Scale(n_objects=570_000, chunk_objects=20_000, max_forced_rows=120),
}
