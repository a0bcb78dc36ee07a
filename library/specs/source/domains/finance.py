"""Billing, payments, accounting, spend and procurement services."""

from __future__ import annotations

from ..fields import (
    address,
    arr,
    boolean,
    company,
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
    url,
)
from ..model import Action, Field, Resource, Service


def _line_items(desc: str) -> Field:
    return arr(
        "line_items",
        obj(
            "line_item",
            (
                s("description", "What is billed.", req=True, ex="Pro plan seat (annual)"),
                s("sku", "Product SKU, when the line is a catalog product.", ex="NW-PRO-SEAT"),
                number("quantity", "Quantity billed.", req=True, minimum=0, ex=25),
                money("unit_price", "Price of one unit before tax.", req=True, ex=480.0),
                number(
                    "tax_rate",
                    "Tax rate in percent applied to the line.",
                    minimum=0,
                    maximum=100,
                    ex=8.5,
                ),
            ),
            "One billed line.",
        ),
        desc,
        req=True,
    )


INVOICING = Service(
    name="invoicing",
    title="Ledgerly Invoicing",
    domain="finance",
    format="openapi30_yaml",
    desc=(
        "Ledgerly creates, sends and tracks customer invoices for small and mid-sized businesses, "
        "with a customer directory and online payment links."
    ),
    resources=(
        Resource(
            "customer",
            "A billed customer: the company and the person invoices are addressed to.",
            (
                company("company_name", "Company the invoices are made out to.", req=True),
                person("contact_name", "Accounts-payable contact.", req=True),
                email("email", "Address invoices are emailed to.", req=True, filt=True),
                phone("phone", "Accounts-payable phone number."),
                address("billing_address", "Address printed on invoices."),
                s("tax_id", "VAT or tax number printed on invoices.", ex="DE811569869"),
                currency(
                    "currency",
                    "Default invoice currency for this customer.",
                    listed=True,
                    default="USD",
                ),
                integer(
                    "payment_terms_days", "Days until an invoice is due.", default=30, minimum=0
                ),
            ),
            search_fields=("company_name", "contact_name", "email"),
        ),
        Resource(
            "invoice",
            (
                "A bill for goods or services sent to a customer, with line items, "
                "totals and a due date."
            ),
            (
                s(
                    "invoice_number",
                    "Sequential invoice number printed on the document.",
                    ro=True,
                    ex="INV-2025-0042",
                ),
                ref("customer_id", "customer", "Customer being billed.", req=True, filt=True),
                email(
                    "customer_email",
                    "Address the invoice is sent to; defaults to the customer's email.",
                    filt=True,
                ),
                _line_items("Billed lines."),
                money("subtotal", "Sum of the lines before tax.", ro=True),
                money("tax_total", "Tax across all lines.", ro=True),
                money("total", "Amount due: subtotal plus tax.", ro=True, ex=13020.0),
                money("amount_paid", "Payments received so far.", ro=True, ex=0.0),
                currency("currency", "Invoice currency.", listed=True, req=True),
                date("issue_date", "Date printed as the invoice date.", req=True),
                date("due_date", "Date payment is due.", req=True),
                enum(
                    "status",
                    ("draft", "sent", "partially_paid", "paid", "overdue", "void"),
                    "Payment status.",
                    ro=True,
                    filt=True,
                ),
                s("deal_id", "Relay CRM deal the invoice bills, if any.", ex="dea_5d1d7b5e"),
                s("po_number", "Customer's purchase order number."),
                url("payment_url", "Hosted page where the customer pays online.", ro=True),
                s("memo", "Note printed at the bottom of the invoice."),
            ),
            search_fields=("invoice_number", "customer_email", "po_number"),
            docs={
                "create": (
                    "New invoices start as `draft`; totals are computed from the "
                    "line items and the `invoice_number` is assigned on creation."
                ),
                "update": (
                    "Only `draft` invoices can be changed; void a sent invoice and issue a "
                    "new one instead."
                ),
            },
        ),
    ),
    actions=(
        Action(
            "send_invoice",
            "invoice",
            "Send an invoice",
            (
                "Emails the invoice PDF and a payment link to the customer and moves a "
                "draft invoice to `sent`."
            ),
            params=(
                email("to", "Recipient; defaults to `customer_email`."),
                s("message", "Personal message added to the email."),
            ),
        ),
        Action(
            "record_invoice_payment",
            "invoice",
            "Record a payment",
            (
                "Records money received against an invoice, e.g. a bank transfer; the "
                "invoice becomes `partially_paid` or `paid`."
            ),
            params=(
                money("amount", "Amount received.", req=True),
                currency("currency", "Currency received; must match the invoice.", req=True),
                date("paid_on", "Date the money arrived.", req=True),
                enum(
                    "method",
                    ("bank_transfer", "card", "check", "cash", "other"),
                    "How the customer paid.",
                    default="bank_transfer",
                ),
                s("reference", "Bank or payment processor reference.", ex="pay_3b1f0c55"),
            ),
            verb="payments",
        ),
        Action(
            "void_invoice",
            "invoice",
            "Void an invoice",
            (
                "Voids a sent invoice so it is no longer owed. Paid invoices cannot be "
                "voided; refund them instead."
            ),
            destructive=True,
            verb="void",
        ),
    ),
)

