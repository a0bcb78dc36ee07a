"""Service names as a person writes them: ``WhatsApp``, ``HubSpot Files``, ``Braze``.

Ingestion names a service from its file (``braze.com.json`` -> ``braze_com``,
``hubapi.com__files.json`` -> ``hubapi_com_files``); a task that says "In Braze Com, ..." or
"In Hubapi Com Files, ..." reads like a machine wrote it. Here the web-domain parts
(``com``, ``io``...), version tags and packaging words (``mcp``, ``server``, ``api`` after a
brand) go, a vendor's own spelling replaces the capitalised token (``GitHub``, ``PayPal``),
and a host that is not the product's name gives way to the product (``hubapi`` is HubSpot's
API host). Our own services keep their names (``customer_success`` -> ``Customer Success``).
"""

from __future__ import annotations

import re
from functools import lru_cache

# Tokens that are short names people write in capitals.
ACRONYMS = frozenset(
    {
        "crm", "hr", "sms", "it", "cdp", "ats", "cpq", "kb", "api", "id", "url", "sku", "cta",
        "po", "aws", "gcp", "dns", "vat", "qr", "pdf", "sql", "ip", "iot", "cms", "erp", "mms",
        "ai", "ml", "scim", "ssl", "tls", "vpn", "smtp", "ftp", "csv", "seo", "sso", "otp",
        "kv", "json", "xml", "rss", "ci", "cd", "rest", "uk", "us", "eu", "sdk", "nlp", "ocr",
    }
)  # fmt: skip

# Web-domain suffixes (``braze.com`` -> ``braze``) and packaging words: what a file or a
# package is called, never what a person calls the tool.
_DOMAIN_PARTS = frozenset(
    {
        "com", "io", "net", "org", "dev", "co", "de", "local", "ai", "uk", "fr", "nl", "ch",
        "eu", "info", "biz", "tv", "xyz", "sh", "ly", "gg", "cc", "tech", "online", "site", "us",
    }
)  # fmt: skip
# Words of packaging, dropped anywhere; "api"/"service" only after a web domain (``braze_com_api``,
# but our own ``field_service`` keeps its name).
_PACKAGING = frozenset({"mcp", "server", "openapi", "swagger"})
# Benchmarks a spec was collected from (``tau_bench/retail.json`` -> ``tau_bench_retail``,
# BFCL's ``GorillaFileSystem``): where the tools come from, not what a shop calls its system.
_BENCHMARKS = frozenset({"tau", "tau2", "bench", "bfcl", "gorilla", "livemcp"})
_AFTER_DOMAIN = frozenset({"api", "apis", "service", "v"})
_VERSION = re.compile(r"^v\d+(?:[a-z]+\d*)?$|^\d+$")

# Vendors and products in their own spelling, by the token their files are named after.
BRANDS: dict[str, str] = {
    "1password": "1Password", "activecampaign": "ActiveCampaign", "airtable": "Airtable",
    "amazonaws": "AWS", "apideck": "Apideck", "asana": "Asana", "atlassian": "Atlassian",
    "auth0": "Auth0", "azure": "Azure", "bamboohr": "BambooHR", "bigcommerce": "BigCommerce",
    "bitbucket": "Bitbucket", "box": "Box", "braze": "Braze", "calendly": "Calendly",
    "chargebee": "Chargebee", "circleci": "CircleCI", "citrixonline": "Citrix",
    "clickup": "ClickUp", "cloudflare": "Cloudflare", "confluence": "Confluence",
    "datadog": "Datadog", "digitalocean": "DigitalOcean", "docusign": "DocuSign",
    "dropbox": "Dropbox", "ebay": "eBay", "etsy": "Etsy", "facebook": "Facebook",
    "figma": "Figma", "freshdesk": "Freshdesk", "freshservice": "Freshservice",
    "getgo": "GoTo", "github": "GitHub", "gitlab": "GitLab", "gmail": "Gmail",
    "google": "Google", "gotomeeting": "GoToMeeting", "gototraining": "GoToTraining",
    "gotowebinar": "GoToWebinar", "greenhouse": "Greenhouse", "gusto": "Gusto",
    "heroku": "Heroku", "hubapi": "HubSpot", "hubspot": "HubSpot", "instagram": "Instagram",
    "intercom": "Intercom", "izettle": "Zettle", "jira": "Jira", "kubectl": "Kubernetes",
    "kubernetes": "Kubernetes", "lever": "Lever", "linear": "Linear", "linkedin": "LinkedIn",
    "mailchimp": "Mailchimp", "mailgun": "Mailgun", "mailscript": "MailScript",
    "microsoft": "Microsoft", "mixpanel": "Mixpanel",
    "netlify": "Netlify", "nexmo": "Vonage", "notion": "Notion", "okta": "Okta",
    "openai": "OpenAI", "openlinksw": "OpenLink", "openstf": "OpenSTF", "pagerduty": "PagerDuty",
    "pay1": "PAYONE", "paypal": "PayPal", "pinecone": "Pinecone", "pipedrive": "Pipedrive",
    "postmarkapp": "Postmark", "postmark": "Postmark", "powerdns": "PowerDNS",
    "presalytics": "Presalytics", "quickbooks": "QuickBooks", "royalmail": "Royal Mail",
    "salesforce": "Salesforce", "segment": "Segment", "sendgrid": "SendGrid",
    "sentry": "Sentry", "servicenow": "ServiceNow", "shopify": "Shopify", "slack": "Slack",
    "smartsheet": "Smartsheet", "spotify": "Spotify", "square": "Square",
    "squareup": "Square", "stripe": "Stripe", "surveymonkey": "SurveyMonkey",
    "telegram": "Telegram", "todoist": "Todoist", "trello": "Trello", "twilio": "Twilio",
    "twitter": "Twitter", "typeform": "Typeform", "vatapi": "VAT API", "vercel": "Vercel",
    "vonage": "Vonage", "vtex": "VTEX", "whatsapp": "WhatsApp", "woocommerce": "WooCommerce",
    "wordpress": "WordPress", "xero": "Xero", "youtube": "YouTube", "zapier": "Zapier",
    "zendesk": "Zendesk", "zoho": "Zoho", "zoom": "Zoom", "zuora": "Zuora",
    "apispot": "APISpot", "getsandbox": "Sandbox", "doqs": "Doqs", "ably": "Ably",
    "fungenerators": "Fun Generators", "googleapis": "Google", "qrcode": "QR Code",
    "sendinblue": "Brevo", "brevo": "Brevo", "klaviyo": "Klaviyo", "hootsuite": "Hootsuite",
    "buffer": "Buffer",
}  # fmt: skip


