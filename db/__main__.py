"""Entry point of `python -m db`."""

from db.cli import main

raise SystemExit(main())
