"""Requests that read like a person's, not like a record's fields dumped: a new record's
values said as a request gives them ("a task titled ..., assigned to Ann, with the
order's number as its notes"), an e-mail "to" a person "saying" its text, a comment "on" its record,
a rule-only update in one sentence, an address as one value, one full stop after a quote."""

from __future__ import annotations

import re
from typing import Any

import pytest

from library.compose.referring import _listed, _rule_words, one_address
from library.compose.render import end_quotes, render_instruction, required_literals
from tests.plan_steps import find_step as _find
from tests.plan_steps import plan_step as _step

SABRINA = 'Sabrina Leon ("sabrina.leon@changfisher.com")'
GOAL = 'Edward Cook ("edward.cook@myers.com.au") got in touch about a refund.'
# "label: value" lists and field names read aloud, which no person writes
_DUMPED = re.compile(r"\((?:[a-z][\w ]*): |\b(?:assignee|host|owner|body) email\b|body text")


_ORDER = _find(
    "storefront.list_orders", "order", [["customer email", '"edward.cook@myers.com.au"']]
)


def _task(values: list[list[str]], refund: bool = False) -> list[dict[str, Any]]:
    """Find Edward's order (``refund``: refund it first), then add a task."""
    note = {"kind": "create", "summary": "add a new task", "label": "new task", "values": values}
    done = [_step("storefront.refund", {"kind": "action", "summary": "refund the order"})]
    stated = {"title": values[0][1].strip('"')}
    return [_ORDER, *(done if refund else []), _step("todo.create_task", note, stated)]


def _render(plan: list[dict[str, Any]], variant: int, goal: str = GOAL) -> str:
    text = render_instruction(plan, goal=goal, variant=variant)
    for lit in required_literals(plan):
        assert lit in text, (lit, text)
    return text


@pytest.mark.parametrize("variant", range(4))
def test_a_new_record_s_values_are_said_as_a_request(variant: int) -> None:
    """ "add a task titled "X", assigned to Sabrina (...), with priority "p4", noting the
    order's number", not "add a new task (title: ...; assignee email: ...; notes: ...)"."""
    values = [["title", '"Refund issued"'], ["notes", "the order number of the order"],
              ["assignee email", SABRINA], ["priority", '"p4"']]  # fmt: skip
    text = _render(_task(values, refund=True), variant)
    assert not _DUMPED.search(text), text
    assert "a new task" not in text and "a task in Todo" in text, text
    assert re.search(r'(?:titled|called) "Refund issued"', text), text
    assert f"assigned to {SABRINA}" in text and "priority p4" in text, text
    # the notes are the number and nothing else: the rubric checks them so
    assert re.search(r"(?:just|nothing but|only) the order's number", text), text


@pytest.mark.parametrize("variant", range(4))
def test_an_email_goes_to_a_person_with_its_text_last(variant: int) -> None:
    """ "send an email to the owner of Edward's contact in CRM, with the subject "X",
    saying "Y"", not "(recipient: the owner email of ...; subject: ...; body text: ...)"."""
    contact = _find("crm.list_contacts", "contact", [["email", '"edward.cook@myers.com.au"']])
    values = [["recipient", "the owner email of the contact"],
              ["subject", '"About your refund"'], ["body text", '"It is done."']]  # fmt: skip
    note = {"kind": "create", "summary": "send a new email", "label": "new email", "values": values}
    stated = {"subject": "About your refund", "body_text": "It is done."}
    plan = [contact, _step("mail.send", note, stated)]
    text = _render(plan, variant)
    assert not _DUMPED.search(text) and "recipient" not in text, text
    assert "end an email in Mail to Edward's account owner in Crm" in text, text
    assert re.search(r'subject(?: line)? "About your refund"', text), text
    assert text.endswith(('saying "It is done."', 'the text "It is done."')), text
    assert not re.search(r"with the subject[^,]*, with", text), text  # "with ... and the text"


def test_a_comment_is_on_its_record_and_says_its_text() -> None:
    doc = _find("docs.list_documents", "document", [["owner email", '"edward.cook@myers.com.au"']])
    note = {"kind": "create", "summary": "create a comment", "label": "comment",
            "for": ["the document"], "values": [["body", '"Handed over."']]}  # fmt: skip
    plan = [doc, _step("docs.create_comment", note, {"body": "Handed over."})]
    for variant in range(4):
        text = _render(plan, variant)
        assert re.search(r'comment on the document [^.]*: "Handed over."$', text), text
        assert "comment for" not in text and "(body" not in text, text


