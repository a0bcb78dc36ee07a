"""Rubric criteria: deterministic checks of a task's final state and answer.

The kinds (``record_created``, ``field_updated``, ``record_deleted``, ``record_unchanged``,
``collection_untouched``, ``answer_contains``) round-trip through JSON with
``to_dict``/``from_dict``; ``evaluate`` gives per-criterion results and ``completion`` whether
all pass.
"""

from library.rubric.criteria import (
    REGISTRY,
    AnswerContains,
    CollectionUntouched,
    Criterion,
    FieldUpdated,
    RecordCreated,
    RecordDeleted,
    RecordUnchanged,
    States,
    from_dict,
    register,
)
from library.rubric.evaluate import completion, dump_criteria, evaluate, load_criteria
from library.rubric.values import mentions, normalize, same

__all__ = [
    "REGISTRY",
    "AnswerContains",
    "CollectionUntouched",
    "Criterion",
    "FieldUpdated",
    "RecordCreated",
    "RecordDeleted",
    "RecordUnchanged",
    "States",
    "completion",
    "dump_criteria",
    "evaluate",
    "from_dict",
    "load_criteria",
    "mentions",
    "normalize",
    "register",
    "same",
]
