"""Simple actions: the verbs the compiler maps onto a change of one record.

``send``, ``cancel``, ``approve``... move a status field to a target value; ``archive``,
``pin``, ``complete`` set a boolean flag; ``assign`` sets an assignee. An action is refused with
``failed_precondition`` when the record already is in the target state or sits in a terminal
one (a canceled order cannot be shipped), except for reopen-like verbs, whose point is to leave
one. Verbs with no such reading go to the coding-agent tier.
"""

from __future__ import annotations

from typing import Any

from library.compiler.model import ActionPlan, FieldPlan, Kind, RecordPlan
from library.ingest.infer_output import STATES_BY, TOLD_BY
from library.ingest.naming import tokens

# verb -> status values it moves to, best first (the first one the status enum has wins).
TARGETS: dict[str, tuple[str, ...]] = {
    "cancel": ("canceled", "cancelled", "void", "voided"),
    "void": ("void", "voided", "canceled", "cancelled"),
    "close": ("closed", "solved", "resolved", "completed", "done"),
    "complete": ("completed", "complete", "done", "closed"),
    "finish": ("finished", "completed", "done"),
    "end": ("ended", "completed", "finished", "closed"),
    "hangup": ("completed", "ended"),
    "archive": ("archived",),
    "unarchive": ("active", "open", "published"),
    "restore": ("active", "open"),
    "publish": ("published", "open", "live", "active"),
    "unpublish": ("draft", "unpublished"),
    "send": ("sent", "sending", "scheduled"),
    "approve": ("approved", "published", "accepted", "active"),
    "reject": ("rejected", "declined"),
    "decline": ("declined", "rejected"),
    "accept": ("accepted", "approved"),
    "submit": ("submitted", "pending_approval", "pending"),
    "suspend": ("suspended", "paused", "disabled"),
    "pause": ("paused", "suspended"),
    "resume": ("active", "running", "open"),
    "activate": ("active", "enabled"),
    "reactivate": ("active", "enabled"),
    "enable": ("enabled", "active"),
    "deactivate": ("inactive", "disabled", "suspended"),
    "disable": ("disabled", "inactive", "suspended"),
    "check_in": ("checked_in",),
    "check_out": ("checked_out", "completed"),
    "refund": ("refunded",),
    "capture": ("succeeded", "captured", "paid"),
    "unsubscribe": ("unsubscribed",),
    "subscribe": ("subscribed", "active"),
    "resolve": ("resolved", "solved", "closed"),
    "reopen": ("open", "reopened", "active", "new"),
    "confirm": ("confirmed",),
    "receive": ("received", "delivered"),
    "reimburse": ("reimbursed", "paid"),
    "terminate": ("terminated", "deprovisioned"),
    "dispatch": ("dispatched",),
    "post": ("posted",),
    "reverse": ("reversed",),
    "fulfill": ("fulfilled", "shipped"),
    "ship": ("shipped", "fulfilled", "in_transit"),
    "deliver": ("delivered",),
    "expire": ("expired",),
    "start": ("started", "in_progress", "active", "running"),
    "stop": ("stopped", "paused"),
    "escalate": ("escalated",),
    "retire": ("retired",),
    "return": ("returned", "in_stock", "available"),
    "hire": ("hired",),
    "lose": ("lost",),
    "mark_paid": ("paid",),
    "pay": ("paid",),
}
# verb -> (flag field names, value), for records that keep the state as a boolean.
FLAGS: dict[str, tuple[tuple[str, ...], bool]] = {
    "complete": (("completed", "done", "is_completed", "is_done"), True),
    "reopen": (("completed", "done", "is_completed", "closed", "archived"), False),
    "archive": (("archived", "is_archived"), True),
    "unarchive": (("archived", "is_archived"), False),
    "pin": (("pinned", "is_pinned"), True),
    "unpin": (("pinned", "is_pinned"), False),
    "star": (("starred", "is_starred"), True),
    "unstar": (("starred", "is_starred"), False),
    "opt_out": (("opted_out", "unsubscribed"), True),
    "opt_in": (("opted_out", "unsubscribed"), False),
    "lock": (("locked", "is_locked"), True),
    "unlock": (("locked", "is_locked"), False),
    "publish": (("published", "is_published"), True),
    "unpublish": (("published", "is_published"), False),
    "mark_read": (("read", "is_read"), True),
    "mark_unread": (("read", "is_read"), False),
    "activate": (("active", "is_active", "enabled"), True),
    "deactivate": (("active", "is_active", "enabled"), False),
    "enable": (("enabled", "active"), True),
    "disable": (("enabled", "active"), False),
    "mute": (("muted",), True),
    "unmute": (("muted",), False),
}
# Verbs that mean "change these fields": an action named so may just set the fields it names.
SETTERS = frozenset(
    {"change", "set", "move", "resize", "rename", "reschedule", "extend", "advance", "transition",
     "edit", "modify", "update", "scale", "upgrade", "downgrade", "switch", "configure",
     "replace", "patch", "put", "assign", "reassign", "adjust", "tag", "label", "rate"}
)  # fmt: skip
ASSIGN = frozenset({"assign", "reassign", "transfer", "delegate"})
# Verbs that make a new record from the one named: the reply is a message of its own.
DERIVES = frozenset({"reply", "respond", "forward"})
REPLIES = frozenset({"reply", "respond"})  # addressed back to who wrote the one named
SENDERS = ("from", "sender", "from_email", "sender_email", "from_address")
RECIPIENTS = ("to", "recipients", "to_emails", "recipient", "to_email", "to_address")
AUTHORS = ("author", "author_email", "author_id", "user_email", "posted_by")
REOPENS = frozenset(
    {"reopen", "restore", "unarchive", "resume", "reactivate", "activate", "enable", "opt_in",
     "unpin", "unstar", "unlock", "unmute", "mark_unread", "unpublish"}
)  # fmt: skip
TERMINAL = frozenset(
    {"canceled", "cancelled", "void", "voided", "closed", "completed", "done", "archived",
     "refunded", "rejected", "declined", "terminated", "deprovisioned", "expired", "lost",
     "closed_won", "closed_lost", "merged", "delivered", "reimbursed", "hired", "released",
     "deleted", "failed", "retired", "reversed", "ended", "finished", "returned"}
)  # fmt: skip
STATUS_FIELDS = ("status", "state", "stage", "phase", "lifecycle_stage")
ASSIGNEE_FIELDS = ("assignee_email", "assignee_id", "assignee", "owner_email", "owner_id", "owner")
PARTICIPLES = {"send": "sent", "pay": "paid", "hangup": "ended", "lose": "lost"}


