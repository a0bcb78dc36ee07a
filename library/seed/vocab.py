"""Realistic values by field meaning: what a job title, a ticket subject, a channel name or a
tracking number looks like in a live system.

Seeds (the generated ``seed()`` methods, through ``SeedPool.text``/``SeedPool.distinct``) and
composition literals draw from here, so no value is ever a ``<Label> <n>`` placeholder.
``meaning(field, resource)`` names the kind of value a field holds (or None when its meaning
is unknown); ``render(kind, rng, ctx)`` draws one; ``distinct(kind, rng, n, ctx)`` draws ``n``
different ones, qualifying them naturally (a company, a city, a month) once the list runs out.
"""

from __future__ import annotations

import datetime as dt
import functools
import random
import re
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from library.ingest.naming import singular

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip

# -- people -------------------------------------------------------------------------------
# Departments of our own organisation and the titles its staff hold in them.
DEPARTMENTS: dict[str, tuple[str, ...]] = {
    "Sales": (
        "Account Executive", "Senior Account Executive", "Sales Development Representative",
        "Account Manager", "Sales Manager", "Head of Sales",
    ),
    "Customer Success": (
        "Customer Success Manager", "Senior Customer Success Manager", "Onboarding Specialist",
        "Head of Customer Success",
    ),
    "Support": (
        "Support Specialist", "Support Engineer", "Senior Support Engineer", "Support Team Lead",
    ),
    "Engineering": (
        "Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager",
        "Site Reliability Engineer", "QA Engineer", "Data Engineer",
    ),
    "Product": ("Product Manager", "Senior Product Manager", "Product Designer", "UX Researcher"),
    "Marketing": (
        "Marketing Manager", "Content Strategist", "Events Coordinator", "Growth Marketer",
        "Social Media Manager",
    ),
    "Finance": (
        "Accountant", "Senior Accountant", "Financial Analyst", "Finance Manager",
        "Payroll Specialist", "Controller",
    ),
    "People": (
        "Recruiter", "Senior Recruiter", "Talent Acquisition Partner", "HR Generalist",
        "People Operations Manager",
    ),
    "IT": ("IT Administrator", "Systems Engineer", "IT Support Specialist", "Security Engineer"),
    "Operations": (
        "Operations Manager", "Office Manager", "Procurement Specialist", "Warehouse Supervisor",
        "Logistics Coordinator",
    ),
    "Field Service": ("Field Technician", "Senior Field Technician", "Dispatch Coordinator"),
    "Legal": ("Legal Counsel", "Contracts Manager"),
}  # fmt: skip
# Which departments a staff role is usually filled from (the rest: anyone).
ROLE_DEPARTMENTS: dict[str, tuple[str, ...]] = {
    "owner": ("Sales", "Customer Success"),
    "sales_rep": ("Sales",),
    "rep": ("Sales",),
    "account_manager": ("Sales", "Customer Success"),
    "csm": ("Customer Success",),
    "agent": ("Support",),
    "support_agent": ("Support",),
    "technician": ("Field Service",),
    "recruiter": ("People",),
    "interviewer": ("Engineering", "Product", "Sales"),
    "hiring_manager": ("Engineering", "Product", "Sales", "Marketing"),
    "approver": ("Finance", "Operations"),
    "reviewer": ("Engineering",),
    "author": ("Support", "Product", "Marketing", "Engineering"),
    "admin": ("IT",),
}
# Titles of the people we deal with at client companies.
CLIENT_TITLES = (
    "Head of Operations", "IT Manager", "Procurement Lead", "Finance Director", "Office Manager",
    "VP of Engineering", "Marketing Manager", "Operations Analyst", "Chief Technology Officer",
    "Purchasing Manager", "Customer Service Lead", "Supply Chain Manager", "HR Business Partner",
    "Controller", "Product Manager", "Chief Financial Officer", "Facilities Manager",
    "Logistics Manager", "Head of Sales", "Project Manager", "Data Analyst", "General Manager",
    "Chief Operating Officer", "Store Manager", "Engineering Manager", "Accounts Payable Lead",
)  # fmt: skip
EMAIL_PROVIDERS = ("gmail.com", "outlook.com", "icloud.com", "proton.me", "yahoo.com")

# -- places -------------------------------------------------------------------------------
# Real cities, regions and street names per country, so an address reads as one place.
CITIES: dict[str, tuple[tuple[str, str], ...]] = {
    "US": (
        ("San Francisco", "CA"), ("Austin", "TX"), ("Chicago", "IL"), ("Denver", "CO"),
        ("Seattle", "WA"), ("Boston", "MA"), ("New York", "NY"), ("Atlanta", "GA"),
        ("Portland", "OR"), ("Minneapolis", "MN"), ("Raleigh", "NC"), ("Phoenix", "AZ"),
    ),
    "GB": (
        ("London", "Greater London"), ("Manchester", "Greater Manchester"),
        ("Bristol", "Bristol"), ("Leeds", "West Yorkshire"), ("Edinburgh", "Scotland"),
        ("Birmingham", "West Midlands"),
    ),
    "DE": (
        ("Berlin", "Berlin"), ("Munich", "Bavaria"), ("Hamburg", "Hamburg"),
        ("Cologne", "North Rhine-Westphalia"), ("Frankfurt", "Hesse"),
        ("Stuttgart", "Baden-Württemberg"),
    ),
    "FR": (
        ("Paris", "Île-de-France"), ("Lyon", "Auvergne-Rhône-Alpes"),
        ("Toulouse", "Occitanie"), ("Bordeaux", "Nouvelle-Aquitaine"), ("Lille", "Hauts-de-France"),
    ),
    "NL": (
        ("Amsterdam", "North Holland"), ("Rotterdam", "South Holland"), ("Utrecht", "Utrecht"),
        ("Eindhoven", "North Brabant"), ("The Hague", "South Holland"),
    ),
    "CA": (
        ("Toronto", "ON"), ("Vancouver", "BC"), ("Montreal", "QC"), ("Calgary", "AB"),
        ("Ottawa", "ON"),
    ),
    "AU": (
        ("Sydney", "NSW"), ("Melbourne", "VIC"), ("Brisbane", "QLD"), ("Perth", "WA"),
        ("Adelaide", "SA"),
    ),
}  # fmt: skip
# Where each city's postcodes lie, so a street, city and postcode name one real place:
# a numeric range (US, DE, FR, NL, AU) or the outward codes (GB, CA) its postcodes start with.
POSTAL_AREAS: dict[str, range | tuple[str, ...]] = {
    "San Francisco": range(94102, 94135), "Austin": range(78701, 78760),
    "Chicago": range(60601, 60662), "Denver": range(80202, 80250),
    "Seattle": range(98101, 98200), "Boston": range(2108, 2137),
    "New York": range(10001, 10283), "Atlanta": range(30303, 30364),
    "Portland": range(97201, 97240), "Minneapolis": range(55401, 55489),
    "Raleigh": range(27601, 27618), "Phoenix": range(85003, 85055),
    "London": ("EC1A", "SW1A", "N1", "E1", "WC2H", "SE1"), "Manchester": ("M1", "M2", "M4", "M15"),
    "Bristol": ("BS1", "BS2", "BS8"), "Leeds": ("LS1", "LS2", "LS6"),
    "Edinburgh": ("EH1", "EH2", "EH3"), "Birmingham": ("B1", "B2", "B5"),
    "Berlin": range(10115, 14200), "Munich": range(80331, 81930), "Hamburg": range(20095, 22770),
    "Cologne": range(50667, 51150), "Frankfurt": range(60306, 60600),
    "Stuttgart": range(70173, 70630),
    "Paris": range(75001, 75021), "Lyon": range(69001, 69010),
    "Toulouse": ("31000", "31100", "31200", "31300", "31400", "31500"),
    "Bordeaux": ("33000", "33100", "33200", "33300", "33800"),
    "Lille": ("59000", "59160", "59260", "59777", "59800"),
    "Amsterdam": range(1011, 1110), "Rotterdam": range(3011, 3090), "Utrecht": range(3511, 3586),
    "Eindhoven": range(5611, 5659), "The Hague": range(2511, 2598),
    "Toronto": ("M5V", "M5H", "M4W", "M6J"), "Vancouver": ("V6B", "V6E", "V5K"),
    "Montreal": ("H2X", "H3B", "H2T"), "Calgary": ("T2P", "T2R", "T3A"),
    "Ottawa": ("K1P", "K1N", "K2P"),
    "Sydney": range(2000, 2235), "Melbourne": range(3000, 3208), "Brisbane": range(4000, 4180),
    "Perth": range(6000, 6200), "Adelaide": range(5000, 5200),
}  # fmt: skip
# Street names every city of a country has (a Main Street, a High Street, a Bahnhofstraße).
STREETS: dict[str, tuple[str, ...]] = {
    "US": ("Main Street", "Oak Avenue", "Pine Street", "Elm Street", "Maple Avenue",
           "Washington Street", "Park Avenue", "Cedar Street"),
    "GB": ("High Street", "Station Road", "Church Lane", "King Street", "Victoria Road",
           "Mill Lane", "Park Road", "Queen Street"),
    "DE": ("Hauptstraße", "Bahnhofstraße", "Gartenstraße", "Schillerstraße", "Lindenallee",
           "Bergstraße", "Marktplatz"),
    "FR": ("rue de la République", "avenue Victor Hugo", "rue Nationale", "rue du Commerce",
           "avenue Jean Jaurès"),
    "NL": ("Kerkstraat", "Dorpsstraat", "Stationsweg", "Molenstraat", "Nieuwstraat"),
    "CA": ("Main Street", "King Street", "Church Street", "Maple Avenue", "Park Avenue"),
    "AU": ("George Street", "Queen Street", "King Street", "Church Street", "Victoria Street"),
}  # fmt: skip
# Streets that are one city's own: an address names one real place ("Yonge Street, Toronto",
# never "Yonge Street, Ottawa").
CITY_STREETS: dict[str, tuple[str, ...]] = {
    "San Francisco": ("Market Street", "Mission Street"), "New York": ("Madison Avenue",
    "Broadway"), "Chicago": ("Lake Shore Drive",), "Austin": ("Congress Avenue",),
    "Berlin": ("Friedrichstraße",), "Paris": ("rue de Rivoli", "boulevard Voltaire"),
    "Amsterdam": ("Herengracht", "Keizersgracht"), "Toronto": ("Yonge Street", "Bay Street",
    "Queen Street East", "King Street West"), "Vancouver": ("Granville Street",),
    "Montreal": ("Rue Sainte-Catherine",), "Melbourne": ("Collins Street",),
    "Sydney": ("Pitt Street",), "Perth": ("Hay Street",), "Adelaide": ("King William Street",),
}  # fmt: skip
COUNTRY_OF_CITY = {city: country for country, cs in CITIES.items() for city, _ in cs}
CURRENCY_OF = {"US": "USD", "GB": "GBP", "DE": "EUR", "FR": "EUR", "NL": "EUR", "CA": "CAD",
               "AU": "AUD"}  # fmt: skip
DIALING = {"US": "1", "CA": "1", "GB": "44", "DE": "49", "FR": "33", "NL": "31", "AU": "61"}
TIMEZONE_OF = {"US": "America/New_York", "GB": "Europe/London", "DE": "Europe/Berlin",
               "FR": "Europe/Paris", "NL": "Europe/Amsterdam", "CA": "America/Toronto",
               "AU": "Australia/Sydney"}  # fmt: skip
