"""PostgreSQL to ADQL (`translation`, sqlglot; no TAP client): the rewrite rules (`rules`, `forms`, `names`,
`reserved`), and ADQL written by a person: its check (`guard`), rewrites for pasted queries (`pasted`), and one-line
hints for what a service refuses (`hints`)."""
