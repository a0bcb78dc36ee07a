"""Who a person-valued argument or field is about: its role.

A ticket's customer is not its assignee, a draft's cc is not its recipient: different roles
are different people. Roles come from names (``assignee_email`` -> ``assignee``); whether a
role belongs to our own staff or to the outside world decides where its person comes from.
"""

from __future__ import annotations

from collections.abc import Iterable

PERSON_KEYS = frozenset({"email", "person_name", "phone"})
# Roles filled by a colleague (our organisation's staff), never by the customer.
STAFF_ROLES = frozenset(
    {"owner", "assignee", "approver", "manager", "recruiter", "host", "organizer", "organiser",
     "technician", "agent", "created_by", "updated_by", "uploaded_by", "admin", "sales_rep",
     "rep", "interviewer", "hiring_manager", "account_manager", "csm", "reviewer", "author",
     "assigned_to", "approved_by", "requested_by", "submitted_by", "coordinator", "handler",
     "responsible", "lead", "sales_owner", "support_agent", "engineer", "mentor", "buddy"}
)  # fmt: skip
# Roles that name the outside party a record is about.
EXTERNAL_ROLES = frozenset(
    {"customer", "contact", "client", "guest", "candidate", "driver", "requester", "patient",
     "buyer", "lead_contact", "billing", "shipping", "traveler", "traveller", "passenger",
     "applicant", "member", "subscriber", "vendor", "supplier", "tenant", "signer"}
)  # fmt: skip
# Roles whose holders must differ from each other within one call.
_SUFFIXES = ("_email", "_emails", "_name", "_names", "_phone", "_number", "_address")
_ALIASES = {"to": "recipient", "from": "sender", "recipients": "recipient", "emails": "email"}
_NAME_PARTS = ("first_name", "last_name", "full_name", "display_name", "given_name", "surname")


def role_of(name: str) -> str:
    """``assignee_email`` -> ``assignee``; ``to`` -> ``recipient``; ``email`` -> ``""`` (the
    record's own subject)."""
    low = name.lower()
    if low in _NAME_PARTS or low in ("email", "phone", "name", "mobile", "phone_number"):
        return ""
    for part in _NAME_PARTS:
        if low.endswith("_" + part):
            low = low.removesuffix("_" + part)
            break
    for suffix in _SUFFIXES:
        if low.endswith(suffix):
            low = low.removesuffix(suffix)
            break
    return _ALIASES.get(low, low)


def is_staff_role(role: str) -> bool:
    if not role:
        return False
    return role in STAFF_ROLES or any(
        role.startswith(s + "_") or role.endswith("_" + s) for s in STAFF_ROLES
    )


def is_external_role(role: str) -> bool:
    if not role:
        return False
    return role in EXTERNAL_ROLES or any(
        role.startswith(s + "_") or role.endswith("_" + s) for s in EXTERNAL_ROLES
    )


def person_key(value: object) -> str:
    """The identity a person value stands for (e-mails and names compared loosely)."""
    return " ".join(str(value).split()).casefold()


def clashes(role: str, other_roles: Iterable[str]) -> bool:
    """Whether a person in ``role`` would be the same person as one already in another role
    of the same call: different roles are different people."""
    return any(r != role for r in other_roles)
