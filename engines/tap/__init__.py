"""ALeRCE's TAP service as an engine (`engine`, pyvo): where it is and what a query may cost (`settings`, light), async
jobs under a time limit (`jobs`), error kinds from the service's messages (`errors`), string arrays read back
(`csv`). The ADQL it sends comes from `engines.adql`."""
