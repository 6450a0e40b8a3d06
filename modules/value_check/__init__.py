"""The value check stage (`stage`): literals compared with categorical columns, checked against the values the database
holds (`vocabulary`, `lookup_codes`) and replaced when unknown (`literals`); ZTF names where oids are integers
(`ztf_name_literals`)."""
