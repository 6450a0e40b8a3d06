"""A shared artifact may change prompts and demos and nothing else (red team round 4, finding 1)."""

import json

import dspy
import pytest

from modules import AlerceText2SQL
from modules.artifacts.load import PROGRAM_FILE, load_artifact, signature_hash
from modules.errors import ArtifactRefused
from modules.generation.demo_retriever import DemoRetriever
from optimizers.saving import save_artifact

CODE_HASH = signature_hash(AlerceText2SQL())
STAGE = "generation.direct"


@pytest.fixture
def artifact(tmp_path):
    program = AlerceText2SQL()
    program.generation.direct.demos = [dspy.Example(question="Objects with many detections", sql="SELECT oid FROM t")]
    examples = [dspy.Example(question=q, gold_sql=f"SELECT {i}") for i, q in enumerate(["count SNIa", "light curve"])]
    program.demo_retriever = DemoRetriever.fit(examples, k=1)
    return save_artifact(program, tmp_path / "art", {"model": "fake/m", "signature_hash": CODE_HASH})


def tamper(folder, change):
    file = folder / PROGRAM_FILE
    state = json.loads(file.read_text())
    change(state)
    file.write_text(json.dumps(state))
    return file


ATTACKS = {
    "per-call LM options": (lambda s: s[STAGE].update(config={"api_base": "http://127.0.0.1:9/v1"}), f"{STAGE}.config"),
    "an LM with its endpoint": (
        lambda s: s[STAGE].update(lm={"model": "openai/x", "api_base": "http://127.0.0.1:9/v1"}),
        f"{STAGE}.lm",
    ),
    "an attribute DSPy would copy": (lambda s: s[STAGE].update(callbacks=["x"]), f"{STAGE}.callbacks"),
    "a field option beside the prompt": (
        lambda s: s[STAGE]["signature"]["fields"][0].update(api_base="http://x"),
        f"{STAGE}.signature.fields[0].api_base",
    ),
    "a nested object inside a demo": (
        lambda s: s[STAGE]["demos"][0].update(sql={"api_base": "http://x"}),
        f"{STAGE}.demos[0].sql",
    ),
    "an unknown top-level entry": (lambda s: s.update(lm_settings={"api_key": "k"}), "lm_settings"),
    "an unknown retriever key": (lambda s: s["demo_retriever"].update(config={}), "demo_retriever.config"),
    "a retriever vocabulary pointing outside its idf": (
        lambda s: s["demo_retriever"]["vocabulary"].update(zzz=10**6),
        "demo_retriever.vocabulary",
    ),
    "a retriever example that is not text": (
        lambda s: s["demo_retriever"]["examples"][0].update(sql=7),
        "demo_retriever.examples[0].sql",
    ),
    "a malformed retriever": (lambda s: s.update(demo_retriever=[1, 2]), "demo_retriever"),
}


@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_field_outside_the_allow_list_is_refused_by_name(artifact, attack):
    change, field = ATTACKS[attack]
    file = tamper(artifact, change)
    program = AlerceText2SQL()
    with pytest.raises(ArtifactRefused) as refused:
        load_artifact(program, file)
    assert refused.value.field == field
    assert field in str(refused.value) and "\n" not in str(refused.value)
    assert "api_base" not in program.generation.direct.config
    assert program.generation.direct.demos == []


def test_a_clean_artifact_still_loads_its_demos(artifact):
    program = AlerceText2SQL()
    load_artifact(program, artifact)
    assert program.generation.direct.demos[0]["sql"] == "SELECT oid FROM t"
    assert program.demo_retriever.k == 1


def test_a_deeply_nested_program_is_one_clear_error(artifact):
    from modules.errors import ArtifactNotFound

    (artifact / PROGRAM_FILE).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ArtifactNotFound, match="Cannot read"):
        load_artifact(AlerceText2SQL(), artifact)
