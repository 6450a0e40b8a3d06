"""Every stage is found where docs/maintainer/layout.md says: ``modules/<stage>.py``, or ``modules/<stage>/stage.py``
when it has helpers of its own; only a stage's folder holds a ``stage.py``."""

from pathlib import Path

from modules.stages import STAGES

MODULES_DIR = Path(__file__).resolve().parents[2] / "modules"


def stage_home(stage: str) -> Path | None:
    """Return the file that holds ``stage``, or None when neither place (or both) has one."""
    homes = [path for path in (MODULES_DIR / f"{stage}.py", MODULES_DIR / stage / "stage.py") if path.is_file()]
    return homes[0] if len(homes) == 1 else None


def test_every_stage_has_one_home():
    assert {stage: stage_home(stage) for stage in STAGES if stage_home(stage) is None} == {}


def test_only_stage_folders_hold_a_stage_module():
    folders = {path.parent.name for path in MODULES_DIR.glob("*/stage.py")}
    assert folders <= set(STAGES)