AIRPORTS = (
    ("SFO", "San Francisco"), ("JFK", "New York"), ("ORD", "Chicago"), ("SEA", "Seattle"),
    ("BOS", "Boston"), ("AUS", "Austin"), ("DEN", "Denver"), ("LHR", "London"),
    ("MAN", "Manchester"), ("FRA", "Frankfurt"), ("MUC", "Munich"), ("BER", "Berlin"),
    ("CDG", "Paris"), ("AMS", "Amsterdam"), ("YYZ", "Toronto"), ("YVR", "Vancouver"),
    ("SYD", "Sydney"), ("MEL", "Melbourne"),
)  # fmt: skip

# -- plain lists by meaning ---------------------------------------------------------------
# Rental branches and the country each is in: a one-way rental stays in one country.
RENTAL_BRANCHES = {
    "SFO airport": "US", "JFK airport": "US", "Downtown Chicago": "US", "LHR Terminal 5": "GB",
    "Manchester Piccadilly": "GB", "Berlin Hauptbahnhof": "DE", "Munich airport": "DE",
    "Amsterdam Schiphol": "NL", "Rotterdam Centraal": "NL", "Toronto Union Station": "CA",
    "Toronto Pearson airport": "CA",
}  # fmt: skip
# What a chat channel is for, by its name: a channel's topic is read from it.
CHANNEL_TOPICS = {
    "general": "Company-wide news and questions", "sales": "Wins, deals and pipeline updates",
    "support-escalations": "Escalations from the support queue",
    "eng-platform": "Platform engineering: builds, infrastructure and on-call",
    "random": "Anything goes", "announcements": "Company-wide announcements",
    "incident-response": "Live incidents and their follow-ups",
    "marketing": "Campaigns, launches and content", "hiring": "Open roles and interview scheduling",
    "design": "Design reviews and mock-ups",
    "customer-success": "Renewals, health checks and customer feedback",
    "finance-ops": "Invoices, expenses and the month-end close",
    "product-feedback": "Customer feedback from every channel",
    "deploys": "Deploy notifications and rollbacks",
    "office-berlin": "Everything about the Berlin office", "it-help": "Questions for the IT team",
}  # fmt: skip
LISTS: dict[str, tuple[str, ...]] = {
    "client_title": CLIENT_TITLES,
    "staff_title": tuple(t for ts in DEPARTMENTS.values() for t in ts),
    "department": tuple(DEPARTMENTS),
    "city": tuple(c for cs in CITIES.values() for c, _ in cs),
    "ticket_subject": (
        "Order arrived damaged", "Cannot log in to my account", "Refund not received yet",
        "Invoice shows the wrong amount", "Request to change the delivery address",
        "Double charged on the last invoice", "Password reset email never arrives",
        "Need a copy of my invoice", "Shipment is delayed", "Wrong item delivered",
        "Please cancel my subscription", "Upgrade to a higher plan", "Export fails with a timeout",
        "Missing items in my order", "Two-factor code not accepted", "Billing address update",
        "Tracking link does not work", "Discount code was not applied", "Account locked",
        "Question about the warranty", "Cannot download the invoice PDF",
        "Delivery marked as delivered but not received", "Request for a bulk discount",
        "Item out of stock after ordering", "Change the account owner",
    ),
    "issue_summary": (
        "Checkout fails for carts over 100 items", "Search ignores the date filter",
        "Add CSV export to the reports page", "Dashboard loads slowly for large accounts",
        "Login redirect loops on Safari", "Update the onboarding email copy",
        "Migrate billing jobs to the new queue", "Flaky test in the payment webhooks",
        "Uploads over 2 GB crash the worker", "Timezone shown wrong in invoice PDFs",
        "Rate limit the public API per token", "Remove the legacy v1 endpoints",
        "Dark mode contrast issues in settings", "Retry failed webhook deliveries",
        "Add audit log for permission changes", "Memory leak in the sync service",
        "Pagination skips records on the orders list", "Localize the checkout page in German",
        "Bulk edit for product prices", "Password reset link expires too early",
        "Archive inactive projects automatically", "Slow query on the customers table",
        "Broken link in the help centre footer", "Support SSO with Okta",
    ),
    "pr_title": (
        "Fix pagination in cart validation", "Add CSV export endpoint", "Bump dependencies",
        "Refactor the billing scheduler", "Handle empty search results",
        "Add retry with backoff to webhooks", "Speed up the customers query",
        "Remove deprecated v1 routes", "Fix timezone in invoice PDFs", "Add audit log table",
        "Improve error messages on login", "Cache product images at the edge",
        "Localize checkout strings", "Add Okta SSO provider", "Fix memory leak in sync worker",
    ),
    "meeting_topic": (
        "Quarterly business review", "Weekly pipeline sync", "Sprint planning", "Design review",
        "Incident retrospective", "Budget planning", "Interview debrief", "Team standup",
        "Roadmap review", "Onboarding check-in", "Pricing discussion", "Contract negotiation",
        "Product demo", "Security review", "Hiring sync", "Marketing campaign kickoff",
        "Customer escalation review", "Quarterly planning", "Vendor evaluation", "1:1",
        "All-hands", "Release go/no-go", "Support queue triage", "Renewal review",
    ),
    "event_name": (
        "Partner Summit", "Customer Advisory Board", "Product Launch Webinar", "User Meetup",
        "Annual Sales Kickoff", "Security Roundtable", "Developer Conference", "Leadership Forum",
        "Customer Appreciation Day", "Hackathon", "Open House", "Industry Breakfast",
        "Analytics Masterclass", "Growth Workshop",
    ),
    "project_name": (
        "Warehouse rollout", "Website redesign", "Mobile app v3", "Data warehouse migration",
        "Customer portal", "Billing revamp", "ERP integration", "Office move",
        "Platform Engineering",
        "Security hardening", "Support automation", "Checkout optimisation", "Brand refresh",
        "CRM migration", "Analytics dashboard", "Partner API", "Onboarding flow",
        "Inventory sync", "Payroll integration", "Cloud cost reduction", "Search relaunch",
        "Loyalty programme", "Field service app", "Marketing site", "Identity and access",
    ),
    "campaign_name": (
        "Monthly newsletter", "Spring sale announcement", "Webinar invitation", "Product update",
        "Win-back offer", "Black Friday early access", "Customer survey", "Event reminder",
        "Welcome series", "Feature launch", "Renewal reminder", "Holiday greetings",
        "Case study spotlight", "Referral programme launch", "Free shipping weekend",
    ),
    # What a marketing campaign is titled: bulk mail, which no one replies to or follows up.
    "campaign_subject": (
        "What's new this month", "Your exclusive offer inside", "Join our live demo",
        "Last chance: early-bird pricing ends Friday", "We'd love your feedback",
        "Thanks for being a customer", "Three tips to get more done", "Save the date",
        "An update to our terms",
    ),
    # What one person writes to another: the mail a request can start from or answer.
    "email_subject": (
        "Following up on our call", "Quick question about my account",
        "Questions on your proposal", "Meeting notes and next steps", "Question about my order",
        "Can we talk this week?", "Question about my invoice",
        "Re: your last message", "A few questions before we sign", "Checking in",
    ),
    "list_name": (
        "Product updates", "Newsletter subscribers", "Webinar attendees", "Trial users",
        "VIP customers", "Event invitees", "Partners", "Beta testers", "Churned customers",
        "Enterprise accounts", "Developers", "Early adopters",
    ),
    "segment_name": (
        "High-value customers", "Churn risk", "Active in the last 30 days", "Trial users",
        "Enterprise accounts", "Newsletter openers", "Cart abandoners", "EU customers",
        "Power users", "Dormant accounts", "First-time buyers", "Repeat buyers",
    ),
    "segment_rule": (
        "lifetime_value > 1000", "last_seen_at < now - 30d", "plan = 'trial'",
        "country in ('DE', 'FR', 'NL')", "orders_count >= 3", "orders_count = 1",
        "plan in ('business', 'enterprise')", "email_opened_last_30d = true",
    ),
    "analytics_event": (
        "Order Completed", "Page Viewed", "Signed Up", "Checkout Started", "Product Added",
        "Subscription Renewed", "Trial Started", "Invite Sent", "Report Exported", "Logged In",
    ),
    "article_title": (
        "How to return an item", "Tracking your order", "Changing your delivery address",
        "Resetting your password", "Understanding your invoice",
        "Setting up two-factor authentication", "Warranty coverage explained",
        "Shipping times and costs", "Updating your payment details", "Exporting your data",
        "Cancelling a subscription", "Adding team members", "Connecting your calendar",
        "Requesting a refund", "Managing notification settings", "Getting started guide",
        "Troubleshooting login problems", "Using discount codes", "Changing your plan",
        "Closing your account",
    ),
    "product_category": (
        "Laptops", "Headphones", "Office chairs", "Desk lamps", "Water bottles", "Backpacks",
        "Monitors", "Keyboards", "Phone cases", "Running shoes", "T-shirts", "Coffee makers",
        "Laptop stands", "Webcams",
    ),
    "category_name": (
        "Shipping & delivery", "Returns & refunds", "Billing & payments", "Account & security",
        "Orders", "Product guides", "Troubleshooting", "Getting started", "Integrations",
        "Privacy", "Subscriptions", "Mobile app",
    ),
    "document_title": (
        "Q3 partner plan", "Product roadmap", "Sales playbook", "Incident postmortem",
        "Hiring plan", "Board update", "Pricing proposal", "Onboarding plan",
        "Security questionnaire", "Statement of work", "Meeting notes", "Launch checklist",
        "Competitive analysis", "Quarterly business review deck", "Support runbook",
        "Employee handbook", "Brand guidelines", "Budget forecast", "Release notes",
    ),
    "folder_name": (
        "Contracts", "Invoices", "Reports", "Marketing", "HR", "Legal", "Proposals", "Design",
        "Finance", "Archive", "Onboarding", "Templates", "Presentations", "Receipts", "Research",
    ),
    "notebook_name": (
        "Meeting notes", "Customer calls", "Ideas", "Research", "1:1s", "Travel",
        "Reading list", "Project notes", "Interview notes", "Personal",
    ),
    "note_title": (
        "Follow-ups from the kickoff", "Questions for the vendor", "Ideas for the Q3 campaign",
        "Call notes", "Pricing feedback", "Open points before renewal", "Demo preparation",
        "Action items", "Notes from the site visit", "Agenda for next week",
    ),
    "form_title": (
        "Customer satisfaction survey", "Event feedback", "Demo request", "Product feedback",
        "Job application", "Onboarding questionnaire", "NPS survey", "Contact us",
        "Webinar registration", "Support follow-up survey",
    ),
    "spreadsheet_title": (
        "Q3 budget", "Vendor price comparison", "Sales pipeline", "Headcount plan",
        "Inventory count", "Marketing calendar", "Expense tracker", "Capacity plan",
        "Event attendee list", "Price list", "Commission calculator",
    ),
    "sheet_name": ("Summary", "Figures", "Q1", "Q2", "Q3", "Q4", "Pivot", "Vendors", "Notes"),
    "success_plan": (
        "Q3 adoption plan", "Renewal readiness", "Expansion to regional teams",
        "Executive sponsor alignment", "Onboarding completion", "Reduce support tickets",
        "Launch the reporting module", "Integration rollout", "Admin training programme",
    ),
    "activity_subject": (
        "Discovery call", "Follow-up email", "Product demo", "Pricing call", "Contract review",
        "Check-in call", "Quarterly review", "Introductory meeting", "Proposal walkthrough",
        "Renewal discussion",
    ),
    "channel_name": (
        "general", "sales", "support-escalations", "eng-platform", "random", "announcements",
        "incident-response", "marketing", "hiring", "design", "customer-success", "finance-ops",
        "product-feedback", "deploys", "office-berlin", "it-help",
    ),
    "channel_topic": tuple(dict.fromkeys(CHANNEL_TOPICS.values())),
    "group_name": (
        "Returns", "Billing", "Technical support", "VIP customers", "Tier 2", "Onboarding",
        "Escalations", "Shipping", "Accounts", "Enterprise support",
    ),
    "access_group": (
        "finance-team", "engineering", "sales", "all-staff", "admins", "vpn-users",
        "contractors", "support", "marketing", "people-ops", "security", "data-team",
    ),
    "team_label": (
        "Support line", "Sales line", "Main office", "Billing hotline", "After-hours support",
        "Partner desk", "Recruiting line", "Field dispatch",
    ),
    "backup_label": (
        "nightly", "pre-migration", "before-upgrade", "weekly", "pre-release", "month-end",
        "manual-snapshot",
    ),
    "template_name": (
        "Mutual NDA", "Master Services Agreement", "Statement of Work", "Order Form",
        "Offer Letter", "Data Processing Agreement", "Consulting Agreement", "Reseller Agreement",
        "Contract Amendment", "Renewal Agreement",
    ),
    "signer_role": ("Signer", "Customer", "Approver", "Witness", "Countersigner"),
    "room_name": (
        "Atlas", "Orion", "Fjord", "Summit", "Lighthouse", "Harbor", "Aurora", "Juniper",
        "Cedar", "Granite", "Meridian", "Horizon", "Nimbus", "Willow", "Sequoia", "Tundra",
    ),
    "office": (
        "Berlin HQ", "London office", "New York office", "Austin office", "Amsterdam office",
        "Toronto office",
    ),

    "plan_name": (
        "Starter", "Team", "Pro", "Business", "Enterprise", "Growth", "Essentials", "Premium",
        "Scale", "Plus",
    ),
    "reward_name": (
        "Free shipping voucher", "Welcome discount", "Birthday reward", "Gold member gift",
        "Loyalty voucher", "Free coffee", "Early access pass", "Gift card", "Free upgrade",
        "Partner discount",
    ),
    "coupon_code": (
        "LAUNCH", "WELCOME", "SPRINGSALE", "VIPACCESS", "FRIENDS", "EARLYBIRD", "PARTNER",
        "LOYALTY", "NEWYEAR", "THANKYOU", "SUMMER", "FREESHIP", "BUNDLE", "UPGRADE",
    ),
    "repo_name": (
        "checkout-service", "web-frontend", "billing-api", "mobile-app", "data-pipeline",
        "auth-service", "infra", "design-system", "search-service", "notifications",
        "admin-portal", "docs-site", "inventory-sync", "analytics-jobs", "payments-gateway",
    ),
    "cluster_name": (
        "orders-prod", "analytics-prod", "billing-staging", "users-prod", "events-prod",
        "inventory-prod", "reporting-replica", "search-staging", "auth-prod", "payments-prod",
    ),
    "release_name": (
        "Spring release", "Performance update", "Security patch", "Holiday release",
        "Reporting update", "Mobile refresh", "Stability release", "Search improvements",
    ),
    "warehouse_name": (
        "Central distribution centre", "East coast fulfilment centre", "Returns hub",
        "Overflow storage", "Regional depot", "Cross-dock facility",
    ),
    "depot": ("Oakland depot", "North yard", "Central depot", "Harbour depot", "East depot"),
    "hotel_name": (
        "Grand Hotel", "Park Hotel", "Harbour View Hotel", "City Centre Inn", "Riverside Suites",
        "The Regent", "Station Hotel", "Garden Residence",
    ),
    "vehicle_class": ("compact", "economy", "midsize", "SUV", "full-size", "minivan", "premium"),
    "rental_branch": tuple(RENTAL_BRANCHES),
    "merchant": (
        "Lufthansa", "Delta Air Lines", "Marriott", "Hilton", "Uber", "Lyft", "Amazon Business",
        "Staples", "Starbucks", "Hertz", "Deutsche Bahn", "WeWork", "Shell", "Pret A Manger",
    ),
    "software_vendor": (
        "Atlassian", "Figma", "Slack", "Adobe", "Zoom", "GitHub", "Notion", "Miro", "1Password",
        "Datadog",
    ),
    "software_product": (
        "Figma Professional", "Jira Software", "Slack Business+", "Adobe Creative Cloud",
        "Zoom Business", "GitHub Enterprise", "Notion Plus", "Miro Business", "1Password Teams",
        "Datadog Pro",
    ),
    "device_model": (
        "Lenovo ThinkPad T14 Gen 5", "Apple MacBook Pro 14", "Dell Latitude 7440",
        "Dell UltraSharp U2723QE", "Apple iPhone 15", "Samsung Galaxy S24",
        "Logitech MX Keys", "HP EliteBook 840", "Jabra Evolve2 65", "iPad Air 11",
    ),
    "tag": (
        "vip", "follow-up", "priority", "renewal", "escalated", "verified", "wholesale", "beta",
        "newsletter", "enterprise", "smb", "eu", "partner", "at-risk", "upsell",
    ),
    "issue_label": (
        "bug", "frontend", "backend", "customer-reported", "tech-debt", "needs-triage",
        "performance", "security", "ux", "good-first-issue",
    ),
    "color": ("blue", "green", "red", "orange", "purple", "teal", "yellow", "gray", "pink"),
    "hex_color": ("#1f77b4", "#2ca02c", "#d62728", "#ff7f0e", "#9467bd", "#17becf", "#8c564b"),
    "timezone": (
        "UTC", "Europe/Berlin", "Europe/London", "America/New_York", "America/Chicago",
        "America/Los_Angeles", "Europe/Paris", "Europe/Amsterdam", "America/Toronto",
        "Australia/Sydney",
    ),
    "locale": ("en-US", "en-GB", "de-DE", "fr-FR", "nl-NL", "es-ES"),
    "branch": ("main", "develop", "release/2.4", "staging"),
    "feature_branch": (
        "fix/cart-pagination", "feature/csv-export", "chore/bump-deps", "fix/login-redirect",
        "feature/okta-sso", "fix/invoice-timezone", "feature/audit-log", "refactor/billing-jobs",
    ),
    "recurrence": (
        "RRULE:FREQ=WEEKLY;BYDAY=MO", "RRULE:FREQ=WEEKLY;BYDAY=TU,TH", "RRULE:FREQ=DAILY",
        "RRULE:FREQ=MONTHLY;BYMONTHDAY=1", "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=WE",
    ),
    "mime_type": (
        "application/pdf", "text/plain", "image/png", "text/csv",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    "cell_range": ("A1:D20", "A1:F50", "B2:B100", "A1:H12", "C1:C40"),
    "skill": ("hvac", "electrical", "plumbing", "networking", "refrigeration", "installation"),
    "leave_reason": (
        "Family holiday", "Medical appointment", "Moving house", "Wedding", "Child's school event",
        "Recovering from surgery", "Visiting family abroad", "Personal matters",
    ),
    "lost_reason": (
        "Chose a competitor", "No budget this year", "Project put on hold", "Price too high",
        "Went with an in-house solution", "No decision maker engaged",
    ),
    "failure_reason": (
        "Card declined", "Insufficient funds", "Card expired", "Incorrect CVC",
        "Bank rejected the transaction", "Authentication failed",
    ),
    "risk_reason": (
        "Usage dropped 40% in 30 days", "Executive sponsor left the company",
        "Three open escalations", "Renewal coming up without a plan", "Seats below contract",
        "Low NPS in the last survey", "Champion changed roles",
    ),
    "cancel_reason": (
        "Customer asked to cancel", "Duplicate request", "Moved to another date",
        "No longer needed", "Budget was not approved", "Supplier could not deliver",
    ),
    "order_cancel_reason": (
        "Customer asked to cancel", "Duplicate order", "No longer needed", "Ordered by mistake",
        "Found a better price elsewhere", "Delivery would arrive too late",
    ),
    "suspension_reason": (
        "Phone reported lost", "Travelling abroad for three months", "Unpaid balance",
        "Suspected fraud on the account", "Customer asked for a temporary hold",
    ),
    "po_reason": (
        "Replacement for broken equipment", "New hires starting next month",
        "Restocking the warehouse", "Office expansion", "Planned hardware refresh",
    ),
    "return_reason": (
        "Arrived damaged", "Wrong size", "No longer needed", "Not as described",
        "Received the wrong item",
    ),
    "resolution": (
        "Replaced the faulty part and tested the unit.", "Issued a full refund to the customer.",
        "Reset the password and confirmed the customer can log in.",
        "Sent a replacement with express shipping.", "Corrected the invoice and re-sent it.",
        "Explained the configuration; the customer confirmed it works.",
    ),
    "access_instructions": (
        "Check in at the front desk and ask for the facilities manager.",
        "Use the loading dock entrance at the rear of the building.",
        "Badge required after 6 pm; call the site contact on arrival.",
        "Parking is available in the visitor lot next to gate B.",
    ),
    "objective": (
        "Reach 80% weekly active seats by the end of the quarter.",
        "Roll out the integration to every regional team.",
        "Cut open support tickets in half before the renewal.",
        "Train all admins and hand over the runbook.",
        "Agree on success metrics with the executive sponsor.",
    ),
    "sprint_goal": (
        "Ship the CSV export and close the top five bugs.",
        "Stabilise the billing jobs before month end.", "Finish the SSO rollout.",
        "Cut p95 dashboard load time below two seconds.",
        "Complete the onboarding email redesign.",
    ),
}  # fmt: skip

# -- text bodies by context ---------------------------------------------------------------
BODIES: dict[str, tuple[str, ...]] = {
    # (where the work stands, not what it is about: a body sits beside a subject drawn on
    # its own, and "confirmed the new delivery date" contradicts "Tracking link does not work")
    "support": (
        "The customer reports the problem started after the last update.",
        "Customer shared screenshots; the problem shows on every attempt.",
        "Asked the customer for more details and a screenshot.",
        "Escalated to tier 2 after the standard checks did not help.",
        "Customer prefers to be contacted by email.",
        "Reproduced on our side; a fix is planned for the next release.",
        "Waiting for the customer to confirm the workaround.",
    ),
    "sales": (
        "Discussed pricing for the next twelve months; they want a multi-year option.",
        "Champion is supportive; procurement needs a security questionnaire.",
        "Sent the proposal and scheduled a follow-up for next week.",
        "They are comparing us with two other vendors.",
        "Budget is approved; legal review of the MSA is in progress.",
        "Interested in expanding to the regional teams next quarter.",
    ),
    "project": (
        "Details are in the linked ticket.",
        "Blocked on a dependency; see the linked issue.",
        "Acceptance criteria are in the spec.",
        "Needs a design review before implementation starts.",
        "First reported after last week's release.",
        "Split into smaller tasks during sprint planning.",
    ),
    "meeting": (
        "Agenda: status update, open risks and next steps.",
        "Please review the attached deck before the call.",
        "We will go through the renewal terms and the rollout plan.",
        "Dial-in details are in the invite; the room has a display.",
        "Bring questions about the new reporting features.",
    ),
    "document": (
        "This document summarises the goals, timeline and owners for the quarter.",
        "Draft for review; comments welcome until Friday.",
        "Covers scope, deliverables, pricing and acceptance criteria.",
        "Notes from the workshop, with decisions and follow-ups.",
    ),
    "comment": (
        "Looks good to me.", "Can we double-check the figures in section 2?",
        "I have updated the numbers from finance.", "Please add the customer's feedback here.",
        "Agreed, let's move this to next sprint.", "Thanks, resolved in the latest version.",
        "Who owns the follow-up on this?",
    ),
    "message": (
        "Hi, just following up on my last email.", "Thanks for the quick reply!",
        "Can we move our call to Thursday afternoon?", "The contract is attached for review.",
        "Let me know if you need anything else from our side.",
        "Your order is on its way; the tracking number is on your order page.",
        "Reminder: your appointment is tomorrow at 10:00.",
    ),
    "product": (
        "Durable, lightweight and backed by a two-year warranty.",
        "Our best-selling model, now with a longer battery life.",
        "Ships within two business days.", "Compatible with every major operating system.",
    ),
    "review": (
        "Great quality and fast delivery, would buy again.",
        "Works as described, but the setup guide could be clearer.",
        "Stopped working after two weeks; support replaced it quickly.",
        "Excellent value for the price.", "Packaging was damaged but the product is fine.",
    ),
    "finance": (
        "Payment due within 30 days of the invoice date.", "Thank you for your business.",
        "Includes the annual licence and premium support.",
        "Please reference the invoice number with your payment.",
        "Reimbursement for client travel.", "Month-end accrual.",
    ),
    "hr": (
        "Approved by the team lead.", "Covering shifts have been arranged.",
        "Will be reachable by phone for urgent matters.", "Onboarding checklist completed.",
    ),
    "field": (
        "Customer reports the unit is making a grinding noise.",
        "Technician to bring a replacement compressor.",
        "Access via the loading dock; call the site contact on arrival.",
        "Follow-up visit after last month's repair.", "Annual maintenance as per contract.",
    ),
    "article": (
        "Go to Settings, open Billing and choose Update payment method.",
        "You can return most items within 30 days of delivery.",
        "Open the order in your account and select Track shipment.",
        "If the email does not arrive within ten minutes, check your spam folder.",
        "Admins can add team members from the Users page.",
    ),
    "marketing": (
        "Discover what's new this month and how teams are using it.",
        "Join us for a live walkthrough of the latest features.",
        "A short update for everyone who signed up for product news.",
        "Exclusive offer for existing customers, valid until the end of the month.",
    ),
    "order": (
        "Please leave the parcel with the neighbour if nobody is home.",
        "Gift wrap requested.", "Deliver to the reception desk.",
        "Customer asked for delivery after 2 pm.", "Call before delivery.",
    ),
    "generic": (
        "Please review the details and confirm by Friday.",
        "Following up on our last conversation.", "Flagged during the weekly review.",
        "Needs a decision before the end of the month.",
        "Checked with finance; the figures are correct.",
        "Handing this over to the account owner.",
    ),
    "call": (
        "Promised an update by email.", "Caller asked for a callback tomorrow morning.",
        "Next steps agreed; details to follow by email.", "Follow-up call booked.",
    ),
    "dns": (  # a note on a DNS record set (chosen by the seed writer beneath one)
        "Mail for the EU office.", "Added for the CDN migration.",
        "Points at the new load balancer.", "Verification record for the mail provider.",
        "Lowered the TTL ahead of the cutover.", "Kept for the legacy API clients.",
    ),
    "social": (
        "We're hiring! Join our growing team.", "Our spring collection is live.",
        "Join our webinar next Thursday.", "Thank you to everyone who joined our meetup!",
        "New feature: export any report to CSV in one click.",
    ),
}  # fmt: skip
# Bodies that tell of work already done on a record (asked, escalated, reproduced, approved):
# never the text of one still in its first state (a ``new`` ticket, a ``draft``, a leave
# ``requested``), whose description is its requester's own words (``render``'s ``asked``).
WORK_NOTES = frozenset(
    {
        "Asked the customer for more details and a screenshot.",
        "Escalated to tier 2 after the standard checks did not help.",
        "Reproduced on our side; a fix is planned for the next release.",
        "Waiting for the customer to confirm the workaround.",
        "Discussed pricing for the next twelve months; they want a multi-year option.",
        "Sent the proposal and scheduled a follow-up for next week.",
        "Blocked on a dependency; see the linked issue.",
        "Split into smaller tasks during sprint planning.",
        "Approved by the team lead.",
        "Covering shifts have been arranged.",
        "Onboarding checklist completed.",
        "Checked with finance; the figures are correct.",
        "Handing this over to the account owner.",
        "Promised an update by email.",
        "Next steps agreed; details to follow by email.",
        "Follow-up call booked.",
        "Thanks, resolved in the latest version.",
        "I have updated the numbers from finance.",
    }
)
# A record's first states: nothing has been done on it yet.
FIRST_STATES = frozenset(
    {"new", "open", "draft", "requested", "received", "submitted", "unassigned", "untriaged",
     "triage", "reported", "pending_review", "awaiting_review"}
)  # fmt: skip
_BODY_CONTEXT = (
    (("pull_request", "merge_request", "commit", "release", "branch"), "project"),
    (("work_order", "visit", "site", "job_order"), "field"),
    (("article", "faq", "help_article", "category"), "article"),
    (("campaign", "newsletter", "list", "segment"), "marketing"),
    (("order", "return_request", "shipment"), "order"),
    (("comment",), "comment"),
    (("ticket", "case", "reply", "request", "return"), "support"),
    (("deal", "lead", "contact", "activity", "opportunity", "account", "quote", "cta"), "sales"),
    (("issue", "task", "sprint", "pull_request", "release", "repository", "bug", "story"),
     "project"),
    (("event", "meeting", "booking", "interview", "appointment"), "meeting"),
    (("document", "doc", "file", "folder", "article", "page", "note", "notebook", "form",
      "template", "spreadsheet"), "document"),
    (("message", "draft", "mail", "email", "sms", "chat", "voicemail", "thread"), "message"),
    (("product", "item", "sku", "listing"), "product"),
    (("review",), "review"),
    (("invoice", "payment", "expense", "journal", "ledger", "transaction", "refund", "order",
      "purchase_order", "subscription", "link"), "finance"),
    (("leave", "employee", "payslip", "compensation", "timesheet", "time_entry"), "hr"),
    (("call",), "call"),
    (("post", "channel"), "social"),
)  # fmt: skip

# -- templated values: {company}, {product}, {city}, {month}, {year}, {first} -------------
TEMPLATES: dict[str, tuple[str, ...]] = {
    "venue": ("{city} Convention Center", "The {city} Forum", "{city} Marriott Conference Hall"),
    "meeting_topic": (
        "{company} renewal review", "{product} demo for {company}", "Kickoff: {company} rollout",
        "Quarterly business review with {company}", "Pricing discussion with {company}",
        "{company} onboarding check-in",
    ),
    "event_name": (
        "{org} Partner Summit {year}", "{org} User Conference {year}", "{product} Launch Webinar",
        "Annual Sales Kickoff {year}", "Customer Roadshow {year}",
    ),
    "document_title": (
        "{company} onboarding plan", "Pricing proposal for {company}",
        "Meeting notes: {company} kickoff", "Statement of work: {company}",
        "Security questionnaire: {company}", "Product roadmap {year}", "Board update {month}",
    ),
    "deal_title": (
        "{company} - {product}", "{product} for {company}", "{company} expansion",
        "{company} renewal {year}",
    ),
    "expense_title": (
        "{city} partner summit, {month}", "Client visit to {company}", "Team offsite, {month}",
        "Conference travel: {city}", "{month} travel and meals",
    ),
    "envelope_subject": (
        "{company} MSA for signature", "Order form for {company}", "NDA: {company}",
        "{company} renewal agreement", "Statement of work for {company}",
    ),
    "ticket_subject": ("{product} stopped working", "Question about my {product} order",
                       "Return request for {product}"),
    "site_name": ("{company} head office", "{company} warehouse", "{company} {city} plant",
                  "{company} distribution centre"),
    "campaign_name": ("{month} newsletter", "{product} launch", "{month} product update",
                      "{city} event invitation"),
    "campaign_subject": ("What's new in {month}", "Meet the new {product}",
                         "Invitation: {city} customer event"),
    # (in the writer's voice: a customer writes about "my" order, not "your" order)
    "email_subject": ("My {product} order", "Notes from our {company} call",
                      "Question about the {product}"),
    "review_title": ("Great {product}", "Solid {product}, slow delivery", "Love the {product}",
                     "{product} stopped working", "Good value"),
    "note_title": ("Call with {first}", "Notes: {company} meeting", "Follow-ups for {company}"),
    "form_title": ("{company} onboarding questionnaire", "{month} event feedback"),
    "spreadsheet_title": ("{company} price list", "Inventory count {month}",
                          "Sales pipeline {year}"),
    "folder_name": ("{company}", "{company} contracts", "Clients/{company}"),
    "fiscal_period": ("{year}-{mm}",),
    "journal_memo": (
        "Invoice {ref} issued", "Payment received for {ref}", "Month-end accrual for {month}",
        "Depreciation for {month}", "Payroll for {month}",
    ),
    "payment_description": ("{company} invoice {ref}", "Order {ref}", "{product} subscription"),
    "sms_body": (
        "Hi {first}, your order has shipped.",
        "Hi {first}, reminder: your appointment is tomorrow.",
        "Your verification code is {digits}.", "Hi {first}, can you call us back today?",
    ),
}  # fmt: skip

# Titles and names by the resource they name: (resource words, field words) -> kind.
_NAMED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("ticket", "case", "conversation"), "ticket_subject"),
    (("issue", "bug", "story"), "issue_summary"),
    (("pull_request", "merge_request"), "pr_title"),
    (("job", "opening", "position", "posting", "requisition"), "job_posting"),
    (("meeting", "booking", "appointment", "interview", "webinar"), "meeting_topic"),
    (("calendar_event",), "meeting_topic"),
    (("calendar",), "calendar_name"),
    (("campaign",), "campaign_name"),
    (("list", "audience", "mailing_list"), "list_name"),
    (("segment", "cohort"), "segment_name"),
    (("article", "faq", "help_article"), "article_title"),
    (("category",), "category_name"),
    (("document", "doc", "page", "wiki"), "document_title"),
    (("folder", "directory"), "folder_name"),
    (("file", "attachment", "upload"), "file_name"),
    (("notebook",), "notebook_name"),
    (("note",), "note_title"),
    (("form", "survey"), "form_title"),
    (("spreadsheet", "workbook", "sheet"), "spreadsheet_title"),
    (("success_plan", "plan_item"), "success_plan"),
    (("deal", "opportunity"), "deal_title"),
    (("activity",), "activity_subject"),
    (("expense_report", "report", "trip"), "expense_title"),
    (("channel",), "channel_name"),
    (("group", "team", "queue"), "group_name"),
    (("department", "division"), "department"),
    (("project",), "project_name"),
    (("repository", "repo"), "repo_name"),
    (("branch",), "feature_branch"),
    (("release",), "release_name"),
    (("cluster", "database", "instance"), "cluster_name"),
    # What a team running software names its workloads and hosts (real devops APIs).
    (("deployment", "app", "sandbox", "helm_chart", "workload", "microservice"), "repo_name"),
    (("server", "node", "namespace", "environment"), "cluster_name"),
    (("zone", "dns_zone", "domain"), "domain"),
    (("tsigkey", "tsig_key", "api_key", "access_key", "deploy_key", "ssh_key"), "key_name"),
    (("template",), "template_name"),
    (("envelope", "agreement", "contract"), "envelope_subject"),
    (("room", "space", "desk"), "room_name"),
    (("warehouse", "location", "depot"), "warehouse_name"),
    (("site", "facility"), "site_name"),
    (("property", "hotel"), "hotel_name"),
    (("plan", "tier", "package"), "plan_name"),
    (("reward", "perk"), "reward_name"),
    (("coupon", "promotion", "discount"), "coupon_code"),
    (("product_type", "product_category", "product_line"), "product_category"),
    (("product", "item", "sku", "variant", "price_book_entry", "listing"), "product_name"),
    (("review", "rating"), "review_title"),
    (("account", "company", "organization", "organisation", "client", "vendor", "customer",
      "supplier", "tenant"), "company_name"),
    (("gl_account", "ledger_account"), "gl_account_name"),
    (("fiscal_period", "period"), "fiscal_period"),
    (("label", "tag"), "tag"),
    (("event",), "event_name"),
    (("work_order",), "work_order_title"),
    (("task", "todo", "to_do", "action_item"), "task_title"),
    (("message", "draft", "email", "mail"), "email_subject"),
    (("label",), "tag"),
)  # fmt: skip
_DNS_NOUNS = frozenset({"rrset", "dns_record", "resource_record", "rrset_record"})
LISTS["dns_record_type"] = ("A", "AAAA", "CNAME", "MX", "TXT", "NS")
LISTS["ip_address"] = ("203.0.113.10", "203.0.113.24", "198.51.100.7", "198.51.100.42",
                       "192.0.2.15", "192.0.2.80")  # fmt: skip
