"""Which conformance checks run for each kind of tool, and which fault each one catches, on a
compiled help desk (library/verify/conformance.py, for bench/mutation.py; its mutants weaken
a check, skip one, or aim it at the wrong tools): every tool's signature, valid call, output
schema, round trip, determinism, parameters and invalid arguments; a read's read-only check;
a write's change of state; an id's not-found check; a write's read back; a list's range
filters, narrowing filters and paging; a count against its list.
Each fault written into the compiled code fails the check meant for it, and only that."""

from __future__ import annotations

import re

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.toolspec import ToolSpec
from library.verify import run_conformance
from tests.test_mutation_kills_tool_table import HELPDESK

EVERY = ["signature", "valid_call", "output_schema"]
SAME = ["round_trip", "determinism", "every_parameter"]
WRITE = [*EVERY, "changes_state", *SAME, "invalid_argument"]
CHECKS = {
    "createCustomer": [*WRITE, "read_after_write"],
    "getCustomer": [*EVERY, "read_only", *SAME, "invalid_argument", "not_found"],
    "createTicket": [*WRITE, "not_found", "read_after_write"],
    "listTickets": [
        *EVERY,
        "read_only",
        *SAME,
        "range_filter",
        "filter_narrows",
        "pagination",
        "invalid_argument",
    ],
    "countTickets": [*EVERY, "read_only", *SAME, "counts", "invalid_argument"],
    "getTicket": [*EVERY, "read_only", *SAME, "invalid_argument", "not_found"],
    "updateTicket": [*WRITE, "not_found", "read_after_write"],
    "deleteTicket": [*WRITE, "not_found", "read_after_write"],
    "closeTicket": [*WRITE, "not_found"],
    "assignTicket": [*WRITE, "not_found"],
}
GET_TICKET = 'data = self.get("tickets", ticket_id)\n        return TicketEnvelope'
FILTERS = "            and (status is None or _same(r.status, status))\n"
TITLE = "                title=title,\n                status="
START = "start = _offset_of(cursor) if cursor else offset or 0"
NOTHING_CHANGED = r"^a write tool's call changed nothing, whatever values its parameters took$"
PAGINATE = "selected = paginate(found, limit, start)"
# name -> (the code, the fault written in, {(tool, check): what the failure says})
FAULTS: dict[str, tuple[str, str, dict[tuple[str, str], str]]] = {
    "a status filter ignored": (
        FILTERS,
        "",
        {
            (
                "listTickets",
                "filter_narrows",
            ): r"^status='\w+' listed a record whose status is '\w+'$"
        },
    ),
    "a lower bound left out": (
        "r.priority >= min_priority",
        "r.priority > min_priority",
        {
            ("listTickets", "range_filter"): (
                r"^min_priority=\d+ left out the record whose priority is that bound$"
            )
        },
    ),
    "a moment bound reversed": (
        "r.created_at >= created_after",
        "r.created_at <= created_after",
        {
            ("listTickets", "range_filter"): (
                r"^created_after='[\dT:Z-]+' listed a record whose created_at is '[\dT:Z-]+'$"
            )
        },
    ),
    "an upper bound ignored": (
        "(r.amount is not None and r.amount <= amount_max)",
        "True",
        {
            ("listTickets", "range_filter"): (
                r"^amount_max=[\d.]+ listed a record whose amount is [\d.]+$"
            )
        },
    ),
    "a reference filter ignored": (
        "(customer_id is None or r.customer_id == customer_id)",
        "True",
        {
            ("listTickets", "filter_narrows"): (
                r"^customer_id='\w+', held by no listed record, still listed the record whose "
                r"id is 'tic_\w+' \(customer_id 'cus_\w+'\)$"
            )
        },
    ),
    "a query ignored": (
        "if (not q or _mentions(q, r.title, r.assignee_email, r.customer_id, r.description))",
        "if True",
        {
            ("listTickets", "filter_narrows"): (
                r"^q='\w+', held by no listed record, still listed the record whose id is "
                r"'tic_\w+'$"
            )
        },
    ),
    "an update dropping a field": (
        "ticket_id, title=title, priority=priority",
        "ticket_id, priority=priority",
        {
            ("updateTicket", "read_after_write"): (
                r"^get after update disagrees on 'title': sent 'sample title', read '.+'$"
            )
        },
    ),
    "a delete that keeps the record": (
        'record = self.delete("tickets", ticket_id)',
        'record = self.get("tickets", ticket_id)',
        {
            ("deleteTicket", "read_after_write"): r"^get after delete gave success, not not_found$",
            ("deleteTicket", "changes_state"): NOTHING_CHANGED,
        },
    ),
    "a create storing another value": (
        TITLE,
        TITLE.replace("title,", "title.upper(),"),
        {
            ("createTicket", "read_after_write"): (
                r"^get after create disagrees on 'title': sent 'sample title', read 'SAMPLE TITLE'$"
            )
        },
    ),
    "a get answering any record": (
        GET_TICKET,
        GET_TICKET.replace(
            'self.get("tickets", ticket_id)', "next(iter(self.state.tickets.values()))"
        ),
        {
            ("createTicket", "read_after_write"): r"^get after create returned another record$",
            ("getTicket", "not_found"): r"^an unknown 'ticket_id' gave success, not not_found$",
            ("updateTicket", "read_after_write"): r"^get after update disagrees on 'title'",
            ("deleteTicket", "read_after_write"): r"^get after delete gave success, not not_found$",
        },
    ),
    "a read that writes": (
        GET_TICKET,
        GET_TICKET.replace(
            'self.get("tickets", ticket_id)', 'self.update("tickets", ticket_id, title="Seen")'
        ),
        {
            ("getTicket", "read_only"): r"^a read tool changed the state$",
            ("createTicket", "read_after_write"): r"^get after create disagrees on 'title'",
            ("updateTicket", "read_after_write"): r"^get after update disagrees on 'title'",
            **{
                (
                    tool,
                    "invalid_argument",
                ): r"^a refused call without 'ticket_id' changed the state$"
                for tool in (
                    "getTicket",
                    "updateTicket",
                    "deleteTicket",
                    "closeTicket",
                    "assignTicket",
                )
            },
        },
    ),
    "a count that varies": (
        'return {"count": len(found)}',
        'type(self).calls = getattr(type(self), "calls", 0) + 1\n'
        '        return {"count": len(found) + type(self).calls}',  # one more each call
        {
            ("countTickets", "determinism"): (
                r"^the same call on a second World with the same seed returned another result$"
            ),
            ("countTickets", "counts"): r"^counted \d+, listTickets lists \d+",
        },
    ),
    "a count off by one": (
        'return {"count": len(found)}',
        'return {"count": len(found) - 1}',
        {
            (
                "countTickets",
                "counts",
            ): r"^counted \d+, listTickets lists \d+ for the same arguments$"
        },
    ),
    "a page's total off by one": (
        "total=len(found),",
        "total=len(found) + 1,",
        {("listTickets", "pagination"): r"^total says (\d+), the list holds (?!\1)\d+$"},
    ),
    "a limit ignored": (
        PAGINATE,
        "selected = found[start:]",
        {("listTickets", "pagination"): r"^limit=1 listed \d+ records of the \d+ the list holds$"},
    ),
    "an offset ignored": (
        START,
        "start = _offset_of(cursor)",
        {("listTickets", "pagination"): r"^offset=1 listed the first page's records again$"},
    ),
    "a cursor ignored": (
        START,
        "start = offset or 0",
        {
            ("listTickets", "pagination"): (
                r"^the cursor the first page gave listed the first page's records again$"
            )
        },
    ),
    "no cursor while records remain": (
        "next_cursor=str(end) if end < len(found) else None,",
        "next_cursor=None,",
        {("listTickets", "pagination"): r"^limit=1 gave no cursor though \d+ records remain$"},
    ),
    "an action that writes nothing": (
        'data = self.update("tickets", ticket_id, status="closed", closed_at=now)',
        'data = self.get("tickets", ticket_id)',
        {("closeTicket", "changes_state"): NOTHING_CHANGED},
    ),
    "an answer of the wrong shape": (
        "return TicketEnvelope(data=data)",
        'return {"data": {"id": 5}}',
        {
            (
                "getTicket",
                "valid_call",
            ): r"^internal: helpdesk__getTicket raised PydanticSerialization",
            ("createTicket", "read_after_write"): r"^get after create failed: internal: ",
            ("updateTicket", "read_after_write"): r"^get after update failed: internal: ",
        },
    ),
    "a parameter value that crashes": (
        '        q = (q_ or "").strip().casefold()\n',
        '        q = (q_ or "").strip().casefold()\n'
        '        if color is not None:\n            raise RuntimeError("boom")\n',
        {
            ("listTickets", "every_parameter"): (
                r"^with color='sample color': internal: helpdesk__listTickets raised "
                r"RuntimeError: boom$"
            )
        },
    ),
    "a parameter missing": (
        "        color: str | None = None,\n",
        "",
        {("listTickets", "signature"): r"^missing parameters \['color'\]$"},
    ),
    "a parameter renamed": (
        "        color: str | None = None,\n",
        "        colour: str | None = None,\n",
        {
            ("listTickets", "signature"): (
                r"^missing parameters \['color'\]; parameters not in the spec \['colour'\]$"
            )
        },
    ),
    "a reference left unchecked": (
        'self.get("customers", customer_id)\n        now = self.now()',
        "now = self.now()",
        {("createTicket", "not_found"): r"^an unknown 'customer_id' gave success, not not_found$"},
    ),
}


def _specs() -> list[ToolSpec]:
    specs, errors = ingest_document(orjson.dumps(HELPDESK), source_file="helpdesk.json")
    assert specs, errors
    return specs


def test_each_kind_of_tool_runs_its_checks_and_a_sound_service_passes_them() -> None:
    specs = _specs()
    results = run_conformance(load_service(compile_service(specs).source), specs)
    assert [(r.tool, r.check, r.passed, r.detail) for r in results] == [
        (tool, check, True, "") for tool, checks in CHECKS.items() for check in checks
    ]


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_fault_fails_the_check_meant_for_it(fault: str) -> None:
    code, written, wanted = FAULTS[fault]
    specs = _specs()
    source = compile_service(specs).source
    assert source.count(code) == 1, code
    results = run_conformance(load_service(source.replace(code, written)), specs)
    failed = {(r.tool, r.check): r.detail for r in results if not r.passed}
    assert set(failed) == set(wanted), failed
    for key, pattern in wanted.items():
        assert re.search(pattern, failed[key]), (key, failed[key])
