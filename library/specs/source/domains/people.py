"""HR, time off, payroll, recruiting, time tracking, identity, IT assets and workplace services."""

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
    url,
)
from ..model import Action, Resource, Service

EMPLOYMENT = ("full_time", "part_time", "contractor", "intern")

HR = Service(
    name="hr",
    title="Roster HRIS",
    domain="hr",
    format="openapi30_yaml",
    desc=(
        "Roster is the system of record for people data: employees, their jobs, managers and "
        "departments, from onboarding to offboarding."
    ),
    resources=(
        Resource(
            "employee",
            (
                "A person employed by the company, with job, manager, department and "
                "employment status."
            ),
            (
                person("first_name", "Legal given name.", req=True),
                person("last_name", "Legal family name.", req=True),
                email(
                    "email",
                    "Work email address; unique.",
                    req=True,
                    filt=True,
                    ex="priya.nair@example.com",
                ),
                email("personal_email", "Private email, used after offboarding."),
                phone("mobile", "Work mobile number."),
                s("job_title", "Current job title.", req=True, ex="Senior Accountant"),
                ref(
                    "department_id", "department", "Department the employee belongs to.", filt=True
                ),
                email(
                    "manager_email",
                    "Work email of the direct manager.",
                    filt=True,
                    ex="dana.white@example.com",
                ),
                enum(
                    "employment_type",
                    EMPLOYMENT,
                    "Type of contract.",
                    default="full_time",
                    filt=True,
                ),
                enum(
                    "status",
                    ("onboarding", "active", "on_leave", "terminated"),
                    "Employment status.",
                    ro=True,
                    filt=True,
                ),
                date("start_date", "First working day.", req=True),
                date("end_date", "Last working day, once terminated.", ro=True, null=True),
                country(
                    "work_country",
                    "Country of employment; drives payroll and leave policy.",
                    req=True,
                ),
                address("home_address", "Home address, for payroll and equipment shipping."),
            ),
            search_fields=("first_name", "last_name", "email", "job_title"),
            docs={
                "create": (
                    "Creating an employee starts onboarding; the status becomes "
                    "`active` on `start_date`."
                ),
                "delete": (
                    "Only records created in error should be deleted; use `POST "
                    "/employees/{employee_id}/terminate` to offboard."
                ),
            },
        ),
        Resource(
            "department",
            "An organizational unit with a head and a cost center.",
            (
                s("name", "Department name.", req=True, ex="Finance"),
                s("cost_center", "Cost center code used in accounting.", ex="CC-4100"),
                email(
                    "head_email", "Work email of the department head.", ex="dana.white@example.com"
                ),
                ref(
                    "parent_department_id",
                    "department",
                    "Parent department, for nested org charts.",
                    null=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "terminate_employee",
            "employee",
            "Terminate an employee",
            (
                "Starts offboarding: sets the last working day, the reason, and whether "
                "the person is eligible for rehire. Status becomes `terminated` after "
                "`end_date`."
            ),
            params=(
                date("end_date", "Last working day.", req=True),
                enum(
                    "reason",
                    ("resignation", "dismissal", "redundancy", "end_of_contract", "retirement"),
                    "Reason for leaving.",
                    req=True,
                ),
                boolean("eligible_for_rehire", "Whether the person may be rehired.", default=True),
            ),
            verb="terminate",
        ),
        Action(
            "transfer_employee",
            "employee",
            "Transfer an employee",
            (
                "Moves an employee to another department and/or manager from an "
                "effective date, keeping job history."
            ),
            params=(
                ref("department_id", "department", "New department.", req=True),
                email("manager_email", "New manager.", ex="dana.white@example.com"),
                date("effective_date", "When the move takes effect.", req=True),
            ),
            verb="transfer",
        ),
    ),
)

LEAVE = Service(
    name="leave",
    title="Away Time Off",
    domain="hr",
    format="functions",
    tool_types=True,
    desc="Away tracks employees' vacation, sick leave and other time off, balances and approvals.",
    resources=(
        Resource(
            "leave_request",
            "A request for time off between two dates, approved by the employee's manager.",
            (
                s(
                    "employee_id",
                    "Employee ID in the HR system.",
                    req=True,
                    filt=True,
                    ex="emp_5e0c1f0a",
                ),
                email(
                    "employee_email",
                    "Work email of the employee.",
                    req=True,
                    filt=True,
                    ex="priya.nair@example.com",
                ),
                enum(
                    "leave_type",
                    ("vacation", "sick", "parental", "unpaid", "bereavement"),
                    "Kind of leave.",
                    req=True,
                    filt=True,
                ),
                date("start_date", "First day off.", req=True),
                date("end_date", "Last day off (inclusive).", req=True),
                boolean("half_day", "Only half of a single day is taken.", default=False),
                s("reason", "Optional note for the approver."),
                enum(
                    "status",
                    ("pending", "approved", "rejected", "canceled"),
                    "Approval status.",
                    ro=True,
                    filt=True,
                ),
                email("approver_email", "Manager who decides.", ro=True),
                number("days", "Working days the request consumes.", ro=True),
            ),
            ops=("create", "get", "list", "update", "delete"),
            docs={"update": "Approved requests cannot be edited; cancel and resubmit instead."},
        ),
        Resource(
            "leave_balance",
            "How many days of a leave type an employee has left this year.",
            (
                s("employee_id", "Employee ID in the HR system.", req=True, filt=True),
                enum(
                    "leave_type",
                    ("vacation", "sick", "parental", "unpaid", "bereavement"),
                    "Kind of leave.",
                    req=True,
                    filt=True,
                ),
                integer("year", "Leave year.", req=True, ex=2025),
                number("entitled_days", "Days granted for the year.", req=True),
                number("taken_days", "Days already taken.", ro=True),
                number("remaining_days", "Days still available.", ro=True),
            ),
            ops=("get", "list", "update"),
        ),
    ),
    actions=(
        Action(
            "approve_leave_request",
            "leave_request",
            "Approve",
            (
                "Approve a pending time-off request. The days are deducted from the "
                "employee's balance."
            ),
            params=(
                email(
                    "approver_email",
                    "Manager approving the request.",
                    req=True,
                    ex="dana.white@example.com",
                ),
            ),
        ),
        Action(
            "reject_leave_request",
            "leave_request",
            "Reject",
            "Reject a pending time-off request with a reason the employee will see.",
            params=(
                email("approver_email", "Manager rejecting the request.", req=True),
                s("reason", "Why the request is rejected.", req=True),
            ),
        ),
        Action(
            "cancel_leave_request",
            "leave_request",
            "Cancel",
            "Cancel a pending or approved request; approved days are returned to the balance.",
        ),
    ),
)

PAYROLL = Service(
    name="payroll",
    title="Paydays Payroll",
    domain="hr",
    format="swagger",
    desc=(
        "Paydays runs payroll: employees' compensation, pay runs per pay period and the payslips "
        "they produce."
    ),
    resources=(
        Resource(
            "compensation",
            "An employee's pay rate, effective from a date.",
            (
                s(
                    "employee_id",
                    "Employee ID in the HR system.",
                    req=True,
                    filt=True,
                    immut=True,
                    ex="emp_5e0c1f0a",
                ),
                email("employee_email", "Work email of the employee.", req=True),
                enum("pay_type", ("salary", "hourly"), "How pay is computed.", req=True),
                money("amount", "Annual salary or hourly rate.", req=True, ex=85000.0),
                currency("currency", "Pay currency.", req=True),
                enum(
                    "pay_frequency",
                    ("weekly", "biweekly", "semimonthly", "monthly"),
                    "How often the employee is paid.",
                    default="monthly",
                ),
                date("effective_date", "Date the rate applies from.", req=True),
            ),
            plural="compensations",
            ops=("create", "get", "list", "update"),
        ),
        Resource(
            "pay_run",
            (
                "One payroll run for a pay period: gross pay, deductions and net pay "
                "for every employee."
            ),
            (
                date("period_start", "First day of the pay period.", req=True),
                date("period_end", "Last day of the pay period.", req=True),
                date("pay_date", "Date employees are paid.", req=True),
                enum(
                    "status",
                    ("draft", "approved", "paid", "void"),
                    "Run status.",
                    ro=True,
                    filt=True,
                ),
                money("total_gross", "Gross pay of all employees.", ro=True),
                money("total_net", "Net pay of all employees.", ro=True),
                currency("currency", "Payroll currency.", default="USD"),
                integer("employee_count", "Employees in the run.", ro=True),
            ),
            ops=("create", "get", "list", "delete"),
        ),
        Resource(
            "payslip",
            "An employee's pay statement for one pay run.",
            (
                ref("pay_run_id", "pay_run", "Pay run the payslip belongs to.", ro=True, filt=True),
                s("employee_id", "Employee ID in the HR system.", ro=True, filt=True),
                email("employee_email", "Where the payslip is emailed.", ro=True),
                money("gross_pay", "Pay before deductions.", ro=True),
                money("tax", "Income tax withheld.", ro=True),
                money("deductions", "Benefits and other deductions.", ro=True),
                money("net_pay", "Amount paid to the employee.", ro=True),
                currency("currency", "Payslip currency.", ro=True),
                url("pdf_url", "Downloadable payslip.", ro=True),
            ),
            ops=("get", "list"),
        ),
    ),
    actions=(
        Action(
            "approve_pay_run",
            "pay_run",
            "Approve a pay run",
            "Locks a draft pay run and schedules the bank transfers for `pay_date`.",
            params=(email("approver_email", "Finance approver.", req=True),),
            verb="approve",
        ),
        Action(
            "send_payslips",
            "pay_run",
            "Email payslips",
            "Emails every payslip of an approved run to the employees.",
            returns=(
                ref("pay_run_id", "pay_run", "The run.", req=True),
                integer("sent", "Payslips emailed.", req=True),
                dt("sent_at", "When they were sent.", req=True),
            ),
            verb="send_payslips",
        ),
    ),
)

RECRUITING = Service(
    name="recruiting",
    title="Talentflow ATS",
    domain="recruiting",
    format="openapi30_yaml",
    desc=(
        "Talentflow is an applicant tracking system: open jobs, candidates, their applications "
        "moving through hiring stages, and scheduled interviews."
    ),
    resources=(
        Resource(
            "job",
            "An open position with its department, location and hiring team.",
            (
                s("title", "Job title.", req=True, ex="Senior Backend Engineer"),
                s("department", "Hiring department.", ex="Engineering"),
                s("location", "Office or `Remote`.", ex="Berlin"),
                enum("employment_type", EMPLOYMENT, "Type of contract.", default="full_time"),
                email(
                    "hiring_manager_email",
                    "Hiring manager.",
                    req=True,
                    filt=True,
                    ex="dana.white@example.com",
                ),
                money("salary_min", "Bottom of the salary band."),
                money("salary_max", "Top of the salary band."),
                currency("currency", "Currency of the salary band."),
                enum(
                    "status",
                    ("draft", "open", "on_hold", "closed"),
                    "Posting status.",
                    default="draft",
                    filt=True,
                ),
                url("posting_url", "Public careers page URL.", ro=True, null=True),
            ),
            search_fields=("title", "department", "location"),
        ),
        Resource(
            "candidate",
            "A person who applied or was sourced, with contact details and resume.",
            (
                person("first_name", "Given name.", req=True),
                person("last_name", "Family name.", req=True),
                email("email", "Candidate's email; unique.", req=True, filt=True),
                phone("phone", "Candidate's phone."),
                url("resume_url", "Link to the resume file."),
                url("linkedin_url", "LinkedIn profile."),
                s("current_company", "Current employer."),
                enum(
                    "source",
                    ("careers_page", "referral", "agency", "sourced", "job_board"),
                    "How the candidate came in.",
                    filt=True,
                ),
            ),
            search_fields=("first_name", "last_name", "email", "current_company"),
            docs={
                "create": (
                    "Candidates are unique by email; creating a second candidate "
                    "with the same email fails with a conflict."
                )
            },
        ),
        Resource(
            "application",
            "A candidate's application to one job and its position in the hiring pipeline.",
            (
                ref(
                    "candidate_id",
                    "candidate",
                    "Applying candidate.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                ref("job_id", "job", "Job applied to.", req=True, immut=True, filt=True),
                enum(
                    "stage",
                    ("applied", "screen", "interview", "offer", "hired", "rejected"),
                    "Hiring stage.",
                    ro=True,
                    filt=True,
                ),
                email("recruiter_email", "Recruiter who owns the application.", filt=True),
                dt("applied_at", "When the candidate applied.", ro=True),
            ),
            ops=("create", "get", "list", "update"),
        ),
        Resource(
            "interview",
            "A scheduled interview for an application, with its interviewers and feedback.",
            (
                ref(
                    "application_id",
                    "application",
                    "Application being interviewed.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                dt("starts_at", "Interview start.", req=True),
                integer("duration_minutes", "Length of the interview.", default=45),
                arr(
                    "interviewer_emails",
                    email("interviewer_email", "An interviewer."),
                    "Interviewers invited.",
                    req=True,
                ),
                url("meeting_url", "Video meeting link.", ex="https://meet.example.com/j/81234567"),
                enum(
                    "recommendation",
                    ("strong_yes", "yes", "no", "strong_no"),
                    "Consolidated feedback.",
                    null=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "advance_application",
            "application",
            "Advance to a stage",
            "Moves an application to a later stage and notifies the hiring team.",
            params=(
                enum("stage", ("screen", "interview", "offer", "hired"), "Target stage.", req=True),
            ),
            verb="advance",
        ),
        Action(
            "reject_application",
            "application",
            "Reject",
            "Rejects an application and, unless suppressed, emails the candidate a rejection note.",
            params=(
                enum(
                    "reason",
                    ("not_qualified", "position_filled", "withdrew", "culture", "compensation"),
                    "Rejection reason.",
                    req=True,
                ),
                boolean("notify_candidate", "Send the rejection email.", default=True),
            ),
            verb="reject",
        ),
    ),
)

TIMESHEETS = Service(
    name="timesheets",
    title="Hours Time Tracking",
    domain="hr",
    format="openapi30_yaml",
    desc=(
        "Hours tracks time worked on client projects for billing and payroll, with weekly approval."
    ),
    resources=(
        Resource(
            "client",
            "A customer whose projects are tracked and billed.",
            (
                company("company_name", "Client company.", req=True),
                email("billing_email", "Where time reports are sent."),
                currency("currency", "Billing currency.", default="USD"),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "project",
            "A billable or internal project time is logged against.",
            (
                s("name", "Project name.", req=True, ex="Warehouse rollout"),
                ref("client_id", "client", "Client billed for the project.", filt=True),
                money("hourly_rate", "Default billable rate.", ex=150.0),
                currency("currency", "Currency of `hourly_rate`.", default="USD"),
                integer("budget_hours", "Budgeted hours.", null=True),
                boolean("billable", "Whether time is billable by default.", default=True),
                boolean(
                    "archived", "Archived projects accept no new time.", default=False, filt=True
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "time_entry",
            "A block of time one person worked on a project on one day.",
            (
                ref("project_id", "project", "Project worked on.", req=True, filt=True),
                email("user_email", "Person who worked.", req=True, filt=True),
                date("work_date", "Day the work happened.", req=True, filt=True),
                number("hours", "Hours worked.", req=True, minimum=0, maximum=24, ex=3.5),
                s("description", "What was done.", ex="Configured handheld scanners"),
                boolean("billable", "Whether the entry is billed.", default=True),
                enum(
                    "status",
                    ("open", "submitted", "approved"),
                    "Approval status.",
                    ro=True,
                    filt=True,
                ),
            ),
            plural="time_entries",
        ),
    ),
    actions=(
        Action(
            "submit_timesheet",
            "time_entry",
            "Submit a week",
            "Submits all open entries of a person for the week starting `week_start` for approval.",
            params=(
                email("user_email", "Person whose week is submitted.", req=True),
                date("week_start", "Monday of the week.", req=True),
            ),
            returns=(
                integer("submitted", "Entries submitted.", req=True),
                number("hours", "Hours submitted.", req=True),
                date("week_start", "The week.", req=True),
            ),
            on_item=False,
            path="/timesheets/submit",
        ),
        Action(
            "approve_timesheet",
            "time_entry",
            "Approve a week",
            "Approves a person's submitted entries for a week.",
            params=(
                email("user_email", "Person whose week is approved.", req=True),
                date("week_start", "Monday of the week.", req=True),
                email("approver_email", "Approving manager.", req=True),
            ),
            returns=(
                integer("approved", "Entries approved.", req=True),
                number("hours", "Hours approved.", req=True),
            ),
            on_item=False,
            path="/timesheets/approve",
        ),
    ),
)

IDENTITY = Service(
    name="identity",
    title="Keystone Directory",
    domain="it",
    format="swagger",
    desc=(
        "Keystone is the company directory and single sign-on: user accounts, groups that grant "
        "application access, and account lifecycle."
    ),
    resources=(
        Resource(
            "user",
            "A workforce account that signs in to company applications.",
            (
                s("username", "Login name; unique.", req=True, immut=True, ex="pnair"),
                email(
                    "email",
                    "Primary email; unique.",
                    req=True,
                    filt=True,
                    ex="priya.nair@example.com",
                ),
                person("display_name", "Name shown in applications.", req=True, ex="Priya Nair"),
                phone("mobile", "Number used for SMS multi-factor authentication."),
                s(
                    "employee_id",
                    "HR employee ID, when the account belongs to an employee.",
                    ex="emp_5e0c1f0a",
                ),
                s("department", "Department name, synced from HR."),
                enum(
                    "status",
                    ("staged", "active", "suspended", "deprovisioned"),
                    "Account status.",
                    ro=True,
                    filt=True,
                ),
                dt("last_login_at", "Last successful sign-in.", ro=True, null=True),
            ),
            search_fields=("username", "email", "display_name"),
        ),
        Resource(
            "group",
            "A set of users that is granted access to applications together.",
            (
                s("name", "Group name.", req=True, ex="finance-team"),
                s("description", "What the group grants."),
                arr(
                    "member_ids",
                    ref("member_id", "user", "A member."),
                    "Users in the group.",
                    ro=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "suspend_user",
            "user",
            "Suspend a user",
            "Blocks sign-in and ends active sessions without deleting the account.",
            params=(s("reason", "Why the account is suspended."),),
            verb="suspend",
        ),
        Action(
            "reactivate_user",
            "user",
            "Reactivate a user",
            "Restores sign-in for a suspended account.",
            verb="reactivate",
        ),
        Action(
            "add_group_member",
            "group",
            "Add a member",
            "Adds a user to a group, granting the group's applications.",
            params=(ref("user_id", "user", "User to add.", req=True),),
            verb="members",
        ),
        Action(
            "reset_user_password",
            "user",
            "Reset password",
            "Invalidates the password and emails a reset link to the user.",
            returns=(
                ref("user_id", "user", "The user.", req=True),
                dt("reset_link_expires_at", "When the reset link expires.", req=True),
            ),
            verb="reset_password",
        ),
    ),
)

ASSETS = Service(
    name="assets",
    title="Assetdesk IT Assets",
    domain="it",
    format="openapi30_yaml",
    desc=(
        "Tracks company hardware and software licenses, who has them, and their "
        "warranty and lifecycle."
    ),
    resources=(
        Resource(
            "asset",
            "A laptop, phone, monitor or other device owned by the company.",
            (
                s(
                    "asset_tag",
                    "Inventory tag stuck on the device.",
                    req=True,
                    immut=True,
                    ex="IT-004512",
                ),
                enum(
                    "category",
                    ("laptop", "desktop", "monitor", "phone", "tablet", "peripheral"),
                    "Device category.",
                    req=True,
                    filt=True,
                ),
                s("model", "Manufacturer and model.", req=True, ex="Lenovo ThinkPad T14 Gen 5"),
                s("serial_number", "Manufacturer serial number.", req=True),
                date("purchase_date", "Purchase date."),
                money("purchase_price", "What the device cost."),
                currency("currency", "Currency of `purchase_price`."),
                date("warranty_end", "Last day of the warranty."),
                enum(
                    "status",
                    ("in_stock", "assigned", "in_repair", "retired", "lost"),
                    "Lifecycle status.",
                    ro=True,
                    filt=True,
                ),
                email(
                    "assignee_email", "Employee who has the device.", ro=True, null=True, filt=True
                ),
            ),
            search_fields=("asset_tag", "model", "serial_number"),
        ),
        Resource(
            "license",
            "A software subscription with a number of seats assigned to people.",
            (
                s("product", "Software product.", req=True, ex="Figma Professional"),
                s("vendor", "Vendor name."),
                integer("seats", "Seats purchased.", req=True, minimum=1),
                integer("seats_used", "Seats assigned.", ro=True),
                date("renewal_date", "Next renewal."),
                money("annual_cost", "Yearly cost."),
                currency("currency", "Currency of `annual_cost`."),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
    ),
    actions=(
        Action(
            "assign_asset",
            "asset",
            "Assign to an employee",
            "Hands an in-stock device to an employee and records the checkout date.",
            params=(
                email("assignee_email", "Employee receiving the device.", req=True),
                date("assigned_on", "Checkout date."),
            ),
            verb="assign",
        ),
        Action(
            "return_asset",
            "asset",
            "Return to stock",
            "Records that the device came back, e.g. at offboarding, with its condition.",
            params=(
                enum(
                    "condition", ("good", "damaged", "needs_wipe"), "Condition on return.", req=True
                ),
            ),
            verb="return",
        ),
        Action(
            "retire_asset",
            "asset",
            "Retire",
            "Retires a device from service (end of life, sold or recycled).",
            params=(
                enum(
                    "disposal",
                    ("recycled", "sold", "donated", "destroyed"),
                    "What happened to it.",
                    req=True,
                ),
            ),
            verb="retire",
            destructive=True,
        ),
    ),
)

WORKPLACE = Service(
    name="workplace",
    title="Perch Workplace",
    domain="facilities",
    format="openapi30_json",
    desc=(
        "Books meeting rooms and hot desks in company offices, with check-in "
        "and release of no-shows."
    ),
    resources=(
        Resource(
            "room",
            "A bookable meeting room or desk in an office.",
            (
                s("name", "Room or desk name.", req=True, ex="Harbor 4.12"),
                enum(
                    "kind",
                    ("meeting_room", "desk", "phone_booth"),
                    "Kind of space.",
                    req=True,
                    filt=True,
                ),
                s("office", "Office the space is in.", req=True, filt=True, ex="Berlin HQ"),
                integer("floor", "Floor number."),
                integer("capacity", "Seats.", minimum=1),
                arr(
                    "equipment",
                    enum(
                        "item",
                        ("display", "video_conferencing", "whiteboard", "dock"),
                        "Equipment item.",
                    ),
                    "Equipment in the room.",
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "booking",
            "A reservation of a room or desk for a time slot.",
            (
                ref("room_id", "room", "Room booked.", req=True, filt=True),
                email("organizer_email", "Person who booked.", req=True, filt=True),
                s("title", "Meeting title shown on the room display.", ex="Q3 planning"),
                dt("starts_at", "Start of the booking.", req=True),
                dt("ends_at", "End of the booking.", req=True),
                arr(
                    "attendee_emails", email("attendee_email", "An attendee."), "Invited attendees."
                ),
                s(
                    "calendar_event_id",
                    "Linked calendar event, when booked from a calendar.",
                    null=True,
                    ex="evt_0b7d4c21",
                ),
                enum(
                    "status",
                    ("booked", "checked_in", "released", "canceled"),
                    "Booking status.",
                    ro=True,
                    filt=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
            docs={
                "create": (
                    "Fails with a conflict when the room is already booked for an overlapping slot."
                )
            },
        ),
    ),
    actions=(
        Action(
            "check_in_booking",
            "booking",
            "Check in",
            (
                "Confirms the booker arrived; unconfirmed bookings are released 15 "
                "minutes after start."
            ),
            verb="check_in",
        ),
        Action(
            "find_available_rooms",
            "room",
            "Find free rooms",
            (
                "Lists rooms in an office that are free for the whole slot and seat at "
                "least `min_capacity`."
            ),
            params=(
                s("office", "Office to search.", req=True),
                dt("starts_at", "Slot start.", req=True),
                dt("ends_at", "Slot end.", req=True),
                integer("min_capacity", "Minimum seats.", default=1),
            ),
            returns=(
                arr(
                    "rooms",
                    obj(
                        "room",
                        (
                            ref("room_id", "room", "Free room."),
                            s("name", "Room name."),
                            integer("capacity", "Seats."),
                        ),
                        "A free room.",
                    ),
                    "Free rooms.",
                    req=True,
                ),
            ),
            on_item=False,
            method="GET",
            read_only=True,
            verb="available",
        ),
    ),
)

SERVICES: tuple[Service, ...] = (
    HR,
    LEAVE,
    PAYROLL,
    RECRUITING,
    TIMESHEETS,
    IDENTITY,
    ASSETS,
    WORKPLACE,
)
