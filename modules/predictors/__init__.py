"""How every stage builds and calls its predictor: building it (`predictor`), calling it without letting bad output
crash the run (`stage_call`), reading SQL from its answer (`extract_sql`), and the prompt adapters (`adapter`,
`compact_chat_adapter`, `prefix_cache_adapter`)."""
