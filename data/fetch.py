"""Download the benchmark's two splits from the paper's public repository, pinned to one commit."""

import hashlib
import logging
import urllib.error
import urllib.request
from pathlib import Path

from data.errors import ChecksumError, DataError, FetchError
from data.loader import default_data_dir
from defaults.time_limits import DATASET_DOWNLOAD_S
from fileio import write_atomic

__all__ = ["BASE_URL", "FILES", "SUMS_FILE", "fetch_dataset"]

logger = logging.getLogger(__name__)

BASE_URL = "https://raw.githubusercontent.com/jespejom/alerce_T2S/81d8d25/llm/data/"
"""The paper's data folder at commit 81d8d25."""
FILES = {
    "txt2sql_alerce_train_v4_0.csv": "18a596b50662cdcebaa2e540632d64803b271001d25eb9a68b44182f3cc9bb05",
    "txt2sql_alerce_test_v4_0.csv": None,
}
"""File name -> known sha256 (None: unknown, recorded on first download and checked afterwards)."""
SUMS_FILE = "SHA256SUMS"


def _read_sums(dest: Path) -> dict[str, str]:
    """Read ``SHA256SUMS`` (``sha256sum`` format) from ``dest``, if present."""
    path = dest / SUMS_FILE
    if not path.is_file():
        return {}
    sums = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.strip().partition("  ")
        if digest and name:
            sums[name] = digest
    return sums


def _download(url: str, timeout_s: float) -> bytes:
    """Return the bytes at ``url``; raise FetchError on any network or HTTP failure."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise FetchError(
            f"Cannot download {url}: {reason}. Check the network connection, or download the file by hand and "
            "pass its folder with --dataset PATH.",
            url,
        ) from err


def _fetch_file(name: str, dest: Path, expected: str | None, *, base_url: str, timeout_s: float) -> str:
    """Make sure ``dest/name`` holds the expected file; download it if needed. Return its sha256."""
    target = dest / name
    if target.is_file() and expected is not None:
        if hashlib.sha256(target.read_bytes()).hexdigest() == expected:
            logger.info("%s is already present and verified", target)
            return expected
    url = base_url + name
    logger.info("downloading %s", url)
    content = _download(url, timeout_s)
    actual = hashlib.sha256(content).hexdigest()
    if expected is not None and actual != expected:
        raise ChecksumError(
            f"{url} has sha256 {actual}, expected {expected}; the file was not saved. "
            f"Check the URL, or delete {dest / SUMS_FILE} if it recorded a wrong checksum.",
            url,
            expected,
            actual,
        )
    write_atomic(target, content)
    if expected is None:
        logger.warning(
            "%s has no published checksum: recorded sha256 %s in %s, unverified (later fetches are checked against it)",
            name,
            actual,
            dest / SUMS_FILE,
        )
    return actual


def fetch_dataset(
    dest: str | Path | None = None, *, base_url: str = BASE_URL, timeout_s: float = DATASET_DOWNLOAD_S
) -> Path:
    """Download both benchmark splits into ``dest``, verify them, and record their checksums in ``SHA256SUMS``.

    Files already present with the expected checksum are kept. A file without a published checksum (the test
    split) is accepted on first download and its sha256 recorded; later fetches must match the record.

    Args:
        dest: Target folder (created if missing); default: the user cache folder read by ``resolve_dataset_path``.
        base_url: Folder URL the file names are appended to (``https://`` or ``file://``).
        timeout_s: Network timeout per file.

    Returns:
        The folder holding the files.

    Raises:
        FetchError: A download failed (e.g. offline) or a checksum did not match (ChecksumError).
        DataError: The folder cannot be created or written.
    """
    dest = Path(dest).expanduser() if dest is not None else default_data_dir()
    try:
        dest.mkdir(parents=True, exist_ok=True)
        sums = _read_sums(dest)
        for name, known in FILES.items():
            expected = known or sums.get(name)
            sums[name] = _fetch_file(name, dest, expected, base_url=base_url, timeout_s=timeout_s)
            lines = "".join(f"{digest}  {file}\n" for file, digest in sorted(sums.items()))
            write_atomic(dest / SUMS_FILE, lines.encode("utf-8"))
    except PermissionError as err:
        raise DataError(f"Cannot write to '{dest}': {err.strerror}. Choose another folder with --dest DIR.") from err
    return dest
