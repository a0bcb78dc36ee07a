"""The template instruction: deterministic, offline, readable English built from the plan's
``text`` notes. It names records only by what a user knows (an email, a SKU, a subject
line), states every rule, and never shows an id.

``render_instruction`` writes what a user would: the goal, then the changes, each on a
record named by how it is found (``library.compose.referring``), then the guards and what to
report. With ``steps=True`` it narrates every step, reads included (one sentence per step, as
``SENTENCES`` phrase them): the review's view of a plan, and the fallback should the request
form ever leave out a stated value."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from library.compose.context import be
from library.compose.openings import fitted
from library.compose.plan import literal_texts
from library.compose.realism import matching_literal, plain_value, why_asked
from library.compose.referring import write_centric

Note = Mapping[str, Any]
Notes = Sequence[Note]
Plan = Sequence[Mapping[str, Any]]


def _values(pairs: Sequence[Sequence[str]]) -> str:
    return "; ".join(f"{label}: {plain_value(label, phrase)}" for label, phrase in pairs)


def _threshold(t: Note | None) -> str:
    if not t:
        return ""
    if t.get("policy"):
        return f" Set its {t['param']} as our policy note {t['policy']} in {t['service']} says."
    return (
        f" If the {t['field']} of {t['of']} {be(str(t['field']))} above {t['limit']}, its"
        f" {t['param']} must be "
        f"{plain_value(t['param'], t['above'])}; otherwise"
        f" {plain_value(t['param'], t['otherwise'])}."
    )


_FIND = ("find", "look up", "pull up")


def _lookup(t: Note, v: int = 0) -> str:
    verb = _FIND[v % len(_FIND)]
    if t.get("search"):
        core = f"{verb} the {t['noun']} matching {t['search']}"
    else:
        clauses = [
            f"with {label} {phrase}" if phrase.startswith('"') else f"whose {label} is {phrase}"
            for label, phrase in t.get("by") or ()
        ]
        owners = " and ".join(t.get("of") or ())
        noun = t["nouns"] if t.get("rule") else t["noun"]
        core = f"{verb} the {noun}" + (f" of {owners}" if owners else "")
        if clauses:
            core += " " + " and ".join(clauses)
    rule = f" {t['rule']}" if t.get("rule") else ""
    return f"{core}.{rule}"


def _fetch(t: Note, v: int = 0) -> str:
    return (
        f"look up the {t['noun']} referenced by {t['via']}."
        if v % 2 == 0
        else f"open the {t['noun']} that {t['via']} points to."
    )


def _create(t: Note, v: int = 0) -> str:
    owners = " and ".join(t.get("for") or ())
    core = t["summary"] + (f" for {owners}" if owners else "")
    values = _values(t.get("values") or ())
    return core + (f" ({values})" if values else "") + "." + _threshold(t.get("threshold"))


def _update(t: Note, v: int = 0) -> str:
    values = [(label, plain_value(label, phrase)) for label, phrase in t.get("values") or ()]
    sets = " and ".join(f"{label} to {phrase}" for label, phrase in values)
    if v % 2 == 0:
        core = f"update {t['target']}" + (f": set {sets}" if sets else "")
    else:
        its = " and ".join(f"its {label} {be(label)} {phrase}" for label, phrase in values)
        core = f"change {t['target']}" + (f" so that {its}" if its else "")
    return core + "." + _threshold(t.get("threshold"))


def _action(t: Note, v: int = 0) -> str:
    values = _values(t.get("values") or ())
    return t["summary"] + (f" ({values})" if values else "") + "."


def _delete(t: Note, v: int = 0) -> str:
    return f"delete {t['target']}." if v % 2 == 0 else f"remove {t['target']}."


SENTENCES: dict[str, Callable[..., str]] = {
    "lookup": _lookup,
    "fetch": _fetch,
    "create": _create,
    "update": _update,
    "action": _action,
    "delete": _delete,
}
_IN = ("in {s}, {b}", "over in {s}, {b}", "using {s}, {b}")
_GUARDS = (
    ("Do not change any other {noun} in {service}.",
     "Do not create, change or delete any {nouns} in {service}."),
    ("Leave every other {noun} in {service} as it is.",
     "Leave the {nouns} in {service} alone: nothing created, changed or deleted."),
    ("Don't touch any other {noun} in {service}.",
     "Make no changes to {nouns} in {service}."),
)  # fmt: skip
_ASK = ("Finally, tell me {asked}.", "When you're done, let me know {asked}.",
        "In your reply, include {asked}.")  # fmt: skip


def _guard(g: Note, v: int = 0) -> str:
    others, collection = _GUARDS[v % len(_GUARDS)]
    if g["scope"] == "collection":
        return collection.format(nouns=g["nouns"], service=g["service"])
    return others.format(noun=g["noun"], service=g["service"])


def _cap(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def required_literals(plan: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every value the plan takes from the user, as the instruction must state it: stated
    arguments, threshold limits and outcomes, policy-note titles, matching rules' values."""
    out: list[str] = []
    for step in plan:
        args = step.get("arguments") or {}
        for name, bind in (step.get("binds") or {}).items():
            if bind.get("from") == "user":
                out += literal_texts(args.get(name))
            elif bind.get("from") == "rule" and "policy" in bind:
                out += literal_texts((plan[bind["policy"]].get("arguments") or {}).get("query"))
            elif bind.get("from") == "rule":
                for key in ("limit", "above", "otherwise"):
                    out += literal_texts(bind.get(key))[:1]
        select = step.get("select") or {}
        if select.get("rule") == "matching":
            out.append(matching_literal(str(select.get("field")), select.get("value")))
    return list(dict.fromkeys(out))