def action_word(tool_name: str) -> str:
    """The verb of a tool name, joining two-word verbs: ``check_in_booking`` -> ``check_in``."""
    words = tokens(tool_name)
    if not words:
        return ""
    if len(words) > 1 and f"{words[0]}_{words[1]}" in {*TARGETS, *FLAGS}:
        return f"{words[0]}_{words[1]}"
    return words[0]


def is_action_word(word: str) -> bool:
    return word in TARGETS or word in FLAGS or word in ASSIGN


def status_field(record: RecordPlan) -> FieldPlan | None:
    for name in STATUS_FIELDS:
        field = record.fields.get(name)
        if field is not None and field.type.kind is Kind.ENUM:
            return field
        # free text holds any state word; a pattern, format or length may refuse them
        constrained = (
            {"pattern", "format", "maxLength", "minLength"} & set(field.type.schema)
            if field
            else set()
        )
        if field is not None and field.type.kind is Kind.STR and not constrained:
            return field
    return None


def set_by(f: FieldPlan) -> str | None:
    """The tool that sets ``f``, where ``f`` exists only because that tool is told it (a
    cancel's reason, a modification's new item ids: ingestion marks such a field), else None."""
    tool = f.type.schema.get(TOLD_BY)
    return tool if isinstance(tool, str) and tool else None


