"""A compiled program's artifact: loading it (`load`) once its manifest (`manifest`) and its saved predictor state
(`state`) pass their allow-lists."""
