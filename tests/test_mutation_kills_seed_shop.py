"""The ``_seed_<collection>`` methods the seed writer writes for a shop and a team, pinned whole
(library/compiler/emit_seed.py, for bench/mutation.py): a product is one of the pool's, its
price the catalogue's and its compare-at price above it; an order's money is drawn in order
(subtotal, a tax share of it, shipping) and its total adds them up, its number distinct, its
line items refer to products seeded before, its shipping stamped only once shipped, its person
from outside; a transfer's two ends are two different accounts; a user is a colleague with the
person's username, department and an avatar. A change to the seed writer's rules shows here as
a diff of generated code: when it is meant, copy the new method in."""

from __future__ import annotations

import pytest

from tests.test_mutation_kills_seed_methods import _methods
from tests.test_mutation_kills_seed_refs import _collection

T = {"type": "string"}
DT = {"type": "string", "format": "date-time"}
EMAIL = {"type": "string", "format": "email"}
NUM = {"type": "number"}
INT = {"type": "integer"}
PRODUCT = {
    "type": "object",
    "required": ["id", "name", "sku", "price"],
    "properties": {
        "id": T,
        "name": T,
        "sku": T,
        "price": NUM,
        "compare_at_price": NUM,
        "inventory_quantity": INT,
        "weight_grams": INT,
        "vendor": T,
        "product_type": T,
        "is_published": {"type": "boolean"},
        "created_at": DT,
    },
}
LINE = {"type": "object", "properties": {"product_id": T, "quantity": INT, "unit_price": NUM}}
ORDER = {
    "type": "object",
    "required": [
        "id",
        "order_number",
        "customer_email",
        "status",
        "subtotal",
        "total",
        "created_at",
    ],
    "properties": {
        "id": T,
        "order_number": T,
        "customer_email": EMAIL,
        "status": {
            "type": "string",
            "enum": ["pending", "paid", "shipped", "delivered", "cancelled", "refunded"],
        },
        "line_items": {"type": "array", "items": LINE},
        "subtotal": NUM,
        "tax_total": NUM,
        "shipping_total": NUM,
        "total": NUM,
        "currency": T,
        "shipped_at": {"type": ["string", "null"], "format": "date-time"},
        "tracking_number": T,
        "created_at": DT,
        "updated_at": DT,
        "notes": T,
    },
}
USER = {
    "type": "object",
    "required": ["id", "username", "email", "role"],
    "properties": {
        "id": T,
        "username": T,
        "email": EMAIL,
        "full_name": T,
        "role": {"type": "string", "enum": ["admin", "member", "viewer"]},
        "is_admin": {"type": "boolean"},
        "last_login_at": DT,
        "avatar_url": {"type": "string", "format": "uri"},
        "department": T,
        "manager_id": T,
        "timezone": T,
        "locale": T,
    },
}
SHOP = {
    "openapi": "3.0.0",
    "info": {"title": "Shop", "version": "1"},
    "paths": {
        **_collection("products", "Product", PRODUCT),
        **_collection("orders", "Order", ORDER),
    },
}
ACCOUNT = {"type": "object", "required": ["id", "name"], "properties": {"id": T, "name": T}}
TRANSFER = {
    "type": "object",
    "required": ["id", "from_account_id", "to_account_id", "amount"],
    "properties": {
        "id": T,
        "from_account_id": T,
        "to_account_id": T,
        "amount": NUM,
        "memo": T,
    },
}
BANK = {
    "openapi": "3.0.0",
    "info": {"title": "Bank", "version": "1"},
    "paths": {
        **_collection("accounts", "Account", ACCOUNT),
        **_collection("transfers", "Transfer", TRANSFER),
    },
}
TEAM = {
    "openapi": "3.0.0",
    "info": {"title": "Team", "version": "1"},
    "paths": {**_collection("users", "User", USER)},
}