def named_states(record: RecordPlan, tool: str) -> tuple[Any, Any]:
    """(the state ``tool`` requires, the state it leads to), each None where the spec says
    none: ingestion reads them from tool names and descriptions (``cancel_pending_order``
    requires pending; "status will be changed to 'cancelled'") where no list states the
    status values, and marks them on the status (``STATES_BY``). Only values of its enum."""
    status = status_field(record)
    if status is None or status.type.kind is not Kind.ENUM:
        return None, None
    marks = status.type.schema.get(STATES_BY)
    marks = marks if isinstance(marks, dict) else {}
    found = []
    for key in ("requires", "leads"):
        states = marks.get(key)
        state = states.get(tool) if isinstance(states, dict) else None
        found.append(state if state in status.type.enum else None)
    return found[0], found[1]


def unseeded(record: RecordPlan) -> frozenset[str]:
    """Fields of ``record`` no seeded record holds: each is set by an action (``set_by``),
    and only records that action has been through hold it, yet the record has no status the
    seed can put in the state that action leads to (a free-text status, an action that moves
    to no state: a modification). Records with such a status hold it in that state (the seed
    binds it there). Required fields are always seeded."""
    status = status_field(record)
    states = (
        set(status.type.enum) if status is not None and status.type.kind is Kind.ENUM else set()
    )
    out: set[str] = set()
    for name, f in record.fields.items():
        tool = set_by(f)
        if tool is None or f.required:
            continue
        if not states & set(TARGETS.get(action_word(tool), ())):
            out.add(name)
    return frozenset(out)


def plan_action(
    word: str, record: RecordPlan, params: dict[str, FieldPlan | None]
) -> ActionPlan | None:
    """The effect of an action on its record, or None when the verb has no reading here.

    ``params`` maps the action's parameters (other than the record id) to the record field of
    the same name, if any: an ``assign`` needs one that is an assignee field.
    """
    plan = ActionPlan(word=word, reopens=word in REOPENS)
    status = status_field(record)
    if word in ASSIGN:
        for param, field in params.items():
            if field is not None and field.name in ASSIGNEE_FIELDS:
                plan.assignee = (param, field.name)
                break
    if status is not None and word in TARGETS:
        target = _pick(TARGETS[word], status)
        if target is not None:
            plan.status_field, plan.target = status.name, target
    if plan.status_field is None and word in FLAGS:
        names, value = FLAGS[word]
        for name in names:
            field = record.fields.get(name)
            if field is not None and field.type.kind is Kind.BOOL:
                plan.flag_field, plan.flag_value = name, value
                break
    if plan.assignee and status is not None and plan.status_field is None:
        target = _pick(("assigned",), status)
        if target is not None:
            plan.status_field, plan.target = status.name, target
    if status is not None:
        values = status.type.enum
        plan.blocked = tuple(v for v in values if v in TERMINAL and v != plan.target)
    plan.stamp_field = stamp_field(record, word, plan.target)
    if plan.status_field or plan.flag_field or plan.assignee:
        return plan
    return None


def _pick(candidates: tuple[str, ...], status: FieldPlan) -> Any:
    values = status.type.enum
    if not values:  # a free-text status: the first candidate reads right
        return candidates[0] if status.type.kind is Kind.STR else None
    for candidate in candidates:
        if candidate in values:
            return candidate
    return None


def stamp_field(record: RecordPlan, word: str, target: Any) -> str | None:
    """``sent_at``/``canceled_at``... when the record keeps the moment of the change."""
    stems = [str(target)] if isinstance(target, str) else []
    stems += [PARTICIPLES.get(word, ""), *TARGETS.get(word, ())]
    for stem in stems:
        field = record.fields.get(f"{stem}_at") if stem else None
        if field is not None and field.type.kind in (Kind.DATETIME, Kind.DATE):
            return field.name
    return None


def status_mapping(param_values: tuple[Any, ...], status: FieldPlan) -> dict[Any, Any]:
    """``outcome: won|lost`` onto ``stage: ...|closed_won|closed_lost``, when every value maps
    onto exactly one status."""
    out: dict[Any, Any] = {}
    for value in param_values:
        if not isinstance(value, str):
            return {}
        hits = [
            s
            for s in status.type.enum
            if isinstance(s, str)
            and (s == value or s.endswith(f"_{value}") or s.startswith(f"{value}_"))
        ]
        if len(hits) != 1:
            return {}
        out[value] = hits[0]
    return out