LISTS["dns_change"] = ("REPLACE",)
# Hosts a zone holds beneath its apex (``www.blog.acme.com``).
LISTS["host_label"] = ("www", "api", "app", "mail", "cdn", "status", "vpn", "login", "assets",
                       "static", "m", "edge")  # fmt: skip
# Container images: public ones a team runs as they are, by name and release.
LISTS["container_image"] = ("nginx:1.27", "redis:7.2", "postgres:16.3", "rabbitmq:3.13",
                            "grafana/grafana:11.1.0", "prom/prometheus:v2.53.0",
                            "busybox:1.36", "traefik:v3.1")  # fmt: skip
# What runs as a container: a field ``image`` of one is the image it runs, not a picture.
WORKLOADS = frozenset(
    {"deployment", "pod", "container", "cron_job", "cronjob", "daemon_set",
     "daemonset", "stateful_set", "statefulset", "replica_set", "replicaset", "workload",
     "microservice", "sandbox", "task_definition", "helm_chart"}
)  # fmt: skip
_IMAGE_WORDS = frozenset({"container", "docker", "oci"})
_NOT_IMAGE = frozenset({"id", "ids", "url", "uri", "digest", "pull", "policy", "secrets"})
LISTS["key_name"] = ("axfr-transfer", "ci-deploy", "backup-agent", "monitoring", "terraform",
                     "secondary-sync", "release-bot", "ops-automation", "cert-manager",
                     "ddns-client", "edge-sync", "dnssec-signer", "zone-import",
                     "failover-probe", "acme-dns01", "backup-restore")  # fmt: skip
