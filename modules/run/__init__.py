"""What the stages share while the program answers one question: the knowledge input (`knowledge`, `follow_up`), the
served part of the catalog (`served_catalog`), running SQL with repairs (`execution`), the records of stage failures
and check findings (`failures`, `findings`), and the per-question bookkeeping (`record`)."""
