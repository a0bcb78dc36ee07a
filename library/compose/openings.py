"""The opening sentence of a request: who or what it is about and what kind of work it is,
said the way a person opens a message to a colleague.

Three situations, each with its own families of phrasings (``variant`` picks one):

- the workflow is about the person the request starts from (their onboarding, their
  refund): the motif's own openings (``motifs.Motif.goals``);
- the request starts from a person whose records the work touches but who is not its
  subject: a colleague ("I'm covering for Craig Thomas today ...") or a customer ("Tina
  Roberts got in touch ...") read differently, so staff and customers have their own;
- the request starts from a record the user names (``the shipment "6349707628"``).

The kind of work is a noun phrase that fits every family ("got in touch about a refund",
"a refund came up"); where it repeats the record's own noun (``the shipment`` and "a
shipment") the opening names the record alone.
"""

from __future__ import annotations

# The piece of work a workflow is, as a noun phrase: "got in touch about {work}".
WORK: dict[str, str] = {
    "onboarding": "an onboarding",
    "offboarding": "an offboarding",
    "escalation": "an escalation",
    "refund": "a refund",
    "renewal": "a renewal",
    "scheduling": "some scheduling",
    "billing": "a billing matter",
    "fulfilment": "a delivery problem",
    "hiring": "a hiring step",
    "procurement": "a purchase",
    "travel": "a travel booking",
    "expenses": "an expense claim",
    "incident": "an incident",
    "domain setup": "a DNS change",
    "access": "a credential change",
    "file sharing": "some file sharing",
    "follow-up": "a follow-up",
}

# A colleague whose work items the request touches: the user is helping them out.
STAFF = (
    "{subject} is out today; please pick up {work} from their plate.",
    "{subject} asked me to take care of {work} for them.",
    "I'm covering for {subject} today, {work} of theirs included.",
    "{Work} came in for {subject}, who is away.",
)
# ... who takes part in the work the request gives (an assignee, a recipient): not away.
STAFF_HERE = (
    "{subject} asked me to take care of {work} for them.",
    "{subject} needs a hand with {work}.",
    "I'm helping {subject} with {work} today.",
    "{subject} and I have {work} to finish today.",
)
# A customer (or any outside person) whose records the request touches.
CUSTOMER = (
    "{subject} got in touch about {work}.",
    "{subject} wrote in; we have {work} to sort out.",
    "{Work} for {subject}: can you help me with it?",
    "{subject} is waiting on us: {work}.",
)
# A record the user names.
RECORD = (
    "{Work} to do with {subject} is on my plate today.",
    "{subject} is part of {work} I'm working on.",
    "{subject} came up in {work} I'm working on.",
    "{subject} needs looking at; it is {work}.",
)
# A customer's e-mail asking for the work (``the message "Please cancel my order"``).
MAIL = (
    "A customer sent us {subject}: {work} to sort out.",
    "{subject} came in from a customer; it is {work}.",
    "A customer wrote in with {subject}, {work} for us.",
    "{Work} came in by e-mail today: {subject}.",
)
RECORD_ALONE = (  # the work's noun is the record's own: "the shipment ..." needs no "a shipment"
    "About {subject}:",
    "I need a hand with {subject}.",
    "{subject} needs some work today.",
)
# No workflow: the request only says who it is about.
GENERIC = (
    "{subject} needs a few things sorted out.",
    "{subject} came up in today's review, and a few things need doing.",
    "About {subject}:",
    "{subject} is on my list for today.",
    "{subject}: I need a hand with this.",
)


def opening(
    subject: str,
    motif: str,
    variant: int,
    *,
    staff: bool | None = None,
    noun: str = "",
    about: tuple[str, ...] = (),
    here: bool = False,
    mail: bool = False,
) -> str:
    """The opening sentence. ``subject``: how the request names who or what it starts
    from (``Craig Thomas ("craig.thomas@...")`` or ``the shipment "6349707628"``);
    ``staff``: for a person, whether they are a colleague (None: a record); ``noun``: a
    record subject's noun; ``about``: the motif's own openings, used when the workflow is
    about this person; ``mail``: the record is a customer's e-mail asking for the work."""
    work = WORK.get(motif, "")
    if about:
        # ``Name ("e-mail")'s application`` reads badly: the motif's other openings then
        families: tuple[str, ...] = (
            tuple(g for g in about if not (subject.endswith(")") and "{subject}'s" in g)) or about
        )
    elif not work:
        families = GENERIC
    elif staff is None and mail:
        families = MAIL
    elif staff is None:
        last = noun.split(" ")[-1] if noun else ""
        families = RECORD_ALONE if last and last in work.split(" ") else RECORD
    else:
        families = (STAFF_HERE if here else STAFF) if staff else CUSTOMER
    template = families[variant % len(families)]
    text = template.format(subject=subject, work=work, Work=work[:1].upper() + work[1:])
    return text[:1].upper() + text[1:]