LISTS["meeting_location"] = (
    "Atlas room", "Orion room", "Video call", "Customer office", "Berlin HQ, 3rd floor",
    "London office, Harbor room", "Phone call", "Cafeteria", "Summit room", "Client site",
)  # fmt: skip
LISTS["work_order_title"] = (
    "Replace the compressor on the walk-in cooler", "Annual HVAC maintenance",
    "Repair loading dock door",
    "Install new wireless access points", "Fix leaking pipe in the kitchen",
    "Inspect fire alarm panel", "Replace broken display", "Service forklift battery",
    "Calibrate warehouse scales", "Install security cameras at the entrance",
    "Repair freezer door seal", "Replace emergency lighting",
)  # fmt: skip
# Form questions: label -> key (a key is the short name of its question).
QUESTIONS = {
    "How likely are you to recommend us to a colleague?": "nps",
    "What could we do better?": "improvements",
    "How many people work at your company?": "company_size",
    "What is your role?": "role",
    "How did you hear about us?": "referral_source",
    "What would you like to use the product for?": "use_case",
    "How satisfied are you with the support you received?": "support_satisfaction",
    "May we contact you about this?": "follow_up",
}
LISTS["question_label"] = tuple(QUESTIONS)
LISTS["question_key"] = tuple(QUESTIONS.values())
LISTS["answer_choice"] = ("Yes", "No", "Maybe", "1-10", "11-50", "51-200", "201+", "Email",
                          "Phone", "Search engine", "Referral")  # fmt: skip