def render_instruction(
    plan: Plan,
    guards: Notes = (),
    answers: Notes = (),
    *,
    goal: str = "",
    variant: int = 0,
    steps: bool = False,
) -> str:
    """``plan``: gold plan steps with their ``text`` notes; ``guards``: ``{scope, service,
    noun, nouns}``; ``answers``: ``{field, of}``; ``goal``: the opening sentence (what the
    request is for, e.g. from the plan's workflow motif); ``variant`` picks one of several
    phrasings of each part, so that no single template dominates. The request form
    (goal, changes, guards, answer); with ``steps``, or should the request form leave out
    a stated value, the step form. A goal drafted by ``openings.opening`` is first fitted
    to what the plan does (``openings.Opening.fit``)."""
    goal = fitted(goal, plan)
    if steps:  # (the review's view: every step in full, as its sentence says it)
        return _narrate(plan, guards, answers, goal, variant)
    text, unnamed = write_centric(plan, guards, answers, goal, variant)
    if unnamed:  # a found record nothing mentions: say to find it, where the plan does
        text, unnamed = write_centric(plan, guards, answers, goal, variant, unnamed)
    if unnamed or any(lit not in text for lit in required_literals(plan)):
        text = _narrate(plan, guards, answers, goal, variant)
    text = introduce_once(text)
    ended = end_quotes(text)
    # (a stated text that itself holds a quote ending in a full stop stays whole)
    return ended if all(lit in ended for lit in required_literals(plan)) else text


# A sentence that ends on a quote that ends its own sentence: ``saying "Done."``.
_QUOTE_END = re.compile(r'(?<=[.!?]")\.(?=\s|$)')


def end_quotes(text: str) -> str:
    """One full stop where a quoted text ends the sentence: ``saying "All done."``, not
    ``saying "All done.".`` (the quote, a stated literal, stays whole)."""
    return _QUOTE_END.sub("", text)


# A person stated with their e-mail: ``Gary Chambers ("gary.chambers@changfisher.com")``.
_NAMED = re.compile(r"([A-Z][\w'\-]*(?: [A-Z][\w'\-]*)+) \(\"([^\"\s@]+@[^\"\s]+)\"\)")


def introduce_once(text: str) -> str:
    """A person is introduced once, by name and e-mail, and named by first name after that
    where nobody else in the request shares it: "make Gary Chambers ("gary...") the owner
    of the deal ..., then reassign the ticket to Gary", not the e-mail ten times. (The name
    starts at the word the e-mail starts with: "Make Gary Chambers" is Gary Chambers.)"""

    def name_of(match: re.Match[str]) -> tuple[str, str] | None:
        words, email = match.group(1).split(), match.group(2)
        first = re.split(r"[._\-]", email.split("@")[0])[0].casefold()
        at = next((i for i, w in enumerate(words) if w.casefold() == first), None)
        return None if at is None else (" ".join(words[:at]), " ".join(words[at:]))

    names = {n[1] for m in _NAMED.finditer(text) if (n := name_of(m)) is not None}
    firsts = Counter(name.split()[0] for name in names)
    seen: set[str] = set()

    def shorten(match: re.Match[str]) -> str:
        found = name_of(match)
        if found is None:
            return match.group(0)
        lead, name = found
        if name not in seen or firsts[name.split()[0]] > 1:
            seen.add(name)
            return match.group(0)
        return f"{lead} {name.split()[0]}".strip()

    return _NAMED.sub(shorten, text)


def _narrate(plan: Plan, guards: Notes, answers: Notes, goal: str, variant: int) -> str:
    """Every step narrated, reads included, in plan order."""
    sentences: list[str] = [goal] if goal else []
    service = None
    wrote = False
    for i, step in enumerate(plan):
        t = step["text"]
        v = variant + i
        body = SENTENCES[t["kind"]](t, v)
        if t["service"] != service:
            body = _IN[(variant + i // 2) % len(_IN)].format(s=t["service"], b=body)
            service = t["service"]
        if step.get("write") and not wrote and (len(sentences) > (1 if goal else 0)):
            body = f"then {body}"
        wrote = wrote or bool(step.get("write"))
        sentences.append(_cap(body))
    sentences += [_guard(g, variant) for g in guards]
    if answers:
        asked = " and ".join(f"the {a['field']} of {a['of']}" for a in answers)
        asked += why_asked(answers)
        sentences.append(_ASK[variant % len(_ASK)].format(asked=asked))
    return " ".join(sentences)
