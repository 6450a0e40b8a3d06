"""The astronomer's workbench: a web page, an HTTP API and an MCP server over ``answering``.

Example (what ``python -m serve`` does, with a program already loaded)::

    from answering import load
    from serve import ServeSettings, Workbench, create_app

    bench = Workbench(load(), ServeSettings(), model="local/gemma3-270m")
    app = create_app(bench)          # an ASGI app: uvicorn.run(app, host="127.0.0.1", port=8000)
"""

from serve.app import create_app
from serve.errors import WorkbenchError
from serve.settings import ServeSettings, is_loopback
from serve.store import Record
from serve.workbench import Workbench

__all__ = ["Record", "ServeSettings", "Workbench", "WorkbenchError", "create_app", "is_loopback"]
