"""Target lists from Python: run_sql and crossmatch on PostgreSQL, ask with the list in the stages' schema."""

import pandas as pd
import pytest

import answering
from answering import AnsweringError, load
from engines import EngineSettings
from lms.fake import EXPLANATION, fake_lm, render_answer
from modules.settings import ProgramSettings

MATCHED_SQL = "SELECT m.objectid, o.ndet FROM mylist m JOIN object o ON o.oid = m.objectid ORDER BY m.objectid"


@pytest.fixture(scope="module")
def known(tiny_dsn):
    """Two objects of the tiny database with their positions."""
    answer = answering.run_sql(
        "SELECT oid, meanra, meandec, ndet FROM object ORDER BY oid LIMIT 2", engine=EngineSettings(dsn=tiny_dsn)
    )
    return answer.frame


def positions_csv(known) -> bytes:
    """The two objects moved by 0.5 arcsec in Dec, and a position far from any object."""
    lines = ["name,ra,dec"]
    lines += [f"t{i},{row.meanra},{row.meandec + 0.5 / 3600}" for i, row in enumerate(known.itertuples())]
    lines.append("far,0.001,-89.99")
    return "\n".join(lines).encode()


def test_crossmatch_finds_each_object_within_the_radius(tiny_dsn, known, tmp_path):
    path = tmp_path / "targets.csv"
    path.write_bytes(positions_csv(known))
    answer = answering.crossmatch(path, radius_arcsec=2, engine=EngineSettings(dsn=tiny_dsn))
    assert answer.error is None, answer.error
    matched = answer.frame.sort_values("name")
    assert list(matched["name"]) == ["t0", "t1"] and list(matched["oid"]) == list(known["oid"])
    assert matched["dist_arcsec"].between(0.45, 0.55).all()
    assert str(answer.table["dist_arcsec"].unit) in ("None", "") or answer.table["dist_arcsec"].unit is None
    assert str(answer.table["meanra"].unit) == "deg"
    tight = answering.crossmatch(path, radius_arcsec=0.2, engine=EngineSettings(dsn=tiny_dsn))
    assert tight.error is None and len(tight.frame) == 0, "0.2 arcsec is inside the 0.5 arcsec offsets"


def test_run_sql_joins_an_id_list_named_mylist_or_tap_upload(tiny_dsn, known):
    ids = pd.DataFrame({"oid": [known["oid"][1], "ZTF00nothere"]})
    for sql in (MATCHED_SQL, MATCHED_SQL.replace("FROM mylist", "FROM tap_upload.mylist")):
        answer = answering.run_sql(sql, targets=ids, engine=EngineSettings(dsn=tiny_dsn))
        assert answer.frame.to_dict("list") == {"objectid": [known["oid"][1]], "ndet": [known["ndet"][1]]}


def test_the_list_is_read_only_and_gone_after_the_statement(tiny_dsn, known):
    engine = EngineSettings(dsn=tiny_dsn)
    ids = pd.DataFrame({"objectid": ["ZTF1"]})
    refused = answering.run_sql("DELETE FROM mylist", targets=ids, engine=engine)
    assert refused.error_kind == "refused"
    after = answering.run_sql("SELECT * FROM mylist", engine=engine)
    assert after.frame is None and "mylist" in after.error


def test_bad_lists_and_radii_are_one_line(tiny_dsn):
    with pytest.raises(AnsweringError, match="no position columns"):
        answering.run_sql("SELECT 1", targets=b"mag\n19\n", engine=EngineSettings(dsn=tiny_dsn))
    with pytest.raises(AnsweringError, match="radius is in arcsec"):
        answering.crossmatch(b"ra,dec\n1,2\n", radius_arcsec=0)
    with pytest.raises(AnsweringError, match="no positions"):
        answering.crossmatch(b"objectid\nZTF1\n", radius_arcsec=1)


