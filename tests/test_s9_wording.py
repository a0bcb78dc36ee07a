"""A hand-over reads as a person writes it, not as a checklist: the records a leaver hands
to one colleague are asked for together, in one sentence ("hand their work over to Jason:
their deal in CRM, the task assigned to them in Todo, ..."), the leaver is "they" after
the opening (not "Larry's" ten times), and the request closes in a few words ("Leave
everything else as it is."). Only writes free to move together are grouped: one whose
record a write in between could change stays in its place. The plans are hand-made in the
shape composition writes (``text`` notes, binds, ``select``).

And a request is one piece of work: someone asking to meet is not checked in to a flight,
nor does their meeting leave a comment on some document of theirs."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from library.compose import ComposeConfig, make_env
from library.compose.motifs import BY_NAME, at_home, part_of
from library.compose.referring import _listed, write_centric
from library.compose.render import render_instruction, required_literals
from library.compose.walk import Walker
from library.compose.walk_state import Reject
from tests.compose_walks import forced
from tests.libraries import bundled_library

LARRY = "larry.owens@changfisher.com"
JASON = 'Jason Owen ("jason.owen@changfisher.com")'
GOAL = f'Larry Owens ("{LARRY}") is on their way out.'
GUARDS = [{"scope": "others", "service": "Calendar", "noun": "event"}]
_SENTENCE = re.compile(r'(?:(?<=[.!?])|(?<=[.!?]"))\s+(?=[A-Z])')


def _find(service: str, noun: str, field: str, select: dict[str, Any] | None = None) -> dict:
    """A lookup of the leaver's ``noun`` by ``field`` (``owner_email``: their e-mail)."""
    step: dict[str, Any] = {
        "tool": f"{service.lower()}.list",
        "write": False,
        "arguments": {field: LARRY},
        "binds": {field: {"from": "user"}},
        "text": {"kind": "lookup", "service": service, "noun": noun, "nouns": noun + "s",
                 "label": noun, "by": [[field.replace("_", " "), f'"{LARRY}"']]},
    }  # fmt: skip
    if select:
        step["select"] = select
    return step


def _hand(service: str, noun: str, field: str, person: str = JASON) -> dict:
    """An update that gives the ``noun`` to ``person`` in the role ``field`` names."""
    email = re.search(r'"(.+)"', person)
    return {
        "tool": f"{service.lower()}.update",
        "write": True,
        "arguments": {field: email.group(1) if email else person},
        "binds": {field: {"from": "user"}},
        "text": {"kind": "update", "service": service, "target": f"the {noun}",
                 "values": [[field.replace("_", " "), person]], "unasked": True},
    }  # fmt: skip


def _write(kind: str, service: str, **text: Any) -> dict:
    return {"tool": f"{service.lower()}.{kind}", "write": True, "arguments": {}, "binds": {},
            "text": {"kind": kind, "service": service, **text}}  # fmt: skip


_USER = {
    "tool": "identity.search_users",
    "write": False,
    "arguments": {"query": LARRY},
    "binds": {"query": {"from": "user"}},
    "text": {"kind": "lookup", "service": "Identity", "noun": "user", "nouns": "users",
             "search": f'"{LARRY}"', "label": "user"},
}  # fmt: skip
_SUSPEND = _write("action", "Identity", summary="suspend the user", values=[])


def _leaving() -> list[dict]:
    """Suspend Larry, then hand four records of his over to Jason (reads batched first, as
    walks often leave them), with a comment on one of them in between."""
    comment = _write(
        "create", "CRM", summary="create a comment", label="comment",
        values=[["body", '"Handed over on leaving."']], **{"for": ["the deal"]},
    )  # fmt: skip
    comment["arguments"], comment["binds"] = (
        {"body": "Handed over on leaving."},
        {"body": {"from": "user"}},
    )
    return [
        _USER,
        _SUSPEND,
        _find("Recruiting", "job", "hiring_manager_email"),
        _find("Calendar", "event", "organizer_email",
              {"rule": "matching", "field": "status", "value": "tentative"}),
        _hand("Recruiting", "job", "hiring_manager_email"),
        _hand("Calendar", "event", "organizer_email"),
        _find("CRM", "deal", "owner_email"),
        _hand("CRM", "deal", "owner_email"),
        comment,
        _find("Todo", "task", "assignee_email"),
        _hand("Todo", "task", "assignee_email"),
    ]  # fmt: skip


def _render(plan: list[dict], variant: int) -> str:
    text = render_instruction(plan, GUARDS, [], goal=GOAL, variant=variant)
    for lit in required_literals(plan):
        assert lit in text, (lit, text)
    return text


@pytest.mark.parametrize("variant", range(6))
def test_records_handed_to_one_colleague_are_asked_for_in_one_sentence(variant: int) -> None:
    text = _render(_leaving(), variant)
    naming = [s for s in _SENTENCE.split(text) if "Jason" in s]
    assert len(naming) == 1, text  # not "make Jason the ..." once per record
    handed = naming[0]
    for item in (
        "the job with them as hiring manager in Recruiting",
        "the tentative event they organize in Calendar",
        "their deal in CRM",
        "the task assigned to them in Todo",
    ):
        assert item in handed, text
    # the leaver is "they" after the opening, their name said once
    assert text.count("Larry") == 1, text
    assert "their user account in Identity" in text, text


@pytest.mark.parametrize("variant", range(6))
def test_a_hand_over_closes_in_a_few_words(variant: int) -> None:
    """ "Leave everything else as it is.", not "Apart from that, no other job, event, deal
    or task should change." (every other record stays, as the guards check)."""
    text = _render(_leaving(), variant)
    last = _SENTENCE.split(text)[-1]
    assert last in ("Leave everything else as it is.", "Nothing else should change.",
                    "Everything else stays as it is."), text  # fmt: skip


