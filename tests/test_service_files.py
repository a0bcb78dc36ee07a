"""The files service, exercised through ``World.call`` (the path agents use)."""

from __future__ import annotations

import pytest

from library.runtime import World
from library.seed import seed_pool
from library.services.crm import Crm
from library.services.files import Files, FilesState

from .service_calls import ServiceCalls

_calls = ServiceCalls("files")
ok, read, err = _calls.ok, _calls.read, _calls.err

SEED = 0
SIZE = 20


def make_world(seed: int = SEED, size: int = SIZE) -> World:
    world = World([Files()], seed=seed)
    world.seed_states(seed_pool(seed), size)
    return world


def state(world: World) -> FilesState:
    return world.services["files"].state  # type: ignore[return-value]


def folder_id(world: World, name: str) -> str:
    return next(f["id"] for f in read(world, "list_folders") if f["name"] == name)


@pytest.fixture
def world() -> World:
    return make_world()


@pytest.fixture
def folder(world: World) -> str:
    return ok(world, "create_folder", name="Drafts")["id"]


@pytest.fixture
def note(world: World, folder: str) -> dict:
    return ok(world, "upload_file", name="plan.md", folder_id=folder, content="# Plan\nShip it.")


@pytest.fixture
def foreign(world: World) -> dict:
    """A seeded file a colleague owns and shared with the drive's user."""
    owner = state(world).owner
    return next(f.model_dump(mode="json") for f in state(world).files.values() if f.owner != owner)


# -- schemas, seeding, serialisation -----------------------------------------------------------
def test_tool_schemas_are_fully_described() -> None:
    assert len(Files.tools) >= 8
    for td in Files.tools.values():
        assert td.description, td.name
        for prop, schema in td.input_schema["properties"].items():
            assert schema.get("description"), f"{td.name}.{prop} has no description"
    writes = {name for name, td in Files.tools.items() if td.write}
    assert writes == {
        "create_folder",
        "delete_folder",
        "upload_file",
        "update_file_content",
        "rename_file",
        "move_file",
        "delete_file",
        "share_file",
        "unshare_file",
    }


def test_seeding_is_deterministic_per_seed() -> None:
    assert make_world(0).state_hash() == make_world(0).state_hash()
    assert make_world(0).state_hash() != make_world(1).state_hash()


def test_seeded_drive_is_realistic(world: World) -> None:
    pool = seed_pool(SEED)
    st = state(world)
    assert st.owner == pool.people[0].email
    names = {f.name for f in st.folders.values()}
    assert {"Invoices", "Contracts", "Reports"} <= names
    emails = {p.email for p in pool.people}
    files = list(st.files.values())
    assert len(files) >= SIZE * 3 // 4
    for f in files:
        assert f.folder_id in st.folders
        assert f.owner in emails and set(f.shared_with) <= emails
        assert f.modified_at >= f.created_at and f.modified_at <= world.now()
        if f.content is not None:
            assert f.size_bytes == len(f.content.encode())
    invoices = [f for f in files if f.folder_id == folder_id(world, "Invoices")]
    assert invoices and all(f.content and "Invoice" in f.content for f in invoices)
    assert any(f.content is None and f.mime_type == "application/pdf" for f in files)
    assert any(f.owner != st.owner and st.owner in f.shared_with for f in files)
    companies = {c.name for c in pool.companies}
    assert all(any(c in f.name or c in (f.content or "") for c in companies) for f in invoices)


def test_seeded_files_mention_crm_contacts() -> None:
    world = World([Crm(), Files()], seed=SEED)
    world.seed_states(seed_pool(SEED), SIZE)
    contacts = list(world.services["crm"].state.contacts.values())
    files = list(state(world).files.values())
    named = [c for c in contacts if any(c.name in (f.content or "") for f in files)]
    assert named
    # The agent can go from a CRM contact to their documents by searching the name.
    for contact in named:
        hits = read(world, "search_files", query=contact.name, limit=500)
        assert hits and all(contact.name.lower() in (h["content"] or "").lower() for h in hits)


