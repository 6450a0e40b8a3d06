"""Target lists: what is read, what is refused in one line, and the literal table PostgreSQL gets."""

import re

import pandas as pd
import pytest
from astropy.table import Table

from engines.adql.translation import Upload, translate
from engines.errors import GuardError
from engines.guard import check_sql
from engines.targets import MAX_TARGET_ROWS, BadTargets, attach_targets, local_names, read_targets, uploaded


def test_reads_positions_and_ids_from_csv():
    targets = read_targets(b"Name,RA,Dec,OID\nSN 1,10.5,-3.25,ZTF20aaaaaaa\nO'Brien,350,45,\n")
    assert targets.columns == ("name", "ra", "dec", "objectid"), "oid is renamed: DaCHS cannot join it"
    assert targets.types == ("text", "double precision", "double precision", "text")
    assert targets.rows == (("SN 1", 10.5, -3.25, "ZTF20aaaaaaa"), ("O'Brien", 350.0, 45.0, None))
    assert (targets.ra, targets.dec, targets.objectid) == ("ra", "dec", "objectid")


def test_reads_a_votable_and_a_table(tmp_path):
    path = tmp_path / "list.xml"
    Table({"objectid": ["ZTF1", "ZTF2"], "n": [1, 2]}).write(path, format="votable")
    targets = read_targets(path)
    assert targets.columns == ("objectid", "n") and targets.types == ("text", "bigint")
    assert read_targets(Table({"ra": [1.0], "dec": [2.0]})).rows == ((1.0, 2.0),)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "neither CSV nor VOTable"),
        (b"<?xml version='1.0'?><VOTABLE><broken", "not a readable VOTable"),
        (b"name,mag\nx,19\n", "no position columns (ra, dec) and no object id column"),
        (b"ra,dec\n10h30m,5\n", "column ra of the target list holds '10h30m', not a number"),
        (b"ra,dec\n10,95\n", "column dec of the target list holds 95, outside"),
        (b"ra,dec\n", "no rows"),
        (b"ra,dec,bad name\n1,2,3\n", "not an SQL name"),
    ],
)
def test_bad_files_give_one_line(data, message):
    with pytest.raises(BadTargets, match=re.escape(message)) as caught:
        read_targets(data)
    assert "\n" not in str(caught.value)


def test_size_limits():
    rows = "".join(f"{i % 360},{i % 90}\n" for i in range(MAX_TARGET_ROWS + 1))
    with pytest.raises(BadTargets, match=f"at most {MAX_TARGET_ROWS}"):
        read_targets(f"ra,dec\n{rows}".encode())
    with pytest.raises(BadTargets, match="bytes"):
        read_targets(b"ra,dec\n" + b"1,2\n" * 600_000)


def test_postgres_gets_a_literal_table_the_guard_accepts():
    targets = read_targets(b"objectid,ra,dec\nZTF'1,1,2\nZTF2,3,4\n")
    with uploaded(targets):
        with_table = attach_targets(check_sql(local_names("SELECT * FROM tap_upload.mylist")))
        with_ctes = attach_targets(check_sql("WITH recursive a AS (SELECT 1) SELECT * FROM a, mylist"))
    assert with_table == (
        'WITH mylist ("objectid", "ra", "dec") AS (VALUES '
        "(E'ZTF''1'::text, 1.0::double precision, 2.0::double precision), (E'ZTF2', 3.0, 4.0)) SELECT * FROM mylist"
    )
    assert with_ctes.startswith('WITH recursive mylist ("objectid", "ra", "dec") AS (VALUES (')
    assert with_ctes.endswith("), (E'ZTF2', 3.0, 4.0)), a AS (SELECT 1) SELECT * FROM a, mylist")
    assert check_sql(with_ctes) == with_ctes
    with uploaded(read_targets(b"objectid,desc\nZTF1,x\n")):
        assert check_sql(attach_targets("SELECT m.desc FROM mylist m")).startswith('WITH mylist ("objectid", "desc")')
    assert attach_targets("SELECT 1") == "SELECT 1", "nothing uploaded outside the context"
    assert local_names("SELECT * FROM tap_upload.mylist") == "SELECT * FROM tap_upload.mylist"


def test_names_change_before_the_guard_so_it_checks_the_text_that_runs():
    with uploaded(read_targets(b"objectid\nZTF1\n")):
        hidden = 'SELECT 1 AS "tap_upload.mylist; DELETE FROM object; --"'
        assert check_sql(local_names(hidden)) == 'SELECT 1 AS "mylist; DELETE FROM object; --"', "quotes kept"
        sneaky = "SELECT 1 AS x FROM tap_upload.mylist; DELETE FROM object"
        with pytest.raises(GuardError, match="exactly one SQL statement"):
            check_sql(local_names(sneaky))


def test_text_values_cannot_leave_their_literal():
    targets = read_targets(pd.DataFrame({"objectid": ["a'); DELETE FROM object; --", "back\\slash\\"]}))
    with uploaded(targets):
        statement = attach_targets(check_sql("SELECT objectid FROM mylist"))
    assert check_sql(statement) == statement, "still one read-only SELECT"


def test_tap_gets_the_list_as_an_upload():
    targets = read_targets(b"ra,dec\n1,2\n")
    uploads = {"mylist": Upload(columns=targets.columns, rows=targets.rows)}
    sql = "SELECT o.oid FROM mylist m JOIN object o ON q3c_join(m.ra, m.dec, o.meanra, o.meandec, 2 / 3600.0)"
    translation = translate(sql, uploads=uploads)
    assert "FROM TAP_UPLOAD.mylist AS m JOIN ztf.object AS o" in translation.adql
    assert "ON 1 = CONTAINS(POINT('ICRS', o.meanra, o.meandec), CIRCLE('ICRS', m.ra, m.dec, 2 / 3600.0))" in (
        translation.adql
    )
    assert translation.uploads == uploads


def test_the_size_estimate_grows_with_the_rows():
    small, large = read_targets(b"ra,dec\n1,2\n"), read_targets(b"ra,dec\n" + b"1,2\n" * 1000)
    assert 0 < small.size_bytes() and large.size_bytes() == 1000 * small.size_bytes()
