"""The replica engine every catalog's recipe runs on: the build loop, the table writer, schema operations and
grounding."""
