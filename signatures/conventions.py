"""ALeRCE and PostgreSQL conventions shared by the SQL-writing prompts (one source, pasted into docstrings)."""

__all__ = ["SQL_RULES"]

SQL_RULES = """\
ALeRCE rules (PostgreSQL, ZTF data, unqualified table names):
- "Classified as" or "most likely class" means probability.ranking = 1; drop the ranking filter when all \
probabilities or rankings are asked for.
- Use classifier_name = 'lc_classifier' unless another classifier is named. Class names, exact spelling:
  lc_classifier: SNIa, SNIbc, SNII, SLSN, QSO, AGN, Blazar, CV/Nova, YSO, LPV, E, DSCT, RRL, CEP, Periodic-Other;
  lc_classifier_top: Transient, Stochastic, Periodic; lc_classifier_transient: SNIa, SNIbc, SNII, SLSN;
  lc_classifier_stochastic: QSO, AGN, Blazar, CV/Nova, YSO; lc_classifier_periodic: LPV, E, DSCT, RRL, CEP, \
Periodic-Other;
  stamp_classifier: SN, AGN, VS, asteroid, bogus.
- Supernovae (SNe) with lc_classifier: class_name IN ('SNIa', 'SNIbc', 'SNII', 'SLSN').
- fid 1 = g band, fid 2 = r band; in feature, fid 0 = band-independent and 12 = multiband.
- Times are MJD days; take dates from the knowledge. A fainter source has a larger magnitude.
- feature is long format (oid, name, fid, version, value): one sub-query per feature name, combined on oid.
- Positions and radii are degrees (1 arcsec = 1/3600 deg). Cone search: q3c_radial_query(ra, dec, ra0, dec0, r) \
with the table's columns first (object: meanra, meandec). A list of positions: WITH c(id, ra, dec) AS (VALUES ...) \
and q3c_join(c.ra, c.dec, o.meanra, o.meandec, r). q3c_dist(ra1, dec1, ra2, dec2) is in degrees.
- Return the columns asked for under their source names (alias only when a name is given), including oid.
- Use only tables and columns of the schema."""
