"""The embedded PostgreSQL server's default TCP port (a leaf: the command line shows it without importing psycopg)."""

DEFAULT_PORT = 54329
