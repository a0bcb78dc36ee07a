"""Output schemas inferred at ingest for function-style tools that declare none (real tau2,
MCP and Docker MCP specs from ../shared/specs), and what the compiler tier makes of them."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest

from library.ingest import ingest_document
from library.ingest.infer_output import INFERRED_KEY, VENDOR_KEY
from library.toolspec import ToolSpec, spec_from_row, tool_id
from library.verify import build_service
from tasks.ingest import ingest_paths
from warehouse import Warehouse

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
pytestmark = pytest.mark.skipif(not SPECS.is_dir(), reason="../shared/specs is not present")


def _tools(relative: str) -> dict[str, ToolSpec]:
    specs, _ = ingest_document(SPECS / relative)
    return {s.name: s for s in specs}


def test_inferred_output_is_marked_in_the_schema_the_vendor_facts_and_the_row() -> None:
    tools = _tools("functions/tau2/retail.json")
    spec = tools["get_product_details"]
    assert spec.output_schema is not None
    assert "products" in spec.output_schema[INFERRED_KEY]
    assert spec.vendor[VENDOR_KEY] == spec.output_schema[INFERRED_KEY]
    row = spec.to_row()
    assert row["output_schema"][INFERRED_KEY] and row["vendor"][VENDOR_KEY]
    jsonschema.Draft202012Validator.check_schema(spec.output_schema)


def test_a_tool_id_hashes_what_the_publisher_declared_not_the_inference() -> None:
    spec = _tools("functions/tau2/retail.json")["get_product_details"]
    declared = tool_id(spec.service, spec.name, spec.description, spec.input_schema, None)
    assert spec.id == declared


def test_the_record_comes_from_the_create_inputs_keyed_by_the_id_parameter() -> None:
    tools = _tools("mcp/docker/simplechecklist.json")
    create = tools["create_project"].input_schema
    record = tools["get_project"].output_schema
    assert record is not None and record["type"] == "object"
    # the id key is the parameter get/update/delete name the project by
    assert "project_id" in tools["get_project"].input_schema["required"]
    assert record["required"][0] == "project_id"
    assert set(create["properties"]) <= set(record["properties"])
    assert set(create.get("required") or ()) <= set(record["required"])
    listed = tools["list_projects"].output_schema
    assert listed is not None and listed["type"] == "array"
    assert listed["items"]["properties"] == record["properties"]


def test_a_send_without_an_id_creates_the_record() -> None:
    tools = _tools("mcp/docker/gmail-mcp.json")
    listed = tools["listMessages"].output_schema
    assert listed is not None
    assert {"to", "subject", "body"} <= set(listed["items"]["properties"])  # sendMessage's


def test_list_filters_are_fields_but_query_words_and_result_counts_are_not() -> None:
    # BFCL's web search declares no response; nothing creates its results
    listed = _tools("functions/bfcl_multi_turn/web_search.json")["search_engine_query"]
    assert listed.output_schema is not None
    fields = set(listed.output_schema["items"]["properties"])
    assert "region" in fields
    assert not fields & {"keywords", "max_results"}


def test_a_lookup_key_is_a_stored_field() -> None:
    record = _tools("functions/tau2/telecom.json")["get_customer_by_phone"].output_schema
    assert record is not None
    assert "phone_number" in record["required"]


def test_records_known_only_by_name_keep_their_own_id_key() -> None:
    tools = _tools("mcp/docker/kubectl-mcp-server.json")
    nodes, namespaces = tools["get_nodes"].output_schema, tools["get_namespaces"].output_schema
    assert nodes is not None and namespaces is not None
    assert nodes["items"]["required"] == ["node_id", "name"]
    assert namespaces["items"]["required"] == ["namespace_id", "name"]


def test_a_device_setting_with_no_record_gets_no_output() -> None:
    # ``check_wifi_status()``: no id, no key, nothing listed: there is no record to infer
    tools = _tools("functions/tau2/telecom_user.json")
    assert tools["check_wifi_status"].output_schema is None
    assert VENDOR_KEY not in tools["check_wifi_status"].vendor


def test_openapi_operations_without_a_response_schema_are_left_alone() -> None:
    for path in sorted((SPECS / "openapi").glob("*.json")):
        specs, _ = ingest_document(path)
        assert not [s.name for s in specs if VENDOR_KEY in s.vendor], path.name


def test_tools_known_only_by_inference_now_build_and_verify() -> None:
    """Lookups tau2 publishes without outputs: the compiler had nothing but an id (or no
    parameter naming the customer) and skipped them; with the inferred record they verify."""
    specs, _ = ingest_document(SPECS / "functions/tau2/telecom.json")
    build = build_service(specs)
    for name in ("get_customer_by_phone", "get_customer_by_name"):
        assert build.outcomes[name].outcome == "verified", build.outcomes[name].reason
    specs, _ = ingest_document(SPECS / "functions/tau2/retail.json")
    build = build_service(specs)
    for name in ("get_product_details", "get_item_details", "list_all_product_types"):
        assert build.outcomes[name].outcome == "verified", build.outcomes[name].reason


def test_a_recursive_input_keeps_its_defs_in_the_inferred_output() -> None:
    """A folder tree (``$ref: #/$defs/Node`` inside Node): the record copies the create's
    property, so the ``$defs`` it refers to must come along or the schema cannot resolve."""
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        },
    }
    tools = [
        {
            "type": "function",
            "function": {
                "name": "create_folder",
                "description": "Create a folder with a tree of subfolders.",
                "parameters": {
                    "type": "object",
                    "$defs": {"Node": node},
                    "properties": {"name": {"type": "string"}, "tree": {"$ref": "#/$defs/Node"}},
                    "required": ["name"],
                },
            },
        },
        {
            "type": "function",
            "function": {"name": "list_folders", "description": "All folders.", "parameters": {}},
        },
    ]
    specs, _ = ingest_document(orjson.dumps(tools), source_file="folders.json")
    listed = {s.name: s for s in specs}["list_folders"].output_schema
    assert listed is not None and "Node" in listed["$defs"]
    tree = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    jsonschema.validate([{"folder_id": "f1", "name": "a", "tree": tree}], listed)
    with pytest.raises(jsonschema.ValidationError):  # the nested level is checked too
        jsonschema.validate([{"folder_id": "f1", "name": "a", "tree": {"children": [1]}}], listed)


def test_the_inference_survives_the_warehouse(tmp_path: Path) -> None:
    """What the build stage reads back from ``specs`` still says what was inferred."""
    ingest_paths([str(SPECS / "functions/tau2/retail.json")], tmp_path)
    rows = Warehouse(tmp_path).query("select * from specs").to_pylist()
    back = {s.name: s for s in map(spec_from_row, rows)}
    fresh = _tools("functions/tau2/retail.json")
    assert back["get_product_details"].output_schema == fresh["get_product_details"].output_schema
    assert back["get_product_details"].vendor[VENDOR_KEY]
    assert back["calculate"].vendor["stateless"] == fresh["calculate"].vendor["stateless"]


def test_call_options_and_lists_under_a_parent_are_not_records() -> None:
    # ``edit_file(path, edits, dryRun)``: a dry run is how to call, not what a file holds
    read_file = _tools("mcp/livemcp/filesystem.json")["read_file"].output_schema
    assert read_file is not None and "dryRun" not in read_file["properties"]
    assert {"path", "content"} <= set(read_file["properties"])
    # ``get_bills_for_customer(customer_id)`` lists bills under a customer, not customers:
    # bills, known by the customer they are listed under (no customer's fields)
    bills = _tools("functions/tau2/telecom.json")["get_bills_for_customer"]
    assert bills.resource == "bills" and bills.output_schema is not None
    assert set(bills.output_schema["items"]["properties"]) == {"bill_id", "customer_id"}


def test_a_search_s_required_filter_is_a_stored_field() -> None:
    """``find_user_id_by_email(email)``: a user is found by an e-mail, so users hold one
    (and the first name, last name and zip ``find_user_id_by_name_zip`` filters by)."""
    record = _tools("functions/tau2/retail.json")["get_user_details"].output_schema
    assert record is not None
    assert {"email", "first_name", "last_name", "zip"} <= set(record["required"])


def test_a_read_including_their_records_lists_their_ids() -> None:
    """A read of "the details of a user, including their orders": the user lists the ids of
    their orders (nothing else reaches an order there), typed as references to orders."""
    tools = _tools("functions/tau2/retail.json")
    record = tools["get_user_details"].output_schema
    assert record is not None
    listed = record["properties"]["order_ids"]
    assert listed["type"] == "array"
    fields = {f.path: f for f in tools["get_user_details"].fields}
    assert fields["order_ids[]"].ref == "orders"
    airline = _tools("functions/tau2/airline.json")["get_user_details"].output_schema
    assert airline is not None and "reservation_ids" in airline["properties"]
    # "the status and details of an order" names no other resource: nothing is added
    order = tools["get_order_details"].output_schema
    assert order is not None and "description" not in order[INFERRED_KEY]


def test_what_a_state_change_is_told_is_kept_on_the_record() -> None:
    """``cancel_pending_order(order_id, reason)``: the order keeps the reason it was
    cancelled for (so a stated reason can be checked); ids of other records are not kept
    as values (``suspend_line(customer_id, line_id, reason)`` keeps only the reason)."""
    order = _tools("functions/tau2/retail.json")["get_order_details"].output_schema
    assert order is not None and "reason" in order["properties"]
    assert "reason" not in order["required"]
    ticket = _tools("functions/bfcl_multi_turn/ticket_api.json")["get_ticket"].output_schema
    assert ticket is not None and "resolution" not in ticket["properties"]  # declared output


def test_a_told_value_is_kept_as_plain_text_whatever_options_a_tool_offers() -> None:
    """tau-bench's ``cancel_pending_order`` offers two reasons, tau2's takes any text: both
    documents describe one retail service, whose orders keep the reason as a string (an
    enum from one of them would fail the other's outputs)."""
    specs = [
        *ingest_document(SPECS / "functions/tau2/retail.json")[0],
        *ingest_document(SPECS / "functions/tau_bench/retail.json")[0],
    ]
    order = next(s for s in specs if s.name == "get_order_details").output_schema
    assert order is not None and "enum" not in order["properties"]["reason"]
    build = build_service(specs)
    for name in ("get_order_details", "return_delivered_order_items", "cancel_pending_order"):
        assert build.outcomes[name].outcome == "verified", build.outcomes[name].reason


def test_records_reached_only_with_another_s_id_belong_to_it() -> None:
    """Every tau2 line tool takes the customer's id beside the line's
    (``suspend_line(customer_id, line_id, reason)``): a line keeps its customer's id, and
    since nothing lists lines, the customer lists theirs."""
    tools = _tools("functions/tau2/telecom.json")
    line = tools["suspend_line"].output_schema
    customer = tools["get_customer_by_id"].output_schema
    assert line is not None and customer is not None
    assert "customer_id" in line["required"]
    assert customer["properties"]["line_ids"]["type"] == "array"
    # retail orders are acted on by their id alone: no owner is read into them
    order = _tools("functions/tau2/retail.json")["get_order_details"].output_schema
    assert order is not None and "user_id" not in order["properties"]


def test_records_named_by_a_number_get_whole_number_ids_and_build() -> None:
    """MCP lists declare ids as ``number`` (Hacker News' ``getStory(storyId: number)``,
    Autotask's ``ticketId``): the inferred record's ids are integers, so reads by that id
    build, where a text id would refuse the parameter."""

    def arg(name: str, kind: str = "string") -> dict[str, str]:
        return {"name": name, "type": kind, "desc": f"The {name}"}

    document = orjson.dumps(
        [
            {"name": "getStory", "description": "Fetch a story by ID", "arguments": [
                arg("storyId", "number")
            ]},
            {"name": "createStory", "description": "Post a story", "arguments": [
                arg("title"), arg("url")
            ]},
        ]
    )  # fmt: skip
    specs, _ = ingest_document(document, source_file="stories.json")
    read = next(s for s in specs if s.name == "getStory")
    assert read.output_schema is not None
    assert read.output_schema["properties"]["storyId"] == {"type": "integer"}
    assert "getStory" in build_service(specs).verified
