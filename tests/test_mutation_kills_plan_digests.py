"""What the compiler plans for the inline specs of the other mutation tests, pinned as a
readable digest (library/compiler/plan.py, records.py, tools.py and types.py, for
bench/mutation.py; their mutants change a decision that the behaviour tests of one spec may
not reach): each record's class, id prefix, id key and style, order, flags and typed fields
(required ``!``, unique ``~``, aliased ``@``); each tool's effective verb, output shape,
items key and answer keys, parameters with their roles, targets and bounds, and action; and
each skipped tool's reason. A change to the planner shows here as a diff of the digest:
when it is meant, copy the new digest in."""

from __future__ import annotations

import textwrap

import orjson
import pytest

from library.compiler import plan_service
from library.compiler.model import MISSING, RecordPlan, ToolPlan
from library.ingest import ingest_document
from tests.test_mutation_kills_emit_tools import _body, _path
from tests.test_mutation_kills_emitted_tools import BILLING, CALENDAR
from tests.test_mutation_kills_emitted_tools import SHOP as SHOP_EMITTED_TOOLS
from tests.test_mutation_kills_outputs import BOARDS, SIGNALS
from tests.test_mutation_kills_planned_tools import DEPLOYS, WIKI
from tests.test_mutation_kills_record_plans import CALC, EVENTS, TREE
from tests.test_mutation_kills_seed_methods import CRM, PLANNER
from tests.test_mutation_kills_seed_shop import SHOP as SHOP_SEED_SHOP
from tests.test_mutation_kills_tool_table import HELPDESK
from tests.test_mutation_kills_tools import CATALOG, DRIVE, OUTBOX

TEXT = {"type": "string"}


def _post(op: str, path_params: list[str], body: dict | None = None) -> dict:
    operation: dict = {
        "operationId": op,
        "parameters": [_path(n) for n in path_params],
        "responses": {"204": {"description": "done"}},
    }
    if body is not None:
        operation["requestBody"] = _body(body)
    return {"post": operation}


# Records known only from their inputs: an action implies the field it changes.
TODO = {
    "openapi": "3.0.0",
    "info": {"title": "Todo", "version": "1"},
    "paths": {
        "/todos": _post("createTodo", [], {"type": "object", "properties": {"title": TEXT}}),
        "/todos/{id}/pin": _post("pinTodo", ["id"]),
        "/todos/{id}/complete": _post("completeTodo", ["id"]),
        "/notes": _post("createNote", [], {"type": "object", "properties": {"text": TEXT}}),
        "/notes/{id}/archive": _post("archiveNote", ["id"]),
    },
}


def _tool_line(t: ToolPlan) -> str:
    o = t.output
    meta = ",".join(f"{k}={v}" for k, v in o.meta.items())
    head = f"{t.verb} {o.shape.value}"
    head += f" {o.items}" if o.items else ""
    head += f" [{meta}]" if meta else ""
    head += f" shows {','.join(o.shown)}" if o.shown else ""
    params = " ".join(
        f"{p.name}:{p.role.value}"
        + (f">{p.target}" if p.target and p.target != p.name else "")
        + (f"/{p.op}" if p.op != "eq" else "")
        + ("!" if p.required else "")
        + ("" if p.default is MISSING else f"={p.default!r}")
        for p in t.params
    )
    line = f"{t.name}: {head} | {params}"
    if t.action is not None:
        keys = ("status_field", "target", "flag_field", "stamp_field", "assignee", "blocked")
        bits = [
            f"{k}={getattr(t.action, k)!r}"
            for k in keys
            if getattr(t.action, k) not in (None, (), False)
        ]
        line += " | " + " ".join(bits)
    return line.rstrip()


def _record_line(r: RecordPlan) -> str:
    flags = [f for f in ("lookup", "singleton") if getattr(r, f)]
    flags += [] if r.shaped else ["unshaped"]
    flags += [f"unfit={r.unfit}"] if r.unfit else []
    style = r.id_style.kind + (f"({r.id_style.pattern})" if r.id_style.pattern else "")
    fields = " ".join(
        f"{f.name}:{f.type.annotation}"
        + ("!" if f.required else "")
        + ("~" if f.unique else "")
        + (f"@{f.attr}" if f.aliased else "")
        for f in r.fields.values()
    )
    head = f"{r.resource} {r.cls} {r.id_prefix} {r.id_key} {style} {r.order}"
    head += f" {','.join(flags)}" if flags else ""
    return f"{head} | {fields}"


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, 96, initial_indent="  ", subsequent_indent="      ")


