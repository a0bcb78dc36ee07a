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

An opening also fits what the plan does (``Opening.fit``, once the plan is known): one that
says something is wrong with its record ("A colleague flagged the server ...") only where
the plan changes that record or one found through it, never where it only sets up new
records for it (a zone on a server: "We're setting up a new domain for the server ...");
and one that says a person is waiting ("They are expecting it today") only where someone
is: a customer whose message the world holds, or whom the plan writes back to.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

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
    # moves, uploads and archiving too: "file sharing" promised a share the plan may not make
    "file sharing": "a file request",
    "follow-up": "a follow-up",
    "task update": "a task update",
    "account change": "an account change",
}

# What the request asks to be done, with whom or what it is for in it (``{who}``): "could you
# process a refund for them?". A motif without one opens with the families below alone.
JOB: dict[str, str] = {
    "onboarding": "finish an onboarding for {who}",
    "offboarding": "wrap up an offboarding for {who}",
    "escalation": "handle an escalation for {who}",
    "refund": "process a refund for {who}",
    "renewal": "prepare a renewal for {who}",
    "scheduling": "find some time in the calendar for {who}",
    "billing": "settle a billing matter for {who}",
    "fulfilment": "sort out a delivery for {who}",
    "hiring": "take a hiring step for {who}",
    "procurement": "put a purchase through for {who}",
    "travel": "handle a travel booking for {who}",
    "expenses": "deal with an expense claim for {who}",
    "incident": "deal with an incident affecting {who}",
    "domain setup": "carry out a DNS change for {who}",
    "access": "put a credential change through for {who}",
    "file sharing": "share some files for {who}",
    "follow-up": "follow up on {who}",
    "task update": "bring the tasks up to date for {who}",
    "account change": "make an account change for {who}",
}

Plan = Sequence[Mapping[str, Any]]

