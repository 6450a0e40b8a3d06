"""What the embedded server exposes and what saved files hold: loopback only, a private admin secret, no API keys."""

from __future__ import annotations

import dataclasses
import stat

import dspy
import psycopg

from db.cluster import Cluster
from modules import AlerceText2SQL
from modules.artifacts.load import MANIFEST_FILE, PROGRAM_FILE
from optimizers.saving import save_artifact
from optimizers.settings import CompileSettings

SECRET = "sk-test-secret"
MODEL = "openai/gpt-4.1-mini"


def test_server_listens_on_loopback_only(admin_dsn_tiny):
    with psycopg.connect(admin_dsn_tiny, autocommit=True) as conn:
        assert conn.execute("SHOW listen_addresses").fetchone()[0] == "127.0.0.1"


def test_admin_state_file_and_data_folder_are_private(tiny_server):
    cluster = Cluster(tiny_server.data_dir)
    assert stat.S_IMODE(cluster.state_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(cluster.data_dir.stat().st_mode) == 0o700
    assert cluster.admin_password() not in tiny_server.reader_dsn


def test_saved_artifact_holds_no_api_key(tmp_path):
    lm = dspy.LM(MODEL, api_key=SECRET)
    program = AlerceText2SQL()
    for _, predictor in program.named_predictors():
        predictor.lm = lm
    manifest = {"model": MODEL, "settings": dataclasses.asdict(CompileSettings(model=MODEL))}
    with dspy.context(lm=lm):
        folder = save_artifact(program, tmp_path / "artifact", manifest)
    files = sorted(path.name for path in folder.iterdir())
    assert {PROGRAM_FILE, MANIFEST_FILE} <= set(files)
    for path in folder.iterdir():
        assert SECRET not in path.read_text(encoding="utf-8"), path.name
    assert all(predictor.lm is lm for _, predictor in program.named_predictors())
