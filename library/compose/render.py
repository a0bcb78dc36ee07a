"""The template instruction: deterministic, offline, readable English built from the plan's
``text`` notes. It names records only by what a user knows (an email, a SKU, a subject
line), states every rule, and never shows an id."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Note = Mapping[str, Any]


def _values(pairs: Sequence[Sequence[str]]) -> str:
    return "; ".join(f"{label}: {phrase}" for label, phrase in pairs)


def _threshold(t: Note | None) -> str:
    if not t:
        return ""
    return (
        f" If the {t['field']} of {t['of']} is above {t['limit']}, its {t['param']} must be "
        f"{t['above']}; otherwise {t['otherwise']}."
    )


def _lookup(t: Note) -> str:
    if t.get("search"):
        core = f"find the {t['noun']} matching {t['search']}"
    else:
        clauses = [f"whose {label} is {phrase}" for label, phrase in t.get("by") or ()]
        owners = " and ".join(t.get("of") or ())
        noun = t["nouns"] if t.get("rule") else t["noun"]
        core = f"find the {noun}" + (f" of {owners}" if owners else "")
        if clauses:
            core += " " + " and ".join(clauses)
    rule = f" {t['rule']}" if t.get("rule") else ""
    return f"{core}.{rule}"


def _fetch(t: Note) -> str:
    return f"look up the {t['noun']} referenced by {t['via']}."


def _create(t: Note) -> str:
    owners = " and ".join(t.get("for") or ())
    core = t["summary"] + (f" for {owners}" if owners else "")
    values = _values(t.get("values") or ())
    return core + (f" ({values})" if values else "") + "." + _threshold(t.get("threshold"))


def _update(t: Note) -> str:
    sets = " and ".join(f"{label} to {phrase}" for label, phrase in t.get("values") or ())
    core = f"update {t['target']}" + (f": set {sets}" if sets else "")
    return core + "." + _threshold(t.get("threshold"))


def _action(t: Note) -> str:
    values = _values(t.get("values") or ())
    return t["summary"] + (f" ({values})" if values else "") + "."


def _delete(t: Note) -> str:
    return f"delete {t['target']}."


SENTENCES: dict[str, Callable[[Note], str]] = {
    "lookup": _lookup,
    "fetch": _fetch,
    "create": _create,
    "update": _update,
    "action": _action,
    "delete": _delete,
}


def _guard(g: Note) -> str:
    if g["scope"] == "collection":
        return f"Do not create, change or delete any {g['nouns']} in {g['service']}."
    return f"Do not change any other {g['noun']} in {g['service']}."


def _cap(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def render_instruction(
    plan: Sequence[Mapping[str, Any]],
    guards: Sequence[Note] = (),
    answers: Sequence[Note] = (),
) -> str:
    """``plan``: gold plan steps with their ``text`` notes; ``guards``: ``{scope, service,
    noun, nouns}``; ``answers``: ``{field, of}``."""
    sentences: list[str] = []
    service = None
    wrote = False
    for step in plan:
        t = step["text"]
        body = SENTENCES[t["kind"]](t)
        if t["service"] != service:
            body = f"in {t['service']}, {body}"
            service = t["service"]
        if step.get("write") and not wrote and sentences:
            body = f"then {body}"
        wrote = wrote or bool(step.get("write"))
        sentences.append(_cap(body))
    sentences += [_guard(g) for g in guards]
    if answers:
        asked = " and ".join(f"the {a['field']} of {a['of']}" for a in answers)
        sentences.append(f"Finally, tell me {asked}.")
    return " ".join(sentences)
