"""The scripted LM the notebook test puts in the notebook's parameters cell: SQL about the target list when the
stages were shown one (the table mylist), else the objects with the most detections."""

from lms.fake import EXPLANATION, fake_lm, render_answer

TOP_SQL = "SELECT oid, meanra, meandec, ndet FROM object ORDER BY ndet DESC, oid LIMIT 5"
LISTED_SQL = (
    "SELECT m.name, o.oid, o.ndet FROM mylist AS m JOIN object AS o "
    "ON q3c_join(m.ra, m.dec, o.meanra, o.meandec, 2 / 3600.0) WHERE o.ndet > 1 ORDER BY m.name"
)


def notebook_lm():
    """A fake LM answering every stage; generation writes LISTED_SQL when the schema holds mylist."""

    def answer(call):
        listed = "mylist" in " ".join(call.inputs.values())
        fields = {
            "tables": {"tables": ["object", "mylist"] if listed else ["object"]},
            "columns": {"columns": {"object": ["oid", "meanra", "meandec", "ndet"]}},
            "difficulty": {"difficulty": "simple"},
            "explanation": EXPLANATION,
        }
        return render_answer(fields.get(call.stage, {"sql": LISTED_SQL if listed else TOP_SQL}))

    return fake_lm(answer)
