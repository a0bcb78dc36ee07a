"""Files: the user's drive of folders and files, with text content and sharing.

The drive belongs to the workspace user (the shared pool's first person, who also owns the
mailbox and the calendar). Only a file's owner may change, move, delete or share it; the
seeded drive also holds files colleagues shared with the user. Seeded invoices, contracts and
reports name the pool's companies, people and products, so the customer in the CRM is the
counterparty in the contract.
"""

from __future__ import annotations

import datetime as dt
import random

from library.runtime import (
    DateTime,
    Email,
    ErrorCode,
    PersonName,
    Record,
    Ref,
    Service,
    State,
    ToolError,
    paginate,
    tool,
)
from library.seed import SeedPool
from library.seed.pool import Person

FolderId = Ref["folders"]
FileId = Ref["files"]

MAX_NAME = 255
MAX_CONTENT = 100_000  # characters of text content a file may hold
MIME_TYPES = {
    "txt": "text/plain",
    "md": "text/markdown",
    "csv": "text/csv",
    "json": "application/json",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "png": "image/png",
    "jpg": "image/jpeg",
}
TEXT_MIME_TYPES = ("text/plain", "text/markdown", "text/csv", "application/json")


class Folder(Record):
    name: str
    parent_id: FolderId | None = None
    owner: Email
    created_at: DateTime


class File(Record):
    name: str
    folder_id: FolderId
    size_bytes: int
    mime_type: str
    owner: Email
    shared_with: tuple[Email, ...] = ()
    content: str | None = None
    created_at: DateTime
    modified_at: DateTime


class FilesState(State):
    owner: Email = "me@example.com"
    owner_name: PersonName = "Drive Owner"
    folders: dict[str, Folder] = {}
    files: dict[str, File] = {}


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def _clean_name(name: str, field: str = "name") -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{field}: must be 1 to {MAX_NAME} characters")
    if "/" in name or "\\" in name:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{field}: must not contain slashes")
    return name


def _mime_for(name: str) -> str:
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return MIME_TYPES.get(ext, "application/octet-stream")


def _check_content(content: str) -> None:
    if len(content) > MAX_CONTENT:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"content: at most {MAX_CONTENT} characters of text"
        )


