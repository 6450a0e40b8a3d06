"""Send a result table to TOPCAT, Aladin or any SAMP client, as a VOTable whose positions carry their UCDs.

The table is written to a file of this process's temporary folder and announced with the SAMP message
``table.load.votable`` through the running hub (TOPCAT and Aladin start one; ``$SAMP_HUB`` or ``~/.samp`` says
where it is). pyvo.samp is astropy.samp's successor (same classes; astropy 8 deprecates its own copy).
"""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path
from typing import Any

from astropy.table import Table

from answering.errors import AnsweringError
from answering.votable import write_votable

__all__ = ["TABLE_MTYPE", "send_table"]

TABLE_MTYPE = "table.load.votable"
_CLIENT_NAME = "ALeRCE text-to-SQL"


def send_table(
    table: Table, *, name: str, recipient: str | None = None, hub_params: dict[str, Any] | None = None
) -> list[str]:
    """Send `table` to every SAMP client that loads VOTables, or to the one whose name is `recipient`.

    Args:
        table: The rows, with units and UCDs (``Answer.table``).
        name: The table's name in the receiving application.
        recipient: A client's SAMP name (``topcat``, ``Aladin``; any case), or None for every one that takes tables.
        hub_params: The hub to use (default: the one ``$SAMP_HUB`` or ``~/.samp`` names).

    Returns:
        The SAMP names of the clients the table went to.

    Raises:
        AnsweringError: No hub runs, no client takes tables, or none is called `recipient`.
    """
    from pyvo.samp import SAMPHubError, SAMPIntegratedClient  # imported only to send: it starts no threads

    path = _table_file(table)
    client = SAMPIntegratedClient(name=_CLIENT_NAME, description="Sends query results as VOTables")
    try:
        client.connect(hub_params=hub_params)
    except SAMPHubError as err:
        raise AnsweringError("no SAMP hub is running; start TOPCAT or Aladin (each runs one) and send again") from err
    try:
        takers = {
            client_id: str(client.get_metadata(client_id).get("samp.name", client_id))
            for client_id in client.get_subscribed_clients(TABLE_MTYPE)
        }
        if recipient is not None:
            takers = {key: label for key, label in takers.items() if label.lower() == recipient.lower()}
        if not takers:
            wanted = f"called {recipient!r} " if recipient else ""
            raise AnsweringError(f"no SAMP client {wanted}loads tables; start TOPCAT or Aladin and send again")
        message = {
            "samp.mtype": TABLE_MTYPE,
            "samp.params": {"url": path.as_uri(), "name": name, "table-id": path.stem},
        }
        for client_id in takers:
            client.notify(client_id, message)
        return sorted(takers.values())
    finally:
        client.disconnect()


def _table_file(table: Table) -> Path:
    """Write the VOTable where the receiver can read it after this call returns (the folder outlives the call)."""
    folder = Path(tempfile.gettempdir()) / "alerce-t2s-samp"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"result-{secrets.token_hex(8)}.xml"
    write_votable(table, path)
    return path