# Systems a benchmark names by what they do (``tau_bench_retail``, BFCL's ``ticket_api``):
# no product of that name exists, and no team says "in Retail" or "in Ticket API"; they
# say what the system is ("in the store admin", "in the help desk"). By the name's words
# once the benchmark's and packaging words are gone.
PLAIN: dict[str, str] = {
    "retail": "the store admin", "ticket api": "the help desk", "ticket": "the help desk",
    "airline": "the reservation system", "telecom": "the telecom account system",
    "telecom user": "the phone settings", "message api": "the messaging app",
    "posting api": "the social media app", "travel booking": "the travel booking system",
    "trading bot": "the trading platform", "vehicle control": "the car controls",
    "math api": "the calculator", "web search": "the search engine",
    "banking knowledge": "the bank knowledge base", "file system": "the file system",
    "filesystem": "the file system", "taskmanager": "the task manager",
    "database": "the database",
}  # fmt: skip


def _tokens(service: str) -> list[str]:
    return [t for t in re.split(r"[_\-.\s]+", service.lower()) if t]


_SMALL_WORDS = frozenset({"and", "or", "of", "for", "the", "to", "in", "on", "by", "with"})


def _word(token: str, first: bool = True) -> str:
    if not first and token in _SMALL_WORDS:
        return token  # "Royal Mail Click and Drop"
    if token in BRANDS:
        return BRANDS[token]
    if token in ACRONYMS:
        return token.upper()
    return token.capitalize()


@lru_cache(maxsize=4096)
def human_service_name(service: str) -> str:
    """``whatsapp`` -> ``WhatsApp``; ``braze_com`` -> ``Braze``; ``hubapi_com_files`` ->
    ``HubSpot Files``; ``twilio_com_twilio_microvisor_v1`` -> ``Twilio Microvisor``;
    ``kubectl_mcp_server`` -> ``Kubernetes``; ``tau_bench_retail`` -> ``the store admin``;
    ``customer_success`` -> ``Customer Success``."""
    dropped = _PACKAGING | _BENCHMARKS
    tokens = [t for t in _tokens(service) if t not in dropped] or _tokens(service)
    if not tokens:
        return service
    plain = PLAIN.get(" ".join(tokens))
    if plain is not None:
        return plain
    # A web domain in the name (``braze_com``): its parts before the suffix are the vendor,
    # the rest (after the ``__`` the file used) the product.
    suffix_at = next((i for i, t in enumerate(tokens) if i > 0 and t in _DOMAIN_PARTS), None)
    if suffix_at is not None:
        rest = [
            t
            for t in tokens[suffix_at + 1 :]
            if t not in _DOMAIN_PARTS and t not in _AFTER_DOMAIN and not _VERSION.match(t)
        ]
        kept = tokens[:suffix_at] + rest
    else:
        kept = tokens
    words: list[str] = []
    for token in kept:
        word = _word(token, first=not words)
        seen = {w.casefold() for w in words}
        if word.casefold() in seen:
            continue  # ``xero_com_xero_files``: the vendor once
        if len(words) == 1 and word.casefold().startswith(words[0].casefold()):
            words = []  # ``getgo_com_gototraining``: the product's name holds the vendor's
        words.append(word)
    if words and words[0] == "Kubernetes":
        words = words[:1]
    return " ".join(words) or service