# A colleague whose work items the request touches: the user is helping them out.
# ({job_them}: the motif's job for the person named before; {job}: naming them in it.)
STAFF = (
    "{subject} is out today; please pick up {work} from their plate.",
    "{subject} asked me to take care of {work} for them.",
    "I'm covering for {subject} today, {work} of theirs included.",
    "{Work} came in for {subject}, who is away.",
    "{subject} is off sick, so I'm picking up {work} of theirs.",
    "{subject} is on leave this week; could you take over {work} they had open?",
    "Could you pick up {work} from {subject}? They're away today.",
)
# ... who takes part in the work the request gives (an assignee, a recipient): not away.
STAFF_HERE = (
    "{subject} asked me to take care of {work} for them.",
    "{subject} needs a hand with {work}.",
    "I'm helping {subject} with {work} today.",
    "{subject} and I have {work} to finish today.",
    "Could you give {subject} a hand with {work}?",
    "{subject} asked whether we could help with {work} today.",
)
# A customer (or any outside person) whose records the request touches: what brought the
# work in (a call, an e-mail, the chat, a wait) and the work itself.
CUSTOMER = (
    "{subject} got in touch about {work}.",
    "{subject} wrote in; we have {work} to sort out.",
    "{Work} for {subject}: can you help me with it?",
    "{subject} is waiting on us about {work}.",
    "{subject} called this morning; could you {job_them}?",
    "{subject} e-mailed us yesterday; please {job_them}.",
    "Could you {job}? They asked on the support chat.",
    "{subject} has been waiting since last week, so let's {job_them} today.",
    "{subject} asked us this morning; please {job_them}.",
)
# How a customer's request reached us, said only where the task's world shows it (their
# e-mail in the inbox, their call in the log: the ``heard`` of ``opening``); else one of
# the openings after, which claim no way in.
CLAIMS: dict[str, str] = {
    "{subject} wrote in; we have {work} to sort out.": "mail",
    "{subject} e-mailed us yesterday; please {job_them}.": "mail",
    "{subject} called this morning; could you {job_them}?": "call",
    "Could you {job}? They asked on the support chat.": "chat",
}
UNCLAIMED = (
    "Could you {job}? They are expecting it today.",
    "Next on my list is {subject}: could you {job_them}?",
    "Please {job} today.",
    "{subject} needs {work} sorted out today.",
    "{subject} has {work} open with us.",
    "{subject} needs help with {work}.",
)
# A record the user names.
RECORD = (
    "{Work} to do with {subject} is on my plate today.",
    "{subject} is part of {work} I'm working on.",
    "{subject} needs looking at as part of {work}.",
    "Could you {job}?",
    "Today's review turned up {subject}; please {job_it}.",
    "Please {job} today.",
    "A colleague flagged {subject}; could you {job_it}?",
)
# A customer's e-mail asking for the work (``the message "Please cancel my order"``).
MAIL = (
    "A customer sent us {subject}, so we have {work} to sort out.",
    "{subject} came in from a customer about {work}.",
    "A customer wrote in with {subject} about {work}.",
    "{Work} came in by e-mail today, in {subject}.",
    "A customer sent {subject} this morning; could you {job_them}?",
    "{subject} arrived from a customer overnight; please {job_them}.",
    "There is {subject} from a customer in the inbox; could you {job_them}?",
)
RECORD_ALONE = (  # the work's noun is the record's own: "the shipment ..." needs no "a shipment"
    "About {subject}:",
    "I need a hand with {subject}.",
    "{subject} needs some work today.",
    "Could you look into {subject} today?",
    "Today's review turned up {subject}.",
)
# What set off the work on a record, in a motif's own words: an alert for an incident, a
# review for a credential change (said of the record; the steps then say what to do).
RECORD_CAUSES: dict[str, tuple[str, ...]] = {
    "incident": (
        "Monitoring flagged {subject} overnight, and it needs attention.",
        "The on-call engineer was paged about {subject}; please step in.",
        "Users are reporting trouble with {subject}.",
        "Since this morning, {subject} has been misbehaving.",
    ),
    "domain setup": (
        "The web team asked for some DNS work on {subject}.",
        "Some DNS set-up is needed on {subject} today.",
        "We have DNS changes to make on {subject} this week.",
    ),
    "access": (
        "The access review turned up {subject}: its credentials need changing.",
        "Security asked for a credential change on {subject}.",
        "It is time for a credential change on {subject}.",
    ),
    "file sharing": ("A colleague asked for some files to be shared around {subject}.",),
    "fulfilment": ("The warehouse flagged {subject}: its delivery needs sorting out.",),
    "refund": ("A refund is due on {subject}.",),
}
# What a customer's own words set off, by motif (said of the customer).
CUSTOMER_CAUSES: dict[str, tuple[str, ...]] = {
    "refund": (
        "{subject} wants their money back.",
        "{subject} asked us for a refund.",
    ),
    "fulfilment": (
        "{subject} has a question about a delivery.",
        "{subject} is chasing a delivery.",
    ),
    "billing": ("{subject} has a question about their bill.",),
    "renewal": ("{subject} asked about renewing.",),
    "escalation": ("{subject} is unhappy with how long their case is taking.",),
    "travel": ("{subject} needs a change to their travel plans.",),
    "follow-up": ("{subject} is waiting to hear back from us.",),
    "scheduling": ("{subject} asked for some time with us.",),
}
# Openings that say something is wrong with their record (it turned up, was flagged, needs
# looking at): only where the plan changes that record or one found through it.
AILING = frozenset(
    {
        "{subject} needs looking at as part of {work}.",
        "Today's review turned up {subject}; please {job_it}.",
        "A colleague flagged {subject}; could you {job_it}?",
        "Could you look into {subject} today?",
        "Today's review turned up {subject}.",
        "The access review turned up {subject}: its credentials need changing.",
        "The warehouse flagged {subject}: its delivery needs sorting out.",
        "A refund is due on {subject}.",
        *RECORD_CAUSES["incident"],
    }
)
# A record the plan sets new records up for (a zone on a server, a key for an account):
# what it makes ({made}: "a new domain", "a TSIG key"), not a fault in what is there.
SETUP = (
    "We're setting up {made} for {subject}.",
    "{subject} needs {made}.",
    "Could you set up {made} for {subject}?",
    "We're adding {made} to {subject} today.",
    "We need {made} for {subject} as part of {work}.",
)
# A record the plan clears out (deletes it, or records found through it).
CLEARING = (
    "Some clean-up is due on {subject}.",
    "Could you help me tidy up {subject}?",
    "{subject} has things to clear out as part of {work}.",
)
# A record the plan only reads for something else: the work comes first.
SIDE = (
    "I'm working on {work}; it starts from {subject}.",
    "{Work} came up, and it starts from {subject}.",
    "For {work}, start from {subject}.",
)
# Words that say a person is waiting on us: only where one is (``Opening.fit``).
WAITS = ("waiting on us", "been waiting", "expecting it", "waiting to hear", "waiting on some")
# The kinds of work a plan does to the record it starts from (``work_on_subject``).
CHANGE, CLEANUP, MAKE, ASIDE = "change", "cleanup", "setup", "side"

