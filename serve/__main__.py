"""Entry point of ``python -m serve``: the astronomer's workbench (see serve/cli.py)."""

import os

# LiteLLM fetches its price map over the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from serve.cli import main

raise SystemExit(main())
