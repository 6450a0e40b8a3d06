"""The local TAP service: GAVO DaCHS publishing the embedded database, for tests and offline ADQL."""
