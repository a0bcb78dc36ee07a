"""What a workflow's own messages say: the subject line of a refund e-mail is about the
refund, an onboarding's welcome meeting is a welcome. Free text a plan writes (a message,
a comment, a note, a task, a meeting) is drawn from the task's workflow first, so the words
a person reads in the request belong to the work it describes.

Keyed by the seed vocabulary's kinds (``library.seed.vocab.meaning``); a kind a workflow
has no words for falls back to the shared vocabulary.
"""

from __future__ import annotations

# Kinds of free text that carry a workflow's topic, and the ones that share their words.
# (A call's notes say what it was about, never that anyone answered: the call may have
# gone to voicemail.)
_SAME = {
    "body:generic": "body:message",
    "body:support": "body:comment",
    "body:sales": "body:comment",
    "body:project": "body:comment",
    "body:document": "body:comment",
    "note_title": "task_title",
    "activity_subject": "task_title",
    "event_name": "meeting_topic",
}

_T = dict[str, tuple[str, ...]]

TOPIC_TEXTS: dict[str, _T] = {
    "onboarding": {
        "body:call": ("About the new starter's first week.",),
        "ticket_subject": ("New starter: accounts and equipment", "Set-up for a new joiner"),
        "email_subject": ("Welcome aboard", "Your first week", "Your accounts are ready"),
        "body:message": (
            "Welcome to the team! Your accounts are set up; see you on your first day.",
            "Everything is ready for your start: laptop, accounts and an intro meeting.",
        ),
        "body:comment": ("Access set up for the new starter.", "Onboarding checklist done."),
        "task_title": ("Prepare the new starter's laptop", "Onboarding checklist"),
        "meeting_topic": ("Welcome and introductions", "First-week check-in"),
    },
    "offboarding": {
        "ticket_subject": ("Leaver: remove access", "Offboarding: return of equipment"),
        "issue_summary": ("Leaver: hand over open work",),
        "email_subject": (
            "Your last day",
            "Handover before you leave",
            "Access removal",
            "Before you go",
        ),
        "body:message": (
            "Your access will be removed at the end of your last day; thanks for everything.",
            "Please hand over open work before you leave; your accounts close on your last day.",
            "Thank you for your time with us; your accounts close at the end of your last day.",
            "Before you go, please pass your open work on; your access ends on your last day.",
        ),
        "body:comment": (
            "Access revoked as part of offboarding.",
            "Handed over on leaving.",
            "Offboarding: access removed.",
            "Leaver's access taken away.",
            "Part of the leaver's offboarding.",
        ),
        "task_title": ("Collect the leaver's equipment", "Offboarding checklist"),
        "meeting_topic": ("Handover", "Exit interview"),
    },
    "escalation": {
        "body:call": (
            "About the escalated case; an update is promised today.",
            "Case escalated; an update is due today.",
        ),
        "ticket_subject": ("Issue still not resolved", "Urgent: waiting too long for a fix"),
        # an issue an escalation files is the escalated case's fix, not a random feature
        "issue_summary": ("Fix for an escalated case", "Escalated: needs a fix this week"),
        "email_subject": (
            "Your case has been escalated",
            "Update on your support case",
            "Your case",
        ),
        "body:message": (
            "We have escalated your case and will update you shortly.",
            "Sorry for the wait: your case has been escalated and we are on it.",
            "Your case now has a higher priority with us; expect an update soon.",
            "Thanks for your patience: we have raised your case and will be in touch.",
        ),
        # neutral on whose case it is: a colleague's issue has no customer waiting
        "body:comment": (
            "Escalated for a closer look.",
            "Escalated: this has waited too long.",
            "Raised for priority handling.",
            "Escalating: needs attention today.",
        ),
        "task_title": ("Follow up on the escalated case", "Check the escalation"),
        "meeting_topic": ("Escalation review", "Incident review"),
    },
    "refund": {
        "body:call": ("About their refund request.", "Refund requested for their recent order."),
        "ticket_subject": ("Refund request", "Money back for my order"),
        "email_subject": ("Your refund is on its way", "About your refund", "Refund processed"),
        "body:message": (
            "We have processed your refund; it should reach you within 5 business days.",
            "Sorry for the trouble: your money is on its way back to you.",
            "Your refund is processed; depending on your bank it may take a few days to show.",
            "All done: the refund is on its way to your original payment method.",
            "Your refund has gone through; please allow a few business days for it to arrive.",
        ),
        "body:comment": ("Refund issued to the customer.", "Refunded at the customer's request."),
        "task_title": ("Confirm the refund reached the customer", "Check the refund"),
        "meeting_topic": ("Refund follow-up",),
    },
    "renewal": {
        "body:call": ("About the upcoming renewal.", "Renewal terms to follow by email."),
        "ticket_subject": ("Question about my renewal", "Renewal terms"),
        "email_subject": ("Your renewal", "Your plan renews soon"),
        "body:message": (
            "Your subscription is due to renew; the updated terms are ready for you.",
            "Thanks for staying with us: your renewal is in hand.",
            "Your renewal is coming up; we have the details ready whenever you want to talk.",
            "Thanks for being with us another term; we are preparing your renewal.",
        ),
        "body:comment": ("Renewal in hand.", "Renewal prepared."),
        "task_title": ("Prepare the renewal", "Check the renewal terms"),
        "meeting_topic": ("Renewal review", "Contract renewal call"),
    },
    "scheduling": {
        "body:call": ("About finding a time to meet.",),
        "meeting_topic": ("Planning session", "Catch-up"),
        "ticket_subject": ("Meeting request", "Finding a time to meet"),
        "email_subject": ("Meeting scheduled", "Invitation: let's meet"),
        "body:message": (
            "I've put time in the calendar for us; let me know if it does not suit.",
            "Our meeting is booked; the invite has the details.",
        ),
        "body:comment": ("Meeting booked.", "Time found in both calendars."),
        "task_title": ("Prepare for the meeting", "Send the agenda"),
    },
    # Billing is sending an invoice, taking a payment, voiding or settling one: its words
    # claim none of them in particular ("Thanks, we have received your payment." after
    # sending an invoice; "The invoice has gone out" after voiding it).
    "billing": {
        "body:call": (
            "About a question on their invoice.",
            "Billing query; the charges to be explained by email.",
        ),
        "ticket_subject": ("Question about my invoice", "Billing query"),
        "email_subject": ("Your billing", "About your account balance"),
        "body:message": (
            "Your billing is sorted; the details are on your account.",
            "We have updated your billing; nothing more is needed from you.",
            "Thanks for your patience; your account's billing is now up to date.",
        ),
        "body:comment": ("Billing updated.", "Billing settled."),
        "task_title": ("Check the payment arrived", "Chase the open invoice"),
        "meeting_topic": ("Billing review",),
    },
    "fulfilment": {
        "body:call": (
            "About a late delivery; an update is promised by email.",
            "About their order's delivery.",
        ),
        "ticket_subject": ("Where is my order?", "Delivery delayed"),
        "meeting_topic": ("Delivery review", "Order status call"),
        "email_subject": ("An update on your order", "About your delivery", "Your order"),
        # (the message follows the change made, whatever it was: an address put right, a
        # shipment made; "we've looked into your order" answered an address change with
        # nothing about the address)
        "body:message": (
            "We've updated your order as you asked; we'll keep you posted on its delivery.",
            "Your order is changed as you asked; we'll keep you posted on its delivery.",
            "Thanks: your order is updated as you asked; we'll watch its delivery.",
            "Done: your order is changed as you asked; we'll update you as it moves.",
        ),
        "body:comment": ("Order updated for delivery.", "Delivery in hand."),
        "task_title": ("Confirm the delivery", "Check the shipment"),
    },
    # neutral on the stage the step moves the candidate to (screen, interview, offer, hire):
    # no "invite you to an interview" beside a hire
    "hiring": {
        "body:call": ("About the candidate's next steps.",),
        "ticket_subject": ("Candidate question", "Application question"),
        "email_subject": ("Your application", "An update on your application"),
        "body:message": (
            "Thanks for your time so far; your application has moved forward.",
            "Good news: your application has moved on; we will be in touch with the details.",
        ),
        "body:comment": ("Application moved forward.", "Strong candidate; moving forward."),
        "task_title": ("Follow up with the candidate", "Check the candidate's next step"),
        # a meeting of ours about the candidate, whatever stage they reach (an interview is
        # the interview record's, booked in the recruiting tool)
        "meeting_topic": ("Hiring debrief", "Candidate review"),
    },
    "procurement": {
        "ticket_subject": ("Purchase order query", "Vendor question"),
        "email_subject": ("Purchase order", "Your order with us"),
        "body:message": (
            "Please find our purchase order; confirm the delivery date when you can.",
            "The purchase is approved; the order goes out today.",
        ),
        "body:comment": ("Purchase approved.", "Order sent to the vendor."),
        "task_title": ("Confirm delivery with the vendor", "Check the purchase order"),
        "meeting_topic": ("Vendor review",),
    },
    "travel": {
        "body:call": ("About a change to their booking.",),
        "ticket_subject": ("Change to my booking", "Travel booking question"),
        "email_subject": ("Your trip", "Travel arrangements", "Your booking"),
        "body:message": (
            # (nothing is attached "below": the message says what was done)
            "Your booking is updated as you asked; the confirmation is unchanged.",
            "Your itinerary is changed as you asked; nothing else on the trip moves.",
        ),
        "body:comment": ("Booking updated.", "Itinerary updated."),
        "task_title": ("Check the itinerary", "File the travel expenses"),
        "meeting_topic": ("Trip briefing",),
    },
    "expenses": {
        "body:call": ("About their expense claim.",),
        "ticket_subject": ("Expense claim query", "Reimbursement question"),
        "meeting_topic": ("Expense review",),
        "email_subject": ("Your expense claim", "Expenses approved"),
        "body:message": (
            "Your expense report has been processed.",
            "Your expenses are approved and will be paid with the next run.",
        ),
        "body:comment": ("Expenses checked against policy.", "Approved."),
        "task_title": ("Check the receipts", "Reimburse the expenses"),
    },
    "follow-up": {
        "body:call": (
            "Follow-up on their open request; next step by email.",
            "Chasing their reply on the open request.",
        ),
        "ticket_subject": ("Following up on my request", "Any news on my request?"),
        "email_subject": ("Following up", "Checking in", "Quick follow-up"),
        "body:message": (
            "Just following up on our conversation; let me know how you'd like to proceed.",
            "Thanks for your message; we're looking into it and will come back to you soon.",
            "Checking in on your request: we haven't forgotten it and will update you shortly.",
            "A quick note to say your request is still with us; more from us soon.",
        ),
        # whoever writes the note: it says where the case stands, not who chased it, nor
        # that a customer did (a colleague's own task has none: "Review the Q3 budget")
        "body:comment": ("Waiting on their reply.", "Checked in; waiting to hear back."),
        "task_title": ("Follow up", "Check back next week"),
        "meeting_topic": ("Follow-up call", "Check-in"),
    },
    # The work of teams that run software: an incident, a DNS change, a credential
    # rotation, files to share (``motifs``).
    # An incident restarts, rolls back, scales, suspends or resumes: its words claim none of
    # them ("service restored" after suspending a line).
    "incident": {
        "body:call": ("About the incident; updates are promised.",),
        "ticket_subject": ("Service degraded", "Outage follow-up"),
        "issue_summary": ("Find the root cause of the outage", "Stop the outage recurring"),
        # what went wrong, not a hold the customer asked for ("travelling abroad")
        "suspension_reason": ("Phone reported lost", "Suspected fraud on the account"),
        "email_subject": ("Update on the incident", "About the incident"),
        "body:message": (
            "We have acted on the incident; we are watching the service closely.",
            "The change for the incident is made; we will keep you posted.",
            "We have made a change to address the incident and are monitoring it.",
        ),
        "body:comment": ("Acted on; monitoring.", "Change made; watching it."),
        "task_title": ("Write the incident report", "Check the service after the fix"),
        "meeting_topic": ("Incident review", "Post-incident review"),
    },
    "domain setup": {
        "ticket_subject": ("DNS change request", "Domain set-up"),
        "email_subject": ("Your domain is set up", "DNS change made"),
        "body:message": (
            "The DNS records are in place; changes can take an hour to propagate.",
            "Your domain settings are updated as requested.",
            "The DNS change is made; allow some time for it to take effect.",
        ),
        "body:comment": ("DNS records updated.", "Domain verified."),
        "task_title": ("Check the DNS propagation", "Verify the domain"),
        "meeting_topic": ("DNS change review",),
    },
    "access": {
        "ticket_subject": ("Credential rotation", "Access change request"),
        "email_subject": ("Your credentials were rotated", "Access updated"),
        "body:message": (
            "Your credentials have been rotated; please use the new ones from now on.",
            "Your access is updated as requested.",
            "The access change is done; let us know if anything stops working.",
        ),
        "body:comment": ("Key rotated.", "Access updated as requested."),
        "task_title": ("Update the services using the old key", "Review access"),
        "meeting_topic": ("Access review",),
    },
    "file sharing": {
        "ticket_subject": ("Access to the shared files", "File sharing request"),
        "email_subject": ("Your files are ready", "Your file request is done"),
        "body:message": (
            "Your files are in place; you should be able to open them now.",
            "The documents are where you asked; let me know if anything is missing.",
        ),
        "body:comment": ("Filed where it belongs.", "Latest version uploaded."),
        "task_title": ("Check the files are in place", "Tidy up the folder"),
        "meeting_topic": ("Document review",),
    },
    # A team's own board and directory: the words claim no particular step (a task may be
    # completed, reopened, reassigned or edited; an account edited or moved between groups).
    "task update": {
        "ticket_subject": ("Task list update", "Board clean-up"),
        "email_subject": ("Task list updated", "Your tasks are up to date", "Board update"),
        "body:message": (
            "I've updated the tasks on the board; the details are on each task.",
            "The task list is up to date now; have a look when you get a chance.",
            "Your tasks are updated; nothing else on the board changed.",
        ),
        "body:comment": ("Task updated.", "Brought up to date.", "Updated on the board."),
        "task_title": ("Review the task list", "Tidy up the board"),
        "meeting_topic": ("Task review", "Board review"),
    },
    "account change": {
        "ticket_subject": ("Account change request", "User account update"),
        "email_subject": ("Account updated", "Your account change is done", "Account change"),
        "body:message": (
            "The account is updated; please check you can still sign in.",
            "Your account change is made; let us know if anything looks wrong.",
            "The account details are updated as requested.",
        ),
        "body:comment": ("Account updated.", "Account change made.", "Directory updated."),
        "task_title": ("Check the account change", "Review the user's access"),
        "meeting_topic": ("Access review", "Account review"),
    },
}