# No workflow: the request only says who it is about.
GENERIC = (
    "{subject} needs a few things sorted out.",
    "{subject} came up in today's review, and a few things need doing.",
    "About {subject}:",
    "{subject} is on my list for today.",
    "{subject}: I need a hand with this.",
)


class Opening(str):
    """An opening sentence with what it was drafted from (``draft``: ``opening``'s
    arguments): the composer knows who a request is about, the renderer what its plan does,
    and ``fit`` chooses again among the families that fit that work (``fitted``)."""

    draft: dict[str, Any]

    def __new__(cls, text: str, draft: dict[str, Any]) -> Opening:
        made = super().__new__(cls, text)
        made.draft = draft
        return made

    def fit(self, plan: Plan) -> str:
        """The opening again, among the families that fit what ``plan`` does."""
        if not plan:
            return str(self)
        d = self.draft
        said = re.search(r'"([^"\s]+@[^"\s]+)"', d["subject"])
        waiting = bool(d["heard"]) or writes_back(plan, said.group(1) if said else "")
        return str(
            opening(**d, work=work_on_subject(plan), made=made_for_subject(plan), waiting=waiting)
        )


def fitted(goal: str, plan: Plan) -> str:
    """The opening ``goal`` as it fits ``plan`` (a goal drafted elsewhere stays)."""
    return goal.fit(plan) if isinstance(goal, Opening) else goal


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
    heard: Iterable[str] = (),
    work: str | None = None,
    made: str = "",
    waiting: bool | None = None,
) -> Opening:
    """The opening sentence. ``subject``: how the request names who or what it starts
    from (``Craig Thomas ("craig.thomas@...")`` or ``the shipment "6349707628"``);
    ``staff``: for a person, whether they are a colleague (None: a record); ``noun``: a
    record subject's noun; ``about``: the motif's own openings, used when the workflow is
    about this person; ``mail``: the record is a customer's e-mail asking for the work;
    ``heard``: how the world shows a customer reached us (``mail``, ``call``). What the
    plan does, where known (``Opening.fit``): ``work``, to a record subject (``CHANGE``,
    ``CLEANUP``, ``MAKE``, ``ASIDE``); ``made``, what it sets up for it ("a new domain");
    ``waiting``, whether a person waits on us (None: every family)."""
    heard = tuple(heard)
    draft = {
        "subject": subject,
        "motif": motif,
        "variant": variant,
        "staff": staff,
        "noun": noun,
        "about": about,
        "here": here,
        "mail": mail,
        "heard": heard,
    }
    work_noun = WORK.get(motif, "")
    if about:
        # ``Name ("e-mail")'s application`` reads badly: the motif's other openings then
        families: tuple[str, ...] = (
            tuple(g for g in about if not (subject.endswith(")") and "{subject}'s" in g)) or about
        )
    elif not work_noun:
        families = GENERIC
    elif staff is None and mail:
        families = MAIL
    elif staff is None:
        last = noun.split(" ")[-1] if noun else ""
        alone = RECORD_ALONE if last and last in work_noun.split(" ") else RECORD
        families = alone + RECORD_CAUSES.get(motif, ())
        if work == ASIDE:
            families = SIDE
        elif work == MAKE:  # nothing wrong with it: new records for it
            families = tuple(f for f in families if f not in AILING) + (SETUP if made else ())
        elif work == CLEANUP:
            families += CLEARING
    elif staff:
        families = STAFF_HERE if here else STAFF
    else:
        ways = set(heard)
        said = tuple(f for f in CUSTOMER if CLAIMS.get(f, "") in ways | {""})
        families = said + UNCLAIMED + CUSTOMER_CAUSES.get(motif, ())
    if waiting is False:  # no one waits on us: no words that say someone does
        families = tuple(f for f in families if not any(w in f for w in WAITS)) or families
    job = JOB.get(motif, "")
    if not job:  # no words for the work as a job: the families that say it as a noun
        families = tuple(f for f in families if "{job" not in f) or GENERIC
    template = families[variant % len(families)]
    text = template.format(
        subject=subject,
        work=work_noun,
        Work=work_noun[:1].upper() + work_noun[1:],
        job=job.format(who=subject),
        job_them=job.format(who="them"),
        job_it=job.format(who="it"),
        made=made,
    )
    return Opening(text[:1].upper() + text[1:], draft)


