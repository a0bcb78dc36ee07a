"""What the oracle says: a short plan before its first call, and a summary at the end.

Both are built from the gold plan's ``text`` notes (the structured notes the instruction was
rendered from; ``library.compose.render``), falling back to tool names where a step has no
note. Neither states record values: the plan is said before anything was looked up (an
agent cannot know them yet), and the final message must not state a decoy's value, so the
only values in it are those of ``task.gold_answer()``, which composition checks against the
rubric. Records are named as the user knows them ("the contact", "the rental").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from library.compose.catalog import title
from library.compose.task import Task
from library.compose.tense import past_phrase

Note = Mapping[str, Any]

# A gold answer with nothing asked: not worth repeating after a real summary.
_EMPTY_ANSWERS = frozenset({"", "done", "done."})
_RULE = re.compile(r"use the one (?P<which>.+?)\.?$", re.IGNORECASE)


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fallback(step: Mapping[str, Any]) -> tuple[str, str]:
    """(service title, request) from the tool name alone: ``crm__update_contact`` ->
    (``CRM``, ``update contact``)."""
    service, _, name = str(step.get("tool", "")).partition("__")
    return title(service), " ".join(name.split("_")) or "call a tool"


def _labels(pairs: Iterable[Sequence[str]]) -> list[str]:
    return [str(p[0]) for p in pairs if p]


def _threshold(t: Note) -> str:
    """How a threshold sets a value: by a field stated in the request, or by a policy that
    lives in a service (a house rule the agent must read)."""
    rule = t.get("threshold")
    if not isinstance(rule, Mapping):
        return ""
    param = rule.get("param") or "value"
    if rule.get("policy"):
        where = f" in {rule['service']}" if rule.get("service") else ""
        return f", with its {param} set as the policy {rule['policy']}{where} says"
    if rule.get("field") and rule.get("of"):
        return f", with its {param} set by the {rule['field']} of {rule['of']}"
    return f", with its {param} set by your rule"


def _lookup(t: Note, step: Mapping[str, Any]) -> str:
    noun = t.get("noun") or "record"
    if t.get("search"):
        core = f"search for the {noun}"
    elif t.get("by"):
        core = f"find the {noun} by its {_join(_labels(t['by']))}"
    elif t.get("of"):
        core = f"find the {noun} of {' and '.join(t['of'])}"
    else:
        core = f"find the {noun}"
    rule = t.get("rule") or ""
    match = _RULE.search(rule)
    if match:
        core += f" (the one {match['which']} if several match)"
    elif rule or step.get("select"):
        core += " (following your rule if several match)"
    return core


def _request(step: Mapping[str, Any]) -> tuple[str, str]:
    """(service title, what the step does, as a request without values)."""
    t = step.get("text")
    if not isinstance(t, Mapping) or "kind" not in t:
        return _fallback(step)
    service = str(t.get("service") or _fallback(step)[0])
    kind = t["kind"]
    try:
        if kind == "lookup":
            return service, _lookup(t, step)
        if kind == "fetch":
            return service, f"look up the {t['noun']} it references"
        if kind == "create":
            return service, t["summary"] + _threshold(t)
        if kind == "update":
            fields = _labels(t.get("values") or ())
            what = f"the {_join(fields)} of " if fields else ""
            return service, f"update {what}{t['target']}" + _threshold(t)
        if kind == "action":
            return service, str(t["summary"])
        if kind == "delete":
            return service, f"delete {t['target']}"
    except (KeyError, TypeError):
        pass
    return _fallback(step)


def _by_service(
    items: Iterable[tuple[str, str]], *, merge: bool = False
) -> list[tuple[str, list[str]]]:
    """Consecutive items of one service, grouped (a plan is followed service by service, in
    order); with ``merge``, every item of a service in one group (a summary)."""
    runs: list[tuple[str, list[str]]] = []
    for service, text in items:
        same = [r for r in runs if r[0] == service] if merge else runs[-1:]
        if same and same[-1][0] == service:
            same[-1][1].append(text)
        else:
            runs.append((service, [text]))
    return runs


def plan_message(task: Task, *, gateway: bool) -> str:
    """A brief plan, said with the first call: one sentence per run of steps in a service,
    then what will be reported back."""
    runs = _by_service(_request(s) for s in task.gold_plan)
    sentences = [f"In {service}, I'll {_join(texts)}." for service, texts in runs]
    if len(sentences) > 2:
        sentences[-1] = "Finally, i" + sentences[-1][1:]
    if gateway:
        services = _join([title(s) for s in task.services])
        first = "First I'll list this workspace's services and look up the tools I need in"
        sentences.insert(0, f"{first} {services}.")
    asked = [str(a.get("label") or "") for a in task.answer if a.get("label")]
    if asked:
        sentences.append(f"Then I'll tell you the {_join(asked)}.")
    return " ".join(sentences)


def _done(step: Mapping[str, Any]) -> tuple[str, str]:
    service, request = _request(step)
    return service, past_phrase(request)


def change_sentences(task: Task) -> list[str]:
    """What the plan changed, service by service, in the past tense (no values)."""
    writes = [s for s in task.gold_plan if s.get("write")]
    if not writes:
        return ["I only looked records up; nothing was changed."]
    runs = _by_service((_done(s) for s in writes), merge=True)
    sentences = [f"In {service}, I {_join(texts)}." for service, texts in runs]
    guards = ("record_unchanged", "collection_untouched")
    if any(c.get("kind") in guards for c in task.rubric):
        sentences.append("Everything else was left as it was.")
    return sentences


def _answer_failures(task: Task, text: str) -> set[int]:
    """Indexes of the answer criteria (those that read only the reply) that ``text`` fails."""
    failed = set()
    for i, criterion in enumerate(task.criteria()):
        if not criterion.touches_state and not criterion.check({}, {}, text):
            failed.add(i)
    return failed


def final_message(task: Task) -> str:
    """The closing reply: a lead-in, what changed, and ``task.gold_answer()`` (verified
    against the rubric by composition) for the asked values. Where composition wrote the
    reply (``task.gold_reply``: what changed, then the values), it is said whole after the
    lead-in; for older tasks the change sentences are ours. A sentence that would make an
    answer criterion fail where the gold answer alone passes (a summary word that happens
    to be a decoy's value) is left out."""
    gold = task.gold_answer().strip()
    answer = "" if gold.casefold() in _EMPTY_ANSWERS else gold
    if answer and getattr(task, "gold_reply", ""):
        clauses = ["All done."]
    else:
        clauses = ["All done. Here is what I did.", *change_sentences(task)]

    def text(parts: Sequence[str]) -> str:
        return " ".join([*parts, answer]).strip()

    baseline = _answer_failures(task, text([]))
    kept: list[str] = []
    for clause in clauses:
        if _answer_failures(task, text([*kept, clause])) <= baseline:
            kept.append(clause)
    return text(kept) or gold