def test_suspending_and_handing_over_are_one_request() -> None:
    """Where the hand-over is a verb phrase, it follows the suspension in one sentence."""
    texts = [_render(_leaving(), v) for v in range(8)]
    joined = [t for t in texts if "user account in Identity and hand their work over to" in t]
    assert joined, texts


def test_a_record_a_write_in_between_could_change_stays_in_its_place() -> None:
    """A new event is created in Calendar before the leaver's event is found: handing that
    event over earlier could find another one, so it is asked for after the new event,
    on its own; the records before it still go together."""
    plan = [
        _USER,
        _SUSPEND,
        _find("CRM", "deal", "owner_email"),
        _hand("CRM", "deal", "owner_email"),
        _find("Todo", "task", "assignee_email"),
        _hand("Todo", "task", "assignee_email"),
        _write("create", "Calendar", summary="create an event", label="new event",
               values=[["title", '"Handover chat"']]),
        _find("Calendar", "event", "organizer_email"),
        _hand("Calendar", "event", "organizer_email"),
    ]  # fmt: skip
    plan[6]["arguments"], plan[6]["binds"] = {"title": "Handover chat"}, {"title": {"from": "user"}}
    for variant in range(4):
        text = _render(plan, variant)
        sentences = _SENTENCE.split(text)
        together = next(s for s in sentences if "their deal in CRM" in s)
        assert "the task assigned to them" in together, text
        assert "event" not in together, text
        made = next(i for i, s in enumerate(sentences) if "Handover chat" in s)
        handed = next(i for i, s in enumerate(sentences) if "event they organize" in s)
        assert made < handed, text


def test_a_record_given_in_another_role_is_not_handed_over_with_the_rest() -> None:
    """The task assigned to Larry made Jason's to report is no hand-over of Larry's task:
    it is said on its own, with its role."""
    plan = [
        _USER,
        _SUSPEND,
        _find("CRM", "deal", "owner_email"),
        _hand("CRM", "deal", "owner_email"),
        _find("Recruiting", "job", "hiring_manager_email"),
        _hand("Recruiting", "job", "hiring_manager_email"),
        _find("Todo", "task", "assignee_email"),
        _hand("Todo", "task", "reporter_email"),
    ]
    text = _render(plan, 0)
    assert "make Jason the reporter of the task assigned to them" in text.replace("Make", "make")
    together = next(s for s in _SENTENCE.split(text) if "their deal in CRM" in s)
    assert "task" not in together, text


def test_one_record_handed_over_keeps_the_leaver_s_name() -> None:
    """A single hand-over is no list: its sentence and the leaver's name stay as they were."""
    plan = [
        _USER,
        _SUSPEND,
        _find("CRM", "deal", "owner_email"),
        _hand("CRM", "deal", "owner_email"),
    ]
    text, _ = write_centric(plan, GUARDS, [], GOAL, 0)
    assert "Larry's user account in Identity" in text, text
    assert "deal owned by Larry in CRM" in text, text
    assert "Apart from that" in text or "other event" in text, text


def test_their_own_entry_lists_their_records() -> None:
    """ "their order in Retail" (of "their user account in Retail"), as for "Edward's"."""
    assert _listed("order", "their user account in Retail", "") == "their order in Retail"


# -- one piece of work: what a workflow's request may take on ------------------------------
def test_someone_asking_to_meet_is_not_checked_in_to_a_flight() -> None:
    """A flight, hotel or car booking is a trip's: a scheduling request books rooms and
    meetings, it does not check anyone in to a flight (``motifs.AWAY_DOMAINS``); a trip
    still does, and a room booking is still scheduling's."""
    scheduling, travel = BY_NAME["scheduling"], BY_NAME["travel"]
    assert not at_home(scheduling, "check_in_booking", "bookings", "travel")
    assert not at_home(scheduling, "update_reservation", "reservations", "travel")
    assert at_home(scheduling, "create_booking", "bookings", "people")
    assert at_home(travel, "check_in_booking", "bookings", "travel")


def test_a_scheduling_request_leaves_no_comment_on_some_record() -> None:
    """What is scheduled is told by its invitation or a message: "Meeting booked." as a
    comment on some document of the person's is a chore of its own (``motifs.NO_REMARKS``).
    Other work still remarks on its own records (an escalated issue, a handed document)."""
    assert not part_of(BY_NAME["scheduling"], "create_comment", "comments")
    assert part_of(BY_NAME["scheduling"], "send_message", "messages")
    assert part_of(BY_NAME["escalation"], "create_comment", "comments")
    assert part_of(BY_NAME["offboarding"], "create_comment", "comments")


def test_a_long_scheduling_request_takes_no_remark_from_the_work_that_follows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long request may add the work that follows its own (a follow-up after scheduling),
    never what its own refuses (``motifs.refuses``): a follow-up's comment does not come
    back in through it. (The walk is stopped once it has chosen what it may write.)"""
    library = bundled_library(["workplace", "meetings", "docs", "helpdesk", "mail", "todo"])
    env = make_env(library.classes, library.nodes, config=ComposeConfig(hard_share=1.0))
    monkeypatch.setattr(Walker, "_start", lambda self: False)
    world, base = env.world(0)
    walker = forced("scheduling")(env, world, base, random.Random(0))
    with pytest.raises(Reject):
        walker.walk()
    assert walker.allowed is not None
    follow_up = env.sequel_tools(BY_NAME["follow-up"])
    assert any("comment" in q for q in follow_up)  # what would come back in
    assert not any("comment" in q for q in walker.allowed), sorted(walker.allowed)
    assert any("mail__" in q for q in walker.allowed)  # telling people still follows
