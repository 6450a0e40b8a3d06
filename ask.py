"""Entry point of ``python -m ask``: answer one question about ALeRCE data (see answering/cli.py)."""

import os

# LiteLLM fetches its price map over the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from answering.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
