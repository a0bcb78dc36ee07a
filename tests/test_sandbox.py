"""The sandbox serves well-behaved generated services exactly as the runtime does in-process,
reports clean errors for bad requests, replaces dead workers and leaves no process behind."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from library.runtime import World
from library.sandbox import Sandbox, SandboxError, SandboxPolicy, run_many
from library.sandbox import landlock as landlock_mod
from library.seed import seed_pool
from library.services.crm import Crm

POLICY = SandboxPolicy(wall_timeout_s=5, cpu_seconds=4, memory_mb=768)

# A service as the generator would write it: its own records, typed tools, ToolError,
# seed data from the shared pool.
INVENTORY_SOURCE = '''
"""Inventory: products, stock levels and purchase orders."""

from __future__ import annotations

import random
from typing import Literal

from library.runtime import (
    DateTime, ErrorCode, Money, Record, Ref, Service, State, ToolError, paginate, tool,
)
from library.seed import SeedPool

ProductId = Ref["products"]
OrderStatus = Literal["open", "received", "cancelled"]


class Product(Record):
    sku: str
    name: str
    price: Money
    stock: int = 0


class PurchaseOrder(Record):
    product_id: ProductId
    quantity: int
    status: OrderStatus = "open"
    created_at: DateTime


class InventoryState(State):
    products: dict[str, Product] = {}
    orders: dict[str, PurchaseOrder] = {}


class Inventory(Service):
    name = "inventory"
    description = "Products, stock levels and purchase orders."
    State = InventoryState
    state: InventoryState

    def seed(self, pool: SeedPool, rng: random.Random, size: int) -> InventoryState:
        self.state = InventoryState()
        for product in rng.sample(pool.products, min(size, len(pool.products))):
            self.put(
                "products",
                Product(
                    id=self.new_id("prod"), sku=product.sku, name=product.name,
                    price=product.price, stock=rng.randint(0, 50),
                ),
            )
        return self.state

    @tool(write=True)
    def create_product(self, sku: str, name: str, price: Money, stock: int = 0) -> Product:
        """Add a product. SKUs are unique.

        Args:
            sku: Stock keeping unit.
            name: Display name.
            price: Unit price.
            stock: Units on hand.
        """
        if any(p.sku == sku for p in self.state.products.values()):
            raise ToolError(ErrorCode.CONFLICT, f"sku {sku!r} already exists")
        if price < 0 or stock < 0:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "price and stock must be >= 0")
        product = Product(id=self.new_id("prod"), sku=sku, name=name, price=price, stock=stock)
        return self.put("products", product)

    @tool
    def get_product(self, product_id: ProductId) -> Product:
        """Get one product.

        Args:
            product_id: The product's id.
        """
        return self.get("products", product_id)

    @tool
    def list_products(self, max_price: Money | None = None, limit: int = 50) -> list[Product]:
        """List products, cheapest first.

        Args:
            max_price: Only products at most this price.
            limit: Page size, 1 to 500.
        """
        found = sorted(
            (p for p in self.state.products.values() if max_price is None or p.price <= max_price),
            key=lambda p: (p.price, p.id),
        )
        return paginate(found, limit)

    @tool(write=True)
    def adjust_stock(self, product_id: ProductId, delta: int) -> Product:
        """Add (or with a negative delta remove) units of stock.

        Args:
            product_id: The product's id.
            delta: Units to add; negative to remove.
        """
        product = self.get("products", product_id)
        if product.stock + delta < 0:
            raise ToolError(
                ErrorCode.FAILED_PRECONDITION, f"only {product.stock} of {product.sku} on hand"
            )
        return self.update("products", product_id, stock=product.stock + delta)

    @tool(write=True)
    def order_stock(self, product_id: ProductId, quantity: int) -> PurchaseOrder:
        """Open a purchase order for a product.

        Args:
            product_id: The product to reorder.
            quantity: Units to order, at least 1.
        """
        if quantity < 1:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "quantity: must be >= 1")
        self.get("products", product_id)
        order = PurchaseOrder(
            id=self.new_id("po"), product_id=product_id, quantity=quantity, created_at=self.now()
        )
        return self.put("orders", order)

    @tool(write=True)
    def receive_order(self, order_id: Ref["orders"]) -> PurchaseOrder:
        """Mark an open order received and add its units to stock.

        Args:
            order_id: The purchase order's id.
        """
        order = self.get("orders", order_id)
        if order.status != "open":
            raise ToolError(ErrorCode.FAILED_PRECONDITION, f"order {order_id!r} is {order.status}")
        product = self.get("products", order.product_id)
        self.update("products", product.id, stock=product.stock + order.quantity)
        return self.update("orders", order_id, status="received")
'''

# Each step builds its arguments from the envelopes so far, so ids flow as an agent's would.
Step = tuple[str, Callable[[list[dict]], dict]]
SCRIPT: list[Step] = [
    ("inventory__list_products", lambda r: {"max_price": 500, "limit": 3}),
    ("inventory__create_product", lambda r: {"sku": "SKU-9000", "name": "Widget", "price": 9.5}),
    ("inventory__create_product", lambda r: {"sku": "SKU-9000", "name": "Again", "price": 1}),
    ("inventory__create_product", lambda r: {"sku": "SKU-9001", "name": "Bad", "price": "x"}),
    ("inventory__get_product", lambda r: {"product_id": "prod_missing"}),
    ("inventory__adjust_stock", lambda r: {"product_id": r[1]["data"]["id"], "delta": -1}),
    ("inventory__order_stock", lambda r: {"product_id": r[1]["data"]["id"], "quantity": 4}),
    ("inventory__receive_order", lambda r: {"order_id": r[6]["data"]["id"]}),
    ("inventory__receive_order", lambda r: {"order_id": r[6]["data"]["id"]}),
    ("inventory__adjust_stock", lambda r: {"product_id": r[1]["data"]["id"], "delta": -3}),
    ("inventory__get_product", lambda r: {"product_id": r[1]["data"]["id"]}),
    ("inventory__no_such_tool", lambda r: {}),
]


def run_script(call: Callable[[str, dict], dict]) -> list[dict]:
    results: list[dict] = []
    for tool, args in SCRIPT:
        results.append(call(tool, args(results)))
    return results


def load_in_process(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def sandbox_workers() -> list[int]:
    """Live sandbox worker processes whose parent is this test process (via /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        mine = int(fields[1]) == os.getpid() and b"library.sandbox.worker" in cmdline
        if mine and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def wait_until_dead(pid: int) -> None:
    """Until the process is gone or a zombie (SIGKILL is delivered asynchronously)."""
    for _ in range(500):
        try:
            if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
                return
        except OSError:
            return
        time.sleep(0.01)


def assert_dead(pid: int) -> None:
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.fixture(scope="module")
def inventory_module() -> Iterator[types.ModuleType]:
    module = load_in_process("inventory_gen", INVENTORY_SOURCE)
    yield module
    sys.modules.pop("inventory_gen", None)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(POLICY) as sb:
        sb.load("inventory_gen", INVENTORY_SOURCE)
        yield sb
    assert sandbox_workers() == []


def test_load_describes_services_like_the_runtime(
    sandbox: Sandbox, inventory_module: types.ModuleType
) -> None:
    (loaded,) = sandbox.load("inventory_gen", INVENTORY_SOURCE)
    cls = inventory_module.Inventory
    assert (loaded.ref, loaded.class_name, loaded.service) == (
        "inventory_gen:Inventory",
        "Inventory",
        "inventory",
    )
    assert [t.name for t in loaded.tools] == list(cls.tools)
    for info in loaded.tools:
        td = cls.tools[info.name]
        assert (info.write, info.description) == (td.write, td.description)
        assert info.input_schema == td.input_schema
        assert info.output_schema == td.output_schema


def test_same_envelopes_and_state_hash_as_in_process(
    sandbox: Sandbox, inventory_module: types.ModuleType
) -> None:
    world = World([inventory_module.Inventory()], seed=7)
    world.seed_states(seed_pool(7), 12)
    expected = run_script(world.call)

    tools = sandbox.mount(["inventory_gen:Inventory"], seed=7, size=12)
    assert tools == world.tool_names
    got = run_script(sandbox.call)
    assert got == expected
    codes = [r["error"]["code"] for r in got if not r["success"]]
    assert codes == [
        "conflict",
        "invalid_argument",
        "not_found",
        "failed_precondition",
        "failed_precondition",
        "not_found",
    ]
    assert sandbox.state_hash() == world.state_hash()
    assert sandbox.export_states() == world.export_states()
    assert sandbox.tool_schemas("mcp") == world.tool_schemas("mcp")


def test_batched_calls_equal_single_calls(sandbox: Sandbox) -> None:
    sandbox.mount(["inventory_gen:Inventory"], seed=1, size=5)
    start = sandbox.snapshot()
    batch = [
        ("inventory__create_product", {"sku": f"B-{i}", "name": f"B{i}", "price": i})
        for i in range(20)
    ]
    batched = sandbox.calls(batch)
    after_batch = sandbox.state_hash()
    sandbox.restore(start)
    assert [sandbox.call(tool, args) for tool, args in batch] == batched
    assert sandbox.state_hash() == after_batch
    assert all(r["success"] for r in batched)


def test_states_round_trip_through_the_worker(sandbox: Sandbox) -> None:
    sandbox.mount(["inventory_gen:Inventory"], seed=2, size=6)
    states, digest = sandbox.export_states(), sandbox.state_hash()
    sandbox.mount(["inventory_gen:Inventory"], seed=2, size=None)
    assert sandbox.state_hash() != digest
    sandbox.load_states(states)
    assert sandbox.state_hash() == digest
    sandbox.mount(["inventory_gen:Inventory"], seed=2, states=states)
    assert sandbox.state_hash() == digest


def test_reference_service_mounts_by_trusted_path(sandbox: Sandbox) -> None:
    world = World([Crm()], seed=4)
    world.seed_states(seed_pool(4), 10)
    sandbox.mount(["library.services.crm:Crm", "inventory_gen:Inventory"], seed=4, size=10)
    contact = next(iter(world.services["crm"].state.contacts))
    args = {"contact_id": contact}
    assert sandbox.call("crm__get_contact", args) == world.call("crm__get_contact", args)


def test_lockdown_report(sandbox: Sandbox) -> None:
    info = sandbox.start()
    assert info["pid"] == sandbox.pid
    assert info["rlimits"]["RLIMIT_AS"] == POLICY.memory_mb << 20
    assert info["rlimits"]["RLIMIT_CORE"] == 0
    assert info["parent_death_signal"] is True
    assert info["missing_imports"] == []
    assert info["memory_mb"]["VmRSS"] < 200  # baseline well under the limits used in tests
    if landlock_mod.abi_version() > 0:
        assert info["landlock_abi"] == landlock_mod.abi_version()
    assert isinstance(info["seccomp"], bool)
    assert isinstance(info["network_isolated"], bool)


@pytest.mark.parametrize(
    ("name", "source", "reason"),
    [
        ("broken", "def f(:\n    pass\n", "SyntaxError"),
        (
            "raises",
            "x = 1\nraise ValueError('nope')\n",
            "ValueError: nope (at sandboxed:raises line 2",
        ),
        ("empty", "X = 1\n", "defines no Service subclass"),
    ],
)
def test_load_errors_leave_the_worker_running(
    sandbox: Sandbox, name: str, source: str, reason: str
) -> None:
    pid = sandbox.pid
    with pytest.raises(SandboxError) as err:
        sandbox.load(name, source)
    assert err.value.kind == "load_error"
    assert reason in err.value.reason
    assert not err.value.restarted
    assert sandbox.pid == pid


@pytest.mark.parametrize("name", ["json", "library", "os", "not valid"])
def test_module_names_cannot_shadow_real_modules(sandbox: Sandbox, name: str) -> None:
    with pytest.raises(SandboxError) as err:
        sandbox.load(name, INVENTORY_SOURCE)
    assert err.value.kind == "bad_request"


def test_bad_requests(sandbox: Sandbox) -> None:
    pid = sandbox.pid
    with pytest.raises(SandboxError, match="unknown service 'nope:Nope'") as err:
        sandbox.mount(["nope:Nope"])
    assert err.value.kind == "bad_request"
    with pytest.raises(SandboxError, match="not allowed"):
        sandbox.invoke("os.system", "true")
    with pytest.raises(SandboxError, match="not allowed"):
        sandbox.invoke("library.sandbox.probes._private")
    assert sandbox.pid == pid


def test_invoke_runs_trusted_checks_on_loaded_classes(sandbox: Sandbox) -> None:
    report = sandbox.invoke("library.sandbox.probes.smoke", {"seed": 3, "size": 4})
    entry = report["inventory_gen:Inventory"]
    assert entry["service"] == "inventory"
    assert entry["records"] == {"products": 4, "orders": 0}
    assert entry["round_trip"] is True
    with pytest.raises(SandboxError) as err:
        sandbox.invoke("library.sandbox.probes.smoke", {"services": ["missing:X"]})
    assert err.value.kind == "invoke_error" and "KeyError" in err.value.reason


def test_call_without_a_world_is_refused() -> None:
    with Sandbox(POLICY) as sb, pytest.raises(SandboxError, match="no world mounted"):
        sb.call("inventory__list_products")


def test_worker_killed_between_requests_is_replaced() -> None:
    with Sandbox(POLICY) as sb:
        first = sb.start()["pid"]
        os.kill(first, signal.SIGKILL)
        wait_until_dead(first)
        (loaded,) = sb.load("inventory_gen", INVENTORY_SOURCE)
        assert loaded.service == "inventory"
        assert sb.pid != first
        assert sb.last_failure is not None and "SIGKILL" in sb.last_failure.reason
        assert_dead(first)


def test_worker_killed_mid_request_fails_the_request_then_is_replaced() -> None:
    busy = INVENTORY_SOURCE + (
        "\n\nclass Busy(Inventory):\n    name = 'busy'\n\n"
        '    @tool\n    def spin(self) -> int:\n        """Spin."""\n'
        "        n = 0\n        while True:\n            n += 1\n"
    )
    with Sandbox(POLICY) as sb:
        sb.load("busy_gen", busy)
        sb.mount(["busy_gen:Busy"], size=None)
        pid = sb.pid
        assert pid is not None
        threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
        with pytest.raises(SandboxError) as err:
            sb.call("busy__spin")
        assert err.value.kind == "crashed" and "SIGKILL" in err.value.reason
        assert err.value.restarted
        assert_dead(pid)
        with pytest.raises(SandboxError, match="no world mounted"):
            sb.call("busy__spin")  # a fresh, empty worker answers
        assert sb.pid not in (None, pid)


def test_close_removes_process_and_tmp_folder() -> None:
    before = set(sandbox_workers())  # the module's shared sandbox may be running
    sb = Sandbox(POLICY)
    try:
        info = sb.start()
        assert Path(info["tmp_dir"]).is_dir()
        assert set(sandbox_workers()) - before == {info["pid"]}
    finally:
        sb.close()
    assert_dead(info["pid"])
    assert not Path(info["tmp_dir"]).exists()
    assert set(sandbox_workers()) == before


def _build_job(sb: Sandbox, job: tuple[str, str]) -> tuple[int | None, str]:
    name, source = job
    (loaded,) = sb.load(name, source)
    sb.mount([loaded.ref], size=3)
    return sb.pid, sb.state_hash()


def test_run_many_spreads_jobs_and_leaves_no_process() -> None:
    hostile = "from library.runtime import Service\nimport socket\n"
    jobs = [(f"inv_{i}", INVENTORY_SOURCE) for i in range(4)] + [("bad", hostile)]
    before = set(sandbox_workers())
    results = run_many(_build_job, jobs, policy=POLICY, workers=2)
    assert [r.ok for r in results] == [True, True, True, True, False]
    assert results[4].error is not None and results[4].error.kind == "forbidden_import"
    assert "forbidden import: socket" in results[4].reason
    pids = {r.value[0] for r in results[:4] if r.value}
    assert len(pids) == 4  # a fresh worker per job
    assert len({r.value[1] for r in results[:4] if r.value}) == 1  # same source, same state
    assert set(sandbox_workers()) == before
    for pid in pids:
        assert pid is not None
        assert_dead(pid)
