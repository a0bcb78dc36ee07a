"""Rubric criteria: deterministic checks of a task's final state and answer.

The kinds (``record_created``, ``field_updated``, ``record_deleted``, ``record_unchanged``,
``collection_untouched``, ``only_requested_changes``, ``other_services_unchanged``,
``answer_contains``, ``answer_omits``) round-trip through JSON with ``to_dict``/
``from_dict``; ``evaluate`` gives per-criterion results and ``completion`` whether all
pass. ``only_requested_changes`` and ``answer_omits`` also name builders that derive those
criteria from a gold run and from answer rows.
"""

from library.rubric.criteria import (
    REGISTRY,
    VOLATILE,
    AnswerContains,
    AnswerOmits,
    CollectionUntouched,
    Criterion,
    FieldUpdated,
    OnlyRequestedChanges,
    OtherServicesUnchanged,
    RecordCreated,
    RecordDeleted,
    RecordUnchanged,
    States,
    answer_omits,
    collections_of,
    from_dict,
    only_requested_changes,
    register,
)
from library.rubric.evaluate import completion, dump_criteria, evaluate, load_criteria
from library.rubric.values import mentions, normalize, same, says

__all__ = [
    "REGISTRY",
    "VOLATILE",
    "AnswerContains",
    "AnswerOmits",
    "CollectionUntouched",
    "Criterion",
    "FieldUpdated",
    "OnlyRequestedChanges",
    "OtherServicesUnchanged",
    "RecordCreated",
    "RecordDeleted",
    "RecordUnchanged",
    "States",
    "answer_omits",
    "collections_of",
    "completion",
    "dump_criteria",
    "evaluate",
    "from_dict",
    "load_criteria",
    "mentions",
    "normalize",
    "only_requested_changes",
    "register",
    "same",
    "says",
]