def _sources(step: Mapping[str, Any]) -> set[int]:
    """The earlier steps whose results a step takes (a rule's reading aside)."""
    return {
        int(b["step"])
        for b in (step.get("binds") or {}).values()
        if b.get("from") == "step" and isinstance(b.get("step"), int)
    }


def _reached(plan: Plan) -> set[int]:
    """The steps that find the subject's records: the first, and every read that follows
    on from one of them (the user's order, the key with the input's address)."""
    reached = {0}
    for i, step in enumerate(plan):
        if i and not step.get("write") and _sources(step) & reached:
            reached.add(i)
    return reached


def work_on_subject(plan: Plan) -> str:
    """What the plan does to the record it starts from: ``CHANGE`` where a write changes it
    or a record found through it, else ``CLEANUP`` where one deletes such a record, else
    ``MAKE`` where one makes a record for it (a zone for the server), else ``ASIDE``."""
    reached = _reached(plan)
    found = {f"the {plan[i]['text'].get('label')}" for i in reached}
    kinds: set[str] = set()
    for step in plan:
        t = step["text"]
        if not step.get("write"):
            continue
        if _answers(step, reached):  # (a reply to the message, a draft to its sender)
            kinds.add(CHANGE)
        elif t.get("kind") == "create":
            if found & set(t.get("for") or ()):
                kinds.add(MAKE)
        elif _sources(step) & reached:
            kinds.add(CLEANUP if t.get("kind") == "delete" else CHANGE)
    return next((k for k in (CHANGE, CLEANUP, MAKE) if k in kinds), ASIDE)


_MAKES = re.compile(r"(?:create|add|set up|open|raise|make|register|start|book|schedule) (an? .+)")


def made_for_subject(plan: Plan) -> str:
    """What the plan first sets up for the record it starts from ("a new domain"), or ""."""
    found = {f"the {plan[i]['text'].get('label')}" for i in _reached(plan)}
    for step in plan:
        t = step["text"]
        if step.get("write") and t.get("kind") == "create" and found & set(t.get("for") or ()):
            m = _MAKES.fullmatch(str(t.get("summary", "")))
            return m.group(1) if m else ""
    return ""


# A write that says something to a person, and the arguments that name whom to.
_SAYS = re.compile(r"\b(?:send|reply|draft|e-?mail|message|notify|forward|share|invite)\b")
_TO = frozenset({"to", "recipient", "recipients", "email", "to_email", "emails", "cc"})


def _answers(step: Mapping[str, Any], reached: set[int]) -> bool:
    """Whether a write says something back to the subject: a reply to what they sent, or
    a message to the address their records give."""
    summary = str(step["text"].get("summary") or "")
    if not _SAYS.search(summary):
        return False
    if summary.startswith("reply") and _sources(step) & reached:
        return True
    return any(
        name in _TO and b.get("from") == "step" and b.get("step") in reached
        for name, b in (step.get("binds") or {}).items()
    )


def writes_back(plan: Plan, email: str) -> bool:
    """Whether the plan answers the person it starts from (``email``: their address, if
    the request gives it): a reply to what they sent, or a message to them."""
    reached = _reached(plan)
    for step in plan:
        if not step.get("write"):
            continue
        if _answers(step, reached):
            return True
        said = json.dumps(step.get("arguments"), default=str).casefold()
        if (
            email
            and _SAYS.search(str(step["text"].get("summary") or ""))
            and email.casefold() in said
        ):
            return True
    return False
