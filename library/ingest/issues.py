"""Collecting SpecErrors for one document while it is parsed."""

from __future__ import annotations

from library.toolspec import ErrorKind, Severity, SpecError

MAX_ISSUES_PER_DOCUMENT = 500  # past this, one summary line: a broken generator is one problem


class Issues:
    """The errors and warnings of one document, each tagged with its file and content hash."""

    def __init__(self, source_file: str, doc_hash: str) -> None:
        self.source_file = source_file
        self.doc_hash = doc_hash
        self.items: list[SpecError] = []
        self.suppressed = 0
        self.service: str | None = None  # set once the parser knows it

    def add(
        self,
        pointer: str,
        kind: ErrorKind,
        message: str,
        *,
        severity: Severity = "error",
        tool: str | None = None,
    ) -> None:
        if len(self.items) >= MAX_ISSUES_PER_DOCUMENT:
            self.suppressed += 1
            return
        self.items.append(
            SpecError(
                source_file=self.source_file,
                pointer=pointer,
                kind=kind,
                severity=severity,
                message=message[:2000],
                doc_hash=self.doc_hash,
                service=self.service,
                tool=tool,
            )
        )

    def warn(self, pointer: str, kind: ErrorKind, message: str, *, tool: str | None = None) -> None:
        self.add(pointer, kind, message, severity="warning", tool=tool)

    def finish(self) -> list[SpecError]:
        if self.suppressed:
            self.items.append(
                SpecError(
                    source_file=self.source_file,
                    pointer="",
                    kind=ErrorKind.TRUNCATED,
                    severity="warning",
                    message=f"{self.suppressed} further problems in this document were not listed",
                    doc_hash=self.doc_hash,
                    service=self.service,
                )
            )
            self.suppressed = 0
        return self.items