LISTS["nps"] = tuple(str(n) for n in range(11))
LISTS["mail_label"] = (
    "Invoices", "Follow up", "Clients", "Receipts", "Travel", "Newsletters", "Important",
    "Waiting for reply", "Contracts", "Team",
)  # fmt: skip
LISTS["unit"] = ("pcs", "kg", "box", "hour", "seat", "licence", "pack", "litre")
LISTS["project_key"] = (
    "ENG", "OPS", "WEB", "MOB", "ANLT", "SEC", "BILL", "CRM", "INFRA", "MKT", "SUP", "HR",
    "FIN", "API", "DOCS", "PLAT",
)  # fmt: skip
LISTS["task_title"] = (
    "Send the renewal quote", "Book travel for the summit", "Review the Q3 budget",
    "Prepare the board deck", "Call back the customer about the refund",
    "Update the price list", "Order new laptops for the new hires",
    "Draft the onboarding email", "Renew the SSL certificate",
    "Collect feedback from the pilot", "Schedule the team offsite", "File the expense report",
)  # fmt: skip
LISTS["calendar_name"] = (
    "Sales team", "Support rota", "Marketing events", "Engineering on-call", "Holidays",
    "Interviews", "Company events", "Field visits",
)  # fmt: skip
# A chart of accounts: name -> (code, type), so a code and a type agree with their name.
GL_ACCOUNTS = {
    "Cash": ("1010", "asset"), "Accounts Receivable": ("1210", "asset"),
    "Inventory": ("1410", "asset"), "Fixed Assets": ("1510", "asset"),
    "Accounts Payable": ("2010", "liability"), "Accrued Liabilities": ("2110", "liability"),
    "Sales Tax Payable": ("2210", "liability"), "Retained Earnings": ("3010", "equity"),
    "Product Revenue": ("4010", "revenue"), "Service Revenue": ("4110", "revenue"),
    "Cost of Goods Sold": ("5010", "expense"), "Salaries": ("6010", "expense"),
    "Rent": ("6110", "expense"), "Software Subscriptions": ("6210", "expense"),
    "Travel": ("6310", "expense"), "Marketing": ("6410", "expense"),
    "Bank Fees": ("6510", "expense"), "Depreciation": ("6610", "expense"),
}  # fmt: skip
LISTS["gl_account_name"] = tuple(GL_ACCOUNTS)
# Columns that go with a listed value: kind -> column -> {value: column value}.
ROWS: dict[str, dict[str, dict[str, str]]] = {
    "gl_account_name": {
        "code": {k: v[0] for k, v in GL_ACCOUNTS.items()},
        "type": {k: v[1] for k, v in GL_ACCOUNTS.items()},
    },
    "question_label": {"key": QUESTIONS},
    "rental_branch": {"region": RENTAL_BRANCHES},
    "channel_name": {"topic": CHANNEL_TOPICS},
}
# Texts that depend on the kind of their record (a CTA's reason on its type): text kind ->
# the record's kind -> the texts that fit it.
BY_KIND: dict[str, dict[str, tuple[str, ...]]] = {
    "risk_reason": {
        "risk": ("Usage dropped 40% in 30 days", "Executive sponsor left the company",
                 "Three open escalations", "Low NPS in the last survey",
                 "Champion changed roles"),
        "expansion": ("Usage near the plan's seat limit", "A new team asked for access",
                      "Asked about the enterprise tier"),
        "renewal": ("Renewal coming up without a plan", "Contract ends next quarter",
                    "Renewal quote not yet sent"),
        "lifecycle": ("Onboarding kickoff not yet held", "Admins not yet trained",
                      "Quarterly business review due"),
    },
}  # fmt: skip
# Kinds whose row also serves a qualified value: "sales-eu" is still the sales channel (a
# code or key column is not: "Travel (EMEA)" must not share the Travel account's code).
_QUALIFIED_ROWS = frozenset({"channel_name"})


# -- jobs ---------------------------------------------------------------------------------
# How senior a job title is, by its words (the highest wins): an intern is 0, a Head of
# Sales 4, a title with none of these words (an Accountant, a Marketing Manager) 2.
_SENIORITY = (
    (0, ("intern", "trainee", "apprentice", "graduate")),
    (1, ("junior", "assistant", "coordinator", "representative", "associate")),
    (3, ("senior", "lead", "staff", "principal", "architect")),
    (4, ("head", "director", "vp", "vice", "chief", "controller")),
)
# Yearly pay by seniority (low, high), in the posting's currency.
PAY_BANDS = ((28_000, 42_000), (45_000, 68_000), (65_000, 130_000), (110_000, 170_000),
             (160_000, 250_000))  # fmt: skip
# Kinds of contract by what their names say.
_CONTRACTS = (
    ("intern", ("intern", "internship", "trainee", "apprentice")),
    ("part", ("part_time", "parttime", "part-time", "temporary", "temp", "seasonal")),
    ("contract", ("contractor", "contract", "freelance", "consultant")),
    ("full", ("full_time", "fulltime", "full-time", "permanent", "employee", "salaried")),
)
_CONTRACT_WEIGHTS = {"full": 0.75, "contract": 0.12, "part": 0.1, "intern": 0.03, "": 0.05}


def seniority(title: str) -> int:
    words = set(re.findall(r"[a-z]+", title.lower()))
    levels = [level for level, names in _SENIORITY if words & set(names)]
    if any(level == 0 for level in levels):
        return 0
    return max(levels, default=2)


def contract_of(option: str) -> str:
    """``full``, ``part``, ``contract``, ``intern`` or ``""`` for a contract kind's name."""
    low = str(option).lower()
    return next((kind for kind, names in _CONTRACTS if low in names), "")


def contract_weights(title: str, options: tuple[Any, ...]) -> list[float]:
    """How likely each kind of contract is for a job of this title: mostly full time; an
    internship only for an intern's title (and nothing else for it); no senior role part
    time or as an internship."""
    level = seniority(title)
    out = []
    for option in options:
        kind = contract_of(option)
        weight = _CONTRACT_WEIGHTS[kind]
        if level == 0:
            weight = 1.0 if kind == "intern" else 0.0
        elif kind == "intern" or (level >= 3 and kind == "part"):
            weight = 0.0
        out.append(weight)
    return out if any(out) else [1.0] * len(options)


def row_value(kind: str, value: str, column: str) -> str | None:
    """The ``column`` that goes with listed ``value`` of ``kind`` (see ``ROWS``), or None."""
    rows = ROWS.get(kind, {}).get(column, {})
    if value in rows or kind not in _QUALIFIED_ROWS:
        return rows.get(value)
    return next((v for k, v in rows.items() if value.startswith((f"{k}-", f"{k} ("))), None)


