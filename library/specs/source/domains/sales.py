"""Sales, marketing and customer-facing growth services."""

from __future__ import annotations

from ..fields import (
    address,
    arr,
    boolean,
    company,
    country,
    currency,
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
from ..model import Action, Resource, Service

LIFECYCLE = (
    "subscriber",
    "lead",
    "marketing_qualified",
    "sales_qualified",
    "opportunity",
    "customer",
    "evangelist",
)
DEAL_STAGES = (
    "prospecting",
    "qualification",
    "proposal",
    "negotiation",
    "closed_won",
    "closed_lost",
)
LEAD_SOURCES = ("web_form", "referral", "event", "outbound", "partner", "import")

CRM = Service(
    name="crm",
    title="Relay CRM",
    domain="sales",
    format="openapi30_yaml",
    desc=(
        "Relay CRM keeps the customer record for sales teams: people, the companies they work "
        "for, leads waiting to be qualified, open deals and the calls, emails and meetings logged "
        "against them."
    ),
    resources=(
        Resource(
            "contact",
            (
                "A person your team sells to or works with. Contacts are "
                "unique by email address and can belong to one company."
            ),
            (
                person("first_name", "Given name of the contact.", req=True),
                person("last_name", "Family name of the contact.", req=True),
                email(
                    "email", "Primary email address; unique across contacts.", req=True, filt=True
                ),
                phone("phone", "Main business phone number."),
                phone("mobile", "Mobile phone number, used for SMS follow-ups."),
                s("job_title", "Job title as the contact states it.", ex="Head of Operations"),
                ref("company_id", "company", "Company the contact works for.", filt=True),
                enum(
                    "lifecycle_stage",
                    LIFECYCLE,
                    "Where the contact is in the marketing and sales funnel.",
                    default="lead",
                    filt=True,
                ),
                email(
                    "owner_email",
                    "Email of the sales rep who owns the relationship.",
                    filt=True,
                    ex="sam.rivera@example.com",
                ),
                address("mailing_address", "Mailing address used for contracts and gifts."),
                enum(
                    "lead_source",
                    LEAD_SOURCES,
                    "Channel through which the contact first reached you.",
                ),
                boolean(
                    "do_not_contact",
                    "When true, reps must not call or email this contact.",
                    default=False,
                ),
                tags(),
            ),
            plural="contacts",
            search_fields=("first_name", "last_name", "email", "phone"),
            docs={
                "create": (
                    "Email addresses are unique: creating a second contact with "
                    "the same `email` fails with a conflict."
                ),
                "delete": (
                    "Deals and activities that reference the contact are kept but lose the link."
                ),
            },
        ),
        Resource(
            "company",
            "An organization that contacts belong to and deals are sold to.",
            (
                company("company_name", "Legal or trading name of the company.", req=True),
                url(
                    "website", "Public website of the company.", ex="https://northwind.example.com"
                ),
                enum(
                    "industry",
                    (
                        "software",
                        "manufacturing",
                        "retail",
                        "healthcare",
                        "finance",
                        "education",
                        "logistics",
                        "other",
                    ),
                    "Primary industry.",
                    filt=True,
                ),
                integer("employee_count", "Approximate number of employees.", minimum=0, ex=250),
                money("annual_revenue", "Estimated annual revenue.", ex=12500000.0),
                currency("currency", "Currency of `annual_revenue` (ISO 4217)."),
                phone("phone", "Switchboard phone number."),
                address("billing_address", "Address invoices are sent to."),
                email(
                    "owner_email",
                    "Email of the account owner on your team.",
                    filt=True,
                    ex="sam.rivera@example.com",
                ),
            ),
            plural="companies",
            search_fields=("company_name", "website"),
        ),
        Resource(
            "lead",
            (
                "An unqualified prospect captured from a web form, an import "
                "or an event, before it is converted into a contact."
            ),
            (
                person("first_name", "Given name of the prospect."),
                person("last_name", "Family name of the prospect.", req=True),
                email("email", "Email address the prospect gave.", req=True, filt=True),
                phone("phone", "Phone number the prospect gave."),
                company("company_name", "Company the prospect says they work for."),
                s("job_title", "Job title of the prospect.", ex="IT Manager"),
                enum(
                    "source",
                    LEAD_SOURCES,
                    "Where the lead came from.",
                    default="web_form",
                    filt=True,
                ),
                enum(
                    "status",
                    ("new", "working", "nurturing", "qualified", "disqualified", "converted"),
                    "Qualification status of the lead.",
                    default="new",
                    filt=True,
                ),
                email(
                    "owner_email",
                    "Email of the rep working the lead.",
                    filt=True,
                    ex="sam.rivera@example.com",
                ),
                ref(
                    "converted_contact_id",
                    "contact",
                    "Contact created when the lead was converted.",
                    ro=True,
                    null=True,
                ),
            ),
            search_fields=("first_name", "last_name", "email", "company_name"),
        ),
        Resource(
            "deal",
            "A sales opportunity with a value, an expected close date and a pipeline stage.",
            (
                s(
                    "title",
                    "Short name of the opportunity.",
                    req=True,
                    ex="Northwind - 200 seat renewal",
                ),
                money("amount", "Expected contract value.", req=True, ex=48000.0),
                currency(
                    "currency", "Currency of `amount` (ISO 4217).", listed=True, default="USD"
                ),
                enum("stage", DEAL_STAGES, "Pipeline stage.", default="prospecting", filt=True),
                ref("contact_id", "contact", "Primary contact on the buying side.", filt=True),
                ref("company_id", "company", "Company the deal is sold to.", filt=True),
                email(
                    "owner_email",
                    "Email of the rep who owns the deal.",
                    filt=True,
                    ex="sam.rivera@example.com",
                ),
                date("close_date", "Date the deal is expected to close."),
                integer(
                    "probability", "Win probability in percent.", minimum=0, maximum=100, ex=40
                ),
                s(
                    "lost_reason",
                    "Why the deal was lost; set when the stage is `closed_lost`.",
                    null=True,
                ),
                dt("closed_at", "When the deal was won or lost.", ro=True, null=True),
            ),
            search_fields=("title",),
            docs={
                "update": (
                    "Moving a deal to `closed_won` or `closed_lost` through this "
                    "endpoint also sets `closed_at`; prefer `POST "
                    "/deals/{deal_id}/close`."
                )
            },
        ),
        Resource(
            "activity",
            "A call, email, meeting or note logged against a contact and optionally a deal.",
            (
                enum(
                    "type",
                    ("call", "email", "meeting", "note"),
                    "Kind of activity.",
                    req=True,
                    filt=True,
                ),
                s("subject", "One-line summary of the activity.", req=True, ex="Discovery call"),
                s("body", "Details, call notes or the email text."),
                ref("contact_id", "contact", "Contact the activity is about.", req=True, filt=True),
                ref("deal_id", "deal", "Deal the activity relates to, if any.", filt=True),
                dt("occurred_at", "When the activity took place.", req=True),
                integer(
                    "duration_minutes", "Length of a call or meeting in minutes.", minimum=0, ex=30
                ),
                email(
                    "owner_email",
                    "Email of the rep who logged the activity.",
                    ex="sam.rivera@example.com",
                ),
            ),
            plural="activities",
            ops=("create", "get", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "convert_lead",
            "lead",
            "Convert a lead",
            (
                "Converts a qualified lead into a contact (and a company, "
                "when `company_name` does not match an existing one). "
                "Optionally opens a deal for the new contact. The lead's "
                "status becomes `converted`."
            ),
            params=(
                boolean("create_deal", "Also open a deal for the new contact.", default=False),
                s("deal_title", "Title of the deal to open; required when `create_deal` is true."),
                money("deal_amount", "Expected value of the new deal."),
                currency("currency", "Currency of `deal_amount`.", default="USD"),
            ),
            returns=(
                ref("lead_id", "lead", "The converted lead.", req=True),
                ref("contact_id", "contact", "The contact created or matched by email.", req=True),
                ref("company_id", "company", "The company created or matched by name.", null=True),
                ref("deal_id", "deal", "The deal opened, when requested.", null=True),
            ),
        ),
        Action(
            "close_deal",
            "deal",
            "Close a deal as won or lost",
            (
                "Marks a deal as won or lost, stamps `closed_at` and, for won "
                "deals, moves the primary contact's lifecycle stage to "
                "`customer`."
            ),
            params=(
                enum("outcome", ("won", "lost"), "Result of the deal.", req=True),
                s("lost_reason", "Why the deal was lost; required when `outcome` is `lost`."),
            ),
        ),
        Action(
            "assign_contact",
            "contact",
            "Reassign a contact",
            (
                "Transfers ownership of a contact to another rep. Open deals "
                "of the contact move with it unless `keep_deals` is true."
            ),
            params=(
                email(
                    "owner_email",
                    "Email of the rep who becomes the owner.",
                    req=True,
                    ex="sam.rivera@example.com",
                ),
                boolean(
                    "keep_deals",
                    "Leave the contact's open deals with their current owner.",
                    default=False,
                ),
            ),
        ),
    ),
)


CAMPAIGNS = Service(
    name="campaigns",
    title="Bulletin Email Marketing",
    domain="marketing",
    format="openapi30_yaml",
    desc=(
        "Bulletin runs email marketing: audience lists, the subscribers on them and the campaigns "
        "sent to those lists, with delivery and engagement statistics."
    ),
    resources=(
        Resource(
            "list",
            (
                "An audience list that subscribers opt into; campaigns are "
                "always sent to exactly one list."
            ),
            (
                s("name", "Internal name of the list.", req=True, ex="Product updates"),
                s("description", "What subscribers of this list receive."),
                company(
                    "company_name",
                    "Sender organization shown in the footer of every email (CAN-SPAM).",
                    req=True,
                ),
                email(
                    "from_email",
                    "Default sender address for campaigns to this list.",
                    req=True,
                    ex="news@northwind.example.com",
                ),
                s("from_name", "Default sender name.", ex="Northwind Traders"),
                boolean(
                    "double_opt_in", "Require new subscribers to confirm by email.", default=True
                ),
                integer("subscriber_count", "Number of subscribed members.", ro=True, minimum=0),
            ),
            search_fields=("name", "description"),
        ),
        Resource(
            "subscriber",
            (
                "A person subscribed to an audience list. The same email can "
                "be on several lists, once per list."
            ),
            (
                ref("list_id", "list", "List the subscriber belongs to.", req=True, immut=True),
                email(
                    "email",
                    "Subscriber's email address; unique within the list.",
                    req=True,
                    filt=True,
                ),
                person("first_name", "Given name, used in merge tags such as *|FNAME|*."),
                person("last_name", "Family name."),
                phone("phone", "Phone number for SMS campaigns, when the subscriber consented."),
                enum(
                    "status",
                    ("pending", "subscribed", "unsubscribed", "cleaned"),
                    "Subscription status; `cleaned` means the address bounced permanently.",
                    default="pending",
                    filt=True,
                ),
                country("country", "Country of the subscriber, used for send-time optimization."),
                tags(),
                dt("subscribed_at", "When the subscriber confirmed.", ro=True, null=True),
            ),
            parent="list",
            search_fields=("email", "first_name", "last_name"),
        ),
        Resource(
            "campaign",
            "A single email sent (or scheduled) to one list, with its content and results.",
            (
                s("name", "Internal name of the campaign.", req=True, ex="July newsletter"),
                ref("list_id", "list", "List the campaign is sent to.", req=True, filt=True),
                s("subject", "Subject line recipients see.", req=True, ex="What's new in July"),
                s("preview_text", "Preview snippet shown after the subject in most inboxes."),
                s("html_body", "HTML content of the email.", req=True),
                email("reply_to", "Address replies go to.", ex="support@northwind.example.com"),
                enum(
                    "status",
                    ("draft", "scheduled", "sending", "sent", "canceled"),
                    "Delivery status.",
                    ro=True,
                    filt=True,
                ),
                dt("scheduled_at", "When a scheduled campaign will be sent.", ro=True, null=True),
                dt("sent_at", "When sending completed.", ro=True, null=True),
                obj(
                    "stats",
                    (
                        integer("recipients", "Number of addresses the campaign went to."),
                        number("open_rate", "Share of recipients who opened, 0-1."),
                        number("click_rate", "Share of recipients who clicked a link, 0-1."),
                        integer("unsubscribes", "Recipients who unsubscribed from this campaign."),
                    ),
                    "Engagement statistics, filled once sending starts.",
                    ro=True,
                ),
            ),
            search_fields=("name", "subject"),
            docs={
                "update": (
                    "Only `draft` campaigns can be edited; other statuses fail with a conflict."
                )
            },
        ),
    ),
    actions=(
        Action(
            "send_campaign",
            "campaign",
            "Send a campaign",
            (
                "Starts sending a draft campaign to every subscribed member "
                "of its list, immediately or at `send_at`."
            ),
            params=(dt("send_at", "Schedule the send for this time instead of sending now."),),
        ),
        Action(
            "cancel_campaign",
            "campaign",
            "Cancel a scheduled campaign",
            (
                "Cancels a campaign that is scheduled but has not started "
                "sending. The campaign returns to `canceled` and can be "
                "duplicated."
            ),
        ),
        Action(
            "unsubscribe_subscriber",
            "subscriber",
            "Unsubscribe a member",
            (
                "Unsubscribes a member from its list on their behalf and "
                "records the reason. Unsubscribed members receive no further "
                "campaigns from the list."
            ),
            params=(
                enum(
                    "reason",
                    ("requested", "spam_complaint", "no_longer_relevant", "other"),
                    "Why the member left.",
                    default="requested",
                ),
            ),
            verb="unsubscribe",
        ),
    ),
)

QUOTES = Service(
    name="quotes",
    title="Quotient CPQ",
    domain="sales",
    format="openapi30_yaml",
    desc=(
        "Quotient configures, prices and quotes: sales reps build "
        "priced quotes from the price book "
        "for a CRM deal, send them to the buyer and track acceptance."
    ),
    resources=(
        Resource(
            "price_book_entry",
            "A sellable product with its list price in one currency.",
            (
                s(
                    "sku",
                    "Stock-keeping unit of the product; unique within a currency.",
                    req=True,
                    filt=True,
                    ex="NW-PRO-SEAT",
                ),
                s(
                    "product_name",
                    "Name printed on the quote.",
                    req=True,
                    ex="Pro plan seat (annual)",
                ),
                money("unit_price", "List price of one unit.", req=True, ex=480.0),
                currency("currency", "Currency of `unit_price`.", listed=True, req=True),
                enum(
                    "billing_period",
                    ("one_time", "monthly", "annual"),
                    "How often the price is charged.",
                    default="one_time",
                ),
                boolean(
                    "active",
                    "Inactive entries cannot be added to new quotes.",
                    default=True,
                    filt=True,
                ),
            ),
            plural="price_book_entries",
            label="price book entry",
            search_fields=("sku", "product_name"),
        ),
        Resource(
            "quote",
            (
                "A priced offer to a buyer, made of line items, that can be "
                "sent, accepted or declined."
            ),
            (
                s(
                    "quote_number",
                    "Human-readable quote number, e.g. Q-2025-0142.",
                    ro=True,
                    ex="Q-2025-0142",
                ),
                s(
                    "deal_id",
                    "ID of the Relay CRM deal this quote belongs to.",
                    filt=True,
                    ex="dea_5d1d7b5e",
                ),
                company("account_name", "Buying company as printed on the quote.", req=True),
                person("contact_name", "Person the quote is addressed to.", req=True),
                email("contact_email", "Address the quote is sent to.", req=True, filt=True),
                arr(
                    "line_items",
                    obj(
                        "line_item",
                        (
                            ref(
                                "price_book_entry_id",
                                "price_book_entry",
                                "Price book entry being quoted.",
                                req=True,
                            ),
                            integer("quantity", "Number of units.", req=True, minimum=1, ex=25),
                            number(
                                "discount_percent",
                                "Discount on the list price, in percent.",
                                minimum=0,
                                maximum=100,
                                ex=10.0,
                            ),
                        ),
                        "One quoted product.",
                    ),
                    "Products on the quote.",
                    req=True,
                ),
                money("total", "Total after discounts and before tax.", ro=True),
                currency(
                    "currency",
                    "Currency of the quote; all line items must share it.",
                    listed=True,
                    req=True,
                ),
                date("valid_until", "Last day the buyer can accept the quote.", req=True),
                enum(
                    "status",
                    ("draft", "sent", "accepted", "declined", "expired"),
                    "Where the quote stands.",
                    ro=True,
                    filt=True,
                ),
                dt("accepted_at", "When the buyer accepted.", ro=True, null=True),
            ),
            search_fields=("quote_number", "account_name", "contact_name"),
        ),
    ),
    actions=(
        Action(
            "send_quote",
            "quote",
            "Send a quote",
            "Emails the quote as a PDF to `contact_email` (plus any CCs) and moves it to `sent`.",
            params=(
                arr("cc", email("cc_email", "A CC recipient."), "Additional recipients."),
                s("message", "Cover note included in the email body."),
            ),
        ),
        Action(
            "accept_quote",
            "quote",
            "Record acceptance",
            (
                "Records that the buyer accepted the quote, e.g. after a "
                "signed PDF came back. Accepting an expired quote fails."
            ),
            params=(
                person(
                    "accepted_by", "Name of the person who accepted on the buyer's side.", req=True
                ),
                s("po_number", "Buyer's purchase order number, if they issued one."),
            ),
        ),
        Action(
            "decline_quote",
            "quote",
            "Record a declined quote",
            "Marks the quote as declined and stores the buyer's reason.",
            params=(s("reason", "Why the buyer declined.", req=True),),
        ),
    ),
)

CUSTOMER_SUCCESS = Service(
    name="customer_success",
    title="Northstar Customer Success",
    domain="customer_success",
    format="openapi30_yaml",
    desc=(
        "Northstar helps customer success managers keep accounts healthy: account health scores, "
        "success plans with goals, and calls-to-action (CTAs) that flag risk and expansion."
    ),
    resources=(
        Resource(
            "account",
            "A customer account with its renewal date, recurring revenue and health score.",
            (
                company(
                    "account_name", "Customer company name, matching the CRM company.", req=True
                ),
                s("crm_company_id", "ID of the company in Relay CRM.", ex="com_979b1ad6"),
                email(
                    "csm_email",
                    "Email of the customer success manager.",
                    req=True,
                    filt=True,
                    ex="alex.kim@example.com",
                ),
                money("arr", "Annual recurring revenue.", req=True, ex=96000.0),
                currency("currency", "Currency of `arr`.", default="USD"),
                date("renewal_date", "Next contract renewal date.", req=True),
                integer(
                    "health_score",
                    "Health score from 0 (critical) to 100 (healthy).",
                    minimum=0,
                    maximum=100,
                    ex=72,
                ),
                enum(
                    "health",
                    ("healthy", "neutral", "at_risk", "critical"),
                    "Health band derived from the score and open risks.",
                    ro=True,
                    filt=True,
                ),
                enum(
                    "segment", ("smb", "mid_market", "enterprise"), "Customer segment.", filt=True
                ),
            ),
            search_fields=("account_name",),
        ),
        Resource(
            "success_plan",
            "A plan of goals agreed with the customer, with a target date and an owner.",
            (
                ref(
                    "account_id",
                    "account",
                    "Account the plan is for.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                s("title", "Name of the plan.", req=True, ex="Q3 adoption plan"),
                s("objective", "Business outcome the customer wants."),
                date("target_date", "When the objective should be met.", req=True),
                enum(
                    "status",
                    ("draft", "active", "achieved", "abandoned"),
                    "Plan status.",
                    default="draft",
                    filt=True,
                ),
                email("owner_email", "Owner of the plan.", ex="alex.kim@example.com"),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "cta",
            (
                "A call-to-action: a risk, an expansion opportunity or a "
                "lifecycle step a CSM must act on."
            ),
            (
                ref(
                    "account_id",
                    "account",
                    "Account the CTA is about.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                enum(
                    "type",
                    ("risk", "expansion", "lifecycle", "renewal"),
                    "Kind of CTA.",
                    req=True,
                    filt=True,
                ),
                s("reason", "What triggered the CTA.", req=True, ex="Usage dropped 40% in 30 days"),
                enum(
                    "priority",
                    ("low", "medium", "high", "urgent"),
                    "How urgent the CTA is.",
                    default="medium",
                    filt=True,
                ),
                date("due_date", "When the CTA should be resolved.", req=True),
                email(
                    "assignee_email",
                    "CSM responsible for the CTA.",
                    filt=True,
                    ex="alex.kim@example.com",
                ),
                enum(
                    "status", ("open", "in_progress", "closed"), "CTA status.", ro=True, filt=True
                ),
            ),
            label="CTA",
            plural="ctas",
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "close_cta",
            "cta",
            "Close a CTA",
            (
                "Closes a CTA with an outcome. Closing a `risk` CTA as "
                "`churned` also sets the account health to `critical`."
            ),
            params=(
                enum(
                    "outcome",
                    ("resolved", "churned", "won", "no_action"),
                    "How the CTA ended.",
                    req=True,
                ),
                s("comment", "What was done."),
            ),
        ),
        Action(
            "recalculate_health",
            "account",
            "Recalculate health",
            (
                "Recomputes the account's health score from usage, support "
                "and survey signals and returns the new score and band."
            ),
            returns=(
                ref("account_id", "account", "The account.", req=True),
                integer("health_score", "New health score.", req=True),
                enum(
                    "health",
                    ("healthy", "neutral", "at_risk", "critical"),
                    "New health band.",
                    req=True,
                ),
                dt("calculated_at", "When the score was computed.", req=True),
            ),
        ),
    ),
)

LOYALTY = Service(
    name="loyalty",
    title="Perks Loyalty",
    domain="marketing",
    format="openapi30_json",
    desc=(
        "Perks runs a points-based loyalty program for online stores: members earn points on "
        "orders and redeem them for rewards."
    ),
    resources=(
        Resource(
            "member",
            "A customer enrolled in the loyalty program, identified by email.",
            (
                email(
                    "email",
                    "Member's email address; the same address the store uses for orders.",
                    req=True,
                    filt=True,
                ),
                person("full_name", "Member's name.", req=True),
                phone("phone", "Mobile number for reward notifications."),
                enum(
                    "tier",
                    ("bronze", "silver", "gold", "platinum"),
                    "Program tier, recalculated nightly from points earned in the last 12 months.",
                    ro=True,
                    filt=True,
                ),
                integer("points_balance", "Points available to redeem.", ro=True, minimum=0),
                date("birthday", "Birthday, for the birthday bonus."),
                boolean(
                    "marketing_opt_in",
                    "Whether the member accepts promotional emails.",
                    default=False,
                ),
            ),
            search_fields=("email", "full_name", "phone"),
        ),
        Resource(
            "reward",
            "Something members can redeem points for: a discount code, free shipping or a product.",
            (
                s(
                    "name",
                    "Reward name shown in the rewards catalog.",
                    req=True,
                    ex="$10 off your next order",
                ),
                enum(
                    "kind",
                    ("discount_amount", "discount_percent", "free_shipping", "free_product"),
                    "What the reward grants.",
                    req=True,
                ),
                integer(
                    "points_cost",
                    "Points needed to redeem the reward.",
                    req=True,
                    minimum=1,
                    ex=500,
                ),
                money("value", "Monetary value of a fixed discount."),
                currency("currency", "Currency of `value`."),
                boolean("active", "Inactive rewards cannot be redeemed.", default=True, filt=True),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "points_transaction",
            "A ledger line that adds or removes points from a member's balance.",
            (
                ref("member_id", "member", "Member whose balance changes.", req=True, filt=True),
                integer(
                    "points", "Points added (positive) or removed (negative).", req=True, ex=120
                ),
                enum(
                    "reason",
                    ("order", "refund", "redemption", "bonus", "adjustment", "expiry"),
                    "Why the balance changed.",
                    req=True,
                    filt=True,
                ),
                s("order_id", "Store order that earned or refunded the points.", ex="ord_7c9e6679"),
                s("note", "Free-text explanation for manual adjustments."),
            ),
            ops=("create", "get", "list"),
            timestamps=True,
        ),
    ),
    actions=(
        Action(
            "redeem_reward",
            "member",
            "Redeem a reward",
            (
                "Spends a member's points on a reward and returns the "
                "discount code to apply at checkout. Fails with a conflict if "
                "the balance is too low."
            ),
            params=(ref("reward_id", "reward", "Reward to redeem.", req=True),),
            returns=(
                ref("member_id", "member", "The member.", req=True),
                s(
                    "discount_code",
                    "Single-use code to enter at checkout.",
                    req=True,
                    ex="PERKS-8K2D-11Q",
                ),
                integer("points_spent", "Points deducted.", req=True),
                integer("points_balance", "Balance after redemption.", req=True),
                date("expires_on", "Last day the code can be used.", req=True),
            ),
        ),
        Action(
            "award_points",
            "member",
            "Award points for an order",
            (
                "Credits points for a paid order at the member's tier earn "
                "rate. Awarding twice for the same `order_id` fails with a "
                "conflict."
            ),
            params=(
                s("order_id", "Store order the points are for.", req=True, ex="ord_7c9e6679"),
                money("order_total", "Order total the points are computed from.", req=True),
                currency("currency", "Currency of `order_total`.", req=True),
            ),
        ),
    ),
)

REVIEWS = Service(
    name="reviews",
    title="Stars Product Reviews",
    domain="ecommerce",
    format="openapi30_yaml",
    desc=(
        "Stars collects and moderates product reviews from verified buyers and publishes them on "
        "storefront product pages."
    ),
    resources=(
        Resource(
            "review",
            "A buyer's rating and written review of one product.",
            (
                s(
                    "product_sku",
                    "SKU of the reviewed product, as in the store catalog.",
                    req=True,
                    filt=True,
                    ex="NW-TEA-EARLGREY",
                ),
                s(
                    "order_id",
                    "Store order that proves the purchase; marks the review as verified.",
                    ex="ord_7c9e6679",
                ),
                person("reviewer_name", "Display name of the reviewer.", req=True),
                email("reviewer_email", "Reviewer's email; never published.", req=True, filt=True),
                integer("rating", "Star rating from 1 to 5.", req=True, minimum=1, maximum=5, ex=4),
                s("title", "Headline of the review.", ex="Great everyday tea"),
                s("body", "Review text.", req=True),
                enum(
                    "status",
                    ("pending", "published", "rejected", "flagged"),
                    "Moderation status.",
                    ro=True,
                    filt=True,
                ),
                boolean(
                    "verified_purchase", "Whether the order was matched to the reviewer.", ro=True
                ),
            ),
            search_fields=("title", "body", "reviewer_name"),
        ),
        Resource(
            "reply",
            "A public reply from the merchant under a review.",
            (
                ref("review_id", "review", "Review being answered.", req=True, immut=True),
                s("body", "Reply text.", req=True),
                person("author_name", "Name of the staff member shown as author.", req=True),
            ),
            plural="replies",
            parent="review",
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "approve_review",
            "review",
            "Publish a review",
            "Approves a pending or flagged review and publishes it on the product page.",
        ),
        Action(
            "reject_review",
            "review",
            "Reject a review",
            (
                "Rejects a review so it is never published; the reviewer gets "
                "an email with the reason."
            ),
            params=(
                enum(
                    "reason",
                    ("spam", "offensive", "off_topic", "not_a_buyer"),
                    "Rejection reason.",
                    req=True,
                ),
            ),
        ),
        Action(
            "summarize_reviews",
            "review",
            "Product rating summary",
            (
                "Returns the average rating and the rating distribution of "
                "the published reviews of one product."
            ),
            params=(s("product_sku", "SKU of the product.", req=True, ex="NW-TEA-EARLGREY"),),
            returns=(
                s("product_sku", "The product.", req=True),
                number(
                    "average_rating", "Mean star rating of published reviews.", req=True, ex=4.3
                ),
                integer("review_count", "Number of published reviews.", req=True),
                obj(
                    "distribution",
                    tuple(integer(f"stars_{n}", f"Reviews with {n} stars.") for n in range(1, 6)),
                    "Review count per star rating.",
                ),
            ),
            on_item=False,
            method="GET",
            read_only=True,
            verb="summary",
        ),
    ),
)

ANALYTICS = Service(
    name="analytics",
    title="Signal CDP",
    domain="analytics",
    format="mcp",
    desc=(
        "Signal is a customer data platform: it records product and marketing events, unifies them "
        "into customer profiles and builds audience segments."
    ),
    resources=(
        Resource(
            "profile",
            (
                "A unified customer profile keyed by user ID and email, with "
                "traits merged from every source."
            ),
            (
                s(
                    "user_id",
                    "Your application's ID for the user; unique.",
                    req=True,
                    immut=True,
                    ex="user_20931",
                ),
                email("email", "Primary email of the user.", filt=True),
                person("full_name", "User's name."),
                phone("phone", "User's phone number."),
                company("company_name", "Company the user works for, for B2B products."),
                country("country", "Country derived from the latest event."),
                obj(
                    "traits",
                    (
                        s("plan", "Subscription plan.", ex="pro"),
                        money("lifetime_value", "Revenue from the user so far."),
                        currency("currency", "Currency of `lifetime_value`."),
                        integer("orders_count", "Number of orders placed."),
                    ),
                    "Custom traits.",
                ),
                dt("last_seen_at", "Time of the most recent event.", ro=True, null=True),
            ),
            search_fields=("user_id", "email", "full_name"),
        ),
        Resource(
            "event",
            "A single tracked action of a user, such as `Order Completed` or `Signed Up`.",
            (
                s(
                    "user_id",
                    "User who performed the action.",
                    req=True,
                    filt=True,
                    ex="user_20931",
                ),
                s(
                    "event_name",
                    "Name of the event in Object Action form.",
                    req=True,
                    filt=True,
                    ex="Order Completed",
                ),
                dt("occurred_at", "When the action happened; defaults to the time of receipt."),
                obj(
                    "properties",
                    (
                        s("order_id", "Order involved, for commerce events.", ex="ord_7c9e6679"),
                        money("revenue", "Revenue attributed to the event."),
                        currency("currency", "Currency of `revenue`."),
                        url("page_url", "Page the event happened on."),
                    ),
                    "Event properties.",
                ),
                enum(
                    "source",
                    ("web", "ios", "android", "server"),
                    "Where the event was collected.",
                    default="server",
                    filt=True,
                ),
            ),
            ops=("create", "get", "list"),
            docs={
                "create": "Events are immutable once recorded; to correct data, send a new event."
            },
        ),
        Resource(
            "segment",
            "A named audience defined by a rule over profile traits and events, recomputed hourly.",
            (
                s("name", "Segment name.", req=True, ex="High-value churn risk"),
                s("description", "What the segment is for."),
                s(
                    "rule",
                    "Audience rule in Signal's query language.",
                    req=True,
                    ex=(
                        "traits.lifetime_value > 1000 and not performed('Order "
                        "Completed', within='60d')"
                    ),
                ),
                integer("profile_count", "Profiles currently in the segment.", ro=True),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "export_segment",
            "segment",
            "Export a segment",
            (
                "Exports the emails and user IDs of every profile in a "
                "segment, e.g. to sync them to an email list."
            ),
            params=(
                integer(
                    "limit",
                    "Maximum number of members to return.",
                    default=1000,
                    minimum=1,
                    maximum=10000,
                ),
            ),
            returns=(
                ref("segment_id", "segment", "The segment.", req=True),
                arr(
                    "members",
                    obj(
                        "member",
                        (s("user_id", "User ID."), email("email", "Email of the profile.")),
                        "A profile in the segment.",
                    ),
                    "Profiles in the segment.",
                    req=True,
                ),
                dt("exported_at", "When the export ran.", req=True),
            ),
            read_only=True,
        ),
        Action(
            "merge_profiles",
            "profile",
            "Merge two profiles",
            (
                "Merges a duplicate profile into this one: events and traits "
                "are moved, and the duplicate is deleted."
            ),
            params=(
                ref(
                    "duplicate_profile_id",
                    "profile",
                    "Profile to merge into this one and delete.",
                    req=True,
                ),
            ),
            destructive=True,
        ),
    ),
)

SOCIAL_MEDIA = Service(
    name="social_media",
    title="Broadcast Social Scheduler",
    domain="marketing",
    format="mcp",
    desc=(
        "Broadcast schedules and publishes posts to company social "
        "media accounts and reports their "
        "engagement."
    ),
    resources=(
        Resource(
            "channel",
            "A connected social media account posts are published to.",
            (
                enum(
                    "network",
                    ("linkedin", "x", "facebook", "instagram", "mastodon"),
                    "Social network.",
                    req=True,
                    filt=True,
                ),
                s("handle", "Account handle on the network.", req=True, ex="@northwindtraders"),
                company("company_name", "Organization that owns the account."),
                url(
                    "profile_url",
                    "Public URL of the account.",
                    ex="https://www.linkedin.com/company/northwind",
                ),
                boolean("connected", "Whether the access token is still valid.", ro=True),
            ),
            ops=("create", "get", "list", "delete"),
        ),
        Resource(
            "post",
            "A post drafted for, scheduled on or published to one channel.",
            (
                ref("channel_id", "channel", "Channel the post goes to.", req=True, filt=True),
                s(
                    "text",
                    "Post text, within the network's character limit.",
                    req=True,
                    ex="Our summer collection is here.",
                ),
                url(
                    "link_url",
                    "Link attached to the post, e.g. a campaign landing page.",
                    ex="https://northwind.example.com/summer",
                ),
                arr("media_urls", url("media_url", "Image or video URL."), "Attached media."),
                dt("scheduled_at", "When the post will be published.", null=True),
                enum(
                    "status",
                    ("draft", "scheduled", "published", "failed"),
                    "Publishing status.",
                    ro=True,
                    filt=True,
                ),
                url("published_url", "Permalink once published.", ro=True, null=True),
                email(
                    "author_email", "Team member who wrote the post.", ex="jane.cooper@example.com"
                ),
            ),
            search_fields=("text",),
        ),
    ),
    actions=(
        Action(
            "publish_post",
            "post",
            "Publish a post now",
            "Publishes a draft or scheduled post immediately and returns it with its permalink.",
        ),
        Action(
            "get_post_metrics",
            "post",
            "Post engagement",
            "Returns engagement numbers for a published post.",
            returns=(
                ref("post_id", "post", "The post.", req=True),
                integer("impressions", "Times the post was shown.", req=True),
                integer("likes", "Reactions and likes.", req=True),
                integer("shares", "Reposts and shares.", req=True),
                integer("comments", "Comments.", req=True),
                integer("link_clicks", "Clicks on `link_url`.", req=True),
            ),
            method="GET",
            read_only=True,
            verb="metrics",
        ),
    ),
)

EVENT_REGISTRATION = Service(
    name="event_registration",
    title="Gather Events",
    domain="marketing",
    format="openapi30_yaml",
    desc=(
        "Gather sells tickets and manages registration for conferences, workshops and customer "
        "events, including on-site check-in."
    ),
    resources=(
        Resource(
            "event",
            "A conference, workshop or meetup with a venue, a schedule and ticket types.",
            (
                s("name", "Event name.", req=True, ex="Northwind Partner Summit 2025"),
                s("description", "Public event description."),
                dt("starts_at", "Start of the event.", req=True),
                dt("ends_at", "End of the event.", req=True),
                s("timezone", "IANA time zone of the venue.", ex="Europe/Berlin"),
                s("venue_name", "Name of the venue.", ex="Berlin Congress Center"),
                address("venue_address", "Address of the venue."),
                integer("capacity", "Maximum number of attendees.", minimum=1, ex=400),
                money(
                    "ticket_price",
                    "Price of a standard ticket; 0 for free events.",
                    req=True,
                    ex=299.0,
                ),
                currency("currency", "Currency of `ticket_price`.", listed=True, default="EUR"),
                enum(
                    "status",
                    ("draft", "on_sale", "sold_out", "completed", "canceled"),
                    "Sales status.",
                    default="draft",
                    filt=True,
                ),
                email(
                    "organizer_email",
                    "Contact address printed on tickets.",
                    ex="events@northwind.example.com",
                ),
            ),
            search_fields=("name", "venue_name"),
        ),
        Resource(
            "registration",
            "One attendee's ticket for an event.",
            (
                ref(
                    "event_id", "event", "Event the ticket is for.", req=True, immut=True, filt=True
                ),
                person("first_name", "Attendee's given name.", req=True),
                person("last_name", "Attendee's family name.", req=True),
                email("email", "Attendee's email; the ticket is sent here.", req=True, filt=True),
                company("company_name", "Attendee's company, printed on the badge."),
                s("job_title", "Attendee's job title, printed on the badge."),
                enum(
                    "ticket_type",
                    ("standard", "vip", "speaker", "staff"),
                    "Kind of ticket.",
                    default="standard",
                ),
                money("amount_paid", "What the attendee paid.", ro=True),
                currency("currency", "Currency of `amount_paid`.", ro=True),
                enum(
                    "status",
                    ("confirmed", "waitlisted", "canceled", "checked_in"),
                    "Registration status.",
                    ro=True,
                    filt=True,
                ),
            ),
            parent="event",
            search_fields=("first_name", "last_name", "email", "company_name"),
        ),
    ),
    actions=(
        Action(
            "check_in_registration",
            "registration",
            "Check in an attendee",
            (
                "Marks the attendee as arrived and prints the badge. Checking "
                "in a canceled registration fails."
            ),
            verb="check_in",
        ),
        Action(
            "cancel_registration",
            "registration",
            "Cancel a registration",
            (
                "Cancels a ticket, frees the seat for the waitlist and "
                "optionally refunds the ticket price."
            ),
            params=(boolean("refund", "Refund what the attendee paid.", default=True),),
        ),
    ),
)

SERVICES: tuple[Service, ...] = (
    CRM,
    CAMPAIGNS,
    QUOTES,
    CUSTOMER_SUCCESS,
    LOYALTY,
    REVIEWS,
    ANALYTICS,
    SOCIAL_MEDIA,
    EVENT_REGISTRATION,
)