def test_a_type_is_said_before_the_noun() -> None:
    account = _find("cs.list_accounts", "account", [["name", '"Acme"']])
    values = [["type", '"expansion"'], ["reason", '"Asked"']]
    note = {"kind": "create", "summary": "create a CTA", "label": "new CTA",
            "for": ["the account"], "values": values}  # fmt: skip
    plan = [account, _step("cs.create_cta", note, {"type": "expansion", "reason": "Asked"})]
    text = _render(plan, 0, goal='The account "Acme" needs a follow-up.')
    assert "an expansion CTA" in text and "type" not in text, text


def _issue_update(threshold: dict[str, Any]) -> list[dict[str, Any]]:
    issue = _find("issues.list", "issue", [["assignee email", '"edward.cook@myers.com.au"']])
    note = {"kind": "update", "target": "the issue", "values": [], "threshold": threshold}
    return [issue, _step("issues.update", note)]


@pytest.mark.parametrize("variant", range(4))
def test_an_update_by_a_rule_alone_is_one_sentence(variant: int) -> None:
    """ "Set the priority of the issue ... to "high" if its story points are above 3, or to
    "low" if not", not "Update the issue .... Its priority should be ..."."""
    rule = {"param": "priority", "field": "story points", "of": "the issue", "limit": 3,
            "above": '"high"', "otherwise": '"low"'}  # fmt: skip
    text = _render(_issue_update(rule), variant)
    assert re.search(r"\b[Ss]et the priority of the issue assigned to Edward", text), text
    assert "Update the issue" not in text and text.count(". ") == 1, text
    policy = {"param": "priority", "policy": '"Priority policy"', "service": "Docs"}
    text = _render(_issue_update(policy), variant)
    assert re.search(r'[Ss]et the priority of the issue [^.]* our policy note "Priority', text)


def test_a_record_s_own_name_is_not_said_twice() -> None:
    """ "the order's number", not "the order's order number"."""
    plan = _task([["title", '"X"'], ["notes", "the order number of the order"]], refund=True)
    text = _render(plan, 0) + _render(plan, 1)
    assert "order's order number" not in text and "the order's number" in text, text


def test_a_count_is_most_or_fewest() -> None:
    assert _rule_words({"rule": "largest", "field": "seats"}) == ("", "with the most seats")
    assert _rule_words({"rule": "smallest", "field": "story_points"}) == (
        "",
        "with the fewest story points",
    )
    assert _rule_words({"rule": "largest", "field": "amount"}) == ("", "with the largest amount")


def test_an_address_is_one_value() -> None:
    """ "set the address to "1 Main St", "Unit 7", "Leeds", "LS1 4AP", "GB"", not six
    fields set one by one; too few parts stay fields."""
    pairs = [("zip", '"LS1 4AP"'), ("address1", '"1 Main St"'), ("address2", '"Unit 7"'),
             ("city", '"Leeds"'), ("country", '"GB"'), ("note", '"Leave it"')]  # fmt: skip
    assert one_address(pairs) == [
        ("address", '"1 Main St", "Unit 7", "Leeds", "LS1 4AP", "GB"'),
        ("note", '"Leave it"'),
    ]
    assert one_address(pairs[:2]) == pairs[:2]
    shipping = [("shipping address1", '"1 Main"'), ("shipping city", '"Leeds"'),
                ("shipping zip", '"LS1"')]  # fmt: skip
    assert one_address(shipping) == [("shipping address", '"1 Main", "Leeds", "LS1"')]
    note = {"kind": "update", "target": "the order", "values": [[a, b] for a, b in pairs[:5]]}
    plan = [_ORDER, _step("storefront.update", note, {"zip": "LS1 4AP"})]
    text = _render(plan, 0)
    assert 'the address to "1 Main St", "Unit 7", "Leeds", "LS1 4AP", "GB"' in text, text
    assert "city" not in text and "zip" not in text, text


def test_a_quoted_sentence_ends_once() -> None:
    assert end_quotes('Reply: "All done." Then stop.') == 'Reply: "All done." Then stop.'
    assert end_quotes('Reply: "All done.". Then "p4".') == 'Reply: "All done." Then "p4".'
    assert end_quotes('Say "Why?".') == 'Say "Why?"'
    plan = _task([["title", '"Done."']])
    for variant in range(4):
        assert not _render(plan, variant).endswith('.".'), variant


