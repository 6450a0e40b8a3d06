"""Entry point of ``python -m evaluate``: score predicted SQL against the benchmark (see evaluation/cli.py)."""

import os

# LiteLLM fetches its price map over the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from evaluation.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