# What a workflow says to a colleague rather than to the customer or the person concerned:
# neutral on which of its steps the plan took (no "before we send" after sending the quote,
# no "to review" after approving the report, no "next stage" after a hire).
INTERNAL_TEXTS: dict[str, _T] = {
    "onboarding": {
        "email_subject": ("New starter", "Onboarding: accounts set up"),
        "body:message": ("The new starter's accounts and first meetings are set up.",),
    },
    "offboarding": {
        "email_subject": ("Leaver: access removed", "Offboarding handover"),
        "body:message": ("Their access is removed; please pick up their open work.",),
    },
    # told to whoever takes part (the new assignee, the reporter, a manager): neutral on
    # whose the case now is
    "escalation": {
        "email_subject": ("Escalated case", "Escalation update"),
        "body:message": ("This case is escalated and has priority now; see the record.",),
    },
    "refund": {
        "email_subject": ("Refund processed", "Refund issued"),
        "body:message": ("I've processed the customer's refund; nothing more needed from you.",),
    },
    "renewal": {
        "email_subject": ("Renewal coming up", "Renewal prepared"),
        "body:message": ("The renewal is in hand; the terms are on the record.",),
    },
    "scheduling": {
        "email_subject": ("Meeting booked", "Time in your calendar"),
        "body:message": ("I've booked the meeting; the invite has the details.",),
    },
    "billing": {
        "email_subject": ("Billing update",),
        "body:message": ("The billing is sorted; the details are on the record.",),
    },
    "fulfilment": {
        "email_subject": ("Delivery update", "Shipment update"),
        "body:message": ("The delivery is sorted; the details are on the order.",),
    },
    "hiring": {
        "email_subject": ("Candidate update", "Hiring update"),
        "body:message": ("The candidate's application is updated; the details are on it.",),
    },
    "procurement": {
        "email_subject": ("Purchase update", "Purchase order update"),
        "body:message": ("The purchase is handled; the details are on the purchase order.",),
    },
    "travel": {
        "email_subject": ("Travel arrangements updated", "Itinerary change"),
        "body:message": ("The travel arrangements are updated; the details are on the bookings.",),
    },
    "expenses": {
        "email_subject": ("Expense report update", "Expense report handled"),
        "body:message": ("I've taken care of the expense report; the details are on it.",),
    },
    # the colleague keeps the case moving whether or not the plan wrote to the customer, and
    # whoever owes the next word ("Rebecca is waiting on us", then a task titled "Waiting on
    # the customer" told two stories)
    "follow-up": {
        "email_subject": ("Customer follow-up", "Follow-up in progress"),
        "body:message": (
            "The customer's follow-up is in progress; please pick it up if they write again.",
        ),
    },
    "incident": {
        "email_subject": ("Incident follow-up", "Incident update"),
        "body:message": ("The incident is handled; please keep an eye on it today.",),
    },
    "domain setup": {
        "email_subject": ("DNS change made", "Domain settings updated"),
        "body:message": ("The DNS change is made; please check the domain from your side.",),
    },
    "access": {
        # (what was done may be a new key, not a rotation: the words claim neither)
        "email_subject": ("Credentials updated", "Access change made"),
        "body:message": ("The credentials are updated; please check your services still connect.",),
    },
    "file sharing": {  # a move or an upload as well as a share: the words claim none
        "email_subject": ("Your files are ready", "File request done"),
        "body:message": ("The files are in place; please check you can open them.",),
    },
}


