"""A workbench served by uvicorn in this process, for the benchmarks that time its pages."""

import contextlib
import threading
import time

import uvicorn

from benchmarks.common import free_port
from serve import Workbench, create_app

__all__ = ["served"]


@contextlib.contextmanager
def served(bench: Workbench):
    """Serve the workbench with uvicorn on a free loopback port in a thread; yield its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(bench), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