SEED_PRODUCTS = """\
    for i in range(size):
        product = pool.product_at(i)
        created = pool.created(rng, now)
        self.put(
            "products",
            Product(
                id=self.new_id("pro"),
                name=product.name,
                sku=product.sku,
                price=round(product.price, 2),
                compare_at_price=round(product.price * 1.2, 2),
                inventory_quantity=rng.randint(1, 20),
                weight_grams=rng.randrange(100, 15001, 50),
                vendor=pool.text("software_vendor", rng),
                is_published=rng.random() < 0.5,
                created_at=created,
            ),
        )
"""
SEED_ORDERS = """\
    products_ids = list(self.state.products)
    cast = pool.cast(rng)
    order_number_list = pool.distinct("order_number", rng, size)
    for i in range(size):
        person = cast.subject()
        company = pool.company(person.company)
        product = rng.choice(pool.products)
        status = _pick_state(rng, ("pending", "paid", "shipped"), get_args(Status))
        quantity = rng.randint(1, 20)
        unit_price = round(product.price, 2)
        subtotal = round(quantity * unit_price, 2)
        tax_total = round(subtotal * rng.uniform(0.05, 0.25), 2)
        shipping_total = round(rng.uniform(5.0, 80.0), 2)
        created = pool.created(rng, now)
        shipped_at = pool.stamp(rng, now, created, status in ("shipped", "delivered"))
        updated = pool.moment("past", rng, now, pool.latest(created, shipped_at))
        record_id = self.new_id("ord")
        self.put(
            "orders",
            Order(
                id=record_id,
                order_number=order_number_list[i],
                customer_email=person.email,
                status=status,
                line_items=[
                    LineItem(
                        product_id=rng.choice(products_ids),
                        quantity=quantity,
                        unit_price=unit_price,
                    ),
                ],
                subtotal=subtotal,
                tax_total=tax_total,
                shipping_total=shipping_total,
                total=round(subtotal + tax_total + shipping_total, 2),
                currency=company.currency,
                shipped_at=shipped_at,
                tracking_number=pool.only(
                    status in ("shipped", "delivered"),
                    pool.text("tracking_number", rng),
                ),
                created_at=created,
                updated_at=updated,
                notes=pool.text("body:order", rng),
            ),
        )
        owners[record_id] = person
"""
SEED_USERS = """\
    cast = pool.cast(rng, staff=True)
    for _ in range(size):
        person = cast.subject()
        created = pool.joined(rng, person, now)
        record_id = self.new_id("use")
        self.put(
            "users",
            User(
                id=record_id,
                username=person.username,
                email=person.email,
                full_name=person.full_name,
                role=rng.choice(get_args(Role)),
                is_admin=rng.random() < 0.5,
                last_login_at=pool.moment("past", rng, now, created),
                avatar_url=pool.url("avatar", rng, "service", "users"),
                department=person.department,
                timezone=pool.org.timezone,
                locale=pool.text("locale", rng),
            ),
        )
        owners[record_id] = person
"""

SEED_TRANSFERS = """\
    accounts_ids = list(self.state.accounts)
    for _ in range(size):
        account_picks = pool.picks(rng, accounts_ids, 2)
        self.put(
            "transfers",
            Transfer(
                id=self.new_id("tra"),
                from_account_id=account_picks[0],
                to_account_id=account_picks[1],
                amount=round(rng.uniform(200.0, 60000.0), 2),
                memo=pool.text("body:generic", rng),
            ),
        )
"""


@pytest.mark.parametrize(
    ("document", "name", "want"),
    [
        (SHOP, "_seed_products", SEED_PRODUCTS),
        (SHOP, "_seed_orders", SEED_ORDERS),
        (TEAM, "_seed_users", SEED_USERS),
        (BANK, "_seed_transfers", SEED_TRANSFERS),
    ],
)
def test_the_seed_method_written_for_a_collection(document: dict, name: str, want: str) -> None:
    assert _methods(document)[name].splitlines() == want.splitlines()