def test_the_opening_s_record_matched_by_that_name_is_not_described_again() -> None:
    """ "The server "ns1" ... add a TSIG key for the server", not "... for the server with
    domain "ns1"" when a matching rule picks it by the very value the opening names."""
    server = _find("powerdns.list_servers", "server", [["domain", '"ns1.example.com"']])
    server["select"] = {"rule": "matching", "field": "domain", "value": "ns1.example.com"}
    note = {"kind": "create", "summary": "add a TSIG key", "label": "tsigkey",
            "for": ["the server"], "values": [["name", '"ci"']]}  # fmt: skip
    plan = [server, _step("powerdns.create_tsigkey", note, {"name": "ci"})]
    text = _render(plan, 0, goal='The server "ns1.example.com" needs a new key.')
    assert "with domain" not in text and "for the server in Powerdns" in text, text


def test_a_record_of_a_person_reached_through_another_belongs_to_them() -> None:
    held = "the user record in Retail of the sender of the message"
    assert _listed("order", held, "") == (
        "the order in Retail belonging to the sender of the message"
    )


def test_a_person_field_of_an_update_is_said_by_its_role() -> None:
    """ "set the assignee to Sabrina (...) and the priority to "high"", not "set assignee
    email to ..."; "reassign it to the issue's reporter", not "its reporter email"."""
    issue = _find("issues.list", "issue", [["assignee email", '"edward.cook@myers.com.au"']])
    note = {"kind": "update", "target": "the issue",
            "values": [["assignee email", SABRINA], ["priority", '"high"']]}  # fmt: skip
    text = _render([issue, _step("issues.update", note, {"priority": "high"})], 0)
    assert f"set the assignee to {SABRINA} and the priority to" in text, text
    reporter = "the reporter email of the issue"
    values = [["owner email", reporter], ["priority", '"high"']]
    note = {"kind": "update", "target": "the issue", "values": values}
    text = _render([issue, _step("issues.update", note, {"priority": "high"})], 0)
    assert "set the owner to the issue's reporter and the priority to" in text, text


def test_a_channel_is_where_its_writer_wrote() -> None:
    """ "a message in the channel where Megan wrote in Chat", not "where Megan in Chat
    wrote"."""
    message = _find("chat.list_messages", "message", [["author email", '"megan@x.com"']])
    channel = _step(
        "chat.get_channel",
        {
            "kind": "fetch",
            "noun": "channel",
            "label": "channel",
            "via": "the channel ID of the message",
        },
    )
    note = {"kind": "create", "summary": "add a new message", "label": "new message",
            "for": ["the channel"], "values": [["text", '"All done."']]}  # fmt: skip
    plan = [message, channel, _step("chat.post", note, {"text": "All done."})]
    text = _render(plan, 0, goal='Megan ("megan@x.com") asked me to help.')
    assert "where Megan wrote in Chat" in text, text


@pytest.mark.parametrize("variant", [0, 2])
def test_a_rule_after_a_short_name_needs_no_brackets(variant: int) -> None:
    issue = _find("issues.list", "issue", [["assignee email", '"edward.cook@myers.com.au"']])
    issue["select"] = {"rule": "latest", "field": "due_date"}
    note = {"kind": "update", "target": "the issue", "values": [["priority", '"high"']]}
    text = _render([issue, _step("issues.update", note, {"priority": "high"})], variant)
    assert "(the one" not in text and "in Issues with the latest due date" in text, text


def test_a_comment_on_a_record_already_named_says_its_service_after_it() -> None:
    """Comments in Docs and in Issues: "a comment on the document in Docs", not "a comment
    in Docs on the document"."""
    doc = _find("docs.list_documents", "document", [["owner email", '"edward.cook@myers.com.au"']])
    issue = _find("issues.list", "issue", [["assignee email", '"edward.cook@myers.com.au"']])
    plan = [doc, issue]
    for noun, service in (("document", "docs"), ("issue", "issues")):
        done = {"kind": "action", "summary": f"archive the {noun}"}
        plan.append(_step(f"{service}.archive", done))
    for noun, service in (("document", "docs"), ("issue", "issues")):
        note = {"kind": "create", "summary": "create a comment", "label": f"{noun} comment",
                "for": [f"the {noun}"], "values": [["body", '"Seen."']]}  # fmt: skip
        plan.append(_step(f"{service}.comment", note, {"body": "Seen."}))
    text = _render(plan, 0)
    assert "comment on the document in Docs" in text and " issue in Issues: " in text, text
    assert "comment in Docs" not in text, text


