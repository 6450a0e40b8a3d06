"""Entry point of ``python -m data``."""

from data.cli import main

raise SystemExit(main())