def _report_texts(topic: str) -> _T:
    """What one writes back to the colleague the work was done for (they asked, or it was
    on their plate): that it is done, not a hand-over of their own case to them."""
    work = REPORTED.get(topic, topic)
    return {
        "email_subject": (f"Done: the {work}", f"Your {work} is handled"),
        "body:message": (
            f"I've taken care of the {work} for you; the details are on the records.",
            f"All done with the {work}; nothing more is needed from you.",
        ),
    }


# The work as the colleague it was done for calls it ("the hiring step is handled").
REPORTED: dict[str, str] = {
    "fulfilment": "delivery problem", "hiring": "hiring step", "procurement": "purchase",
    "travel": "travel booking", "expenses": "expense claim", "billing": "billing matter",
    "domain setup": "DNS change", "access": "credential change", "file sharing": "file request",
    "task update": "task update", "account change": "account change",
}  # fmt: skip


def topic_texts(
    topic: str | None, kind: str, internal: bool = False, reporting: bool = False
) -> tuple[str, ...]:
    """A workflow's words for one kind of free text (empty when it has none);
    ``internal``: said to a colleague, not to the customer or the person concerned;
    ``reporting``: said to the colleague the work is done for (that it is done)."""
    if not topic:
        return ()
    if reporting and (found := _report_texts(topic).get(kind)):
        return found
    for bank in (INTERNAL_TEXTS.get(topic, {}) if internal else {}, TOPIC_TEXTS.get(topic, {})):
        found = bank.get(kind) or bank.get(_SAME.get(kind, ""), ())
        if found:
            return found
    return ()


