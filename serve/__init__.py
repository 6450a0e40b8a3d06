"""The astronomer's workbench: a web page, an HTTP API and an MCP server over ``answering``.

Example (what ``python -m serve`` does)::

    from engines import EngineSettings
    from modules.settings import ProgramSettings
    from serve import ServeSettings, create_app, open_workbench

    settings = ServeSettings()
    bench = open_workbench("local/gemma3-270m", settings, program=ProgramSettings(), engine=EngineSettings())
    app = create_app(bench)          # an ASGI app: uvicorn.run(app, host="127.0.0.1", port=8000)
"""

from cli.lazy_exports import lazy_exports

__all__ = [
    "Record",
    "ServeSettings",
    "Workbench",
    "WorkbenchError",
    "create_app",
    "is_loopback",
    "open_workbench",
]

# Imported on first use: a command's --help must not wait for the program (benchmarks/startup.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "create_app": "serve.app",
        "WorkbenchError": "serve.errors",
        "ServeSettings": "serve.settings",
        "is_loopback": "serve.settings",
        "Record": "serve.store",
        "Workbench": "serve.workbench",
        "open_workbench": "serve.workbench",
    },
)
