"""Which of our departments does a piece of work: who plausibly handles a record in a role.

A helpdesk ticket's assignee works in Support, a CRM account's owner in Sales, an
engineering issue's assignee in Engineering; a calendar, a meeting or a to-do is anyone's.
A colleague who leaves hands over work of their own department and the work everyone has,
never a Finance clerk's recruiting pipeline, CRM accounts and engineering issues at once;
and the colleague who takes a role on is someone who would hold it.
"""

from __future__ import annotations

from library.compose.domains import service_domain

# The departments whose people handle the records of a domain's services (in roles no
# entry below names). Domains not listed (collaboration, travel, people's desk bookings
# and HR files) are everyone's.
DOMAIN_DEPARTMENTS: dict[str, frozenset[str]] = {
    "sales": frozenset({"Sales", "Customer Success", "Marketing"}),
    "support": frozenset({"Support", "Customer Success", "Field Service"}),
    "engineering": frozenset({"Engineering", "Product", "IT"}),
    "finance": frozenset({"Finance", "Operations"}),
    "commerce": frozenset({"Operations", "Support", "Sales"}),
}
# Roles whose department is theirs wherever the record is (None: anyone's): recruiting is
# People's, but any manager hires and interviews; anyone organises a meeting or a trip.
ROLE_DEPARTMENTS: dict[str, frozenset[str] | None] = {
    "recruiter": frozenset({"People"}),
    "technician": frozenset({"Field Service"}),
    "csm": frozenset({"Customer Success"}),
    "hiring_manager": None,
    "interviewer": None,
    "manager": None,
    "employee": None,
    "organizer": None,
    "organiser": None,
    "host": None,
    "attendee": None,
    "mentor": None,
    "buddy": None,
}


def departments_for(service: str, role: str) -> frozenset[str] | None:
    """The departments whose people hold ``role`` on a record of ``service``; None: any."""
    if role in ROLE_DEPARTMENTS:
        return ROLE_DEPARTMENTS[role]
    return DOMAIN_DEPARTMENTS.get(service_domain(service))


def fits_department(department: str | None, service: str, role: str) -> bool:
    """Whether a colleague of ``department`` would hold ``role`` on a record of ``service``
    (a colleague whose department no one recorded fits anywhere)."""
    wanted = departments_for(service, role)
    return not department or wanted is None or department in wanted
