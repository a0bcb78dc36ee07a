"""Communication and collaboration services: mail, chat, SMS, calendar, documents, files."""

from __future__ import annotations

from typing import Any

from ..fields import (
    arr,
    boolean,
    company,
    date,
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
from ..model import Action, Field, Resource, Service


def _recipients(name: str, desc: str, **kw: Any) -> Field:
    return arr(name, email(f"{name.removesuffix('s')}_email", "A recipient address."), desc, **kw)


MAIL = Service(
    name="mail",
    title="Postbox Mail",
    domain="communication",
    format="mcp",
    desc="Postbox is a business mailbox: read, search, draft, send and organize email with labels.",
    paging="cursor",
    resources=(
        Resource(
            "message",
            "An email in the mailbox, received or sent.",
            (
                email("from", "Sender address.", ro=True, filt=True),
                _recipients("to", "Primary recipients.", ro=True),
                _recipients("cc", "Carbon-copy recipients.", ro=True),
                s("subject", "Subject line.", ro=True),
                s("body_text", "Plain-text body.", ro=True),
                s("thread_id", "Conversation the message belongs to.", ro=True, filt=True),
                arr(
                    "label_ids",
                    ref("label_id", "label", "A label."),
                    "Labels on the message, e.g. INBOX or a custom label.",
                    ro=True,
                ),
                boolean("unread", "Whether the message is unread.", filt=True),
                boolean("starred", "Whether the message is starred."),
                arr(
                    "attachments",
                    obj(
                        "attachment",
                        (
                            s("filename", "File name."),
                            integer("size_bytes", "Size in bytes."),
                            url("download_url", "Where to download it."),
                        ),
                        "An attachment.",
                    ),
                    "Attached files.",
                    ro=True,
                ),
                dt("sent_at", "When the message was sent.", ro=True),
            ),
            ops=("get", "list", "update", "delete", "search"),
            timestamps=False,
            search_fields=("from", "to", "subject", "body_text"),
            docs={
                "update": (
                    "Only `unread` and `starred` can be changed; use the label tools for labels."
                ),
                "delete": "Moves the message to Trash; it is purged after 30 days.",
            },
        ),
        Resource(
            "draft",
            "An unsent message being composed.",
            (
                _recipients("to", "Primary recipients.", req=True),
                _recipients("cc", "Carbon-copy recipients."),
                _recipients("bcc", "Blind carbon-copy recipients."),
                s("subject", "Subject line.", req=True),
                s("body_text", "Plain-text body.", req=True),
                ref(
                    "in_reply_to",
                    "message",
                    "Message this draft replies to; keeps it in the same thread.",
                    null=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "label",
            "A user-defined label (folder) messages can carry.",
            (
                s("name", "Label name; nested labels use `/`.", req=True, ex="Vendors/Invoices"),
                s("color", "Background color as hex.", ex="#16a765"),
                integer("unread_count", "Unread messages with the label.", ro=True),
            ),
            ops=("create", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "send_message",
            "message",
            "Send an email",
            (
                "Sends a new email immediately and returns the sent message. To send an "
                "existing draft, use `send_draft`."
            ),
            params=(
                _recipients("to", "Primary recipients.", req=True),
                _recipients("cc", "Carbon-copy recipients."),
                _recipients("bcc", "Blind carbon-copy recipients."),
                s("subject", "Subject line.", req=True),
                s("body_text", "Plain-text body.", req=True),
                arr(
                    "attachment_urls",
                    url("attachment_url", "File to attach."),
                    "Files to attach by URL.",
                ),
            ),
            on_item=False,
            verb="send",
        ),
        Action(
            "reply_to_message",
            "message",
            "Reply to an email",
            "Replies to the sender (or all recipients) in the same thread.",
            params=(
                s("body_text", "Reply text.", req=True),
                boolean("reply_all", "Also reply to every recipient.", default=False),
            ),
            verb="reply",
        ),
        Action(
            "send_draft",
            "draft",
            "Send a draft",
            "Sends a draft and deletes it; returns the sent message's ID.",
            returns=(
                s("message_id", "ID of the sent message.", req=True),
                s("thread_id", "Thread of the sent message.", req=True),
                dt("sent_at", "When it was sent.", req=True),
            ),
            verb="send",
        ),
        Action(
            "apply_label",
            "message",
            "Label an email",
            "Adds and removes labels on a message, e.g. to archive it remove `INBOX`.",
            params=(
                arr("add_label_ids", s("label_id", "A label."), "Labels to add."),
                arr("remove_label_ids", s("label_id", "A label."), "Labels to remove."),
            ),
            verb="labels",
        ),
    ),
)

CHAT = Service(
    name="chat",
    title="Huddle Team Chat",
    domain="communication",
    format="mcp",
    desc=(
        "Huddle is team chat: public and private channels, direct messages, threads and reactions."
    ),
    paging="cursor",
    resources=(
        Resource(
            "channel",
            "A conversation space for a team or topic; private channels are invite-only.",
            (
                s(
                    "name",
                    "Channel name, lowercase without spaces.",
                    req=True,
                    pattern=r"^[a-z0-9_-]{1,80}$",
                    ex="support-escalations",
                ),
                s("topic", "Short topic shown in the header."),
                boolean(
                    "private",
                    "Only invited members can see the channel.",
                    default=False,
                    immut=True,
                    filt=True,
                ),
                arr("member_emails", email("member_email", "A member."), "Members of the channel."),
                boolean("archived", "Archived channels are read-only.", ro=True, filt=True),
            ),
            search_fields=("name", "topic"),
            ops=("create", "get", "list", "update", "search"),
        ),
        Resource(
            "message",
            "A message posted in a channel, optionally as a reply in a thread.",
            (
                ref(
                    "channel_id",
                    "channel",
                    "Channel the message is in.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                s("text", "Message text with Markdown.", req=True),
                email("author_email", "Who posted the message.", ro=True, filt=True),
                ref(
                    "thread_parent_id",
                    "message",
                    "Parent message when this is a threaded reply.",
                    null=True,
                    immut=True,
                ),
                arr(
                    "mentions",
                    email("mention_email", "A mentioned member."),
                    "Members mentioned with @.",
                ),
                obj(
                    "reactions",
                    (integer("thumbsup", "Example reaction count."),),
                    "Reaction counts by emoji name.",
                    ro=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete", "search"),
            search_fields=("text",),
            docs={"create": "Posting to an archived channel fails."},
        ),
    ),
    actions=(
        Action(
            "archive_channel",
            "channel",
            "Archive a channel",
            "Archives a channel: it becomes read-only and leaves the sidebar of every member.",
        ),
        Action(
            "invite_to_channel",
            "channel",
            "Invite members",
            "Adds people to a channel by email; they get a notification.",
            params=(
                arr(
                    "emails", email("member_email", "Person to invite."), "People to add.", req=True
                ),
            ),
            verb="invite",
        ),
        Action(
            "send_direct_message",
            "message",
            "Send a direct message",
            "Sends a private message to one person, opening the DM conversation if needed.",
            params=(email("to", "Recipient.", req=True), s("text", "Message text.", req=True)),
            on_item=False,
            path="/direct_messages",
        ),
    ),
)

SMS = Service(
    name="sms",
    title="Textline SMS",
    domain="communication",
    format="docker",
    desc="Textline sends and receives SMS from business numbers and manages opt-outs.",
    resources=(
        Resource(
            "message",
            "An SMS sent from or received on one of the account's numbers.",
            (
                phone("to", "Recipient number.", req=True, filt=True),
                phone(
                    "from",
                    "Sending number; must be one of the account's numbers.",
                    req=True,
                    filt=True,
                ),
                s("body", "Message text; longer texts are split into segments.", req=True),
                enum("direction", ("outbound", "inbound"), "Direction.", ro=True, filt=True),
                enum(
                    "status",
                    ("queued", "sent", "delivered", "failed", "received"),
                    "Delivery status.",
                    ro=True,
                    filt=True,
                ),
                integer("segments", "Billed SMS segments.", ro=True),
                dt("sent_at", "When the message was sent or received.", ro=True),
            ),
            ops=("get", "list", "delete"),
            timestamps=False,
        ),
        Resource(
            "contact",
            "A person you text, with their opt-in state.",
            (
                phone("phone", "Contact's mobile number; unique.", req=True, filt=True),
                person("full_name", "Contact's name."),
                email("email", "Contact's email."),
                boolean(
                    "opted_out",
                    "The contact replied STOP; sending to them fails.",
                    ro=True,
                    filt=True,
                ),
            ),
            search_fields=("phone", "full_name"),
        ),
    ),
    actions=(
        Action(
            "send_sms",
            "message",
            "Send an SMS",
            "Sends a text message to one number. Fails if the recipient opted out.",
            params=(
                phone("to", "Recipient number.", req=True),
                phone("from", "Sending number.", req=True),
                s("body", "Message text.", req=True),
            ),
            on_item=False,
            verb="send",
        ),
        Action(
            "opt_out_contact",
            "contact",
            "Opt a contact out",
            "Records that a contact asked not to be texted; all future sends to the number fail.",
            verb="opt_out",
        ),
    ),
)

CALENDAR = Service(
    name="calendar",
    title="Agenda Calendar",
    domain="productivity",
    format="openapi30_json",
    desc=(
        "Agenda hosts shared calendars: events with attendees and video links, "
        "invitations and availability."
    ),
    resources=(
        Resource(
            "calendar",
            "A calendar owned by a person or a shared resource.",
            (
                s("name", "Calendar name.", req=True, ex="Sales team"),
                email("owner_email", "Owner.", req=True, filt=True),
                s("timezone", "Default IANA time zone.", default="UTC"),
                s("color", "Display color."),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "event",
            "A meeting or appointment with a time, a place or video link, and attendees.",
            (
                ref("calendar_id", "calendar", "Calendar the event is on.", req=True, filt=True),
                s("title", "Event title.", req=True, ex="Northwind renewal review"),
                s("description", "Agenda and notes."),
                dt("starts_at", "Start time.", req=True),
                dt("ends_at", "End time.", req=True),
                s("location", "Physical location.", null=True),
                url(
                    "meeting_url",
                    "Video conference link.",
                    null=True,
                    ex="https://meet.example.com/j/81234567",
                ),
                email("organizer_email", "Organizer.", req=True, filt=True),
                arr(
                    "attendees",
                    obj(
                        "attendee",
                        (
                            email("email", "Attendee address.", req=True),
                            person("full_name", "Attendee name."),
                            enum(
                                "response",
                                ("needs_action", "accepted", "declined", "tentative"),
                                "RSVP.",
                                default="needs_action",
                            ),
                        ),
                        "An invited person.",
                    ),
                    "Invited people and their responses.",
                ),
                s(
                    "recurrence",
                    "RRULE for recurring events.",
                    null=True,
                    ex="RRULE:FREQ=WEEKLY;BYDAY=MO",
                ),
                enum(
                    "status",
                    ("confirmed", "tentative", "canceled"),
                    "Event status.",
                    ro=True,
                    filt=True,
                ),
            ),
            search_fields=("title", "description", "location"),
            docs={
                "create": (
                    "Attendees receive an email invitation unless `send_updates` is "
                    "disabled on the calendar."
                )
            },
        ),
    ),
    actions=(
        Action(
            "respond_to_event",
            "event",
            "RSVP to an event",
            "Records an attendee's response to an invitation.",
            params=(
                email("attendee_email", "Responding attendee.", req=True),
                enum("response", ("accepted", "declined", "tentative"), "Response.", req=True),
            ),
            verb="rsvp",
        ),
        Action(
            "cancel_event",
            "event",
            "Cancel an event",
            "Cancels an event and notifies attendees with an optional message.",
            params=(s("message", "Note sent with the cancellation."),),
            verb="cancel",
        ),
        Action(
            "find_free_slots",
            "event",
            "Find a time",
            "Finds slots of `duration_minutes` when every listed person is free between two times.",
            params=(
                arr(
                    "emails",
                    email("participant_email", "A participant."),
                    "People who must attend.",
                    req=True,
                ),
                dt("window_start", "Search from.", req=True),
                dt("window_end", "Search until.", req=True),
                integer("duration_minutes", "Meeting length.", req=True, minimum=5),
            ),
            returns=(
                arr(
                    "slots",
                    obj(
                        "slot",
                        (
                            dt("starts_at", "Slot start.", req=True),
                            dt("ends_at", "Slot end.", req=True),
                        ),
                        "A free slot.",
                    ),
                    "Free slots, earliest first.",
                    req=True,
                ),
            ),
            on_item=False,
            read_only=True,
            path="/availability/search",
        ),
    ),
)

DOCS = Service(
    name="docs",
    title="Quill Documents",
    domain="productivity",
    format="openapi31_json",
    desc=(
        "Quill is collaborative document editing: documents, sharing, threaded comments and export."
    ),
    resources=(
        Resource(
            "document",
            "A rich-text document owned by one user and shared with others.",
            (
                s("title", "Document title.", req=True, ex="Q3 partner plan"),
                s("content", "Document body in Markdown.", default=""),
                email("owner_email", "Owner of the document.", filt=True),
                s(
                    "folder_id",
                    "File storage folder the document lives in.",
                    null=True,
                    ex="fol_a1b2c3d4",
                ),
                url("web_url", "Link that opens the document in the editor.", ro=True),
                arr(
                    "collaborators",
                    obj(
                        "collaborator",
                        (
                            email("email", "Collaborator.", req=True),
                            enum(
                                "role", ("viewer", "commenter", "editor"), "Access level.", req=True
                            ),
                        ),
                        "A person with access.",
                    ),
                    "People the document is shared with.",
                    ro=True,
                ),
                integer("word_count", "Words in the document.", ro=True),
            ),
            search_fields=("title", "content"),
        ),
        Resource(
            "comment",
            "A comment anchored to a passage of a document; replies nest under it as a thread.",
            (
                ref("document_id", "document", "Document commented on.", req=True, immut=True),
                s("body", "Comment text.", req=True),
                s("quoted_text", "Passage the comment is anchored to.", null=True),
                email("author_email", "Comment author.", ro=True),
                ref(
                    "parent_comment_id",
                    "comment",
                    "Comment this one replies to; null for a thread's first comment.",
                    null=True,
                    immut=True,
                ),
                boolean("resolved", "Whether the thread is resolved.", default=False),
                arr(
                    "replies",
                    Field("reply", "object", "A reply."),
                    "Replies to this comment, each of the same shape, nested to any depth.",
                    ro=True,
                    recursive=True,
                ),
            ),
            parent="document",
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "share_document",
            "document",
            "Share a document",
            "Grants a person access to a document and emails them a link.",
            params=(
                email("email", "Person to share with.", req=True),
                enum("role", ("viewer", "commenter", "editor"), "Access level.", req=True),
                s("message", "Note in the sharing email."),
            ),
            verb="share",
        ),
        Action(
            "export_document",
            "document",
            "Export a document",
            (
                "Renders the document as PDF, DOCX or Markdown and returns a "
                "short-lived download link."
            ),
            params=(enum("format", ("pdf", "docx", "markdown"), "Export format.", req=True),),
            returns=(
                url("download_url", "Download link.", req=True),
                dt("expires_at", "When the link stops working.", req=True),
            ),
            verb="export",
            read_only=True,
        ),
    ),
)

SHEETS = Service(
    name="sheets",
    title="Gridwork Spreadsheets",
    domain="productivity",
    format="mcp",
    desc=(
        "Gridwork spreadsheets: workbooks of sheets with typed rows, used as "
        "lightweight databases and trackers."
    ),
    resources=(
        Resource(
            "spreadsheet",
            "A workbook containing one or more sheets.",
            (
                s("title", "Workbook title.", req=True, ex="Vendor price tracker"),
                email("owner_email", "Owner.", filt=True),
                url("web_url", "Link to open the workbook.", ro=True),
                arr("sheet_names", s("sheet_name", "A sheet."), "Sheets in order.", ro=True),
            ),
            search_fields=("title",),
        ),
        Resource(
            "row",
            "A row of a sheet whose first row holds column headers; values are keyed by header.",
            (
                ref("spreadsheet_id", "spreadsheet", "Workbook.", req=True, immut=True, filt=True),
                s(
                    "sheet_name",
                    "Sheet within the workbook.",
                    req=True,
                    immut=True,
                    filt=True,
                    ex="Sheet1",
                ),
                integer("row_number", "1-based row number in the sheet.", ro=True),
                obj(
                    "values",
                    (s("Vendor", "Example column."), number("Price", "Example numeric column.")),
                    "Cell values keyed by column header.",
                    req=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
            docs={"create": "Appends the row after the last non-empty row of the sheet."},
        ),
    ),
    actions=(
        Action(
            "add_sheet",
            "spreadsheet",
            "Add a sheet",
            "Adds a sheet with the given column headers to a workbook.",
            params=(
                s("sheet_name", "Name of the new sheet.", req=True),
                arr("headers", s("header", "Column header."), "Column headers.", req=True),
            ),
        ),
        Action(
            "read_range",
            "spreadsheet",
            "Read a range",
            "Reads a block of cells in A1 notation, e.g. `Sheet1!A1:D20`.",
            params=(s("range", "Range in A1 notation.", req=True, ex="Sheet1!A1:D20"),),
            returns=(
                s("range", "The range read.", req=True),
                arr(
                    "values",
                    arr("row", s("cell", "Cell value as text."), "One row of cells."),
                    "Cell values row by row.",
                    req=True,
                ),
            ),
            read_only=True,
            verb="values",
        ),
        Action(
            "clear_range",
            "spreadsheet",
            "Clear a range",
            "Clears values (not formatting) in a range.",
            params=(s("range", "Range in A1 notation.", req=True),),
            destructive=True,
            verb="clear",
        ),
    ),
)

FILE_STORAGE = Service(
    name="file_storage",
    title="Vault File Storage",
    domain="productivity",
    format="openapi31_json",
    desc=(
        "Vault stores and shares company files in a folder hierarchy with link "
        "sharing and versioning."
    ),
    paging="cursor",
    resources=(
        Resource(
            "folder",
            "A folder that holds files and other folders.",
            (
                s("name", "Folder name.", req=True, ex="Contracts"),
                ref(
                    "parent_folder_id", "folder", "Containing folder; null for the root.", null=True
                ),
                email("owner_email", "Owner.", filt=True),
                s("path", "Full path from the root.", ro=True, ex="/Legal/Contracts"),
                arr(
                    "children",
                    Field("child", "object", "A subfolder."),
                    (
                        "Subfolders, each with its own `children`, forming the folder tree "
                        "below this folder."
                    ),
                    ro=True,
                    recursive=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
            docs={
                "get": "The response includes the whole subtree of folders in `children`.",
                "delete": "The folder must be empty.",
            },
        ),
        Resource(
            "file",
            "A stored file with its metadata and current version.",
            (
                s("name", "File name with extension.", req=True, ex="northwind-msa-2025.pdf"),
                ref("folder_id", "folder", "Folder the file is in.", req=True, filt=True),
                s("mime_type", "Media type.", ex="application/pdf"),
                integer("size_bytes", "Size in bytes.", ro=True),
                url(
                    "source_url",
                    "URL the file content is fetched from on upload.",
                    req=True,
                    immut=True,
                ),
                url("web_url", "Link to preview the file.", ro=True),
                email("owner_email", "Uploader.", ro=True, filt=True),
                integer("version", "Current version number.", ro=True),
                s("description", "Description.", null=True),
            ),
            search_fields=("name", "description"),
        ),
    ),
    actions=(
        Action(
            "move_file",
            "file",
            "Move a file",
            "Moves a file into another folder.",
            params=(ref("folder_id", "folder", "Destination folder.", req=True),),
            verb="move",
        ),
        Action(
            "share_file",
            "file",
            "Create a share link",
            (
                "Creates a link to a file for a person or anyone with the link, with an "
                "optional expiry."
            ),
            params=(
                email(
                    "email",
                    "Person to share with; omit for an anyone-with-the-link share.",
                    null=True,
                ),
                enum("access", ("view", "edit"), "Access level.", default="view"),
                date("expires_on", "Last day the link works.", null=True),
            ),
            returns=(
                ref("file_id", "file", "The file.", req=True),
                url("share_url", "Link to send.", req=True),
                date("expires_on", "Link expiry.", null=True),
            ),
            verb="share",
        ),
    ),
)

NOTES = Service(
    name="notes",
    title="Jotter Notes",
    domain="productivity",
    format="docker",
    op_style="camel",
    desc="Personal and team notes organized in notebooks, with tags and pinning.",
    resources=(
        Resource(
            "notebook",
            "A collection of notes.",
            (
                s("name", "Notebook name.", req=True, ex="Customer calls"),
                boolean("shared", "Shared with the team.", default=False),
            ),
            ops=("create", "list", "delete"),
        ),
        Resource(
            "note",
            "A Markdown note in a notebook.",
            (
                ref("notebook_id", "notebook", "Notebook.", req=True, filt=True),
                s("title", "Note title.", req=True),
                s("content", "Markdown content.", req=True),
                email("contact_email", "Customer or colleague the note is about, if any."),
                tags(),
                boolean("pinned", "Pinned notes are listed first.", ro=True),
            ),
            search_fields=("title", "content", "tags"),
        ),
    ),
    actions=(
        Action(
            "pin_note", "note", "Pin a note", "Pins a note to the top of its notebook.", verb="pin"
        ),
    ),
)

TODO = Service(
    name="todo",
    title="Checkmark Tasks",
    domain="productivity",
    format="bfcl",
    desc="Checkmark to-do lists: projects of tasks with due dates, assignees and priorities.",
    resources=(
        Resource(
            "project",
            "A list of related tasks.",
            (
                s("name", "Project name.", req=True, ex="Office move"),
                email("owner_email", "Project owner."),
                s("color", "Display color."),
            ),
            ops=("create", "get", "list", "delete"),
        ),
        Resource(
            "task",
            "A to-do item with an optional due date and assignee.",
            (
                ref("project_id", "project", "Project the task belongs to.", filt=True),
                s("title", "What needs doing.", req=True, ex="Book movers"),
                s("notes", "Details."),
                date("due_date", "Date the task is due.", filt=True),
                email("assignee_email", "Who should do it.", filt=True),
                enum(
                    "priority",
                    ("p1", "p2", "p3", "p4"),
                    "Priority; p1 is highest.",
                    default="p4",
                    filt=True,
                ),
                boolean("completed", "Whether the task is done.", ro=True, filt=True),
            ),
            search_fields=("title", "notes"),
        ),
    ),
    actions=(
        Action(
            "complete_task",
            "task",
            "Complete a task",
            "Marks a task as completed.",
            verb="complete",
        ),
        Action(
            "reopen_task",
            "task",
            "Reopen a task",
            "Marks a completed task as not done.",
            verb="reopen",
        ),
    ),
)

MEETINGS = Service(
    name="meetings",
    title="Beam Video Meetings",
    domain="communication",
    format="openapi30_json",
    desc=(
        "Beam hosts video meetings and webinars: scheduling, join links, "
        "registrants and cloud recordings."
    ),
    resources=(
        Resource(
            "meeting",
            "A scheduled or instant video meeting with a join link.",
            (
                s("topic", "Meeting topic.", req=True, ex="Northwind renewal review"),
                email("host_email", "Host user.", req=True, filt=True),
                dt("starts_at", "Scheduled start.", req=True),
                integer("duration_minutes", "Planned length.", default=30),
                s("timezone", "Time zone for display.", default="UTC"),
                boolean(
                    "waiting_room", "Hold participants until the host admits them.", default=True
                ),
                url(
                    "join_url",
                    "Link participants use to join.",
                    ro=True,
                    ex="https://beam.example.com/j/81234567",
                ),
                s("passcode", "Meeting passcode.", ro=True),
                s("calendar_event_id", "Calendar event the meeting was created from.", null=True),
                enum(
                    "status",
                    ("scheduled", "live", "ended", "canceled"),
                    "Meeting status.",
                    ro=True,
                    filt=True,
                ),
            ),
            search_fields=("topic",),
        ),
        Resource(
            "registrant",
            "A person invited to or registered for a meeting.",
            (
                ref("meeting_id", "meeting", "Meeting.", req=True, immut=True),
                email("email", "Registrant's email; join details are sent here.", req=True),
                person("first_name", "Given name.", req=True),
                person("last_name", "Family name."),
                company("company_name", "Registrant's company."),
                url("join_url", "Personal join link.", ro=True),
            ),
            parent="meeting",
            ops=("create", "list", "delete"),
        ),
        Resource(
            "recording",
            "A cloud recording of a meeting, with transcript.",
            (
                ref("meeting_id", "meeting", "Recorded meeting.", ro=True, filt=True),
                url("play_url", "Playback link.", ro=True),
                url("transcript_url", "Transcript file.", ro=True),
                integer("duration_seconds", "Length.", ro=True),
                dt("recorded_at", "When recording started.", ro=True),
            ),
            ops=("get", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "end_meeting",
            "meeting",
            "End a meeting",
            "Ends a live meeting for everyone.",
            verb="end",
        ),
        Action(
            "invite_to_meeting",
            "meeting",
            "Email invitations",
            "Emails the join link to a list of addresses without registering them.",
            params=(
                arr("emails", email("invitee_email", "Invitee."), "Addresses to invite.", req=True),
            ),
            returns=(integer("sent", "Invitations sent.", req=True),),
            verb="invite",
        ),
    ),
)

ESIGN = Service(
    name="esign",
    title="Inkwell eSignature",
    domain="legal",
    format="openapi30_json",
    desc="Inkwell sends contracts for legally binding electronic signature and tracks each signer.",
    resources=(
        Resource(
            "template",
            "A reusable contract with signer roles and fields, e.g. an MSA or an NDA.",
            (
                s("name", "Template name.", req=True, ex="Mutual NDA"),
                url("document_url", "Source PDF.", req=True),
                arr(
                    "roles",
                    s("role", "Signer role."),
                    "Signer roles, e.g. Customer and Company.",
                    req=True,
                ),
            ),
            ops=("create", "get", "list", "delete"),
        ),
        Resource(
            "envelope",
            "A contract sent to one or more recipients for signature, with its audit trail.",
            (
                s(
                    "subject",
                    "Email subject recipients see.",
                    req=True,
                    ex="Northwind MSA for signature",
                ),
                ref("template_id", "template", "Template the contract was built from.", null=True),
                url("document_url", "PDF to sign when no template is used."),
                arr(
                    "recipients",
                    obj(
                        "recipient",
                        (
                            person("full_name", "Signer name.", req=True),
                            email("email", "Signer email.", req=True),
                            s("role", "Template role.", ex="Customer"),
                            integer("routing_order", "Signing order, 1 first.", default=1),
                            enum(
                                "status",
                                ("pending", "sent", "viewed", "signed", "declined"),
                                "Signer status.",
                            ),
                        ),
                        "A signer or CC.",
                    ),
                    "Signers in routing order.",
                    req=True,
                ),
                company("company_name", "Counterparty company."),
                s("deal_id", "Relay CRM deal the contract closes.", null=True),
                money("contract_value", "Total contract value, for reporting.", null=True),
                s("currency", "Currency of `contract_value`.", pattern=r"^[A-Z]{3}$", null=True),
                enum(
                    "status",
                    ("draft", "sent", "completed", "declined", "voided"),
                    "Envelope status.",
                    ro=True,
                    filt=True,
                ),
                date("expires_on", "Day the envelope expires if not completed."),
                dt("completed_at", "When the last signer signed.", ro=True, null=True),
            ),
            search_fields=("subject", "company_name"),
        ),
    ),
    actions=(
        Action(
            "send_envelope",
            "envelope",
            "Send for signature",
            "Sends a draft envelope to the first signers in routing order.",
            verb="send",
        ),
        Action(
            "void_envelope",
            "envelope",
            "Void an envelope",
            "Cancels an in-progress envelope; recipients can no longer sign.",
            params=(s("reason", "Shown to recipients.", req=True),),
            verb="void",
            destructive=True,
        ),
        Action(
            "remind_envelope",
            "envelope",
            "Send a reminder",
            "Re-sends the signing email to recipients who have not signed yet.",
            returns=(integer("reminded", "Recipients reminded.", req=True),),
            verb="remind",
        ),
    ),
)

SERVICES: tuple[Service, ...] = (
    MAIL,
    CHAT,
    SMS,
    CALENDAR,
    DOCS,
    SHEETS,
    FILE_STORAGE,
    NOTES,
    TODO,
    MEETINGS,
    ESIGN,
)