def test_state_round_trips_through_json(world: World, note: dict) -> None:
    ok(world, "share_file", file_id=note["id"], email="ana@example.com")
    st = state(world)
    assert FilesState.model_validate_json(st.model_dump_json()) == st


def test_read_tools_leave_the_state_unchanged(world: World, note: dict) -> None:
    read(world, "list_folders")
    read(world, "get_file", file_id=note["id"])
    read(world, "list_files", folder_id=note["folder_id"])
    read(world, "search_files", query="plan")
    read(world, "read_file_content", file_id=note["id"])


# -- folders ------------------------------------------------------------------------------------
def test_create_and_list_folders(world: World, folder: str) -> None:
    top = read(world, "list_folders")
    assert folder in {f["id"] for f in top}
    assert [f["name"].lower() for f in top] == sorted(f["name"].lower() for f in top)
    child = ok(world, "create_folder", name="2026", parent_id=folder)
    assert child["parent_id"] == folder and child["owner"] == state(world).owner
    assert read(world, "list_folders", parent_id=folder) == [child]
    assert child["id"] not in {f["id"] for f in read(world, "list_folders")}
    # The same name is fine under another parent, not twice under one.
    ok(world, "create_folder", name="2026", parent_id=folder_id(world, "Reports"))
    msg = err(world, "create_folder", "conflict", name="drafts")
    assert "drafts" in msg
    err(world, "create_folder", "conflict", name=" 2026 ", parent_id=folder)


def test_create_folder_refusals(world: World) -> None:
    err(world, "create_folder", "not_found", name="x", parent_id="fld_nope")
    err(world, "create_folder", "invalid_argument", name="a/b")
    err(world, "create_folder", "invalid_argument", name="   ")
    err(world, "create_folder", "invalid_argument", name="x" * 256)
    err(world, "list_folders", "not_found", parent_id="fld_nope")


def test_delete_folder(world: World, folder: str, note: dict) -> None:
    msg = err(world, "delete_folder", "failed_precondition", folder_id=folder)
    assert "not empty" in msg
    ok(world, "delete_file", file_id=note["id"])
    child = ok(world, "create_folder", name="sub", parent_id=folder)
    err(world, "delete_folder", "failed_precondition", folder_id=folder)
    ok(world, "delete_folder", folder_id=child["id"])
    assert ok(world, "delete_folder", folder_id=folder)["id"] == folder
    assert folder not in {f["id"] for f in read(world, "list_folders")}
    err(world, "delete_folder", "not_found", folder_id=folder)


# -- upload / get / read ------------------------------------------------------------------------
def test_upload_text_file_then_read_it_back(world: World, folder: str, note: dict) -> None:
    assert note["owner"] == state(world).owner
    assert note["mime_type"] == "text/markdown"
    assert note["size_bytes"] == len(b"# Plan\nShip it.")
    assert note["shared_with"] == []
    assert note["created_at"] == note["modified_at"]
    assert read(world, "get_file", file_id=note["id"]) == note
    assert read(world, "read_file_content", file_id=note["id"]) == "# Plan\nShip it."
    assert read(world, "list_files", folder_id=folder) == [note]
    assert [f["id"] for f in read(world, "search_files", query="SHIP IT")] == [note["id"]]
    unicode = ok(world, "upload_file", name="ü.txt", folder_id=folder, content="äöü")
    assert unicode["size_bytes"] == 6


def test_upload_binary_file(world: World, folder: str) -> None:
    pdf = ok(world, "upload_file", name="scan.PDF", folder_id=folder, size_bytes=52_000)
    assert pdf["mime_type"] == "application/pdf" and pdf["content"] is None
    assert pdf["size_bytes"] == 52_000
    odd = ok(world, "upload_file", name="blob", folder_id=folder, size_bytes=0)
    assert odd["mime_type"] == "application/octet-stream"
    typed = ok(
        world, "upload_file", name="data", folder_id=folder, size_bytes=9, mime_type="text/x-log"
    )
    assert typed["mime_type"] == "text/x-log"
    msg = err(world, "read_file_content", "failed_precondition", file_id=pdf["id"])
    assert "no text content" in msg