def test_ask_shows_the_list_to_the_stages_and_sends_it_with_the_sql(tiny_dsn, known):
    seen = []

    def answer(call):
        seen.append(call)
        fields = {
            "tables": {"tables": ["object", "mylist"]},
            "columns": {"columns": {"object": ["oid", "ndet"], "mylist": ["objectid"]}},
            "difficulty": {"difficulty": "simple"},
            "explanation": EXPLANATION,
        }
        return render_answer(fields.get(call.stage, {"sql": MATCHED_SQL}))

    where = {"program": ProgramSettings(uncompiled=True), "engine": EngineSettings(dsn=tiny_dsn)}
    with load("fake/scripted", lm=fake_lm(answer), **where) as t2s:
        unlisted = t2s.ask("How many detections do my targets have?")
        answered = t2s.ask("How many detections do my targets have?", targets=pd.DataFrame({"oid": known["oid"]}))
        again = t2s.ask("How many detections do my targets have?")
    assert answered.error is None, answered.error
    assert answered.frame.to_dict("list") == {"objectid": list(known["oid"]), "ndet": list(known["ndet"])}
    schemas = [call.inputs["schema_text"] for call in seen if call.stage in ("direct", "planned")]
    assert ["mylist" in schema for schema in schemas] == [False, True, False], "each question sees its own list"
    assert "objectid" in schemas[1]
    assert unlisted.frame is None and again.frame is None, "without targets there is no mylist"


def test_ask_command_takes_a_targets_file(capsys, monkeypatch, tiny_dsn, known, tmp_path):
    import lms
    from answering.cli import main
    from tests.answering.scripts import scripted_lm

    monkeypatch.setattr(lms, "resolve_lm", lambda model=None, **settings: scripted_lm(MATCHED_SQL))
    path = tmp_path / "ids.csv"
    path.write_text(f"objectid\n{known['oid'][0]}\n")
    argv = ["Which of my targets?", "--model", "fake/scripted", "--dsn", tiny_dsn, "--format", "csv"]
    assert main([*argv, "--targets", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == ["objectid,ndet", f"{known['oid'][0]},{known['ndet'][0]}"]
    path.write_bytes(b"\x00\x01binary")
    assert main([*argv, "--targets", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err == "error: the target list is neither CSV nor VOTable (it is empty or binary)\n"
    assert main([*argv, "--targets", str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err.startswith("error: cannot read the target list ")


def test_text_values_come_back_exactly(tiny_dsn):
    names = ["a'); DELETE FROM object; --", "back\\slash\\", "ünï 'q'"]
    ids = pd.DataFrame({"objectid": names})
    answer = answering.run_sql("SELECT objectid FROM mylist", targets=ids, engine=EngineSettings(dsn=tiny_dsn))
    assert answer.frame["objectid"].tolist() == names


def test_a_follow_up_keeps_the_list_and_run_sql_answers_carry_it(tiny_dsn, known):
    sqls = iter([MATCHED_SQL, MATCHED_SQL.replace("ORDER BY", "WHERE o.ndet > 0 ORDER BY")])
    where = {"program": ProgramSettings(uncompiled=True), "engine": EngineSettings(dsn=tiny_dsn)}
    ids = pd.DataFrame({"objectid": known["oid"]})

    def answer(call):
        fields = {"tables": {"tables": ["object", "mylist"]}, "difficulty": {"difficulty": "simple"}}
        if call.stage in ("direct", "planned"):
            return render_answer({"sql": next(sqls)})
        return render_answer((fields | {"explanation": EXPLANATION}).get(call.stage, {}))

    with load("fake/scripted", lm=fake_lm(answer), **where) as t2s:
        first = t2s.ask("Which of my targets?", targets=ids)
        second = t2s.ask("Only those with detections", follows=first)
    assert first.targets is not None and second.targets is first.targets
    assert second.error is None and second.frame["objectid"].tolist() == list(known["oid"])
    ran = answering.run_sql("SELECT count(*) AS n FROM mylist", targets=ids, engine=EngineSettings(dsn=tiny_dsn))
    assert ran.targets.rows == tuple((oid,) for oid in known["oid"]) and ran.frame["n"].tolist() == [len(known)]
