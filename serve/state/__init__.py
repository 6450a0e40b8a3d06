"""The workbench's state in PostgreSQL: sessions, conversations, answers, jobs and usage shared by every process.

``serve.store.AnswerStore`` keeps the same things in one process's memory (tests, ``open_workbench``); this package
keeps them in a database of their own (``db.state_database`` on the embedded server, or ``--store-dsn``), so web
processes and workers on any machine share them and a restart loses nothing.
"""
