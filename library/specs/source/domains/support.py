"""Customer support, knowledge, surveys, field service and telephony services."""

from __future__ import annotations

from ..fields import (
    address,
    arr,
    boolean,
    company,
    dt,
    email,
    enum,
    integer,
    money,
    number,
    obj,
    person,
    phone,
    ref,
    s,
    tags,
    url,
)
from ..model import Action, Resource, Service

PRIORITIES = ("low", "normal", "high", "urgent")

HELPDESK = Service(
    name="helpdesk",
    title="Harbor Helpdesk",
    domain="support",
    format="openapi30_yaml",
    desc=(
        "Harbor is a shared inbox for customer support: customers' emails, chats and calls become "
        "tickets that agents triage, answer and resolve."
    ),
    resources=(
        Resource(
            "ticket",
            "A customer request tracked from first contact to resolution.",
            (
                s(
                    "subject",
                    "Short summary of the request, shown in ticket lists.",
                    req=True,
                    ex="Order arrived damaged",
                ),
                s("description", "First message from the customer.", req=True),
                person("requester_name", "Name of the customer who raised the ticket.", req=True),
                email(
                    "customer_email",
                    "Email of the customer; replies are sent here.",
                    req=True,
                    filt=True,
                ),
                phone("requester_phone", "Callback number of the customer, if given."),
                s(
                    "order_id",
                    "Store order the request is about, if any (e.g. from the storefront).",
                    filt=True,
                    ex="ord_7c9e6679",
                ),
                enum(
                    "status",
                    ("new", "open", "pending", "on_hold", "solved", "closed"),
                    "Ticket status; `pending` waits on the customer.",
                    default="new",
                    filt=True,
                ),
                enum(
                    "priority",
                    PRIORITIES,
                    "How urgently the ticket must be handled.",
                    default="normal",
                    filt=True,
                ),
                enum(
                    "channel",
                    ("email", "chat", "phone", "web_form", "social"),
                    "Channel the ticket arrived through.",
                    default="email",
                    immut=True,
                ),
                email(
                    "assignee_email",
                    "Agent the ticket is assigned to.",
                    filt=True,
                    null=True,
                    ex="omar.haddad@example.com",
                ),
                ref("group_id", "group", "Team queue that owns the ticket.", filt=True),
                tags(),
                dt("due_at", "SLA deadline for the next response.", null=True),
                dt("solved_at", "When the ticket was solved.", ro=True, null=True),
            ),
            search_fields=("subject", "description", "customer_email", "order_id"),
            docs={
                "create": (
                    "The customer receives an acknowledgement email with the "
                    "ticket number; tickets created with an `assignee_email` "
                    "start as `open`."
                ),
                "delete": (
                    "Deleted tickets are moved to the trash for 30 days before they are purged."
                ),
            },
        ),
        Resource(
            "comment",
            "A public reply to the customer or an internal note on a ticket.",
            (
                ref("ticket_id", "ticket", "Ticket the comment belongs to.", req=True, immut=True),
                s("body", "Comment text in Markdown.", req=True),
                email(
                    "author_email",
                    "Agent or customer who wrote the comment.",
                    req=True,
                    ex="omar.haddad@example.com",
                ),
                boolean(
                    "public",
                    "Public comments are emailed to the customer; private ones are internal notes.",
                    default=True,
                ),
            ),
            parent="ticket",
            ops=("create", "get", "list", "delete"),
        ),
        Resource(
            "group",
            "A team of agents with its own ticket queue, e.g. Billing or Returns.",
            (
                s("name", "Group name.", req=True, ex="Returns"),
                s("description", "What the group handles."),
                arr("member_emails", email("member_email", "An agent."), "Agents in the group."),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "assign_ticket",
            "ticket",
            "Assign a ticket",
            (
                "Assigns a ticket to an agent (and optionally moves it to another "
                "group). A `new` ticket becomes `open`."
            ),
            params=(
                email(
                    "assignee_email",
                    "Agent who takes the ticket.",
                    req=True,
                    ex="omar.haddad@example.com",
                ),
                ref("group_id", "group", "Group to move the ticket to."),
            ),
        ),
        Action(
            "escalate_ticket",
            "ticket",
            "Escalate a ticket",
            "Raises a ticket to `urgent`, moves it to the escalation group and records why.",
            params=(s("reason", "Why the ticket is escalated.", req=True),),
        ),
        Action(
            "close_ticket",
            "ticket",
            "Solve and close a ticket",
            (
                "Marks the ticket as solved, optionally with a final public reply; the "
                "customer receives a satisfaction survey."
            ),
            params=(
                s("resolution", "Final reply sent to the customer."),
                enum(
                    "resolution_code",
                    ("answered", "refunded", "replaced", "duplicate", "wont_fix"),
                    "How the request was resolved.",
                    req=True,
                ),
            ),
        ),
    ),
)

KNOWLEDGE_BASE = Service(
    name="knowledge_base",
    title="Lantern Knowledge Base",
    domain="support",
    format="openapi31_json",
    desc=(
        "Lantern hosts a public help center and internal knowledge base: articles grouped in "
        "categories, with drafts, publishing and feedback."
    ),
    resources=(
        Resource(
            "category",
            "A section of the help center that groups related articles; categories can nest.",
            (
                s("name", "Category title.", req=True, ex="Shipping & delivery"),
                s("description", "Shown under the title on the help center."),
                ref(
                    "parent_category_id",
                    "category",
                    "Parent category; null for top-level categories.",
                    null=True,
                ),
                integer("position", "Sort order among siblings.", minimum=0, default=0),
            ),
            plural="categories",
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "article",
            (
                "A help article written in Markdown, published to the public help "
                "center or kept internal."
            ),
            (
                s("title", "Article title.", req=True, ex="How to return an item"),
                s("body", "Article content in Markdown.", req=True),
                ref(
                    "category_id",
                    "category",
                    "Category the article is filed in.",
                    req=True,
                    filt=True,
                ),
                email(
                    "author_email", "Author of the article.", req=True, ex="omar.haddad@example.com"
                ),
                enum(
                    "visibility",
                    ("public", "internal"),
                    "Who can read the article.",
                    default="public",
                    filt=True,
                ),
                enum(
                    "status",
                    ("draft", "published", "archived"),
                    "Publication status.",
                    ro=True,
                    filt=True,
                ),
                s("locale", "Language of the article (BCP 47).", default="en-US"),
                url("public_url", "URL on the help center, once published.", ro=True, null=True),
                tags(),
                integer("helpful_votes", "Readers who marked the article helpful.", ro=True),
                dt("published_at", "When the article was first published.", ro=True, null=True),
            ),
            search_fields=("title", "body", "tags"),
        ),
    ),
    actions=(
        Action(
            "publish_article",
            "article",
            "Publish an article",
            (
                "Publishes the current draft of an article to the help center and "
                "returns it with its public URL."
            ),
        ),
        Action(
            "archive_article",
            "article",
            "Archive an article",
            (
                "Unpublishes an article and hides it from search; it can be restored "
                "later by publishing it again."
            ),
        ),
    ),
)

FORMS = Service(
    name="forms",
    title="Canvas Forms",
    domain="surveys",
    format="mcp",
    desc=(
        "Canvas builds forms and surveys (questions, logic, branding), shares them by link and "
        "collects responses."
    ),
    resources=(
        Resource(
            "form",
            "A form or survey with an ordered list of questions.",
            (
                s(
                    "title",
                    "Form title shown to respondents.",
                    req=True,
                    ex="Customer satisfaction survey",
                ),
                s("description", "Intro text shown above the first question."),
                arr(
                    "questions",
                    obj(
                        "question",
                        (
                            s(
                                "key",
                                "Stable key of the question, used in responses.",
                                req=True,
                                ex="nps",
                            ),
                            s(
                                "label",
                                "Question text.",
                                req=True,
                                ex="How likely are you to recommend us?",
                            ),
                            enum(
                                "type",
                                (
                                    "short_text",
                                    "long_text",
                                    "email",
                                    "phone",
                                    "number",
                                    "rating",
                                    "choice",
                                    "date",
                                ),
                                "Answer type.",
                                req=True,
                            ),
                            boolean("required", "Whether an answer is mandatory.", default=False),
                            arr(
                                "choices",
                                s("choice", "An option."),
                                "Options of a `choice` question.",
                            ),
                        ),
                        "One question.",
                    ),
                    "Questions in display order.",
                    req=True,
                ),
                enum(
                    "status",
                    ("draft", "open", "closed"),
                    "Whether the form accepts responses.",
                    ro=True,
                    filt=True,
                ),
                url("share_url", "Public link to fill the form.", ro=True),
                email(
                    "notify_email",
                    "Address notified on every new response.",
                    ex="cx-team@northwind.example.com",
                ),
                integer("response_count", "Number of responses so far.", ro=True),
            ),
            search_fields=("title", "description"),
        ),
        Resource(
            "response",
            "One submission of a form.",
            (
                ref("form_id", "form", "Form that was filled.", req=True, filt=True, immut=True),
                email(
                    "respondent_email",
                    "Email of the respondent, when the form asks for it.",
                    filt=True,
                ),
                person("respondent_name", "Name of the respondent, when the form asks for it."),
                obj(
                    "answers",
                    (s("nps", "Example answer keyed by question key.", ex="9"),),
                    "Answers keyed by question `key`.",
                    req=True,
                ),
                dt("submitted_at", "When the response was submitted.", ro=True),
            ),
            ops=("create", "get", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "publish_form",
            "form",
            "Open a form",
            "Opens a draft or closed form for responses and returns its share link.",
        ),
        Action(
            "close_form",
            "form",
            "Close a form",
            "Stops accepting responses; existing responses are kept.",
        ),
        Action(
            "summarize_responses",
            "form",
            "Summarize responses",
            (
                "Aggregates the responses of a form: counts per choice and averages of "
                "rating and number questions."
            ),
            returns=(
                ref("form_id", "form", "The form.", req=True),
                integer("response_count", "Responses included.", req=True),
                arr(
                    "questions",
                    obj(
                        "question_summary",
                        (
                            s("key", "Question key."),
                            number("average", "Average of numeric answers.", null=True),
                            obj("choice_counts", (), "Responses per choice."),
                        ),
                        "Aggregates of one question.",
                    ),
                    "Per-question aggregates.",
                    req=True,
                ),
            ),
            method="GET",
            read_only=True,
            verb="summary",
        ),
    ),
)

FIELD_SERVICE = Service(
    name="field_service",
    title="Dispatch Field Service",
    domain="field_service",
    format="openapi30_yaml",
    desc=(
        "Dispatch schedules on-site work: customers' service sites, work orders for repairs and "
        "installations, and the technicians who are sent to do them."
    ),
    resources=(
        Resource(
            "site",
            "A customer location where equipment is installed and work is carried out.",
            (
                s("name", "Site name.", req=True, ex="Northwind warehouse 2"),
                company("company_name", "Customer that owns the site.", req=True),
                address("address", "Street address technicians drive to.", req=True),
                person("contact_name", "On-site contact person."),
                phone("contact_phone", "Phone number of the on-site contact."),
                s("access_instructions", "Gate codes, parking and safety notes."),
            ),
            search_fields=("name", "company_name"),
        ),
        Resource(
            "technician",
            "A field technician with skills, a home base and a working calendar.",
            (
                person("full_name", "Technician's name.", req=True),
                email(
                    "email",
                    "Work email; dispatch notifications go here.",
                    req=True,
                    filt=True,
                    ex="luis.ortega@example.com",
                ),
                phone("mobile", "Mobile number for SMS dispatches.", req=True),
                arr(
                    "skills",
                    enum(
                        "skill",
                        ("hvac", "electrical", "plumbing", "refrigeration", "networking"),
                        "A skill.",
                    ),
                    "Certified skills.",
                    req=True,
                ),
                enum(
                    "status",
                    ("available", "on_job", "off_duty"),
                    "Current availability.",
                    default="available",
                    filt=True,
                ),
                s("home_base", "Depot the technician starts from.", ex="Oakland depot"),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "work_order",
            "A job at a customer site: what must be done, when, by whom, and what it cost.",
            (
                s(
                    "title",
                    "Short description of the job.",
                    req=True,
                    ex="Replace compressor on cooler 3",
                ),
                s("description", "Full problem description."),
                ref("site_id", "site", "Site where the work happens.", req=True, filt=True),
                email(
                    "customer_email", "Customer contact who receives visit confirmations.", req=True
                ),
                phone("customer_phone", "Customer callback number."),
                enum(
                    "type",
                    ("repair", "installation", "maintenance", "inspection"),
                    "Kind of job.",
                    req=True,
                    filt=True,
                ),
                enum("priority", PRIORITIES, "Urgency of the job.", default="normal", filt=True),
                enum(
                    "status",
                    ("new", "scheduled", "dispatched", "in_progress", "completed", "canceled"),
                    "Job status.",
                    ro=True,
                    filt=True,
                ),
                ref(
                    "technician_id",
                    "technician",
                    "Technician assigned to the job.",
                    ro=True,
                    null=True,
                    filt=True,
                ),
                dt("scheduled_start", "Start of the visit window.", null=True),
                dt("scheduled_end", "End of the visit window.", null=True),
                s("ticket_id", "Support ticket that triggered the job, if any.", ex="tic_1f8e2a4d"),
                money("total_cost", "Labor and parts billed for the job.", ro=True),
                s(
                    "currency",
                    "Currency of `total_cost`.",
                    ro=True,
                    pattern=r"^[A-Z]{3}$",
                    ex="USD",
                ),
            ),
            search_fields=("title", "description"),
        ),
    ),
    actions=(
        Action(
            "dispatch_work_order",
            "work_order",
            "Dispatch a technician",
            (
                "Assigns a technician to a work order for a visit window and notifies "
                "them by SMS. Fails if the technician lacks the skill the job type "
                "needs."
            ),
            params=(
                ref("technician_id", "technician", "Technician to send.", req=True),
                dt("scheduled_start", "Start of the visit window.", req=True),
                dt("scheduled_end", "End of the visit window.", req=True),
            ),
            verb="dispatch",
        ),
        Action(
            "complete_work_order",
            "work_order",
            "Complete a work order",
            "Records the work done, labor hours and parts used, and closes the work order.",
            params=(
                s("resolution", "What the technician did.", req=True),
                number("labor_hours", "Hours worked on site.", req=True, minimum=0, ex=2.5),
                money("parts_cost", "Cost of parts used.", default=0),
                s("currency", "Currency of `parts_cost`.", pattern=r"^[A-Z]{3}$", ex="USD"),
            ),
            verb="complete",
        ),
    ),
)

VOICE = Service(
    name="voice",
    title="Switchboard Cloud Phone",
    domain="telephony",
    format="openapi30_json",
    desc=(
        "Switchboard is a cloud phone system for sales and support teams: phone numbers, "
        "inbound and outbound calls, call recordings and voicemail."
    ),
    resources=(
        Resource(
            "phone_number",
            "A phone number rented by the account and routed to a user or a queue.",
            (
                s(
                    "number",
                    "The phone number. E.164 format, e.g. +14155550132.",
                    req=True,
                    immut=True,
                    pattern=r"^\+[1-9][0-9]{6,14}$",
                    ex="+14155550100",
                ),
                s("label", "Friendly name.", ex="Support line"),
                email(
                    "assigned_user_email",
                    "User who receives calls to this number.",
                    null=True,
                    ex="omar.haddad@example.com",
                ),
                s(
                    "country",
                    "Country of the number (ISO 3166-1 alpha-2).",
                    pattern=r"^[A-Z]{2}$",
                    immut=True,
                    ex="US",
                ),
                boolean(
                    "sms_enabled", "Whether the number can send and receive SMS.", default=False
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "call",
            "An inbound or outbound call with its parties, duration, outcome and recording.",
            (
                phone("from", "Calling number.", req=True, filt=True),
                phone("to", "Called number.", req=True, filt=True),
                enum("direction", ("inbound", "outbound"), "Call direction.", ro=True, filt=True),
                email(
                    "user_email",
                    "Switchboard user on the call.",
                    filt=True,
                    ex="omar.haddad@example.com",
                ),
                enum(
                    "status",
                    ("ringing", "in_progress", "completed", "missed", "voicemail", "failed"),
                    "Call status.",
                    ro=True,
                    filt=True,
                ),
                integer("duration_seconds", "Talk time in seconds.", ro=True),
                url(
                    "recording_url",
                    "Recording of the call, if recording was on.",
                    ro=True,
                    null=True,
                ),
                s("notes", "Notes the user took during the call."),
                dt("started_at", "When the call started.", ro=True),
            ),
            ops=("create", "get", "list", "update"),
            docs={
                "create": (
                    "Creating a call places an outbound call: Switchboard rings the user "
                    "first, then dials `to`."
                )
            },
        ),
        Resource(
            "voicemail",
            "A voicemail left on a number, with its transcription.",
            (
                ref("call_id", "call", "Call the voicemail was left on.", ro=True, filt=True),
                phone("from", "Caller's number.", ro=True),
                url("audio_url", "Audio file of the message.", ro=True),
                s("transcription", "Machine transcription of the message.", ro=True),
                boolean("read", "Whether a user listened to it.", default=False, filt=True),
            ),
            ops=("get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "transfer_call",
            "call",
            "Transfer a call",
            (
                "Transfers an in-progress call to another user or an external number, "
                "warm (announce first) or cold."
            ),
            params=(
                email("target_user_email", "User to transfer to.", ex="sam.rivera@example.com"),
                phone("target_number", "External number to transfer to, when no user is given."),
                enum("mode", ("warm", "cold"), "Transfer style.", default="cold"),
            ),
        ),
        Action(
            "end_call",
            "call",
            "Hang up a call",
            "Ends an in-progress call for all parties.",
            verb="hangup",
        ),
    ),
)

SERVICES: tuple[Service, ...] = (HELPDESK, KNOWLEDGE_BASE, FORMS, FIELD_SERVICE, VOICE)
