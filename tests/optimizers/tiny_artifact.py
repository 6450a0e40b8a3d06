"""Build the committed tiny artifact in tests/fixtures/tiny_artifact/ (synthetic questions, fake LM, no database).

Regenerate after a deliberate prompt change with ``python -m tests.optimizers.tiny_artifact``.
"""

from pathlib import Path

from modules import AlerceText2SQL
from modules.artifacts.load import signature_hash
from modules.generation.demo_retriever import DemoRetriever
from optimizers.saving import save_artifact
from optimizers.settings import CompileSettings
from optimizers.strategies import STRATEGIES, CompileContext, as_demo_source, split_examples
from tests.optimizers.compile_helpers import synthetic_examples

TINY_ARTIFACT_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "tiny_artifact"


def build_tiny_artifact(out_dir: Path = TINY_ARTIFACT_DIR) -> Path:
    """Compile with LabeledFewShot (k=2) and attach an MQS index (k=2) over the train split; save to ``out_dir``."""
    settings = CompileSettings(model="fake/tiny", optimizer="labeled", k=2)
    student = AlerceText2SQL()
    train, _, _ = split_examples(
        as_demo_source(synthetic_examples()), settings.train_fraction, settings.seed, selects=False
    )
    program = STRATEGIES["labeled"](student, train, [], CompileContext(settings=settings, metric=None))
    program.demo_retriever = DemoRetriever.fit(train, k=2)
    manifest = {
        "model": settings.model,
        "optimizer": settings.optimizer,
        "pipeline": {"stages": list(student.settings.stages), "max_corrections": 2, "timeout_s": None,
                     "reasoning": False},
        "adapter": "chat",
        "signature_hash": signature_hash(student),
        "dataset": {"name": "synthetic_questions.csv"},
    }  # fmt: skip
    return save_artifact(program, out_dir, manifest)


if __name__ == "__main__":
    print(build_tiny_artifact())