class Files(Service):
    name = "files"
    description = "File storage: folders, files with text content, and sharing."
    State = FilesState
    state: FilesState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> FilesState:
        me = pool.people[0]
        self.state = FilesState(owner=me.email, owner_name=me.full_name)
        now = self.now()
        folders = {
            name: self.put(
                "folders",
                Folder(
                    id=self.new_id("fld"),
                    name=name,
                    owner=me.email,
                    created_at=now - dt.timedelta(days=90),
                ),
            )
            for name in ("Invoices", "Contracts", "Reports", "Shared with me")
        }
        # Counterparts at other companies: a contract is between two companies.
        others = [p for p in pool.people if p.company != me.company]
        for i in range(max(1, size)):
            person = rng.choice(others)
            product = rng.choice(pool.products)
            kind = ("Invoices", "Contracts", "Reports", "Shared with me")[i % 4]
            stamp = now - dt.timedelta(days=rng.randint(1, 60), minutes=rng.randint(0, 600))
            name, content = self._seed_document(kind, me, person, product.name, product.price, rng)
            owner = person.email if kind == "Shared with me" else me.email
            shared: tuple[str, ...] = ()
            if kind == "Shared with me":
                shared = (me.email,)
            elif rng.random() < 0.3:
                shared = (person.email,)
            pdf = kind == "Contracts" and rng.random() < 0.5
            if pdf:
                name = name.rsplit(".", 1)[0] + ".pdf"
            if self._name_taken(folders[kind].id, name):
                continue
            self.put(
                "files",
                File(
                    id=self.new_id("file"),
                    name=name,
                    folder_id=folders[kind].id,
                    size_bytes=rng.randint(40_000, 900_000) if pdf else len(content.encode()),
                    mime_type=_mime_for(name),
                    owner=owner,
                    shared_with=shared,
                    content=None if pdf else content,
                    created_at=stamp,
                    modified_at=min(now, stamp + dt.timedelta(hours=rng.randint(0, 48))),
                ),
            )
        return self.state

    @staticmethod
    def _seed_document(
        kind: str, me: Person, person: Person, product: str, price: float, rng: random.Random
    ) -> tuple[str, str]:
        number = rng.randint(1000, 9999)
        qty = rng.randint(1, 30)
        if kind == "Invoices":
            return (
                f"INV-{number} {person.company}.txt",
                f"Invoice INV-{number}\nBill to: {person.company}\nAttn: {person.full_name} "
                f"<{person.email}>\n\n{qty} x {product} @ {price:.2f} USD\n"
                f"Total: {qty * price:,.2f} USD\nPayment terms: net 30\n",
            )
        if kind == "Contracts":
            return (
                f"MSA {person.company}.md",
                f"# Master Services Agreement\n\nBetween {me.company} and {person.company}.\n\n"
                f"Scope: supply of {product}.\nSignatories: {me.full_name} and "
                f"{person.full_name} ({person.title}).\nTerm: 12 months, renewing yearly.\n",
            )
        if kind == "Reports":
            return (
                f"Pipeline report {number}.csv",
                "company,contact,product,quantity,amount_usd\n"
                f"{person.company},{person.full_name},{product},{qty},{qty * price:.2f}\n",
            )
        return (
            f"Notes from {person.full_name}.txt",
            f"Meeting notes by {person.full_name} ({person.company}).\n"
            f"Discussed the {product} order with {me.full_name}; follow up next week.\n",
        )

    # -- internals ------------------------------------------------------------------------
    def _name_taken(self, folder_id: str, name: str, but: str | None = None) -> bool:
        return any(
            f.folder_id == folder_id and _same(f.name, name) and f.id != but
            for f in self.state.files.values()
        )

    def _owned(self, file_id: str, action: str) -> File:
        """The file, if the drive's user owns it; ``permission_denied`` otherwise."""
        record: File = self.get("files", file_id)
        if not _same(record.owner, self.state.owner):
            raise ToolError(
                ErrorCode.PERMISSION_DENIED,
                f"only the owner ({record.owner}) may {action} file {file_id!r}",
            )
        return record

    # -- folders --------------------------------------------------------------------------
    @tool(write=True)
    def create_folder(self, name: str, parent_id: FolderId | None = None) -> Folder:
        """Create a folder, at the top level or inside another folder.

        Args:
            name: Folder name, unique within its parent (case-insensitive); no slashes.
            parent_id: The folder to create it in; top level if left out.
        """
        name = _clean_name(name)
        if parent_id is not None:
            self.get("folders", parent_id)
        if any(
            f.parent_id == parent_id and _same(f.name, name) for f in self.state.folders.values()
        ):
            raise ToolError(ErrorCode.CONFLICT, f"a folder named {name!r} already exists there")
        folder = Folder(
            id=self.new_id("fld"),
            name=name,
            parent_id=parent_id,
            owner=self.state.owner,
            created_at=self.now(),
        )
        return self.put("folders", folder)

    @tool
    def list_folders(self, parent_id: FolderId | None = None) -> list[Folder]:
        """List the folders directly inside a folder (or at the top level), by name.

        Args:
            parent_id: The folder whose subfolders to list; top level if left out.
        """
        if parent_id is not None:
            self.get("folders", parent_id)
        found = [f for f in self.state.folders.values() if f.parent_id == parent_id]
        return sorted(found, key=lambda f: (f.name.lower(), f.id))

    @tool(write=True)
    def delete_folder(self, folder_id: FolderId) -> Folder:
        """Delete an empty folder.

        Args:
            folder_id: The folder's id.
        """
        self.get("folders", folder_id)
        if any(f.folder_id == folder_id for f in self.state.files.values()) or any(
            f.parent_id == folder_id for f in self.state.folders.values()
        ):
            raise ToolError(ErrorCode.FAILED_PRECONDITION, f"folder {folder_id!r} is not empty")
        return self.delete("folders", folder_id)

    # -- files ----------------------------------------------------------------------------
    @tool(write=True)
    def upload_file(
        self,
        name: str,
        folder_id: FolderId,
        content: str | None = None,
        size_bytes: int | None = None,
        mime_type: str | None = None,
    ) -> File:
        """Upload a file into a folder, owned by the drive's user.

        Give content for a text file (its size is computed), or size_bytes for a binary file
        whose bytes are not stored.

        Args:
            name: File name with extension, unique within the folder (case-insensitive).
            folder_id: The folder to put it in.
            content: Text content, at most 100000 characters.
            size_bytes: Size of a binary file in bytes; ignored when content is given.
            mime_type: Media type; guessed from the extension if left out.
        """
        name = _clean_name(name)
        self.get("folders", folder_id)
        if content is None and size_bytes is None:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "content or size_bytes: give one")
        if content is not None:
            _check_content(content)
            size_bytes = len(content.encode())
        elif size_bytes is not None and size_bytes < 0:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "size_bytes: must be >= 0")
        if self._name_taken(folder_id, name):
            raise ToolError(
                ErrorCode.CONFLICT, f"folder {folder_id!r} already has a file named {name!r}"
            )
        now = self.now()
        record = File(
            id=self.new_id("file"),
            name=name,
            folder_id=folder_id,
            size_bytes=size_bytes or 0,
            mime_type=mime_type or _mime_for(name),
            owner=self.state.owner,
            content=content,
            created_at=now,
            modified_at=now,
        )
        return self.put("files", record)

    @tool
    def get_file(self, file_id: FileId) -> File:
        """Get one file's details (and text content, if any) by id.

        Args:
            file_id: The file's id.
        """
        return self.get("files", file_id)

    @tool
    def list_files(
        self,
        folder_id: FolderId | None = None,
        owner: Email | None = None,
        mime_type: str | None = None,
        shared_with: Email | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[File]:
        """List files by name, optionally filtered.

        Args:
            folder_id: Only files in this folder.
            owner: Only files owned by this address.
            mime_type: Only files of this media type, e.g. text/plain.
            shared_with: Only files shared with this address.
            limit: Page size, 1 to 500.
            offset: How many matching files to skip.
        """
        if folder_id is not None:
            self.get("folders", folder_id)
        found = [
            f
            for f in self.state.files.values()
            if (folder_id is None or f.folder_id == folder_id)
            and (owner is None or _same(f.owner, owner))
            and (mime_type is None or f.mime_type == mime_type.lower())
            and (shared_with is None or any(_same(s, shared_with) for s in f.shared_with))
        ]
        found.sort(key=lambda f: (f.name.lower(), f.id))
        return paginate(found, limit, offset)

    @tool
    def search_files(self, query: str, limit: int = 20) -> list[File]:
        """Find files whose name or text content contains the query (case-insensitive).

        Args:
            query: Text to look for.
            limit: Maximum number of results, 1 to 500.
        """
        if not query.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "query: must not be empty")
        q = query.strip().lower()
        found = [
            f
            for f in self.state.files.values()
            if q in f.name.lower() or q in (f.content or "").lower()
        ]
        found.sort(key=lambda f: (f.name.lower(), f.id))
        return paginate(found, limit)

    @tool
    def read_file_content(self, file_id: FileId) -> str:
        """Read a text file's content. Binary files (PDFs, images) have none.

        Args:
            file_id: The file's id.
        """
        record: File = self.get("files", file_id)
        if record.content is None:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION,
                f"file {file_id!r} ({record.mime_type}) has no text content",
            )
        return record.content

    @tool(write=True)
    def update_file_content(self, file_id: FileId, content: str) -> File:
        """Replace a text file's content. Only the owner may; binary files cannot be edited.

        Args:
            file_id: The file's id.
            content: The new text content, at most 100000 characters.
        """
        record = self._owned(file_id, "edit")
        if record.content is None:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION,
                f"file {file_id!r} ({record.mime_type}) is binary; upload a new file instead",
            )
        _check_content(content)
        return self.update(
            "files",
            file_id,
            content=content,
            size_bytes=len(content.encode()),
            modified_at=self.now(),
        )

    @tool(write=True)
    def rename_file(self, file_id: FileId, name: str) -> File:
        """Rename a file within its folder. Only the owner may.

        Args:
            file_id: The file's id.
            name: The new name, unique within the folder (case-insensitive); no slashes.
        """
        record = self._owned(file_id, "rename")
        name = _clean_name(name)
        if self._name_taken(record.folder_id, name, but=file_id):
            raise ToolError(
                ErrorCode.CONFLICT,
                f"folder {record.folder_id!r} already has a file named {name!r}",
            )
        return self.update("files", file_id, name=name, modified_at=self.now())

    @tool(write=True)
    def move_file(self, file_id: FileId, folder_id: FolderId) -> File:
        """Move a file to another folder. Only the owner may.

        Args:
            file_id: The file's id.
            folder_id: The destination folder.
        """
        record = self._owned(file_id, "move")
        self.get("folders", folder_id)
        if record.folder_id == folder_id:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION, f"file {file_id!r} is already in {folder_id!r}"
            )
        if self._name_taken(folder_id, record.name):
            raise ToolError(
                ErrorCode.CONFLICT,
                f"folder {folder_id!r} already has a file named {record.name!r}",
            )
        return self.update("files", file_id, folder_id=folder_id, modified_at=self.now())

    @tool(write=True)
    def delete_file(self, file_id: FileId) -> File:
        """Delete a file for good. Only the owner may.

        Args:
            file_id: The file's id.
        """
        self._owned(file_id, "delete")
        return self.delete("files", file_id)

    @tool(write=True)
    def share_file(self, file_id: FileId, email: Email) -> File:
        """Share a file with someone. Only the owner may share.

        Args:
            file_id: The file's id.
            email: The address to share it with.
        """
        record = self._owned(file_id, "share")
        if _same(email, record.owner) or any(_same(s, email) for s in record.shared_with):
            raise ToolError(ErrorCode.CONFLICT, f"file {file_id!r} is already shared with {email}")
        return self.update("files", file_id, shared_with=(*record.shared_with, email))

    @tool(write=True)
    def unshare_file(self, file_id: FileId, email: Email) -> File:
        """Stop sharing a file with someone. Only the owner may.

        Args:
            file_id: The file's id.
            email: The address to take access from.
        """
        record = self._owned(file_id, "unshare")
        kept = tuple(s for s in record.shared_with if not _same(s, email))
        if len(kept) == len(record.shared_with):
            raise ToolError(ErrorCode.NOT_FOUND, f"file {file_id!r} is not shared with {email}")
        return self.update("files", file_id, shared_with=kept)