PAYMENTS = Service(
    name="payments",
    title="Tender Payments",
    domain="payments",
    format="openapi31_json",
    desc=(
        "Tender accepts card and bank payments online: customers, payments with authorization and "
        "capture, refunds and shareable payment links."
    ),
    paging="cursor",
    resources=(
        Resource(
            "customer",
            "A payer whose payment methods and payment history Tender stores.",
            (
                email("email", "Customer's email; receipts are sent here.", req=True, filt=True),
                person("full_name", "Cardholder or account holder name.", req=True),
                phone("phone", "Customer's phone number.", null=True),
                address("address", "Billing address used for card verification.", null=True),
                obj(
                    "metadata",
                    (s("external_id", "Your system's ID for the customer.", ex="cust_4411"),),
                    "Key-value pairs for your own references.",
                ),
            ),
            search_fields=("email", "full_name"),
        ),
        Resource(
            "payment",
            (
                "A payment from a customer for an amount in one currency, authorized "
                "and then captured."
            ),
            (
                money(
                    "amount",
                    "Amount to charge, in major units (e.g. 10.50).",
                    req=True,
                    immut=True,
                    ex=13020.0,
                ),
                currency("currency", "Currency of `amount`.", listed=True, req=True, immut=True),
                ref("customer_id", "customer", "Paying customer.", req=True, immut=True, filt=True),
                email(
                    "receipt_email",
                    "Where the receipt is sent; defaults to the customer's email.",
                    null=True,
                ),
                s(
                    "invoice_number",
                    "Invoice this payment settles (e.g. from Ledgerly Invoicing).",
                    filt=True,
                    null=True,
                    ex="INV-2025-0042",
                ),
                s(
                    "order_id",
                    "Store order this payment is for, if any.",
                    null=True,
                    ex="ord_7c9e6679",
                ),
                s(
                    "description",
                    "Text shown on the customer's statement.",
                    ex="Northwind Traders INV-2025-0042",
                ),
                boolean(
                    "capture",
                    "Capture immediately; false only authorizes.",
                    default=True,
                    immut=True,
                ),
                enum(
                    "status",
                    (
                        "requires_capture",
                        "succeeded",
                        "failed",
                        "canceled",
                        "refunded",
                        "partially_refunded",
                    ),
                    "Payment status.",
                    ro=True,
                    filt=True,
                ),
                money("amount_refunded", "Amount refunded so far.", ro=True),
                obj(
                    "card",
                    (
                        s("brand", "Card brand.", ex="visa"),
                        s("last4", "Last four digits.", ex="4242"),
                        integer("exp_month", "Expiry month."),
                        integer("exp_year", "Expiry year."),
                    ),
                    "Card used, when paid by card.",
                    ro=True,
                ),
                s("failure_reason", "Why the payment failed.", ro=True, null=True),
            ),
            ops=("create", "get", "list", "update", "search"),
            search_fields=("description", "invoice_number", "receipt_email"),
            docs={
                "update": (
                    "Only descriptive fields (receipt email, description, references) can "
                    "change after creation."
                )
            },
        ),
        Resource(
            "refund",
            "Money returned to the customer from a succeeded payment, in full or in part.",
            (
                ref(
                    "payment_id",
                    "payment",
                    "Payment being refunded.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                money(
                    "amount", "Amount to refund; defaults to the unrefunded remainder.", immut=True
                ),
                currency(
                    "currency", "Currency of the refund; always the payment's currency.", ro=True
                ),
                enum(
                    "reason",
                    ("requested_by_customer", "duplicate", "fraudulent", "product_not_received"),
                    "Why the money is returned.",
                    req=True,
                    immut=True,
                ),
                enum(
                    "status",
                    ("pending", "succeeded", "failed"),
                    "Refund status.",
                    ro=True,
                    filt=True,
                ),
            ),
            ops=("create", "get", "list"),
        ),
        Resource(
            "payment_link",
            "A hosted checkout page with a fixed amount that can be shared by email or chat.",
            (
                money("amount", "Amount the payer is asked for.", req=True, ex=299.0),
                currency("currency", "Currency of `amount`.", listed=True, req=True),
                s(
                    "description",
                    "What the payer is paying for.",
                    req=True,
                    ex="Partner Summit ticket",
                ),
                s("invoice_number", "Invoice the link settles, if any.", null=True),
                url(
                    "url",
                    "Public URL of the checkout page.",
                    ro=True,
                    ex="https://pay.tender.example.com/l/8Xk2",
                ),
                boolean("active", "Inactive links show an expired page.", default=True, filt=True),
                date("expires_on", "Last day the link works.", null=True),
            ),
            ops=("create", "get", "list", "update"),
        ),
    ),
    actions=(
        Action(
            "capture_payment",
            "payment",
            "Capture a payment",
            (
                "Captures an authorized payment, optionally for less than the "
                "authorized amount; the remainder is released."
            ),
            params=(money("amount", "Amount to capture; defaults to the full authorization."),),
        ),
        Action(
            "cancel_payment",
            "payment",
            "Cancel a payment",
            "Cancels an uncaptured payment and releases the authorization on the card.",
            params=(
                enum(
                    "reason",
                    ("duplicate", "fraudulent", "requested_by_customer", "abandoned"),
                    "Cancellation reason.",
                ),
            ),
        ),
    ),
)

