"""CRM: contacts, companies, deals and notes. The reference for how a service is written:
frozen records in typed collections, tools as documented methods, ToolError for every
refusal, seed data drawn from the shared pool."""

from __future__ import annotations

import random
from typing import Literal

from library.runtime import (
    CompanyName,
    Currency,
    Date,
    DateTime,
    Email,
    ErrorCode,
    Money,
    PersonName,
    Phone,
    Record,
    Ref,
    Service,
    State,
    ToolError,
    paginate,
    tool,
)
from library.seed import SeedPool

ContactId = Ref["contacts"]
DealId = Ref["deals"]
DealStage = Literal["lead", "qualified", "proposal", "negotiation", "won", "lost"]
CLOSED_STAGES = ("won", "lost")


class Contact(Record):
    name: PersonName
    email: Email
    phone: Phone | None = None
    company: CompanyName | None = None
    title: str | None = None
    created_at: DateTime


class Company(Record):
    name: CompanyName
    domain: str
    industry: str
    country: str


class Deal(Record):
    title: str
    contact_id: ContactId
    amount: Money
    currency: Currency = "USD"
    stage: DealStage = "lead"
    close_date: Date | None = None
    created_at: DateTime


class Note(Record):
    contact_id: ContactId
    body: str
    created_at: DateTime


class CrmState(State):
    contacts: dict[str, Contact] = {}
    companies: dict[str, Company] = {}
    deals: dict[str, Deal] = {}
    notes: dict[str, Note] = {}


