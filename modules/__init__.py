"""The DSPy pipeline: one module per stage, the composed `AlerceText2SQL`, and the `DirectText2SQL` baseline.

Named predictors (public API: artifact keys and optimiser targets; the same with or without `reasoning`):

    AlerceText2SQL:  schema_linking.tables, schema_linking.columns, classification.predict,
                     decomposition.predict, generation.direct, generation.planned, self_correction.predict,
                     self_correction.revise (value and result check findings), selection.choose,
                     explanation.predict
    DirectText2SQL:  generation

Both programs' `forward(question, external_knowledge="", domain_knowledge="")` return a `dspy.Prediction` with
(`AlerceText2SQL.forward` also takes `follow_up`, the earlier turn of a conversation):
    sql            final SQL ("" when no statement was produced): the selected candidate's, after its checks
    as_of          the date stage's reference date, "YYYY-MM-DD" (None when the stage is off)
    dates          one {"text", "start_mjd", "end_mjd", "kind"} per date expression of the question (the date
                   stage; [] when off), as rendered into the knowledge: start_mjd <= mjd < end_mjd, None open
    tables         tables shown to generation (the whole catalog without linking or after its fallback)
    columns        {table: [columns]} from column linking, or None (all columns shown)
    dropped_names  names the linker gave that the catalog does not know
    difficulty     "simple" | "medium" | "advanced", or None (classification off or failed)
    plan           decomposition steps ([] when not run or failed)
    attempts       one {"sql", "error_kind", "message"} per execution (error_kind None on success)
    result         the executor's result of the final SQL, or None
    error          the final `engines.errors.ExecutionError`, or None
    failures       one {"stage", "kind", "message"} per stage failure (kinds: `FailureKind`)
    usage          {stage: {"input_tokens", "output_tokens", "calls"}} for LM calls that were not cache hits
    timings_s      {stage: seconds}, summed over candidates (they run concurrently)
    candidates     one {"path", "sql", "error_kind", "rows"} per candidate (rows None when it did not run)
    selection      {"selected", "clusters", "disagree", "reasons"} (candidate indexes) when several candidates met,
                   else None; disagree: a tie, or the largest cluster below min_agreement
    alternatives   one {"sql", "rows", "difference", "candidates"} per runner-up cluster when the candidates
                   disagreed (difference: one line from the parsed SQL, `modules.selection.sql_difference`), else []
    findings       one {"stage", "kind", "message"} per value-check finding of the selected candidate and per
                   result-check finding (with "retry_accepted")
    explanation    {"summary", "conditions", "ordering", "assumptions"} on what the final SQL returns (the
                   explanation stage, after the SQL ran), or None (off, failed, or the SQL did not run)
"""

from cli.lazy_exports import lazy_exports

__all__ = [
    "OPTIONAL_STAGES",
    "STAGES",
    "AlerceText2SQL",
    "DirectText2SQL",
    "Engine",
    "FailureKind",
    "FollowUp",
    "PipelineError",
    "PipelineSettings",
    "Result",
    "StageFailure",
    "UnknownStageError",
    "format_knowledge",
    "is_absent",
]

# Imported on first use: a command's --help must not wait for the program (benchmarks/startup.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Engine": "engines.engine",
        "Result": "engines.engine",
        "AlerceText2SQL": "modules.alerce_text2sql",
        "DirectText2SQL": "modules.direct_text2sql",
        "PipelineError": "modules.errors",
        "UnknownStageError": "modules.errors",
        "FailureKind": "modules.run.failures",
        "StageFailure": "modules.run.failures",
        "FollowUp": "modules.run.follow_up",
        "format_knowledge": "modules.run.knowledge",
        "is_absent": "modules.run.knowledge",
        "PipelineSettings": "modules.settings",
        "OPTIONAL_STAGES": "modules.stages",
        "STAGES": "modules.stages",
    },
)