def test_a_person_s_user_entry_is_their_account() -> None:
    """ "Suspend Jeffrey's user account in Identity", not "Jeffrey's user record"; their
    order is still "Jeffrey's order"."""
    user = _find("identity.list_users", "user", [["email", '"edward.cook@myers.com.au"']])
    plan = [user, _step("identity.suspend", {"kind": "action", "summary": "suspend the user"})]
    text = _render(plan, 0)
    assert "Suspend Edward's user account in Identity." in text, text
    assert _listed("order", "Edward's user account in Retail", "") == "Edward's order in Retail"


def test_a_field_people_write_in_capitals_is_in_capitals() -> None:
    from library.compose.context import field_words

    assert field_words("mrr") == "MRR" and field_words("sla_hours") == "SLA in hours"
    assert field_words("customer_email") == "customer email"


def test_an_action_that_takes_a_record_to_a_value_says_to() -> None:
    """ "scale the deployment to 8 replicas", "extend the rental until "..."", not "with 8
    replicas" or "with the dropoff time"."""
    deployment = _find("k8s.list_deployments", "deployment", [["name", '"search"']])
    scale = {"kind": "action", "summary": "scale the deployment", "values": [["replicas", "8"]]}
    plan = [deployment, _step("k8s.scale", scale, {"replicas": 8})]
    text = _render(plan, 0, goal='The deployment "search" is slow.')
    assert "Scale the deployment in K8S to 8 replicas." in text, text
    rental = _find("rentals.list", "rental", [["email", '"edward.cook@myers.com.au"']])
    extend = {"kind": "action", "summary": "extend the rental",
              "values": [["dropoff at", '"2026-04-03T15:00:00Z"']]}  # fmt: skip
    plan = [rental, _step("rentals.extend", extend, {"dropoff_at": "2026-04-03T15:00:00Z"})]
    assert 'until "2026-04-03T15:00:00Z"' in _render(plan, 0)


def test_an_assignment_to_a_person_read_off_a_record_names_the_person() -> None:
    """ "assign the ticket to the owner of Edward's contact record in Crm", not "to the owner
    email of ..."."""
    contact = _find("crm.list_contacts", "contact", [["email", '"edward.cook@myers.com.au"']])
    ticket = _find("helpdesk.list", "ticket", [["requester email", '"edward.cook@myers.com.au"']])
    assign = {"kind": "action", "summary": "assign the ticket",
              "values": [["assignee email", "the owner email of the contact"]]}  # fmt: skip
    text = _render([contact, ticket, _step("helpdesk.assign", assign)], 0)
    assert "to Edward's account owner in Crm." in text, text


def test_one_person_s_two_entries_are_theirs_not_a_shared_email() -> None:
    """The contact whose email is the customer's email is "the contact of the customer",
    not "the contact with the email of the customer"."""
    order = _find("shop.list_orders", "order", [["number", '"A-1"']])
    fetch = {"kind": "fetch", "noun": "customer", "label": "customer",
             "via": "the customer ID of the order"}  # fmt: skip
    customer = _step("shop.get_customer", fetch)
    contact = _find("crm.list_contacts", "contact", [["email", "the email of the customer"]])
    values = [["title", '"Call"'], ["assignee email", "the owner email of the contact"]]
    task = {"kind": "create", "summary": "add a new task", "label": "new task", "values": values}
    plan = [order, customer, contact, _step("todo.create", task, {"title": "Call"})]
    text = _render(plan, 0, goal='The order "A-1" needs a call.')
    # (its owner is the customer's: tests/test_s11_wording_chains.py)
    assert "assigned to the account owner in Crm of the customer" in text, text
    assert "with the email of" not in text, text


def test_a_person_s_own_address_in_a_role_is_that_person() -> None:
    """ "the message from the customer of the order", not "the message whose sender is the
    email of the customer of the order"."""
    order = _find("shop.list_orders", "order", [["number", '"A-1"']])
    fetch = {"kind": "fetch", "noun": "customer", "label": "customer",
             "via": "the customer ID of the order"}  # fmt: skip
    message = _find("mail.list_messages", "message", [["sender", "the email of the customer"]])
    reply = {"kind": "action", "summary": "reply to the message", "values": [["body", '"Done."']]}
    plan = [order, _step("shop.get_customer", fetch), message, _step("mail.reply", reply)]
    text = _render(plan, 0, goal='The order "A-1" needs a reply.')
    assert "reply to the message from the customer in Mail" in text, text
    assert "whose sender" not in text, text


