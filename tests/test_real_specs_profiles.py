"""Services built from real specs (../shared/specs) get a person's name for them, a category
and domain from what their spec says, and tasks on a thing stay within the stack one team
runs beside the first service."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.compose import ComposeConfig, make_env
from library.compose.catalog import LOOKUP, title
from library.compose.corpus import Library
from library.compose.domains import infer_profile, service_domain, service_profile, task_domain
from library.compose.env import THING_STACKS
from library.compose.plan import Step
from library.compose.spec_library import declared_categories, spec_library

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs"
FILES = (
    "openapi/izettle.com__products.json",  # declares "ecommerce"
    "openapi/xero.com__xero_files.json",  # declares "financial"
    "openapi/hubapi.com__files.json",  # declares nothing: its words say files
    "mcp/docker/kubectl-mcp-server.json",  # an MCP server: its tools say devops
    "mcp/docker/gmail-mcp.json",
)


@pytest.mark.parametrize(
    ("service", "name"),
    [
        ("whatsapp", "WhatsApp"),
        ("braze_com", "Braze"),
        ("hubapi_com_files", "HubSpot Files"),
        ("twilio_com_twilio_microvisor_v1", "Twilio Microvisor"),
        ("xero_com_xero_files", "Xero Files"),
        ("getgo_com_gototraining", "GoToTraining"),
        ("kubectl_mcp_server", "Kubernetes"),
        ("mcp_github_trending", "GitHub Trending"),
        ("royalmail_com_click_and_drop", "Royal Mail Click and Drop"),
        ("fungenerators_com_qrcode", "Fun Generators QR Code"),
        # Our own services keep their names.
        ("customer_success", "Customer Success"),
        ("crm", "CRM"),
        ("field_service", "Field Service"),
    ],
)
def test_services_are_named_as_a_person_would(service: str, name: str) -> None:
    assert title(service) == name


def test_declared_categories_win_and_words_decide_otherwise() -> None:
    assert declared_categories(SPECS / FILES[0]) == ["ecommerce"]
    assert infer_profile("x", declared=["financial"]).domain == "finance"
    assert infer_profile("x", ["Place a bet on the match"], declared=["entertainment"]).domain == (
        "entertainment"
    )
    words = infer_profile("acme", ["Create a deployment in a namespace", "Scale pods"])
    assert (words.category, words.domain) == ("devops", "engineering")
    # A bundled service keeps its curated domain whatever its words say.
    assert infer_profile("payroll", ["Send an email to the cluster"]).domain == "people"


@pytest.fixture(scope="module")
def library() -> Library:
    return spec_library([SPECS / f for f in FILES])


def test_real_services_get_their_domain_and_task_domains_follow(library: Library) -> None:
    built = {c.name for c in library.classes}
    assert {"izettle_com_products", "xero_com_xero_files", "kubectl_mcp_server"} <= built
    expected = {
        "izettle_com_products": ("ecommerce", "commerce"),
        "xero_com_xero_files": ("accounting", "finance"),
        "hubapi_com_files": ("files", "collaboration"),
        "kubectl_mcp_server": ("devops", "engineering"),
        "gmail_mcp": ("messaging", "communications"),
    }
    for service, (category, domain) in expected.items():
        if service in built:
            profile = service_profile(service)
            assert (profile.category, profile.domain) == (category, domain), profile
    assert task_domain(["kubectl_mcp_server", "gmail_mcp", "kubectl_mcp_server"]) == "engineering"
    assert len({service_domain(s) for s in built}) >= 4  # not all "collaboration"


def test_a_task_on_a_thing_stays_in_the_first_services_stack(library: Library) -> None:
    env = make_env(library.classes, library.nodes, config=ComposeConfig())
    shop_lookup = next(
        t
        for t in env.catalog.tools.values()
        if t.service == "izettle_com_products" and t.kind == LOOKUP
    )
    first = Step(tool=shop_lookup, args={}, binds={}, text={})
    stack = env.stack_of(first)
    assert stack == THING_STACKS["commerce"]
    assert service_domain("xero_com_xero_files") in stack  # the shop's books
    assert service_domain("kubectl_mcp_server") not in stack  # not the shop's cluster
