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


def expanded(names: list[str]) -> list[str]:
    """The names with each numbered run written out ("Harmonics_mag_1…3" is Harmonics_mag_1, _2 and _3)."""
    out = []
    for name in names:
        run = re.fullmatch(r"(.+_)(\d+)…(\d+)", name)
        out += [f"{run[1]}{k}" for k in range(int(run[2]), int(run[3]) + 1)] if run else [name]
    return out


def test_feature_names_are_the_documented_list(alerce_docs_dir):
    groups = documented_groups((alerce_docs_dir / "DATABASE.md").read_text(encoding="utf-8"))
    band = expanded(groups["1 and 2"])
    feature_names = load_catalog("ztf").feature_names
    assert {fid: list(names) for fid, names in feature_names.items()} == {
        0: expanded(groups["0"]),
        12: expanded(groups["12"]),
        1: band,
        2: band,
    }
    assert list(feature_names) == [0, 12, 1, 2]  # the order of the generated feature rows
    assert sum(len(names) for names in feature_names.values()) == 174
