"""Build-time parts of the documentation site (``make docs``): numbers from benchmark results, pages generated
from the code (commands, HTTP API, MCP tools), notebooks as pages, and the checks that keep the site whole."""
