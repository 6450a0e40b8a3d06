"""The embedded replica's data: a synthetic ALeRCE population, grounded on gold queries so that they answer."""