_NAME_WORDS = frozenset({"name", "title", "subject", "summary", "topic", "headline", "label"})
_BODY_WORDS = frozenset(
    {"body", "description", "note", "notes", "message", "comment", "comments", "content",
     "text", "details", "memo", "bio", "instructions", "answer", "feedback", "remarks",
     "transcription", "transcript", "html", "snippet", "quoted", "preview", "excerpt", "about",
     "summary_text", "agenda"}
)  # fmt: skip
# Field names whose meaning does not depend on the record: field -> kind.
_BY_FIELD: dict[str, str] = {
    "job_title": "job_title", "position_title": "job_title", "occupation": "job_title",
    "department": "department", "department_name": "department", "team": "department",
    "city": "city", "town": "city", "locality": "city",
    "region": "region", "state": "region", "province": "region", "county": "region",
    "postal_code": "postal_code", "zip": "postal_code", "zip_code": "postal_code",
    "zipcode": "postal_code", "postcode": "postal_code",
    "line1": "street", "address_line1": "street", "address1": "street", "street": "street",
    "street_address": "street", "line2": "line2", "address_line2": "line2", "address2": "line2",
    "username": "username", "user_name": "username", "login": "username",
    "screen_name": "username", "display_name": "display_name", "handle": "handle",
    "timezone": "timezone", "time_zone": "timezone", "tz": "timezone",
    "locale": "locale", "language": "locale", "color": "color", "colour": "color",
    "mime_type": "mime_type", "content_type": "mime_type", "media_type": "mime_type",
    "tracking_number": "tracking_number", "tracking_code": "tracking_number",
    "tracking_id": "tracking_number", "booking_reference": "pnr", "pnr": "pnr",
    "record_locator": "pnr", "confirmation_number": "confirmation", "confirmation_code":
    "confirmation", "invoice_number": "invoice_number", "po_number": "po_number",
    "purchase_order_number": "po_number", "quote_number": "quote_number",
    "order_number": "order_number", "asset_tag": "asset_tag", "serial_number": "serial",
    "serial": "serial", "case_number": "case_number", "ticket_number": "case_number",
    "reference": "reference", "external_reference": "reference", "reference_number": "reference",
    "head_sha": "sha", "sha": "sha", "commit_sha": "sha", "commit": "sha",
    "engine_version": "version", "version_name": "version", "tag": "release_tag",
    "tag_name": "release_tag", "default_branch": "branch", "base_branch": "branch",
    "from_ref": "branch", "target_branch": "branch", "head_branch": "feature_branch",
    "source_branch": "feature_branch", "branch": "feature_branch", "branch_name": "feature_branch",
    "recurrence": "recurrence", "rrule": "recurrence", "password": "password",
    "passcode": "passcode", "pin": "passcode", "seat": "seat", "seat_number": "seat",
    "flight_number": "flight_number", "origin": "airport", "destination": "airport",
    # where a trip leaves from and goes to (BFCL's ``book_flight(travel_from, travel_to)``)
    "travel_from": "airport", "travel_to": "airport", "departure_airport": "airport",
    "arrival_airport": "airport", "origin_airport": "airport", "destination_airport": "airport",
    "vehicle_class": "vehicle_class", "car_class": "vehicle_class",
    "pickup_location": "rental_branch", "dropoff_location": "rental_branch",
    "bin_location": "bin_location", "home_base": "depot", "office": "office",
    "venue_name": "venue", "venue": "venue", "rule": "segment_rule", "range": "cell_range",
    "event_name": "analytics_event", "plan": "plan_name", "plan_name": "plan_name",
    "merchant": "merchant", "vendor": "software_vendor", "model": "device_model",
    "skill": "skill", "cost_center": "cost_center", "lost_reason": "lost_reason",
    "failure_reason": "failure_reason", "decline_reason": "failure_reason",
    "cancel_reason": "cancel_reason", "cancellation_reason": "cancel_reason",
    "resolution": "resolution", "access_instructions": "access_instructions",
    "objective": "objective", "goal": "sprint_goal", "sheet_name": "sheet_name",
    "product_name": "product_name", "product_title": "product_name",
    "company_name": "company_name", "account_name": "company_name", "organization":
    "company_name", "organisation": "company_name", "client_name": "company_name",
    "current_company": "company_name", "employer": "company_name", "from_name": "person_name",
    "tax_id": "tax_id", "vat_number": "tax_id", "vat_id": "tax_id", "iban": "iban",
    "last4": "last4", "brand": "card_brand", "card_brand": "card_brand", "sku": "sku",
    "product_sku": "sku", "domain": "domain", "industry": "industry", "website": "website",
    "carrier": "carrier", "description": "body",
    "filename": "file_name", "file_name": "file_name", "nps": "nps", "choices": "answer_choice",
    "choice": "answer_choice", "location": "city", "city_name": "city",
}  # fmt: skip
_PERSON_RESOURCES = frozenset(
    {"contact", "person", "people", "user", "employee", "customer", "member", "candidate",
     "lead", "registrant", "subscriber", "attendee", "guest", "passenger", "technician",
     "recipient", "author", "profile", "applicant", "driver", "patient", "student", "agent",
     "staff", "teammate", "participant", "respondent", "signer", "traveler", "traveller",
     "me"}
)  # fmt: skip
# Resources whose records are our own organisation's people.
STAFF_RESOURCES = frozenset(
    {"employee", "user", "technician", "agent", "staff", "teammate", "team_member", "worker",
     "admin", "operator", "interviewer", "recruiter", "me"}
)  # fmt: skip


# Person fields: a name part -> the Person attribute it shows.
NAME_PARTS = {
    "first_name": "first_name", "given_name": "first_name", "last_name": "last_name",
    "family_name": "last_name", "surname": "last_name", "full_name": "full_name",
    "display_name": "full_name", "name": "full_name", "contact_name": "full_name",
}  # fmt: skip
_ROLE_SUFFIXES = ("_emails", "_email", "_names", "_name", "_phone", "_number", "_address", "_ids")


# Fields that show the record's own person, whatever their words say (a ``user_name`` is
# the record's own username, not the name of a "user" role).
_OWN_FIELDS = frozenset({"email", "phone", "mobile", "phone_number", "username", "user_name"})


@functools.cache  # a pure reading of a field name, asked of the same names all along a walk
def role_of(name: str) -> str:
    """Whose value a field holds: ``assignee_email`` -> ``assignee``; ``email``,
    ``first_name`` -> ``""`` (the record's own subject)."""
    low = name.lower()
    if low in NAME_PARTS or low in _OWN_FIELDS:
        return ""
    for part in (*NAME_PARTS, "username"):
        if low.endswith("_" + part):
            return low.removesuffix("_" + part)
    for suffix in _ROLE_SUFFIXES:
        if low.endswith(suffix):
            return low.removesuffix(suffix)
    return low


def tokens(name: str) -> list[str]:
    """The words of a name in any spelling: ``createdAt``, ``created-at``, ``created_at``."""
    return list(_tokens_of(name))


@functools.cache
def _tokens_of(name: str) -> tuple[str, ...]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return tuple(t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t)


_tokens = tokens


@functools.cache  # asked of every collection for every attempt of every walk
def is_person_resource(resource: str) -> bool:
    noun = singular("_".join(_tokens(resource)))
    return noun in _PERSON_RESOURCES or noun.split("_")[-1] in _PERSON_RESOURCES


@functools.cache
def is_staff_resource(resource: str) -> bool:
    noun = singular("_".join(_tokens(resource)))
    return noun in STAFF_RESOURCES or noun.split("_")[-1] in STAFF_RESOURCES


def body_context(resource: str) -> str:
    """Which kind of prose suits free text on a record (``service.collection`` or a
    collection): support replies on tickets, release notes on pull requests..."""
    service, _, resource = resource.rpartition(".")
    noun = singular("_".join(_tokens(resource)))
    if service in ("helpdesk", "support", "zendesk", "service_desk") and noun in (
        "comment", "reply", "note",
    ):  # fmt: skip
        return "support"
    for words, context in _BODY_CONTEXT:  # the record's own noun first
        if noun in words:
            return context
    for words, context in _BODY_CONTEXT:
        if any(noun.endswith(w) or w in noun.split("_") for w in words):
            return context
    return "generic"


@functools.cache  # pure over the module's tables; asked ~60,000 times per 100 tasks
def meaning(field: str, resource: str = "") -> str | None:
    """The kind of value ``field`` of a ``resource`` record holds, or None when unknown.

    Free text (descriptions, notes, bodies) is ``body:<context>``; reasons and names
    depend on the record (``title`` of a job is a job title, of a meeting a topic).
    """
    service, _, resource = resource.rpartition(".")
    tokens = _tokens(field)
    low = "_".join(tokens)
    noun = singular("_".join(_tokens(resource)))
    if not tokens:
        return None
    if low in ("title", "job_title") and is_person_resource(resource):
        return "job_title"
    if low == "name" and noun == "group" and service in ("identity", "directory", "iam"):
        return "access_group"
    if low in ("name", "label") and noun in ("phone_number", "number", "line"):
        return "team_label"
    if low in ("name", "label") and noun == "backup":
        return "backup_label"
    if low == "topic" and noun == "channel":
        return "channel_topic"
    if low == "subject" and noun == "campaign":
        return "campaign_subject"
    if low == "subject" and noun in ("message", "draft", "email", "mail", "thread"):
        return "email_subject"
    if low in ("description", "memo", "note", "notes") and noun in ("journal_entry", "entry"):
        return "journal_memo"
    if low == "description" and noun in ("payment", "charge", "payment_link"):
        return "payment_description"
    if low in ("body", "text") and noun in ("message", "sms") and "sms" in resource:
        return "sms_body"
    if low == "reason" or (low in ("cancel_reason", "cancellation_reason") and noun):
        return _reason(noun)
    if low == "location" and noun in ("event", "meeting", "booking", "appointment", "interview",
                                      "calendar_event", "call"):  # fmt: skip
        return "meeting_location"
    if low in ("location", "office") and noun in ("job", "opening", "position", "room", "desk"):
        return "office" if noun in ("room", "desk") or low == "office" else "city"
    if low == "title" and noun in ("work_order", "job_order", "service_order", "visit"):
        return "work_order_title"
    if noun.split("_")[-1] in _DNS_NOUNS or (noun == "record" and "dns" in service):
        # a DNS record set: its type, the name it answers for, what it points at
        dns = {"type": "dns_record_type", "name": "domain", "content": "ip_address"}
        if low in dns:
            return dns[low]
    if low == "changetype":
        return "dns_change"
    runs = set(tokens) & _IMAGE_WORDS or noun.split("_")[-1] in WORKLOADS
    if "image" in tokens and runs and not set(tokens) & _NOT_IMAGE:
        return "container_image"  # a deployment's ``image``, a ``containerImage``
    if low in ("domain", "hostname", "host_name") and noun in ("server", "nameserver", "host"):
        return "hostname"
    if low == "key" and noun in ("question", "field", "form"):
        return "question_key"
    if low == "key" and noun in ("project", "board", "space", "workspace"):
        return "project_key"
    if low in ("label", "title", "text", "prompt") and noun in ("question", "form_field"):
        return "question_label"
    if low == "code" and noun in ("coupon", "promotion", "discount", "voucher", "promo_code"):
        return "coupon_code"
    if low == "name" and noun == "label" and service in ("mail", "email", "gmail", "inbox"):
        return "mail_label"
    if low == "display_name" and noun and not is_person_resource(resource) and _named(noun):
        return _named(noun)  # a group's display name is the group's name, not a person's
    if low in _BY_FIELD and _BY_FIELD[low] != "body":
        return _BY_FIELD[low]
    if low in ("tags", "tag_list", "keywords"):
        return "tag"
    if tokens[-1] in ("color", "colour"):
        return "hex_color" if "hex" in tokens else "color"
    if low in ("unit", "unit_name", "unit_of_measure", "uom"):
        return "unit"
    if low in ("labels",):
        return "issue_label" if noun in ("issue", "pull_request", "task") else "tag"
    if low in ("skills",):
        return "skill"
    if low in ("roles",) and noun == "template":
        return "signer_role"
    if low in ("sheet_names", "sheets"):
        return "sheet_name"
    if tokens[-1] in ("reason",):
        return _reason(noun)
    if tokens[-1] in _NAME_WORDS and len(tokens) <= 2:
        head = tokens[0] if len(tokens) == 2 else ""
        if head in ("event",):
            return "event_name"
        if head in ("venue",):
            return "venue"
        if head in ("product",):
            return "product_name"
        if head in ("company", "account", "client", "vendor", "organization"):
            return "company_name"
        if head and head not in ("display", "short", "full", "long", "page", "meta"):
            return None  # ``sheet_name``, ``file_title``...: handled above or unknown
        if noun == "event" and service in ("calendar", "calendars", "scheduling", "agenda"):
            return "meeting_topic"  # a calendar's events are meetings, not conferences
        return _named(noun)
    if low == "quoted_text":
        return "body:document"
    if set(tokens) & _BODY_WORDS or low == "description":
        return f"body:{body_context(f'{service}.{resource}' if service else resource)}"
    return None


