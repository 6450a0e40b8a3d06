"""The ZTF feature-name examples follow a rule a reader can check: the first two names of each fid group of ALeRCE's
feature list, in the order of DATABASE.md section 3.7 (not names picked from the benchmark's questions)."""

import re

from catalog import load_catalog


def documented_groups(text: str) -> dict[str, list[str]]:
    """fid label -> feature names, from the table under "fid mapping" of section 3.7."""
    section = text.split("### 3.7", 1)[1].split("###", 1)[0]
    groups = {}
    for fid, names in re.findall(r"^\| ([0-9a-z ]+?) \(\d+\) \| (.+?) \|$", section, re.MULTILINE):
        groups[fid] = [name.strip() for name in names.split(",")]
    return groups


def test_feature_examples_are_the_first_two_of_each_documented_group(alerce_docs_dir):
    groups = documented_groups((alerce_docs_dir / "DATABASE.md").read_text(encoding="utf-8"))
    assert list(groups) == ["0", "12", "1 and 2"]
    feature = load_catalog("ztf").table("feature")
    named = re.findall(r"'([^']+)'", feature.column("name").description.split("e.g.", 1)[1])
    assert named == [name for names in groups.values() for name in names[:2]]
    by_fid = dict(re.findall(r"(\d+)=[a-z-]+ \(e\.g\. ([^)]+)\)", feature.column("fid").description))
    assert {fid: examples.split(", ") for fid, examples in by_fid.items()} == {
        fid: groups[fid][:2] for fid in ("0", "12")
    }
