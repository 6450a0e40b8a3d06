"""The result check stage (`stage`): deterministic checks of an executed result against the question (`findings`)."""
