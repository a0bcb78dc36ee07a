"""Who a person-valued argument or field is about: its role.

A ticket's customer is not its assignee, a draft's cc is not its recipient: different roles
are different people. Roles come from names (``assignee_email`` -> ``assignee``); whether a
role belongs to our own staff or to the outside world decides where its person comes from.
"""

from __future__ import annotations

import functools
from typing import Any

from library.seed.vocab import NAME_PARTS, is_person_resource
from library.seed.vocab import role_of as field_role

PERSON_KEYS = frozenset({"email", "person_name", "phone"})
# Roles filled by a colleague (our organisation's staff), never by the customer.
STAFF_ROLES = frozenset(
    {"owner", "assignee", "approver", "manager", "recruiter", "host", "organizer", "organiser",
     "technician", "agent", "created_by", "updated_by", "uploaded_by", "admin", "sales_rep",
     "rep", "interviewer", "hiring_manager", "account_manager", "csm", "reviewer", "author",
     "assigned_to", "approved_by", "requested_by", "submitted_by", "coordinator", "handler",
     "responsible", "lead", "sales_owner", "support_agent", "engineer", "mentor", "buddy",
     "employee"}
)  # fmt: skip
# Roles that name the outside party a record is about.
EXTERNAL_ROLES = frozenset(
    {"customer", "contact", "client", "guest", "candidate", "driver", "requester", "patient",
     "buyer", "lead_contact", "billing", "shipping", "traveler", "traveller", "passenger",
     "applicant", "member", "subscriber", "vendor", "supplier", "tenant", "signer"}
)  # fmt: skip
_ALIASES = {"to": "recipient", "from": "sender", "recipients": "recipient", "emails": "email"}


@functools.cache  # field names are few and this is asked for every argument of every call
def role_of(name: str) -> str:
    """``assignee_email`` -> ``assignee``; ``to`` -> ``recipient``; ``email`` -> ``""`` (the
    record's own subject). The seed pool's reading of field names, with the mail words."""
    role = field_role(name)
    return _ALIASES.get(role, role)


@functools.cache
def is_staff_role(role: str) -> bool:
    if not role:
        return False
    return role in STAFF_ROLES or any(
        role.startswith(s + "_") or role.endswith("_" + s) for s in STAFF_ROLES
    )


# Staff roles that say who a record is about or who made it (the employee an expense is
# for, a comment's author): set once, never handed to someone else.
FIXED_STAFF_ROLES = frozenset(
    {"employee", "author", "created_by", "updated_by", "uploaded_by", "submitted_by",
     "requested_by", "approved_by"}
)  # fmt: skip


# Roles of whoever does the work a record asks for (a task's assignee, a ticket's agent).
TAKES_WORK = frozenset(
    {"assignee", "assigned_to", "handler", "responsible", "technician", "agent",
     "support_agent", "engineer"}
)  # fmt: skip


@functools.cache
def hands_over(role: str) -> bool:
    """Whether a record's person in ``role`` can be changed to someone else: the colleague
    handling it (assignee, owner, host), not whom it is about or who made it."""
    return is_staff_role(role) and role not in FIXED_STAFF_ROLES


@functools.cache
def is_external_role(role: str) -> bool:
    if not role:
        return False
    return role in EXTERNAL_ROLES or any(
        role.startswith(s + "_") or role.endswith("_" + s) for s in EXTERNAL_ROLES
    )


def names_person(name: str, key: str | None) -> bool:
    """Whether a field holds part of a person's identity (an e-mail, a phone, a name or a
    username), whatever semantic tag the spec gave it."""
    low = name.lower()
    return (
        key in PERSON_KEYS
        or low in NAME_PARTS
        or low in ("phone", "mobile", "username")
        or low.endswith(("_name", "_phone", "_mobile", "_username", "_email"))
    )


def people_fields(info: Any) -> set[str]:
    """The fields of a collection (a ``CollectionInfo``) that name who holds or handles a
    record: its assignee's e-mail, its owner's id."""
    if info is None:
        return set()
    return {
        name
        for name, meta in info.fields.items()
        if (meta.key or "") in PERSON_KEYS
        or ((meta.key or "").startswith("id:") and is_person_resource(meta.key[3:]))
    }


def present_fields(info: Any) -> list[str]:
    """The fields naming who is there for what a record books (the guest, the driver), not
    who booked it for them."""
    return sorted(f for f in people_fields(info) if not is_staff_role(role_of(f)))