# What the person asking writes when a request arrives by e-mail: (subject, body, and the
# reason it gives, which an action's stated reason repeats; "" when it gives none).
REQUEST_TEXTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "refund": (
        ("Please cancel my order", "Hi, I no longer need my order. Can you cancel it?",
         "No longer needed"),
        ("Refund request",
         "Hello, I don't need my recent order any more; I'd like my money back, please.",
         "No longer needed"),
        ("Ordered by mistake", "I placed an order by mistake; please cancel it and refund me.",
         "Ordered by mistake"),
    ),
    "fulfilment": (
        ("Where is my order?", "Hi, my order hasn't arrived yet. Can you check on it?", ""),
        ("Delivery question", "Hello, could you look into the delivery of my order?", ""),
    ),
    "billing": (
        ("Question about my bill", "Hi, something on my latest bill looks wrong.", ""),
        ("Invoice query", "Hello, could you check my invoice? I think I was overcharged.", ""),
    ),
    "travel": (
        ("Change to my trip", "Hi, my plans changed; can you help with my booking?",
         "Change of plans"),
        ("Booking help", "Hello, I need to sort out my reservation, please.", ""),
    ),
    "scheduling": (
        ("Can we meet?", "Hi, could we find a time to talk this week?", ""),
        ("Meeting request", "Hello, I'd like to set up a call with your team.", ""),
    ),
    "escalation": (
        ("Still waiting on my issue", "Hi, my problem still isn't fixed; please escalate it.",
         ""),
        ("Urgent: no reply yet", "Hello, I've been waiting for days. Can someone look at this?",
         ""),
    ),
    "renewal": (
        ("Renewing my plan", "Hi, my subscription is up soon and I'd like to renew.", ""),
        ("Renewal question", "Hello, what do I need to do to renew?", ""),
    ),
    "follow-up": (
        ("Any update?", "Hi, just checking whether there's any news on my request.", ""),
        ("Following up", "Hello, following up on my earlier message.", ""),
    ),
}  # fmt: skip


