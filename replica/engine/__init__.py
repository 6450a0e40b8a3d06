"""The replica engine every catalog's recipe runs on: the build loop, the loader, shared draws and grounding."""
