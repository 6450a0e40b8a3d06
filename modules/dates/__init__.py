"""The date stage (`stage`, no LM): the dates and periods a question names, as MJD ranges; its single expressions
(`atoms`) and its calendar arithmetic and MJD conversions (`calendar`)."""
