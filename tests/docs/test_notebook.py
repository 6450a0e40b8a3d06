"""docs/notebooks/astronomer.ipynb runs top to bottom in a Jupyter kernel (nbclient): it asks a question, uploads a
target list, cross-matches it and sends the result over SAMP to a client of astropy's hub started here."""

import nbformat
from astropy.table import Table
from nbclient import NotebookClient

from tests.answering.test_samp import hub, receiver  # noqa: F401 - a SAMP hub and a receiving client
from tests.conftest import REPO_DIR
from tests.docs.notebook_lm import LISTED_SQL, TOP_SQL

NOTEBOOK = REPO_DIR / "docs" / "notebooks" / "astronomer.ipynb"
PARAMETERS = 'MODEL = "fake/notebook"\nfrom tests.docs.notebook_lm import notebook_lm\nlm = notebook_lm()'


def test_the_notebook_asks_crossmatches_and_sends_over_samp(tiny_dsn, receiver, tmp_path, monkeypatch):  # noqa: F811
    received, arrived = receiver
    monkeypatch.setenv("ALERCE_DSN", tiny_dsn)
    monkeypatch.setenv("PYTHONPATH", str(REPO_DIR))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert not any(
        line.lstrip().startswith(("!pip", "%pip", "!conda")) for c in notebook.cells for line in c.source.splitlines()
    ), "installs nothing"
    parameters = next(cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", []))
    parameters.source = PARAMETERS
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [cell.outputs for cell in notebook.cells if cell.cell_type == "code"]
    assert not [output for cell in outputs for output in cell if output.output_type == "error"]
    printed = "".join(output.get("text", "") for cell in outputs for output in cell if output.output_type == "stream")
    assert TOP_SQL in printed and LISTED_SQL in printed
    assert "q3c_join(t.ra, t.dec, o.meanra, o.meandec, 2 / 3600.0)" in printed
    about = next(cell for cell in notebook.cells if cell.source.startswith("about = "))
    shown = next(output for output in about.outputs if output.output_type == "execute_result")["data"]["text/plain"]
    assert "target 0" in shown and "target 4" in shown, "the question about the list was answered from it"
    targets = Table.read(tmp_path / "targets.csv", format="ascii.csv")
    assert len(targets) == 5
    assert arrived.wait(10), "the SAMP client got no table"
    ((_, sent),) = received
    assert sorted(sent["name"]) == sorted(targets["name"]), "each target matched its object 1 arcsec away"
    assert all(0.9 < distance < 1.1 for distance in sent["dist_arcsec"])
    assert sent["meanra"].meta["ucd"].startswith("pos.eq.ra") and str(sent["meandec"].unit) == "deg"