def test_a_field_of_a_record_a_summary_names_is_its_own() -> None:
    """ "with just the order ID as its description", not "... the ID of the order ..."."""
    user = _find("retail.list_users", "user", [["email", '"edward.cook@myers.com.au"']])
    cancel = {"kind": "action", "summary": "cancel the order listed on the user"}
    values = [["title", '"Refund"'], ["description", "the ID of the order"]]
    ticket = {"kind": "create", "summary": "create a ticket", "label": "ticket", "values": values}
    plan = [
        user,
        _step("retail.cancel", cancel),
        _step("tickets.create", ticket, {"title": "Refund"}),
    ]
    text = _render(plan, 0)
    assert re.search(r"(?:just|nothing but|only) the order ID", text), text


def test_a_message_not_read_is_unread() -> None:
    from library.compose.referring import flag_clauses

    assert flag_clauses([("read", False)], "the key") == "mark the key as unread"
    assert flag_clauses([("unread", False)], "it") == "mark it as read"


def test_a_new_record_for_a_person_is_for_them() -> None:
    """ "create a booking in Hotels for "ann@x.com"", not "with "ann@x.com" as guest"."""
    note = {"kind": "create", "summary": "create a booking", "label": "booking",
            "values": [["guest email", '"ann@x.com"'], ["rooms", "2"]]}  # fmt: skip
    plan = [_step("hotels.create_booking", note, {"guest_email": "ann@x.com", "rooms": 2})]
    text = _render(plan, 0, goal="Ann needs a room.")
    assert 'booking in Hotels for "ann@x.com", with 2 rooms' in text, text


def test_a_state_that_echoes_the_noun_follows_it() -> None:
    """ "the booking organized by Edward in Workplace whose status is "booked"", not "the
    booked booking"; "the on-hold ticket" keeps its word before the noun."""
    for noun, value, said in (("booking", "booked", "that's booked"),
                              ("ticket", "on_hold", "on-hold ticket")):  # fmt: skip
        found = _find("workplace.list", noun, [["organizer email", '"edward.cook@myers.com.au"']])
        found["select"] = {"rule": "matching", "field": "status", "value": value}
        done = {"kind": "action", "summary": f"cancel the {noun}"}
        text = _render([found, _step("workplace.cancel", done)], 0)
        assert said in text and "booked booking" not in text, text


def test_a_record_of_a_person_s_own_entry_is_simply_theirs() -> None:
    """ "Capture Michael's payment in Payments with the largest amount", not "capture the
    payment with the largest amount among those of Michael's customer record in
    Payments"."""
    customer = _find(
        "payments.list_customers", "customer", [["email", '"edward.cook@myers.com.au"']]
    )
    payment = {"kind": "lookup", "noun": "payment", "nouns": "payments", "label": "payment",
               "of": ["the customer"]}  # fmt: skip
    found = _step("payments.list_payments", payment)
    found["select"] = {"rule": "largest", "field": "amount"}
    capture = _step("payments.capture", {"kind": "action", "summary": "capture the payment"})
    text = _render([customer, found, capture], 0)
    assert "Capture Edward's payment in Payments with the largest amount." in text, text
    assert "among those" not in text and "customer record" not in text, text


def test_a_stated_text_that_holds_a_quote_stays_whole() -> None:
    """One full stop after a quote, unless that stop belongs to the stated text itself."""
    said = 'He said "Done!". Then he left.'
    plan = _task([["title", f'"{said}"']])
    plan[-1]["arguments"] = {"title": said}
    for variant in range(4):
        assert f'"{said}"' in _render(plan, variant)


def test_a_person_s_entry_elsewhere_is_that_person_there() -> None:
    """ "a payment for the invoice's customer in Payments", not "for the customer record
    of the invoice's customer in Payments"."""
    invoice = _find("invoicing.list", "invoice", [["number", '"INV-1"']])
    customer = _find("payments.list_customers", "customer",
                     [["email", "the customer email of the invoice"]])  # fmt: skip
    values = [["amount", "the total of the invoice"]]
    pay = {"kind": "create", "summary": "create a payment", "label": "payment",
           "for": ["the customer"], "values": values}  # fmt: skip
    send = _step("invoicing.send", {"kind": "action", "summary": "send the invoice"})
    plan = [invoice, send, customer, _step("payments.create", pay)]
    text = _render(plan, 0, goal='The invoice "INV-1" is due.')
    assert "payment for the invoice's customer in Payments, for the invoice's total" in text, text