def _named(noun: str) -> str | None:
    last = noun.split("_")[-1]
    for words, kind in _NAMED:
        if noun in words:
            return kind
    for words, kind in _NAMED:
        if last in words:
            return kind
    return None


def _reason(noun: str) -> str:
    if noun in ("leave_request", "leave", "absence", "time_off"):
        return "leave_reason"
    if noun in ("cta", "risk", "alert", "health"):
        return "risk_reason"
    if noun in ("purchase_order", "requisition"):
        return "po_reason"
    if noun in ("return_request", "return", "rma"):
        return "return_reason"
    if noun in ("payment", "charge", "transaction"):
        return "failure_reason"
    if noun in ("deal", "opportunity"):
        return "lost_reason"
    if noun in ("line", "phone_line", "sim", "sim_card"):
        return "suspension_reason"
    if noun in ("order", "sales_order", "subscription", "cart", "checkout"):
        return "order_cancel_reason"  # an order is not "moved to another date"
    return "cancel_reason"


# -- drawing values -----------------------------------------------------------------------
def _month_ctx(ctx: Mapping[str, Any], rng: random.Random) -> tuple[str, int, str]:
    now = ctx.get("now") or dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
    month = now.month - rng.randint(0, 3)
    year = now.year
    if month < 1:
        month += 12
        year -= 1
    return MONTHS[month - 1], year, f"{month:02d}"


def _fill(template: str, rng: random.Random, ctx: Mapping[str, Any]) -> str:
    month, year, mm = _month_ctx(ctx, rng)
    values = {
        "company": ctx.get("company", "Northwind Traders"),
        "product": ctx.get("product", "Analytics Suite"),
        "city": ctx.get("city", "Berlin"),
        "first": ctx.get("first", "Alex"),
        "org": ctx.get("org", "Acme"),
        "month": month,
        "year": year,
        "mm": mm,
        "ref": ctx.get("ref") or f"INV-{year}-{rng.randint(100, 9999):04d}",
        "digits": f"{rng.randint(0, 999999):06d}",
    }
    return template.format(**values)


def _slug(text: str, sep: str = "-") -> str:
    return re.sub(r"[^a-z0-9]+", sep, text.lower()).strip(sep)


def _alnum(rng: random.Random, n: int, alphabet: str = string.ascii_uppercase + string.digits):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _generated(kind: str, rng: random.Random, ctx: Mapping[str, Any]) -> str | None:
    """Kinds whose values follow a format rather than a list."""
    person = ctx.get("person")
    year = (ctx.get("now") or dt.datetime(2026, 3, 2)).year
    if kind == "username":
        return person.username if person is not None else None
    if kind == "display_name" or kind == "person_name":
        return person.full_name if person is not None else None
    if kind == "handle":
        return f"@{_slug(str(ctx.get('company', 'northwind')), '')[:15]}"
    if kind == "domain":  # a DNS name of ours (a zone, a sending domain)
        return rng.choice(_SUBDOMAINS) + str(ctx.get("org_domain") or "example.com")
    if kind == "hostname":  # one of our servers
        return rng.choice(_HOSTS) + str(ctx.get("org_domain") or "example.com")
    if kind == "tracking_number":
        carrier = str(ctx.get("carrier") or rng.choice(("ups", "fedex", "dhl", "usps")))
        if "ups" in carrier:
            return f"1Z{_alnum(rng, 6)}{rng.randint(10**9, 10**10 - 1)}"
        if "fedex" in carrier:
            return str(rng.randint(10**11, 10**12 - 1))
        if "dhl" in carrier:
            return str(rng.randint(10**9, 10**10 - 1))
        return f"9400{rng.randint(10**17, 10**18 - 1)}"
    if kind == "pnr":
        return _alnum(rng, 6, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    if kind == "confirmation":
        return f"{_alnum(rng, 2, string.ascii_uppercase)}{rng.randint(100000, 999999)}"
    if kind == "invoice_number":
        return f"INV-{year}-{rng.randint(1, 9999):04d}"
    if kind == "po_number":
        return f"PO-{rng.randint(10000, 99999)}"
    if kind == "quote_number":
        return f"Q-{year}-{rng.randint(1, 9999):04d}"
    if kind == "order_number":
        return f"#{rng.randint(1001, 99999)}"
    if kind == "asset_tag":
        return f"IT-{rng.randint(1, 999999):06d}"
    if kind == "serial":
        return _alnum(rng, 12, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
    if kind == "case_number":
        return f"CS-{rng.randint(10000, 99999)}"
    if kind == "reference":
        return f"REF-{year}-{rng.randint(1, 99999):05d}"
    if kind == "sha":
        return f"{rng.getrandbits(160):040x}"
    if kind == "version":
        return f"{rng.randint(12, 17)}.{rng.randint(0, 9)}"
    if kind == "release_tag":
        return f"v{rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
    if kind == "password":
        return _alnum(rng, 16, string.ascii_letters + string.digits + "!#%+")
    if kind == "passcode":
        return str(rng.randint(100000, 999999))
    if kind == "seat":
        return f"{rng.randint(3, 38)}{rng.choice('ABCDEF')}"
    if kind == "flight_number":
        return f"{rng.choice(('LH', 'BA', 'UA', 'DL', 'AF', 'KL', 'AC'))} {rng.randint(100, 999)}"
    if kind == "airport":
        return rng.choice(AIRPORTS)[0]
    if kind == "bin_location":
        return f"{rng.choice('ABCDEF')}-{rng.randint(1, 24):02d}-{rng.randint(1, 6)}"
    if kind == "cost_center":
        return f"CC-{rng.randint(10, 99)}00"
    if kind == "tax_id":
        return f"{rng.choice(('DE', 'FR', 'NL', 'GB'))}{rng.randint(10**8, 10**9 - 1)}"
    if kind == "iban":
        return f"DE{rng.randint(10, 99)}{rng.randint(10**17, 10**18 - 1)}"
    if kind == "last4":
        return f"{rng.randint(0, 9999):04d}"
    if kind == "card_brand":
        return rng.choice(("visa", "mastercard", "amex"))
    if kind == "carrier":
        return rng.choice(("UPS", "FedEx", "DHL", "USPS"))
    if kind == "file_name":
        company = _slug(str(ctx.get("company", "northwind")))[:24]
        return rng.choice(
            (
                f"{company}-msa-{year}.pdf", f"{company}-invoice-{rng.randint(100, 9999)}.pdf",
                f"q{rng.randint(1, 4)}-pipeline-report.xlsx", "onboarding-checklist.docx",
                f"{company}-proposal.pdf", f"meeting-notes-{company}.txt",
                f"price-list-{year}.csv", "logo.png", f"{company}-sow.docx",
            )
        )  # fmt: skip
    if kind == "job_posting":
        dept = getattr(person, "department", "") if person is not None else ""
        titles = DEPARTMENTS.get(dept) or LISTS["staff_title"]
        return rng.choice(titles)
    if kind == "job_title":
        return person.title if person is not None else rng.choice(CLIENT_TITLES)
    if kind == "company_name":
        return str(ctx["company"]) if "company" in ctx else None
    if kind == "product_name":
        return str(ctx["product"]) if "product" in ctx else None
    return None


# What a letter says, by what its subject line is about (the first topic word found):
# "Question about my invoice" asks about an invoice, not "Reminder: your appointment".
LETTERS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("invoice", "bill", "billing", "payment"), (
        "Hi, something on my latest invoice looks wrong. Could you check it for me?",
        "Hello, I have a question about the amount on my invoice.")),
    (("order", "delivery", "shipment", "parcel"), (
        "Hi, could you tell me where my order is? It hasn't arrived yet.",
        "Hello, I have a question about my recent order.")),
    (("call", "meeting", "notes", "demo"), (
        "Thanks for your time today. Here are my notes and the next steps we agreed.",
        "Good talking earlier; I've written up the points we covered.")),
    (("proposal", "sign", "contract", "quote"), (
        "Thanks for the proposal. A few questions before we go ahead.",
        "The contract is attached for review; let me know if anything needs changing.")),
    (("account", "password", "login", "access"), (
        "Hi, I have a quick question about my account.",
        "Hello, could you help me with a setting on my account?")),
    (("talk", "meet", "week", "time"), (
        "Do you have time for a short call this week?",
        "Could we find half an hour to talk in the next few days?")),
    (("following", "checking", "re:", "update", "news"), (
        "Hi, just following up on my last email.",
        "Checking in to see whether there is any news on this.")),
    (("question",), (
        "Hi, I have a question I hope you can help with.",
        "Hello, could you help me with something?")),
)  # fmt: skip


def letter_body(subject: str, rng: random.Random) -> str:
    """A message body that fits its subject line (see ``LETTERS``); a neutral note where
    the subject names no topic."""
    words = str(subject).lower()
    for topics, bodies in LETTERS:
        if any(t in words for t in topics):
            return rng.choice(bodies)
    return rng.choice(("Hi, just following up on my last email.",
                       "Let me know if you need anything else from our side."))  # fmt: skip


def render(kind: str, rng: random.Random, ctx: Mapping[str, Any] | None = None) -> str:
    """One value of ``kind`` (``ctx``: what it may mention)."""
    ctx = ctx or {}
    if kind.startswith("body:"):
        context = kind.split(":", 1)[1]
        bodies = BODIES.get(context) or BODIES["generic"]
        if ctx.get("asked"):  # a record in its first state: its requester's words
            bodies = tuple(b for b in bodies if b not in WORK_NOTES) or bodies
        return rng.choice(bodies)
    made = _generated(kind, rng, ctx)
    if made is not None:
        return made
    listed = LISTS.get(kind, ())
    templates = TEMPLATES.get(kind, ())
    if templates and (not listed or rng.random() < 0.5):
        return _fill(rng.choice(templates), rng, ctx)
    if listed:
        return rng.choice(listed)
    return rng.choice(BODIES["generic"])