SUBSCRIPTIONS = Service(
    name="subscriptions",
    title="Recur Subscription Billing",
    domain="billing",
    format="openapi31_json",
    desc=(
        "Recur bills recurring revenue: price plans, customers' subscriptions to them, trials, "
        "upgrades, pauses and cancellations, and discount coupons."
    ),
    resources=(
        Resource(
            "plan",
            "A price plan customers subscribe to: a price per interval, per seat or flat.",
            (
                s("name", "Plan name shown on invoices.", req=True, ex="Pro (annual)"),
                s(
                    "code",
                    "Stable plan code used in integrations.",
                    req=True,
                    immut=True,
                    ex="pro-annual",
                ),
                money(
                    "price", "Price per interval (per seat when `per_seat`).", req=True, ex=480.0
                ),
                currency("currency", "Currency of `price`.", listed=True, req=True, immut=True),
                enum(
                    "interval",
                    ("month", "quarter", "year"),
                    "Billing interval.",
                    req=True,
                    immut=True,
                ),
                boolean("per_seat", "Charge `price` for every seat.", default=False),
                integer(
                    "trial_days", "Free trial length for new subscriptions.", default=0, minimum=0
                ),
                boolean(
                    "active", "Inactive plans cannot be subscribed to.", default=True, filt=True
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "subscription",
            "A customer's subscription to one plan, with its billing period and status.",
            (
                email("customer_email", "Billing email of the subscriber.", req=True, filt=True),
                company("company_name", "Subscribing company.", null=True),
                ref("plan_id", "plan", "Plan subscribed to.", req=True, filt=True),
                integer("seats", "Seats billed for per-seat plans.", default=1, minimum=1),
                ref("coupon_id", "coupon", "Coupon applied to the subscription.", null=True),
                enum(
                    "status",
                    ("trialing", "active", "past_due", "paused", "canceled"),
                    "Subscription status.",
                    ro=True,
                    filt=True,
                ),
                date("current_period_start", "Start of the current billing period.", ro=True),
                date(
                    "current_period_end",
                    "End of the current period; the next invoice is issued then.",
                    ro=True,
                ),
                date("trial_end", "Last day of the trial.", ro=True, null=True),
                boolean(
                    "cancel_at_period_end",
                    "Cancel when the current period ends instead of renewing.",
                    default=False,
                ),
                money(
                    "mrr", "Monthly recurring revenue of the subscription after discounts.", ro=True
                ),
                currency("currency", "Currency of `mrr`: the plan's currency.", ro=True),
            ),
            search_fields=("customer_email", "company_name"),
            docs={
                "create": (
                    "Subscriptions to plans with `trial_days` start as "
                    "`trialing`; others are invoiced immediately for the first "
                    "period."
                )
            },
        ),
        Resource(
            "coupon",
            "A discount applied to subscriptions for a number of billing periods or forever.",
            (
                s("code", "Code customers enter at checkout.", req=True, immut=True, ex="LAUNCH20"),
                number(
                    "percent_off",
                    "Percentage discount.",
                    minimum=0,
                    maximum=100,
                    null=True,
                    ex=20.0,
                ),
                money("amount_off", "Fixed discount per period.", null=True),
                currency("currency", "Currency of `amount_off`.", null=True),
                enum(
                    "duration",
                    ("once", "repeating", "forever"),
                    "How long the discount applies.",
                    req=True,
                ),
                integer(
                    "duration_in_periods", "Periods the discount lasts when `repeating`.", null=True
                ),
                date("redeem_by", "Last day the coupon can be applied.", null=True),
            ),
            ops=("create", "get", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "cancel_subscription",
            "subscription",
            "Cancel a subscription",
            (
                "Cancels a subscription now (with a prorated credit) or at the end of "
                "the current period."
            ),
            params=(
                boolean("at_period_end", "Keep access until the period ends.", default=True),
                s("reason", "Churn reason, for reporting."),
            ),
        ),
        Action(
            "pause_subscription",
            "subscription",
            "Pause a subscription",
            (
                "Pauses billing; the subscription resumes automatically on `resume_on` "
                "or when resumed by hand."
            ),
            params=(date("resume_on", "Date to resume billing automatically."),),
        ),
        Action(
            "change_subscription_plan",
            "subscription",
            "Change plan",
            (
                "Moves a subscription to another plan (upgrade or downgrade), prorating "
                "the current period."
            ),
            params=(
                ref("plan_id", "plan", "New plan.", req=True),
                integer("seats", "New seat count.", minimum=1),
                boolean("prorate", "Credit unused time on the old plan.", default=True),
            ),
            verb="change_plan",
        ),
    ),
)

LEDGER = Service(
    name="ledger",
    title="Balance General Ledger",
    domain="accounting",
    format="swagger",
    op_style="camel",
    desc=(
        "Balance is a double-entry general ledger: the chart of accounts, journal entries posted "
        "against it and fiscal periods that are closed at month end."
    ),
    resources=(
        Resource(
            "gl_account",
            "An account in the chart of accounts, such as 1200 Accounts Receivable.",
            (
                s("code", "Account code, unique in the chart.", req=True, ex="1200"),
                s("name", "Account name.", req=True, ex="Accounts Receivable"),
                enum(
                    "type",
                    ("asset", "liability", "equity", "revenue", "expense"),
                    "Account type.",
                    req=True,
                    filt=True,
                ),
                currency("currency", "Currency of the account.", default="USD"),
                money("balance", "Current balance, debit-positive.", ro=True, minimum=None),
                boolean(
                    "archived", "Archived accounts accept no new entries.", default=False, filt=True
                ),
            ),
            label="GL account",
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "journal_entry",
            "A balanced set of debit and credit lines posted on one date.",
            (
                date("entry_date", "Accounting date of the entry.", req=True, filt=True),
                s(
                    "memo",
                    "Description of the transaction.",
                    req=True,
                    ex="Invoice INV-2025-0042 issued",
                ),
                s(
                    "reference",
                    "Source document reference, e.g. an invoice number or payment ID.",
                    filt=True,
                    ex="INV-2025-0042",
                ),
                arr(
                    "lines",
                    obj(
                        "line",
                        (
                            ref("gl_account_id", "gl_account", "Account posted to.", req=True),
                            money(
                                "debit", "Debit amount; zero when the line is a credit.", default=0
                            ),
                            money(
                                "credit", "Credit amount; zero when the line is a debit.", default=0
                            ),
                            s("description", "Line description."),
                        ),
                        "One debit or credit line.",
                    ),
                    "Lines; total debits must equal total credits.",
                    req=True,
                ),
                currency("currency", "Currency of every line.", req=True),
                enum(
                    "status", ("draft", "posted", "reversed"), "Posting status.", ro=True, filt=True
                ),
                email("created_by_email", "Accountant who recorded the entry.", ro=True),
            ),
            plural="journal_entries",
            search_fields=("memo", "reference"),
            docs={
                "create": (
                    "The entry is created as a draft; debits and credits must balance or "
                    "the request fails."
                )
            },
        ),
        Resource(
            "fiscal_period",
            "A month of the fiscal year; closed periods accept no postings.",
            (
                s("name", "Period name.", req=True, ex="2025-07"),
                date("start_date", "First day of the period.", req=True),
                date("end_date", "Last day of the period.", req=True),
                enum(
                    "status",
                    ("open", "closing", "closed"),
                    "Whether postings are allowed.",
                    ro=True,
                    filt=True,
                ),
            ),
            ops=("create", "get", "list"),
        ),
    ),
    actions=(
        Action(
            "post_journal_entry",
            "journal_entry",
            "Post a journal entry",
            (
                "Posts a draft entry to the ledger, updating account balances. Fails if "
                "its date falls in a closed period."
            ),
            verb="post",
        ),
        Action(
            "reverse_journal_entry",
            "journal_entry",
            "Reverse a journal entry",
            (
                "Posts an equal and opposite entry on `reversal_date` and marks the "
                "original as reversed."
            ),
            params=(date("reversal_date", "Date of the reversing entry.", req=True),),
            verb="reverse",
        ),
        Action(
            "close_fiscal_period",
            "fiscal_period",
            "Close a period",
            "Closes a fiscal period after checking that no draft entries remain in it.",
            verb="close",
        ),
        Action(
            "get_trial_balance",
            "gl_account",
            "Trial balance",
            "Returns the debit and credit totals of every account as of a date.",
            params=(date("as_of", "Balance date.", req=True),),
            returns=(
                date("as_of", "Balance date.", req=True),
                arr(
                    "accounts",
                    obj(
                        "row",
                        (
                            s("code", "Account code."),
                            s("name", "Account name."),
                            money("debit", "Debit total."),
                            money("credit", "Credit total."),
                        ),
                        "One account's totals.",
                    ),
                    "Rows of the trial balance.",
                    req=True,
                ),
                boolean("balanced", "Whether total debits equal total credits.", req=True),
            ),
            on_item=False,
            method="GET",
            read_only=True,
            path="/reports/trial_balance",
        ),
    ),
)

EXPENSES = Service(
    name="expenses",
    title="Receipts Expense Management",
    domain="travel",
    format="openapi30_yaml",
    desc=(
        "Receipts captures employee spending: individual expenses with receipts, grouped into "
        "expense reports that managers approve and finance reimburses."
    ),
    resources=(
        Resource(
            "expense_report",
            "A set of expenses an employee submits together, e.g. for one business trip.",
            (
                s("title", "Report title.", req=True, ex="Berlin partner summit, July"),
                email("employee_email", "Employee who is reimbursed.", req=True, filt=True),
                person("employee_name", "Employee's name."),
                email(
                    "approver_email",
                    "Manager who approves the report.",
                    filt=True,
                    ex="priya.nair@example.com",
                ),
                money("total", "Sum of the report's expenses in the report currency.", ro=True),
                currency("currency", "Reimbursement currency.", listed=True, default="USD"),
                enum(
                    "status",
                    ("draft", "submitted", "approved", "rejected", "reimbursed"),
                    "Approval status.",
                    ro=True,
                    filt=True,
                ),
                dt("submitted_at", "When the report was submitted.", ro=True, null=True),
            ),
            search_fields=("title", "employee_email"),
        ),
        Resource(
            "expense",
            "One business expense with its amount, category, merchant and receipt.",
            (
                ref(
                    "expense_report_id",
                    "expense_report",
                    "Report the expense is on; null while unreported.",
                    filt=True,
                ),
                email("employee_email", "Employee who spent the money.", req=True, filt=True),
                date("spent_on", "Date of the purchase.", req=True),
                s("merchant", "Merchant name from the receipt.", req=True, ex="Lufthansa"),
                money("amount", "Amount on the receipt.", req=True, ex=412.8),
                currency("currency", "Currency on the receipt.", req=True),
                enum(
                    "category",
                    (
                        "airfare",
                        "lodging",
                        "car_rental",
                        "meals",
                        "ground_transport",
                        "office_supplies",
                        "software",
                        "other",
                    ),
                    "Expense category.",
                    req=True,
                    filt=True,
                ),
                s(
                    "booking_reference",
                    "Confirmation code of a flight, hotel or car booking.",
                    ex="LH7X2Q",
                ),
                url("receipt_url", "Image or PDF of the receipt."),
                boolean("billable", "Re-bill the expense to a client.", default=False),
                s("client_name", "Client to re-bill, when billable."),
            ),
            search_fields=("merchant", "booking_reference"),
            docs={
                "create": (
                    "Expenses created without `expense_report_id` stay unreported "
                    "until they are added to a report."
                )
            },
        ),
    ),
    actions=(
        Action(
            "submit_expense_report",
            "expense_report",
            "Submit for approval",
            (
                "Submits a draft report to its approver. Fails if an expense lacks a "
                "receipt over the receipt threshold."
            ),
            verb="submit",
        ),
        Action(
            "approve_expense_report",
            "expense_report",
            "Approve a report",
            "Approves a submitted report so finance can reimburse it.",
            params=(s("comment", "Approval note."),),
            verb="approve",
        ),
        Action(
            "reject_expense_report",
            "expense_report",
            "Reject a report",
            "Sends a submitted report back to the employee with a reason.",
            params=(s("reason", "What must be fixed.", req=True),),
            verb="reject",
        ),
        Action(
            "reimburse_expense_report",
            "expense_report",
            "Mark as reimbursed",
            "Records that the approved total was paid out to the employee.",
            params=(
                date("paid_on", "Payout date.", req=True),
                s("payment_reference", "Payout reference."),
            ),
            verb="reimburse",
        ),
    ),
)

PROCUREMENT = Service(
    name="procurement",
    title="Sourcery Procurement",
    domain="procurement",
    format="openapi30_yaml",
    desc=(
        "Sourcery manages purchasing: approved vendors, purchase orders with approval, and goods "
        "receipt against those orders."
    ),
    resources=(
        Resource(
            "vendor",
            "An approved supplier with its contact details and payment terms.",
            (
                company("company_name", "Vendor's legal name.", req=True),
                person("contact_name", "Sales contact at the vendor."),
                email("email", "Address purchase orders are sent to.", req=True, filt=True),
                phone("phone", "Vendor phone number."),
                address("address", "Vendor address."),
                s("tax_id", "Vendor tax ID."),
                integer("payment_terms_days", "Days to pay the vendor's invoices.", default=30),
                enum(
                    "status",
                    ("active", "on_hold", "blocked"),
                    "Whether new orders may be placed.",
                    default="active",
                    filt=True,
                ),
            ),
            search_fields=("company_name", "email"),
        ),
        Resource(
            "purchase_order",
            "An order for goods or services placed with one vendor.",
            (
                s("po_number", "Purchase order number.", ro=True, ex="PO-10233"),
                ref("vendor_id", "vendor", "Vendor the order is placed with.", req=True, filt=True),
                email(
                    "requester_email", "Employee who requested the purchase.", req=True, filt=True
                ),
                arr(
                    "lines",
                    obj(
                        "line",
                        (
                            s(
                                "sku",
                                "Vendor SKU or our inventory SKU.",
                                req=True,
                                ex="NW-TEA-EARLGREY",
                            ),
                            s("description", "Item description.", req=True),
                            integer("quantity", "Units ordered.", req=True, minimum=1),
                            money("unit_price", "Agreed price per unit.", req=True),
                            integer("quantity_received", "Units received so far.", ro=True),
                        ),
                        "One ordered item.",
                    ),
                    "Ordered items.",
                    req=True,
                ),
                money("total", "Order total.", ro=True),
                currency("currency", "Order currency.", req=True),
                date("expected_delivery_date", "Date the vendor promised delivery."),
                s(
                    "ship_to_warehouse_id",
                    "Inventory warehouse the goods go to.",
                    ex="war_3a4b5c6d",
                ),
                enum(
                    "status",
                    (
                        "draft",
                        "pending_approval",
                        "approved",
                        "sent",
                        "partially_received",
                        "received",
                        "canceled",
                    ),
                    "Order status.",
                    ro=True,
                    filt=True,
                ),
                email("approver_email", "Who approved the order.", ro=True, null=True),
            ),
            search_fields=("po_number",),
        ),
    ),
    actions=(
        Action(
            "approve_purchase_order",
            "purchase_order",
            "Approve an order",
            "Approves a pending order within the approver's spending limit.",
            params=(
                email(
                    "approver_email", "Approving manager.", req=True, ex="priya.nair@example.com"
                ),
            ),
            verb="approve",
        ),
        Action(
            "send_purchase_order",
            "purchase_order",
            "Send to vendor",
            "Emails the approved order to the vendor as a PDF.",
            verb="send",
        ),
        Action(
            "receive_purchase_order",
            "purchase_order",
            "Receive goods",
            (
                "Records delivered quantities against the order's lines; the order "
                "becomes partially or fully received."
            ),
            params=(
                arr(
                    "received",
                    obj(
                        "receipt",
                        (
                            s("sku", "SKU received.", req=True),
                            integer("quantity", "Units received.", req=True, minimum=1),
                        ),
                        "Received quantity of one SKU.",
                    ),
                    "Quantities received.",
                    req=True,
                ),
                date("received_on", "Delivery date.", req=True),
            ),
            verb="receive",
        ),
        Action(
            "cancel_purchase_order",
            "purchase_order",
            "Cancel an order",
            "Cancels an order that has not been received.",
            params=(s("reason", "Why the order is canceled.", req=True),),
            verb="cancel",
        ),
    ),
)

SERVICES: tuple[Service, ...] = (INVOICING, PAYMENTS, SUBSCRIPTIONS, LEDGER, EXPENSES, PROCUREMENT)
