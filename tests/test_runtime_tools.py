"""Tool schemas from signatures and docstrings; export as OpenAI and MCP."""

from __future__ import annotations

import pytest

from library.runtime import Email, Record, Ref, Service, State, tool
from library.runtime.docstrings import parse_docstring
from library.services.crm import Crm


def test_input_schema_comes_from_signature_and_docstring() -> None:
    schema = Crm.tools["create_deal"].input_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["title", "contact_id", "amount"]
    props = schema["properties"]
    assert props["contact_id"]["x-semantic-type"] == "id"
    assert props["contact_id"]["x-ref"] == "contacts"
    assert props["amount"]["x-semantic-type"] == "money"
    assert props["currency"]["default"] == "USD"
    assert props["title"]["description"] == "Short name of the deal."
    assert all(p.get("description") for p in props.values())


def test_output_schema_and_read_write_flags() -> None:
    out = Crm.tools["list_contacts"].output_schema
    assert out["type"] == "array"
    contact = out["$defs"]["Contact"]["properties"]
    assert contact["email"]["x-semantic-type"] == "email"
    assert Crm.tools["get_contact"].write is False
    assert Crm.tools["create_contact"].write is True


def test_openai_and_mcp_exports() -> None:
    td = Crm.tools["get_contact"]
    fn = td.openai_schema("crm__get_contact")
    assert fn["type"] == "function"
    assert fn["function"]["name"] == "crm__get_contact"
    assert fn["function"]["parameters"]["required"] == ["contact_id"]
    mcp = td.mcp_schema("crm__get_contact")
    assert mcp["inputSchema"] == td.input_schema
    assert mcp["annotations"]["readOnlyHint"] is True
    assert mcp["outputSchema"]["type"] == "object"


def test_a_tool_without_docstring_or_hint_is_refused_at_class_creation() -> None:
    with pytest.raises(TypeError, match="needs a docstring"):

        class NoDoc(Service):
            name = "nodoc"

            @tool
            def f(self, x: int) -> int:
                return x

    with pytest.raises(TypeError, match="needs a type hint"):

        class NoHint(Service):
            name = "nohint"

            @tool
            def f(self, x) -> int:  # type: ignore[no-untyped-def]
                """Doc."""
                return x


def test_state_finds_its_collections() -> None:
    ItemId = Ref["items"]

    class Item(Record):
        owner: Email
        parent: ItemId | None = None

    class S(State):
        items: dict[str, Item] = {}
        label: str = "x"

    assert S.collection_types == {"items": Item}


def test_docstring_parser_reads_google_style() -> None:
    summary, args, returns = parse_docstring(
        """Send a message.

        Longer text.

        Args:
            to: Recipients,
                one or more.
            subject (str): Subject line.

        Returns:
            The sent message.
        """
    )
    assert summary == "Send a message.\n\nLonger text."
    assert args == {"to": "Recipients, one or more.", "subject": "Subject line."}
    assert returns == "The sent message."


def test_naive_datetimes_are_read_as_utc() -> None:
    import datetime as dt

    from pydantic import TypeAdapter

    from library.runtime import DateTime

    value = TypeAdapter(DateTime).validate_python("2026-03-02T10:00:00")
    assert value.tzinfo is not None and value.utcoffset() == dt.timedelta(0)


def test_not_found_messages_use_the_singular() -> None:
    from library.runtime.service import _singular

    assert [_singular(c) for c in ("cases", "licenses", "addresses", "companies", "boxes")] == [
        "case",
        "license",
        "address",
        "company",
        "box",
    ]