def known(kind: str) -> bool:
    """Whether ``render`` has values of its own for ``kind``."""
    return (
        kind.startswith("body:")
        or kind in LISTS
        or kind in TEMPLATES
        or kind in _FORMATS
        or kind in ("job_posting", "job_title")
    )


_FORMATS = frozenset(
    {"tracking_number", "pnr", "confirmation", "invoice_number", "po_number", "quote_number",
     "order_number", "asset_tag", "serial", "case_number", "reference", "sha", "version",
     "release_tag", "password", "passcode", "seat", "flight_number", "airport", "bin_location",
     "cost_center", "tax_id", "iban", "last4", "card_brand", "carrier", "file_name", "handle",
     "domain", "hostname"}
)  # fmt: skip
# What the parts of a postal address mean (``meaning``): one address is all of them.
ADDRESS_PARTS = frozenset({"street", "line2", "city", "region", "postal_code", "country"})
# More names than a seeded collection holds: a new zone has names of ours still free.
_SUBDOMAINS = ("", "shop.", "mail.", "api.", "status.", "eu.", "staging.", "docs.", "billing.",
               "auth.", "cdn.", "partners.", "careers.", "blog.", "dev.", "support.")  # fmt: skip
_HOSTS = ("ns1.", "ns2.", "ns3.", "dns-eu.", "dns-us.", "dns-ap.")  # name servers, mostly


def _dns_names(kind: str, org: str) -> tuple[list[str], list[str]]:
    """Names of ours in DNS: the usual ones (``ns1.``, ``mail.``), and further ones (``ns4.``,
    ``eu.api.``) in the order a long list of servers or zones goes on to."""
    if kind == "hostname":
        usual = list(_HOSTS)
        regions = ("eu", "us", "ap")
        more = [f"ns{k}." for k in range(4, 10)] + [f"dns-{r}{k}." for k in (2, 3) for r in regions]
    else:
        usual = list(_SUBDOMAINS)
        heads = [h for h in _SUBDOMAINS if h]
        more = [f"{q}." for q in _SLUG_QUALIFIERS] + [
            f"{q}.{h}" for q in _SLUG_QUALIFIERS[:3] for h in heads
        ]
    return [f"{h}{org}" for h in usual], [f"{h}{org}" for h in more]


# Qualifiers that keep names apart naturally once a list runs out.
_QUALIFIERS = ("EMEA", "Americas", "APAC", "North", "South", "East", "West", "Central")
QUALIFIERS = _QUALIFIERS
_SLUG_QUALIFIERS = ("eu", "us", "apac", "core", "edge", "internal", "legacy", "mobile", "web",
                    "v2", "next", "ops")  # fmt: skip


def distinct(
    kind: str,
    rng: random.Random,
    n: int,
    ctx: Mapping[str, Any] | None = None,
    qualifiers: Sequence[str] = (),
    fits: Callable[[str], bool] | None = None,
    seed: Sequence[str] = (),
    avoid: Sequence[str] = (),
) -> list[str]:
    """``n`` different values of ``kind``: the list shuffled first, then values qualified by
    ``qualifiers`` (companies, cities...), never by a bare counter."""
    ctx = ctx or {}
    ok = fits or (lambda _v: True)
    out: list[str] = []
    seen: set[str] = set(avoid)  # e.g. the spec's own example, which callers will create

    def add(value: str) -> None:
        if value not in seen and ok(value):
            seen.add(value)
            out.append(value)

    base = list(LISTS.get(kind, ())) or list(seed)
    rng.shuffle(base)
    if kind in ("domain", "hostname"):  # DNS names: the usual ones first, then more of ours
        usual, more = _dns_names(kind, str(ctx.get("org_domain") or "example.com"))
        rng.shuffle(usual)
        base += usual + more  # never "ns1.example.com (EMEA)"
    for value in base:
        if len(out) >= n:
            return out
        add(value)
    tries = 0
    while len(out) < n and tries < 6 * n + 50:  # formats and templates: draw until distinct
        tries += 1
        if kind in _FORMATS or kind in TEMPLATES or kind.startswith("body:"):
            add(render(kind, rng, ctx))
        else:
            break
    if len(out) >= n:
        return out[:n]
    slug = bool(base) and all(re.fullmatch(r"[a-z0-9][a-z0-9._/-]*", v) for v in base)
    own = list(_SLUG_QUALIFIERS if slug else _QUALIFIERS)
    words = own + [q for q in qualifiers if q] if slug else [q for q in qualifiers if q] + own
    pool = base or list(out) or [render(kind, rng, ctx)]
    for q in words:
        for value in pool:
            if len(out) >= n:
                return out
            add(f"{value}-{_slug(q)}" if slug else f"{value} ({q})")
    for q1 in words:  # two qualifiers: enough for any realistic collection
        for q2 in words:
            for value in pool:
                if len(out) >= n:
                    return out
                if q1 != q2:
                    add(f"{value}-{_slug(q1)}-{_slug(q2)}" if slug else f"{value} ({q1}, {q2})")
    while len(out) < n:  # a huge collection: a short hash-like token, never a counter
        add(f"{rng.choice(pool)}-{rng.getrandbits(24):06x}")
    return out


def key_for(name: str, taken: set[str], max_len: int = 10) -> str:
    """A project-style key from a name: initials or the first letters (``ENG``, ``WR``)."""
    words_ = [w for w in re.split(r"[^A-Za-z0-9]+", name) if w]
    candidates = []
    if len(words_) >= 2:
        candidates.append("".join(w[0] for w in words_[:4]).upper())
    first = re.sub(r"[^A-Za-z]", "", words_[0]) if words_ else "KEY"
    candidates += [first[:k].upper() for k in (3, 4, 5)]
    candidates.append((first[:3] + "".join(w[0] for w in words_[1:])).upper())
    for c in candidates:
        c = c[:max_len]
        if len(c) >= 2 and c[0].isalpha() and c not in taken:
            taken.add(c)
            return c
    base = (first[:3] or "KEY").upper()
    for letter in string.ascii_uppercase:
        if base + letter not in taken:
            taken.add(base + letter)
            return base + letter
    return base


def slug(text: str, sep: str = "-") -> str:
    return _slug(text, sep)


def mime_for(name: str) -> str:
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return {
        "pdf": "application/pdf",
        "txt": "text/plain",
        "md": "text/markdown",
        "csv": "text/csv",
        "png": "image/png",
        "jpg": "image/jpeg",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    }.get(ext, "application/octet-stream")


def values_of(kind: str) -> tuple[str, ...]:
    """Every listed value of a kind (empty for formats and person-derived kinds)."""
    return LISTS.get(kind, ())


def kind_of_value(value: str) -> str | None:
    """The listed kind a value belongs to (to draw another of the same kind)."""
    for kind, values in LISTS.items():
        if value in values:
            return kind
    return None


# -- identifiers of no known meaning -----------------------------------------------------------
# What a field that names something (a chart, a trigger, a key) holds where nothing says more:
# a slug of a system of ours and what it does (``billing-sync``), never prose or a label with
# a city; the field's last word picks a value of its own shape where it has one.
_SYSTEMS = ("billing", "checkout", "payments", "search", "auth", "reporting", "inventory",
            "notifications", "analytics", "orders", "catalog", "ledger", "invoicing",
            "shipping", "support", "onboarding", "accounts", "pricing")  # fmt: skip
_DUTIES = ("sync", "api", "worker", "import", "export", "digest", "alerts", "backup",
           "review", "cleanup", "webhook", "reports", "gateway", "scheduler")  # fmt: skip
_TOKEN_SHAPES: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (frozenset({"type", "kind", "category", "class", "variant", "flavor", "flavour"}),
     ("standard", "custom", "default", "internal", "external", "primary")),
    (frozenset({"mode", "strategy", "policy"}), ("automatic", "manual", "default")),
    (frozenset({"status", "state"}), ("active", "pending", "inactive")),
    (frozenset({"permission", "permissions", "scope", "access", "grant", "role"}),
     ("read", "write", "admin")),
    (frozenset({"level", "tier", "grade"}), ("basic", "standard", "premium")),
    (frozenset({"format", "extension", "ext"}), ("pdf", "csv", "json", "png", "txt")),
    (frozenset({"unit", "units"}), ("each", "hours", "GB")),
)  # fmt: skip
# How pressing something is (a task's ``priority``, an incident's ``severity``) where the spec
# lists no values: a word of that scale, never a slug of some system (``shipping-digest``);
# checked before the shapes above, as ``priority_level`` is a priority, not a plan tier.
_URGENCY_SHAPES: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (frozenset({"priority", "urgency", "importance"}), ("low", "normal", "high", "urgent")),
    (frozenset({"severity"}), ("low", "medium", "high", "critical")),
)  # fmt: skip
_ROLES = ("view", "edit", "admin", "viewer", "editor", "operator", "namespace-admin")
_HEX_WORDS = frozenset({"token", "secret", "etag", "hash", "checksum", "digest", "signature",
                        "nonce", "fingerprint"})  # fmt: skip
_PATH_WORDS = frozenset({"path", "folder", "directory", "dir"})
_VERSION_WORDS = frozenset({"version", "revision"})


def token(field: str, rng: random.Random) -> str:
    """A short identifier-like value for ``field`` of no known meaning (its words in
    snake_case): a scale word for a ``priority``, a type word for a ``type``, hex for a
    ``token``, a path for a ``path``, a version for a ``version``, else a slug
    (``billing-sync``)."""
    words = _tokens(field) or ["name"]
    last = words[-1]
    for names, values in _URGENCY_SHAPES:
        if last in names or (last in ("level", "class") and words[-2:-1] and words[-2] in names):
            return rng.choice(values)
    for names, values in _TOKEN_SHAPES:
        if last in names:
            return rng.choice(values)
    if last in _HEX_WORDS:
        return f"{rng.getrandbits(128):032x}"
    if last in _VERSION_WORDS:
        return f"{rng.randint(1, 4)}.{rng.randint(0, 24)}.{rng.randint(0, 9)}"
    system, duty = rng.choice(_SYSTEMS), rng.choice(_DUTIES)
    if words[-2:-1] == ["role"]:  # a role's name: what it may do, where (``billing-viewer``)
        return rng.choice((*_ROLES, f"{system}-{rng.choice(_ROLES)}"))
    if last in _PATH_WORDS:
        return f"{rng.choice(('/srv', '/opt', '/var/lib', '/home/deploy'))}/{system}-{duty}"
    if last == "code":
        return f"{system[:3].upper()}-{rng.randint(100, 999)}"
    return f"{system}-{duty}"


def tokens_for(field: str, rng: random.Random, n: int) -> list[str]:
    """``n`` different ``token`` values for ``field`` (a unique name), qualified by what a
    team tells its systems apart by (``-eu``, ``-v2``) once the slugs run out, never by a
    city or a counter."""
    out: list[str] = []
    for _ in range(n * 30):
        value = token(field, rng)
        if value not in out:
            out.append(value)
        if len(out) == n:
            return out
    base = out or ["service"]
    k = 0
    while len(out) < n:
        value = f"{base[k % len(base)]}-{_SLUG_QUALIFIERS[k // len(base) % len(_SLUG_QUALIFIERS)]}"
        if value not in out:
            out.append(value)
        k += 1
    return out
