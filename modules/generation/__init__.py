"""The generation stage (`stage`): SQL written directly or after a plan, and the demos it is shown (`demo_retriever`,
masked question similarity)."""