def request_texts(topic: str | None) -> tuple[tuple[str, str, str], ...]:
    """(subject, body, reason) of e-mails asking for a workflow's work (none: not known)."""
    return REQUEST_TEXTS.get(topic or "", ())


# What someone writes about a workflow's matter without asking for the work itself (a
# candidate asks for news, not for their application to move on; a new starter asks what
# to bring): a reply the plan writes answers it. Never opens a request.
MATTER_TEXTS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "hiring": (
        ("Any news on my application?", "Hi, I wanted to check where my application stands.",
         ""),
        ("My application", "Hello, is there an update on my application?", ""),
    ),
    "expenses": (
        ("My expense report", "Hi, could you look at my expense report when you have a moment?",
         ""),
        ("Expenses from my trip", "Hello, my expenses from the trip are in; can you check them?",
         ""),
    ),
    "procurement": (
        ("Your purchase order", "Hello, we have your order; please confirm the details.", ""),
        ("Order confirmation", "Hi, can you confirm the purchase order so that we can ship?", ""),
    ),
    "onboarding": (
        ("Before my first day", "Hi, is there anything I need to do before my first day?", ""),
        ("Starting soon", "Hello, looking forward to starting; what should I expect?", ""),
    ),
}  # fmt: skip
# Workflows a colleague's own message can be about (their trip, their expenses, their
# start): elsewhere a colleague's mail is theirs to write, whatever it says.
ASKED_BY_COLLEAGUES = frozenset({"travel", "expenses", "onboarding", "scheduling"})


def asked_by_colleague(topic: str | None) -> tuple[tuple[str, str, str], ...]:
    """(subject, body, reason) of a colleague's e-mail asking for their work to be done
    (the hiring step, the renewal), which the reply that it is done answers; none where the
    colleague is not who the work is for (a leaver's own offboarding)."""
    if topic in (None, "follow-up", "offboarding") or topic in ASKED_BY_COLLEAGUES:
        return ()
    work = REPORTED.get(topic, topic)
    return (
        (f"Could you take care of the {work}?",
         f"Hi, could you take care of the {work} for me? The details are on the records.", ""),
        (f"Help with the {work}", f"Hello, I need a hand with the {work}; can you pick it up?",
         ""),
    )  # fmt: skip


def matter_texts(topic: str | None) -> tuple[tuple[str, str, str], ...]:
    """(subject, body, reason) of e-mails about a workflow's matter, which a reply answers:
    its requests, or what people write about it without asking for the work."""
    return request_texts(topic) or MATTER_TEXTS.get(topic or "", ())
