"""Entry point of ``python -m compile``: compile the program for one model and freeze it under artifacts/."""

import os

# LiteLLM fetches its price map over the network at import unless told to use its bundled copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from optimizers.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