def test_upload_refusals(world: World, folder: str, note: dict) -> None:
    msg = err(world, "upload_file", "conflict", name="PLAN.md", folder_id=folder, content="x")
    assert "plan.md" in msg.lower()
    err(world, "upload_file", "not_found", name="a.txt", folder_id="fld_nope", content="x")
    err(world, "upload_file", "invalid_argument", name="a.txt", folder_id=folder)
    err(world, "upload_file", "invalid_argument", name="a.bin", folder_id=folder, size_bytes=-1)
    err(world, "upload_file", "invalid_argument", name="", folder_id=folder, content="x")
    err(
        world,
        "upload_file",
        "invalid_argument",
        name="a.txt",
        folder_id=folder,
        content="x" * 100_001,
    )
    # Same name in another folder is fine.
    ok(world, "upload_file", name="plan.md", folder_id=folder_id(world, "Reports"), content="x")


def test_get_and_read_not_found(world: World) -> None:
    assert "file_nope" in err(world, "get_file", "not_found", file_id="file_nope")
    err(world, "read_file_content", "not_found", file_id="file_nope")


# -- list / search ------------------------------------------------------------------------------
def test_list_files_filters_and_pagination(world: World, foreign: dict) -> None:
    files = list(state(world).files.values())
    everything = read(world, "list_files", limit=500)
    assert len(everything) == len(files)
    names = [f["name"].lower() for f in everything]
    assert names == sorted(names)
    assert read(world, "list_files", limit=5, offset=5) == everything[5:10]

    invoices = folder_id(world, "Invoices")
    in_folder = read(world, "list_files", folder_id=invoices, limit=500)
    assert in_folder and all(f["folder_id"] == invoices for f in in_folder)
    assert len(in_folder) == sum(1 for f in files if f.folder_id == invoices)

    theirs = read(world, "list_files", owner=foreign["owner"].upper(), limit=500)
    assert foreign["id"] in {f["id"] for f in theirs}
    assert all(f["owner"] == foreign["owner"] for f in theirs)

    pdfs = read(world, "list_files", mime_type="application/pdf", limit=500)
    assert pdfs and all(f["mime_type"] == "application/pdf" for f in pdfs)

    shared = read(world, "list_files", shared_with=state(world).owner, limit=500)
    assert foreign["id"] in {f["id"] for f in shared}
    assert all(state(world).owner in f["shared_with"] for f in shared)

    err(world, "list_files", "not_found", folder_id="fld_nope")
    err(world, "list_files", "invalid_argument", limit=0)


def test_search_files(world: World) -> None:
    invoice = next(f for f in state(world).files.values() if f.name.startswith("INV-"))
    number = invoice.name.split()[0]
    assert invoice.id in {f["id"] for f in read(world, "search_files", query=number.lower())}
    company = invoice.content.splitlines()[1].removeprefix("Bill to: ")  # type: ignore[union-attr]
    hits = read(world, "search_files", query=company, limit=500)
    assert invoice.id in {f["id"] for f in hits}
    assert all(company.lower() in (f["name"] + (f["content"] or "")).lower() for f in hits)
    assert read(world, "search_files", query="zzz-nothing") == []
    err(world, "search_files", "invalid_argument", query=" ")


# -- changing files -----------------------------------------------------------------------------
def test_update_file_content(world: World, note: dict) -> None:
    world.advance(120)
    updated = ok(world, "update_file_content", file_id=note["id"], content="# Plan v2")
    assert updated["size_bytes"] == 9 and updated["modified_at"] != note["modified_at"]
    assert read(world, "read_file_content", file_id=note["id"]) == "# Plan v2"
    assert read(world, "search_files", query="ship it") == []
    err(world, "update_file_content", "not_found", file_id="file_nope", content="x")
    err(world, "update_file_content", "invalid_argument", file_id=note["id"], content="x" * 100_001)
    pdf = ok(world, "upload_file", name="a.pdf", folder_id=note["folder_id"], size_bytes=10)
    err(world, "update_file_content", "failed_precondition", file_id=pdf["id"], content="x")


