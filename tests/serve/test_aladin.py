"""Aladin Lite is vendored with its licence, and the hashes of what it styles inline come from the bundle itself."""

import pytest

from serve import aladin
from serve.aladin import ALADIN_PATH, AladinMissingError, aladin_style_hashes


def test_the_bundle_is_vendored_with_its_licence_and_version():
    folder = ALADIN_PATH.parent
    assert {"aladin.js", "LICENSE", "COPYING", "COPYING.LESSER", "README.md"} <= {p.name for p in folder.iterdir()}
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in (folder / "LICENSE").read_text()
    assert "version: 3.8.2" in (folder / "README.md").read_text()


def test_the_style_sheet_and_constant_style_attributes_are_hashed():
    hashes = aladin_style_hashes()
    assert len(hashes) >= 2 and all(h.startswith("'sha256-") and h.endswith("='") for h in hashes)
    assert "'sha256-wkY2X5hecQzbhnFCqvTpwrUJ1f4X8LH5WFjYUzv1wmU='" in hashes  # style="font-weight:bold"


def test_a_missing_bundle_names_the_script_that_vendors_it(monkeypatch, tmp_path):
    monkeypatch.setattr(aladin, "ALADIN_PATH", tmp_path / "aladin.js")
    aladin_style_hashes.cache_clear()
    try:
        with pytest.raises(AladinMissingError, match=r"run bash scripts/vendor_aladin_lite\.sh"):
            aladin_style_hashes()
        (tmp_path / "aladin.js").write_text("export default {};")
        with pytest.raises(AladinMissingError, match="no style sheet found in"):
            aladin_style_hashes()
    finally:
        aladin_style_hashes.cache_clear()
