"""The astronomer's workbench: a web page, an HTTP API and an MCP server over ``answering``.

Example (what ``python -m serve`` does)::

    from engines import EngineSettings
    from modules.settings import ProgramSettings
    from serve import ServeSettings, create_app, open_workbench

    settings = ServeSettings()
    bench = open_workbench("local/gemma3-270m", settings, program=ProgramSettings(), engine=EngineSettings())
    app = create_app(bench)          # an ASGI app: uvicorn.run(app, host="127.0.0.1", port=8000)
"""

from serve.app import create_app
from serve.errors import WorkbenchError
from serve.settings import ServeSettings, is_loopback
from serve.store import Record
from serve.workbench import Workbench, open_workbench

__all__ = ["Record", "ServeSettings", "Workbench", "WorkbenchError", "create_app", "is_loopback", "open_workbench"]