def test_rename_file(world: World, folder: str, note: dict) -> None:
    renamed = ok(world, "rename_file", file_id=note["id"], name="roadmap.md")
    assert renamed["name"] == "roadmap.md" and renamed["folder_id"] == folder
    assert read(world, "get_file", file_id=note["id"])["name"] == "roadmap.md"
    assert ok(world, "rename_file", file_id=note["id"], name="Roadmap.md")["name"] == "Roadmap.md"
    ok(world, "upload_file", name="other.md", folder_id=folder, content="x")
    err(world, "rename_file", "conflict", file_id=note["id"], name="OTHER.md")
    err(world, "rename_file", "invalid_argument", file_id=note["id"], name="a/b.md")
    err(world, "rename_file", "not_found", file_id="file_nope", name="x.md")


def test_move_file(world: World, folder: str, note: dict) -> None:
    reports = folder_id(world, "Reports")
    moved = ok(world, "move_file", file_id=note["id"], folder_id=reports)
    assert moved["folder_id"] == reports
    assert note["id"] in {f["id"] for f in read(world, "list_files", folder_id=reports, limit=500)}
    assert read(world, "list_files", folder_id=folder) == []
    err(world, "move_file", "failed_precondition", file_id=note["id"], folder_id=reports)
    err(world, "move_file", "not_found", file_id=note["id"], folder_id="fld_nope")
    err(world, "move_file", "not_found", file_id="file_nope", folder_id=folder)
    ok(world, "upload_file", name="plan.md", folder_id=folder, content="again")
    err(world, "move_file", "conflict", file_id=note["id"], folder_id=folder)


def test_delete_file(world: World, folder: str, note: dict) -> None:
    before = world.snapshot()
    assert ok(world, "delete_file", file_id=note["id"])["id"] == note["id"]
    assert note["id"] in world.diff(before).collection("files", "files").deleted
    err(world, "get_file", "not_found", file_id=note["id"])
    assert read(world, "list_files", folder_id=folder) == []
    err(world, "delete_file", "not_found", file_id=note["id"])


def test_only_the_owner_may_change_a_file(world: World, foreign: dict) -> None:
    fid, elsewhere = foreign["id"], folder_id(world, "Reports")
    msg = err(world, "share_file", "permission_denied", file_id=fid, email="x@example.com")
    assert foreign["owner"] in msg
    err(world, "unshare_file", "permission_denied", file_id=fid, email=state(world).owner)
    err(world, "rename_file", "permission_denied", file_id=fid, name="mine.txt")
    err(world, "move_file", "permission_denied", file_id=fid, folder_id=elsewhere)
    err(world, "delete_file", "permission_denied", file_id=fid)
    err(world, "update_file_content", "permission_denied", file_id=fid, content="x")
    # Reading a file shared with the user is allowed.
    assert read(world, "get_file", file_id=fid) == foreign


# -- sharing ------------------------------------------------------------------------------------
def test_share_and_unshare(world: World, note: dict) -> None:
    shared = ok(world, "share_file", file_id=note["id"], email="ana@example.com")
    assert shared["shared_with"] == ["ana@example.com"]
    listed = read(world, "list_files", shared_with="ana@example.com")
    assert [f["id"] for f in listed] == [note["id"]]
    msg = err(world, "share_file", "conflict", file_id=note["id"], email="ANA@example.com")
    assert "already shared" in msg
    err(world, "share_file", "conflict", file_id=note["id"], email=note["owner"])
    err(world, "share_file", "invalid_argument", file_id=note["id"], email="ana")
    err(world, "share_file", "not_found", file_id="file_nope", email="ana@example.com")
    both = ok(world, "share_file", file_id=note["id"], email="bo@example.com")
    assert both["shared_with"] == ["ana@example.com", "bo@example.com"]

    left = ok(world, "unshare_file", file_id=note["id"], email="Ana@example.com")
    assert left["shared_with"] == ["bo@example.com"]
    err(world, "unshare_file", "not_found", file_id=note["id"], email="ana@example.com")
    assert read(world, "list_files", shared_with="ana@example.com") == []
