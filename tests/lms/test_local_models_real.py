"""The real local models load and generate (opt in: pytest -m local_model)."""

from __future__ import annotations

import pytest
from dspy.lm15 import Config, Message, Request

from lms import LOCAL_MODELS, LlamaSettings, build_engine


@pytest.mark.local_model
@pytest.mark.parametrize("name", sorted(LOCAL_MODELS))
def test_local_model_generates_a_few_tokens(name):
    engine = build_engine(name, settings=LlamaSettings(n_ctx=512))
    request = Request(
        model=f"local/{name}",
        system="Answer with one word.",
        messages=(Message.user("What colour is the sky?"),),
        config=Config(max_tokens=8, temperature=0.0),
    )
    response = engine.complete(request)
    assert response.usage.output_tokens >= 1
    assert response.finish_reason in {"stop", "length"}