class Crm(Service):
    name = "crm"
    description = "Customer relationship management: contacts, companies, deals and notes."
    State = CrmState
    state: CrmState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> CrmState:
        self.state = CrmState()
        for company in rng.sample(pool.companies, min(len(pool.companies), max(1, size // 4))):
            cid = self.new_id("co")
            self.put(
                "companies",
                Company(
                    id=cid,
                    name=company.name,
                    domain=company.domain,
                    industry=company.industry,
                    country=company.country,
                ),
            )
        now = self.now()
        for person in rng.sample(pool.people, min(len(pool.people), size)):
            contact = self.put(
                "contacts",
                Contact(
                    id=self.new_id("ct"),
                    name=person.full_name,
                    email=person.email,
                    phone=person.phone,
                    company=person.company,
                    title=person.title,
                    created_at=now.replace(day=1, hour=rng.randrange(8, 18)),
                ),
            )
            if rng.random() < 0.5:
                product = rng.choice(pool.products)
                self.put(
                    "deals",
                    Deal(
                        id=self.new_id("deal"),
                        title=f"{product.name} for {person.company}",
                        contact_id=contact.id,
                        amount=round(product.price * rng.randint(1, 20), 2),
                        stage=rng.choice(("lead", "qualified", "proposal", "negotiation")),
                        created_at=contact.created_at,
                    ),
                )
        return self.state

    # -- contacts -------------------------------------------------------------------------
    @tool(write=True)
    def create_contact(
        self,
        name: PersonName,
        email: Email,
        phone: Phone | None = None,
        company: CompanyName | None = None,
        title: str | None = None,
    ) -> Contact:
        """Create a contact. Emails are unique across contacts.

        Args:
            name: Full name of the person.
            email: Work email address.
            phone: Phone number, ideally in E.164 form.
            company: The company the person works for.
            title: Job title.
        """
        if any(c.email.lower() == email.lower() for c in self.state.contacts.values()):
            raise ToolError(ErrorCode.CONFLICT, f"a contact with email {email!r} already exists")
        contact = Contact(
            id=self.new_id("ct"),
            name=name,
            email=email,
            phone=phone,
            company=company,
            title=title,
            created_at=self.now(),
        )
        return self.put("contacts", contact)

    @tool
    def get_contact(self, contact_id: ContactId) -> Contact:
        """Get one contact by id.

        Args:
            contact_id: The contact's id.
        """
        return self.get("contacts", contact_id)

    @tool
    def list_contacts(
        self,
        company: CompanyName | None = None,
        email: Email | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Contact]:
        """List contacts, optionally filtered by company or exact email, oldest first.

        Args:
            company: Only contacts at this company.
            email: Only the contact with this email.
            limit: Page size, 1 to 500.
            offset: How many matching contacts to skip.
        """
        found = (
            c
            for c in self.state.contacts.values()
            if (company is None or c.company == company)
            and (email is None or c.email.lower() == email.lower())
        )
        return paginate(found, limit, offset)

    @tool
    def search_contacts(self, query: str, limit: int = 20) -> list[Contact]:
        """Find contacts whose name, email or company contains the query (case-insensitive).

        Args:
            query: Text to look for.
            limit: Maximum number of results, 1 to 500.
        """
        if not query.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "query: must not be empty")
        q = query.lower()
        found = (
            c
            for c in self.state.contacts.values()
            if q in c.name.lower() or q in c.email.lower() or q in (c.company or "").lower()
        )
        return paginate(found, limit)

    @tool(write=True)
    def update_contact(
        self,
        contact_id: ContactId,
        name: PersonName | None = None,
        phone: Phone | None = None,
        company: CompanyName | None = None,
        title: str | None = None,
    ) -> Contact:
        """Change a contact's details; fields left out keep their value.

        Args:
            contact_id: The contact's id.
            name: New full name.
            phone: New phone number.
            company: New company.
            title: New job title.
        """
        return self.update(
            "contacts", contact_id, name=name, phone=phone, company=company, title=title
        )

    @tool(write=True)
    def delete_contact(self, contact_id: ContactId) -> Contact:
        """Delete a contact. Refused while the contact has open deals.

        Args:
            contact_id: The contact's id.
        """
        self.get("contacts", contact_id)
        open_deals = [
            d.id
            for d in self.state.deals.values()
            if d.contact_id == contact_id and d.stage not in CLOSED_STAGES
        ]
        if open_deals:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION,
                f"contact {contact_id!r} has open deals: {', '.join(open_deals)}",
            )
        return self.delete("contacts", contact_id)

    # -- deals ----------------------------------------------------------------------------
    @tool(write=True)
    def create_deal(
        self,
        title: str,
        contact_id: ContactId,
        amount: Money,
        currency: Currency = "USD",
        close_date: Date | None = None,
    ) -> Deal:
        """Open a deal with a contact, in the lead stage.

        Args:
            title: Short name of the deal.
            contact_id: The contact the deal is with.
            amount: Expected value of the deal.
            currency: ISO 4217 code of the amount.
            close_date: Expected close date.
        """
        if amount < 0:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "amount: must be >= 0")
        self.get("contacts", contact_id)
        deal = Deal(
            id=self.new_id("deal"),
            title=title,
            contact_id=contact_id,
            amount=amount,
            currency=currency,
            close_date=close_date,
            created_at=self.now(),
        )
        return self.put("deals", deal)

    @tool
    def list_deals(
        self,
        contact_id: ContactId | None = None,
        stage: DealStage | None = None,
        min_amount: Money | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Deal]:
        """List deals, optionally by contact, stage or minimum amount.

        Args:
            contact_id: Only deals with this contact.
            stage: Only deals in this stage.
            min_amount: Only deals worth at least this much.
            limit: Page size, 1 to 500.
            offset: How many matching deals to skip.
        """
        found = (
            d
            for d in self.state.deals.values()
            if (contact_id is None or d.contact_id == contact_id)
            and (stage is None or d.stage == stage)
            and (min_amount is None or d.amount >= min_amount)
        )
        return paginate(found, limit, offset)

    @tool(write=True)
    def move_deal_stage(self, deal_id: DealId, stage: DealStage) -> Deal:
        """Move a deal to another stage. Closed deals (won or lost) cannot move.

        Args:
            deal_id: The deal's id.
            stage: The new stage.
        """
        deal: Deal = self.get("deals", deal_id)
        if deal.stage in CLOSED_STAGES:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION, f"deal {deal_id!r} is already {deal.stage}"
            )
        return self.update("deals", deal_id, stage=stage)

    # -- notes ----------------------------------------------------------------------------
    @tool(write=True)
    def add_note(self, contact_id: ContactId, body: str) -> Note:
        """Attach a note to a contact.

        Args:
            contact_id: The contact the note is about.
            body: The note's text.
        """
        if not body.strip():
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "body: must not be empty")
        self.get("contacts", contact_id)
        return self.put(
            "notes",
            Note(id=self.new_id("note"), contact_id=contact_id, body=body, created_at=self.now()),
        )

    @tool
    def list_notes(self, contact_id: ContactId) -> list[Note]:
        """List a contact's notes, oldest first.

        Args:
            contact_id: The contact's id.
        """
        self.get("contacts", contact_id)
        return [n for n in self.state.notes.values() if n.contact_id == contact_id]