def digest(document: dict) -> str:
    """The plan of a service: each record's class, id prefix, id key and style, order, flags
    and fields; each tool's verb, output, parameters and action; each skip's reason."""
    specs, errors = ingest_document(orjson.dumps(document), source_file="service.json")
    assert specs, errors
    plan = plan_service(specs)
    lines = [f"records of {plan.service} ({plan.cls}):"]
    for r in plan.records.values():
        lines += _wrapped(_record_line(r))
    lines.append("tools:")
    for t in plan.tools:
        lines += _wrapped(_tool_line(t))
    for name, why in plan.skipped.items():
        lines += _wrapped(f"skipped {name}: {why}")
    return "\n".join(lines)


EXPECTED = {
    "TODO": """\
records of service (Service):
  todos Todo tod id runtime oldest unshaped | title:str created_at:DateTime!
      updated_at:DateTime! pinned:bool completed:bool
  notes Note not id runtime oldest unshaped | text:str created_at:DateTime! updated_at:DateTime!
      archived:bool
tools:
  createTodo: create record | title:field
  pinTodo: action record | id:id! | flag_field='pinned'
  completeTodo: action record | id:id! | flag_field='completed'
  createNote: create record | text:field
  archiveNote: action record | id:id! | flag_field='archived'
""",
    "OUTBOX": """\
records of service (Service):
  messages Message mes id runtime oldest | to:str! body:str! status:Status! sent_at:DateTime
      canceled_at:DateTime priority:int! channel:Channel! from:str@from_ pinned:bool link:Url!
  tickets Ticket tic id int oldest | title:str!
  settings Setting set id runtime oldest lookup,singleton | theme:Theme! language:str
tools:
  sendMessage: create record | to:field! body:field! priority:field='high' channel:field='fax'
  listMessages: list page messages [count=total] |
  updateMessage: update record | id:id! from:field body:field
  deleteMessage: delete deletion [deleted=true] | id:id!
  getMessage: read envelope data | id:id!
  pinMessage: action record | id:id! | flag_field='pinned' blocked=('failed', 'canceled')
  unpinMessage: action record | id:id! | flag_field='pinned'
  searchMessages: search list | q:query!
  cancelMessage: action record | id:id! | status_field='status' target='canceled'
      stamp_field='canceled_at' blocked=('failed',)
  createTicket: create record | title:field!
  listTickets: list list |
  getTicket: read record | id:id!
  countTickets: count count [count=total] |
  getSettings: read view [theme=theme,language=language] |
  updateSettings: update view [theme=theme,language=language] | theme:field language:field
""",
    "CATALOG": """\
records of service (Service):
  categories Category cat id runtime newest | name:str! position:int! note:str
tools:
  createCategory: create record | name:field! position:field! note:field
  listCategories: list list |
  getCategory: read record | id:id!
""",
    "DRIVE": """\
records of service (Service):
  folders Folder fol id runtime oldest | name:str! children:list[Child]
tools:
  createFolder: create record | name:field!
  getFolder: read record | id:id!
  skipped zipFolder: output is not a folder record
  skipped bytesOfFolder: lists by the id of one folder: it reads something the spec does not
      describe
""",
    "BILLING": """\
records of service (Service):
  invoices Invoice inv id runtime oldest | number:str! amount:int!
  credits Credit cre id runtime oldest | number:str! amount:int!
tools:
  createInvoice: create record | number:field! amount:field!
  listInvoices: list list | min_amount:range>amount/ge max_amount:range>amount/le limit:limit=50
      page:page=1
  getInvoice: read record | id:id!
  createCredit: create record | number:field! amount:field!
  listCredits: list list | limit:limit=50 offset:offset=0
  getCredit: read record | id:id!
""",
    "SHOP_EMITTED_TOOLS": """\
records of service (Service):
  receipts Receipt rec id runtime oldest | number:str! amount:int!
  refunds Refund ref id runtime oldest | number:str! amount:int!
tools:
  createReceipt: create record | number:field! amount:field!
  listReceipts: list page items [total=total,limit=limit,offset=offset,has_more=has_more] |
      limit:limit=50 offset:offset=0
  getReceipt: read record | id:id!
  createRefund: create record | number:field! amount:field!
  listRefunds: list page data [next_cursor=next_cursor] | limit:limit=50 cursor:cursor
  getRefund: read record | id:id!
""",
    "CALENDAR": """\
records of service (Service):
  events Event eve id runtime oldest | number:str! held:DateTime! due:Date
tools:
  createEvent: create record | number:field! held:field! due:field
  listEvents: list list | held_since:range>held/ge due_until:range>due/le
  getEvent: read record | id:id!
""",
    "WIKI": """\
records of service (Service):
  articles Article art id runtime oldest | title:str! body:str! tags:list[str]!
tools:
  createArticle: create record | title:field! body:field! tags:field
  searchArticles: search list | q:query
  findArticles: search list | q:query
""",
    "DEPLOYS": """\
records of service (Service):
  stages Stage sta stage_name runtime oldest | description:str!
tools:
  getStage: read record | stage_name:id!
  updateStage: update record | stage_name:id! description:field
  deleteStage: delete record | stage_name:id!
""",
    "SIGNALS": """\
records of service (Service):
  signals Signal sig id runtime oldest | name:str! colour:Colour!
tools:
  createSignal: create envelope data | name:field!
  listSignals: list list shows name,colour |
  pageSignals: list page items [status=="ok",total=total,has_more=has_more] |
  getSignal: read record | id:id!
""",
    "BOARDS": """\
records of service (Service):
  boards Board boa id int oldest | name:str!
tools:
  createBoard: create id [type=integer] | name:field!
  listBoards: list list |
  getBoard: read record | id:id!
""",
    "HELPDESK": """\
records of service (Service):
  customers Customer cus id runtime oldest | name:PersonName! email:Email
  tickets Ticket tic id runtime oldest | title:str! status:Status! priority:int!
      assignee_email:Email tags:list[str] customer_id:Ref["customers"] amount:Money
      closed_at:DateTime created_at:DateTime! description:str notify:bool
tools:
  createCustomer: create record | name:field! email:field
  getCustomer: read record | customer_id:id!
  createTicket: create view [id=id,title=title,status=status,priority=priority,assignee_email=as
      signee_email,tags=tags,customer_id=customer_id,amount=amount,closed_at=closed_at,created_a
      t=created_at,description=description] | title:field! priority:field=3 customer_id:field!
      tags:field assignee_email:field description:field notify:field
  listTickets: list page tickets [total=total,next_cursor=next_cursor] | status:filter
      min_priority:range>priority/ge created_after:range>created_at/ge q:query limit:limit=50
      cursor:cursor tag:ignored customer_id:filter amount_max:range>amount/le color:ignored
      tags:filter priority:ignored offset:offset=0 search:ignored
  countTickets: count count [count=total] | status:filter
  getTicket: read envelope data | ticket_id:id!
  updateTicket: update view [id=id,title=title,status=status,priority=priority,assignee_email=as
      signee_email,tags=tags,customer_id=customer_id,amount=amount,closed_at=closed_at,created_a
      t=created_at,description=description] | ticket_id:id! title:field priority:field
      status:field
  deleteTicket: delete deletion [id=id,deleted=true] | ticket_id:id!
  closeTicket: action view [id=id,title=title,status=status,priority=priority,assignee_email=ass
      ignee_email,tags=tags,customer_id=customer_id,amount=amount,closed_at=closed_at,created_at
      =created_at,description=description] | ticket_id:id! reason:ignored |
      status_field='status' target='closed' stamp_field='closed_at'
  assignTicket: action answer [ticket_id=data.id] | ticket_id:id! assignee_email:field! |
      assignee=('assignee_email', 'assignee_email') blocked=('closed',)
""",
    "PLANNER": """\
records of service (Service):
  projects Project pro id runtime oldest | name:str! key:str! owner_email:Email!
      created_at:DateTime
  tasks Task tas id runtime oldest | title:str! status:Status! created_at:DateTime!
      updated_at:DateTime! due_date:Date! start_at:DateTime! end_at:DateTime!
      completed_at:DateTime cancelled_at:DateTime assignee_email:Email reporter_name:PersonName
      estimate_hours:float spent_hours:float is_urgent:bool project_id:Ref["projects"]
      labels:list[str] description:str priority:int
tools:
  createProject: create record | name:field key:field owner_email:field created_at:field
  listProjects: list list |
  getProject: read record | id:id!
  createTask: create record | title:field status:field created_at:field updated_at:field
      due_date:field start_at:field end_at:field completed_at:field cancelled_at:field
      assignee_email:field reporter_name:field estimate_hours:field spent_hours:field
      is_urgent:field project_id:field labels:field description:field priority:field
  listTasks: list list |
  getTask: read record | id:id!
""",
    "CRM": """\
records of service (Service):
  contacts Contact con id runtime oldest | first_name:str! last_name:str! email:Email!
      phone:Phone company:CompanyName job_title:str address:ContactAddress website:Url
      birthday:Date lifecycle_stage:LifecycleStage owner_id:Ref["owners"] linkedin_url:Url
      notes:str tags:list[str] is_subscribed:bool
  events Event eve id runtime oldest | title:str! start_time:DateTime! end_time:DateTime!
      location:str organizer_email:Email attendee_emails:list[Email] contact_id:Ref["contacts"]
      timezone:str all_day:bool recurrence:Recurrence reminder_minutes:int
tools:
  createContact: create record | first_name:field last_name:field email:field phone:field
      company:field job_title:field address:field website:field birthday:field
      lifecycle_stage:field owner_id:field linkedin_url:field notes:field tags:field
      is_subscribed:field=True
  listContacts: list list |
  getContact: read record | id:id!
  createEvent: create record | title:field start_time:field end_time:field location:field
      organizer_email:field attendee_emails:field contact_id:field timezone:field all_day:field
      recurrence:field reminder_minutes:field
  listEvents: list list |
  getEvent: read record | id:id!
""",
    "SHOP_SEED_SHOP": """\
records of service (Service):
  products Product pro id runtime oldest | name:str! sku:str! price:Money!
      compare_at_price:Money inventory_quantity:int weight_grams:int vendor:str product_type:str
      is_published:bool created_at:DateTime
  orders Order ord id runtime oldest | order_number:str!~ customer_email:Email! status:Status!
      line_items:list[LineItem] subtotal:Money! tax_total:Money shipping_total:float
      total:Money! currency:Currency shipped_at:DateTime tracking_number:str
      created_at:DateTime! updated_at:DateTime notes:str
tools:
  createProduct: create record | name:field sku:field price:field compare_at_price:field
      inventory_quantity:field weight_grams:field vendor:field product_type:field
      is_published:field created_at:field
  listProducts: list list |
  getProduct: read record | id:id!
  createOrder: create record | order_number:field customer_email:field status:field
      line_items:field subtotal:field tax_total:field shipping_total:field total:field
      currency:field shipped_at:field tracking_number:field created_at:field updated_at:field
      notes:field
  listOrders: list list |
  getOrder: read record | id:id!
""",
    "TREE": """\
records of service (Service):
  nodes Node nod id runtime oldest | name:str! parent:Parent children:list[Child]
tools:
  listNodes: list list |
  getNode: read record | id:id!
""",
    "EVENTS": """\
records of service (Service):
  events Event eve id runtime oldest unshaped | name:str! created_at:DateTime!
      updated_at:DateTime! kind:Kind
tools:
  createEvent: create record | name:field!
  listEvents: list list | kind:filter
""",
    "CALC": """\
records of service (Service):
tools:
  add: compute answer | a:field! b:field!
""",
}
DOCUMENTS = {
    "TODO": TODO,
    "OUTBOX": OUTBOX,
    "CATALOG": CATALOG,
    "DRIVE": DRIVE,
    "BILLING": BILLING,
    "SHOP_EMITTED_TOOLS": SHOP_EMITTED_TOOLS,
    "CALENDAR": CALENDAR,
    "WIKI": WIKI,
    "DEPLOYS": DEPLOYS,
    "SIGNALS": SIGNALS,
    "BOARDS": BOARDS,
    "HELPDESK": HELPDESK,
    "PLANNER": PLANNER,
    "CRM": CRM,
    "SHOP_SEED_SHOP": SHOP_SEED_SHOP,
    "TREE": TREE,
    "EVENTS": EVENTS,
    "CALC": CALC,
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_plan_of_each_spec(name: str) -> None:
    assert digest(DOCUMENTS[name]).splitlines() == EXPECTED[name].strip("\n").splitlines()
