"""E-commerce services: storefront orders and catalog, inventory, shipping and returns."""

from __future__ import annotations

from ..fields import (
    address,
    arr,
    boolean,
    currency,
    date,
    dt,
    email,
    enum,
    integer,
    money,
    obj,
    person,
    phone,
    ref,
    s,
    tags,
    url,
)
from ..model import Action, Resource, Service

ORDER_STATUS = ("pending", "paid", "fulfilled", "partially_refunded", "refunded", "canceled")

STOREFRONT = Service(
    name="storefront",
    title="Shopline Storefront",
    domain="ecommerce",
    format="openapi30_yaml",
    desc=(
        "Shopline powers an online store: product catalog, customers and orders "
        "from checkout to fulfillment."
    ),
    resources=(
        Resource(
            "product",
            "A product for sale, identified by SKU.",
            (
                s(
                    "sku",
                    "Stock-keeping unit; unique and shared with inventory and shipping.",
                    req=True,
                    immut=True,
                    filt=True,
                    ex="NW-TEA-EARLGREY",
                ),
                s("title", "Product name on the store.", req=True, ex="Earl Grey tea, 250 g"),
                s("description", "Product description (HTML)."),
                money("price", "Selling price.", req=True, ex=12.5),
                currency("currency", "Currency of `price`.", listed=True, req=True),
                money(
                    "compare_at_price",
                    "Original price shown struck through during a sale.",
                    null=True,
                ),
                enum(
                    "status",
                    ("draft", "active", "archived"),
                    "Whether the product is sold.",
                    default="draft",
                    filt=True,
                ),
                integer("weight_grams", "Shipping weight.", minimum=0),
                url("image_url", "Main product image."),
                tags(),
            ),
            search_fields=("sku", "title", "description"),
            docs={
                "delete": (
                    "Products that appear on orders cannot be deleted; archive "
                    "them by setting `status` to `archived` instead."
                )
            },
        ),
        Resource(
            "customer",
            "A store customer account.",
            (
                email("email", "Customer's email; unique.", req=True, filt=True),
                person("first_name", "Given name."),
                person("last_name", "Family name."),
                phone("phone", "Phone number."),
                address("default_address", "Default shipping address."),
                boolean("accepts_marketing", "Opted in to marketing email.", default=False),
                integer("orders_count", "Orders placed.", ro=True),
                money("total_spent", "Lifetime spend.", ro=True),
                currency("currency", "Currency of `total_spent`: the store currency.", ro=True),
            ),
            search_fields=("email", "first_name", "last_name", "phone"),
        ),
        Resource(
            "order",
            "A customer's order: items, totals, payment and fulfillment status.",
            (
                s("order_number", "Order number shown to the customer.", ro=True, ex="#1042"),
                ref("customer_id", "customer", "Ordering customer.", filt=True),
                email("customer_email", "Email for order confirmations.", req=True, filt=True),
                arr(
                    "line_items",
                    obj(
                        "line_item",
                        (
                            s("sku", "Product SKU.", req=True),
                            integer("quantity", "Units.", req=True, minimum=1),
                            money("unit_price", "Price per unit charged.", req=True),
                        ),
                        "One ordered product.",
                    ),
                    "Ordered products.",
                    req=True,
                ),
                money("subtotal", "Sum of line items.", ro=True),
                money("shipping_total", "Shipping charged.", default=0),
                money("total", "Amount charged.", ro=True, ex=62.5),
                currency("currency", "Order currency.", listed=True, req=True),
                address("shipping_address", "Where to ship.", req=True),
                enum("status", ORDER_STATUS, "Financial status.", ro=True, filt=True),
                enum(
                    "fulfillment_status",
                    ("unfulfilled", "partial", "fulfilled"),
                    "Shipping progress.",
                    ro=True,
                    filt=True,
                ),
                s("tracking_number", "Carrier tracking number once shipped.", ro=True, null=True),
                s("note", "Customer's note at checkout."),
            ),
            search_fields=("order_number", "customer_email"),
            docs={
                "create": (
                    "Creating an order through the API does not charge the customer; record "
                    "the payment separately."
                )
            },
        ),
    ),
    actions=(
        Action(
            "cancel_order",
            "order",
            "Cancel an order",
            "Cancels an unfulfilled order, restocks items and optionally refunds the payment.",
            params=(
                enum(
                    "reason",
                    ("customer", "fraud", "inventory", "declined", "other"),
                    "Cancellation reason.",
                    req=True,
                ),
                boolean("refund", "Refund the payment.", default=True),
                boolean("notify_customer", "Email the customer.", default=True),
            ),
            verb="cancel",
        ),
        Action(
            "fulfill_order",
            "order",
            "Fulfill an order",
            (
                "Marks items as shipped with a tracking number and emails the customer "
                "a shipping confirmation."
            ),
            params=(
                s("tracking_number", "Carrier tracking number.", req=True),
                enum("carrier", ("ups", "fedex", "usps", "dhl", "other"), "Carrier.", req=True),
                url("tracking_url", "Tracking page."),
            ),
            verb="fulfill",
        ),
        Action(
            "refund_order",
            "order",
            "Refund an order",
            "Refunds all or part of a paid order to the original payment method.",
            params=(
                money("amount", "Amount to refund; defaults to the full total."),
                s("reason", "Reason shown to the customer."),
            ),
            verb="refund",
        ),
    ),
)

INVENTORY = Service(
    name="inventory",
    title="Stockroom Inventory",
    domain="ecommerce",
    format="functions",
    desc="Stockroom tracks stock levels per SKU across warehouses, with adjustments and transfers.",
    resources=(
        Resource(
            "warehouse",
            "A location that holds stock.",
            (
                s("name", "Warehouse name.", req=True, ex="Oakland DC"),
                s("code", "Short code.", req=True, ex="OAK"),
                address("address", "Warehouse address.", req=True),
                email("manager_email", "Warehouse manager."),
            ),
            ops=("create", "get", "list", "update"),
        ),
        Resource(
            "stock_item",
            "The stock of one SKU in one warehouse.",
            (
                s(
                    "sku",
                    "Product SKU, as in the storefront catalog.",
                    req=True,
                    immut=True,
                    filt=True,
                    ex="NW-TEA-EARLGREY",
                ),
                ref(
                    "warehouse_id",
                    "warehouse",
                    "Warehouse holding the stock.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                integer("on_hand", "Units physically in the warehouse.", ro=True),
                integer("reserved", "Units reserved for open orders.", ro=True),
                integer("available", "Units that can be sold: on hand minus reserved.", ro=True),
                integer(
                    "reorder_point",
                    "Reorder when available falls below this.",
                    default=0,
                    minimum=0,
                ),
                s("bin_location", "Shelf or bin code.", ex="A-12-3"),
            ),
            search_fields=("sku", "bin_location"),
        ),
    ),
    actions=(
        Action(
            "adjust_stock",
            "stock_item",
            "Adjust stock",
            (
                "Adds or removes units of a stock item, e.g. after a count, damage or a "
                "received purchase order. Returns the updated stock item."
            ),
            params=(
                integer(
                    "quantity_change", "Units to add (positive) or remove (negative).", req=True
                ),
                enum(
                    "reason",
                    ("count", "damaged", "received", "returned", "lost"),
                    "Why the stock changed.",
                    req=True,
                ),
                s("reference", "Purchase order or return reference."),
            ),
            verb="adjust",
        ),
        Action(
            "transfer_stock",
            "stock_item",
            "Transfer stock",
            "Moves units of a SKU from one warehouse to another.",
            params=(
                s("sku", "SKU to move.", req=True),
                ref("from_warehouse_id", "warehouse", "Source warehouse.", req=True),
                ref("to_warehouse_id", "warehouse", "Destination warehouse.", req=True),
                integer("quantity", "Units to move.", req=True, minimum=1),
            ),
            returns=(
                s("transfer_id", "Transfer reference.", req=True),
                enum("status", ("in_transit", "completed"), "Transfer status.", req=True),
            ),
            on_item=False,
            path="/transfers",
        ),
        Action(
            "get_low_stock",
            "stock_item",
            "Low stock report",
            "Lists stock items whose available quantity is at or below their reorder point.",
            params=(ref("warehouse_id", "warehouse", "Limit the report to one warehouse."),),
            returns=(
                arr(
                    "items",
                    obj(
                        "low",
                        (
                            s("sku", "SKU."),
                            ref("warehouse_id", "warehouse", "Warehouse."),
                            integer("available", "Available units."),
                            integer("reorder_point", "Reorder point."),
                        ),
                        "A low stock item.",
                    ),
                    "Items to reorder.",
                    req=True,
                ),
            ),
            on_item=False,
            method="GET",
            read_only=True,
            verb="low",
        ),
    ),
)

SHIPPING = Service(
    name="shipping",
    title="Parcelpoint Shipping",
    domain="ecommerce",
    format="openapi30_yaml",
    desc="Parcelpoint compares carrier rates, buys labels, schedules pickups and tracks parcels.",
    resources=(
        Resource(
            "shipment",
            "A parcel from your warehouse to a recipient, with its label and tracking.",
            (
                s("order_id", "Store order being shipped.", filt=True, ex="ord_7c9e6679"),
                person("recipient_name", "Recipient.", req=True),
                email("recipient_email", "Recipient's email for tracking updates.", req=True),
                phone("recipient_phone", "Recipient's phone for the carrier."),
                address("ship_to", "Destination.", req=True),
                address("ship_from", "Origin; defaults to the account address."),
                integer("weight_grams", "Parcel weight.", req=True, minimum=1),
                enum("carrier", ("ups", "fedex", "usps", "dhl"), "Carrier.", filt=True),
                enum(
                    "service_level", ("ground", "express", "overnight"), "Speed.", default="ground"
                ),
                s("tracking_number", "Carrier tracking number.", ro=True, null=True, filt=True),
                url("label_url", "Printable label PDF.", ro=True, null=True),
                money("postage", "Label cost.", ro=True),
                currency("currency", "Currency of `postage`.", ro=True),
                enum(
                    "status",
                    (
                        "created",
                        "label_purchased",
                        "in_transit",
                        "delivered",
                        "exception",
                        "canceled",
                    ),
                    "Shipment status.",
                    ro=True,
                    filt=True,
                ),
                date("estimated_delivery", "Carrier's delivery estimate.", ro=True, null=True),
            ),
            search_fields=("recipient_name", "tracking_number", "order_id"),
            docs={
                "create": (
                    "Creating a shipment does not buy postage: compare prices "
                    "with `POST /rates` and buy the label with `POST "
                    "/shipments/{shipment_id}/label`."
                )
            },
        ),
        Resource(
            "pickup",
            "A carrier pickup from a warehouse.",
            (
                enum("carrier", ("ups", "fedex", "usps", "dhl"), "Carrier.", req=True),
                address("address", "Pickup address.", req=True),
                date("pickup_date", "Pickup day.", req=True),
                integer("parcel_count", "Parcels to collect.", req=True, minimum=1),
                s("confirmation_number", "Carrier confirmation.", ro=True),
            ),
            ops=("create", "get", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "buy_label",
            "shipment",
            "Buy a label",
            (
                "Buys the cheapest label for the shipment's carrier and service level "
                "and returns the shipment with tracking number and label URL."
            ),
            verb="label",
        ),
        Action(
            "track_shipment",
            "shipment",
            "Track a shipment",
            "Returns the latest carrier tracking events.",
            returns=(
                s("tracking_number", "Tracking number.", req=True),
                enum(
                    "status",
                    ("label_purchased", "in_transit", "out_for_delivery", "delivered", "exception"),
                    "Current status.",
                    req=True,
                ),
                arr(
                    "events",
                    obj(
                        "event",
                        (
                            dt("occurred_at", "When."),
                            s("location", "Where."),
                            s("description", "What happened."),
                        ),
                        "A tracking event.",
                    ),
                    "Tracking events, newest first.",
                    req=True,
                ),
            ),
            method="GET",
            read_only=True,
            verb="tracking",
        ),
        Action(
            "cancel_shipment",
            "shipment",
            "Void a label",
            "Voids an unused label and refunds the postage.",
            verb="cancel",
            destructive=True,
        ),
        Action(
            "get_rates",
            "shipment",
            "Compare rates",
            "Quotes postage from every carrier for a parcel.",
            params=(
                s("to_postal_code", "Destination postal code.", req=True),
                s(
                    "to_country",
                    "Destination country (ISO 3166-1 alpha-2).",
                    req=True,
                    pattern=r"^[A-Z]{2}$",
                ),
                integer("weight_grams", "Parcel weight.", req=True),
            ),
            returns=(
                arr(
                    "rates",
                    obj(
                        "rate",
                        (
                            s("carrier", "Carrier."),
                            s("service_level", "Service."),
                            money("amount", "Postage."),
                            currency("currency", "Currency."),
                            integer("transit_days", "Days in transit."),
                        ),
                        "One quote.",
                    ),
                    "Quotes, cheapest first.",
                    req=True,
                ),
            ),
            on_item=False,
            path="/rates",
        ),
    ),
)

RETURNS = Service(
    name="returns",
    title="Boomerang Returns",
    domain="ecommerce",
    format="functions",
    tool_types=True,
    desc="Returns and exchanges portal for online stores: return requests, inspection and refunds.",
    resources=(
        Resource(
            "return_request",
            "A customer's request to return items from an order.",
            (
                s(
                    "order_id",
                    "Store order the items came from.",
                    req=True,
                    filt=True,
                    ex="ord_7c9e6679",
                ),
                email("customer_email", "Customer requesting the return.", req=True, filt=True),
                arr(
                    "items",
                    obj(
                        "item",
                        (
                            s("sku", "Returned SKU.", req=True),
                            integer("quantity", "Units.", req=True, minimum=1),
                            enum(
                                "reason",
                                (
                                    "damaged",
                                    "wrong_item",
                                    "too_small",
                                    "too_large",
                                    "not_as_described",
                                    "changed_mind",
                                ),
                                "Return reason.",
                                req=True,
                            ),
                        ),
                        "A returned item.",
                    ),
                    "Items being returned.",
                    req=True,
                ),
                enum(
                    "resolution",
                    ("refund", "exchange", "store_credit"),
                    "What the customer wants.",
                    req=True,
                ),
                enum(
                    "status",
                    ("requested", "approved", "rejected", "received", "refunded", "closed"),
                    "Return status.",
                    ro=True,
                    filt=True,
                ),
                s(
                    "return_tracking_number",
                    "Tracking number of the return label.",
                    ro=True,
                    null=True,
                ),
                money("refund_amount", "Amount refunded.", ro=True),
                currency("currency", "Currency of the refund.", ro=True),
            ),
            ops=("create", "get", "list", "update", "search"),
            search_fields=("order_id", "customer_email"),
        ),
    ),
    actions=(
        Action(
            "approve_return_request",
            "return_request",
            "Approve",
            "Approve a requested return and email the customer a prepaid return label.",
            verb="approve",
        ),
        Action(
            "reject_return_request",
            "return_request",
            "Reject",
            "Reject a return, e.g. outside the 30-day window, with a reason for the customer.",
            params=(s("reason", "Reason shown to the customer.", req=True),),
            verb="reject",
        ),
        Action(
            "receive_return_request",
            "return_request",
            "Mark received",
            "Record that the returned items arrived at the warehouse and their condition.",
            params=(
                enum(
                    "condition",
                    ("resellable", "damaged", "missing_items"),
                    "Condition of the items.",
                    req=True,
                ),
            ),
            verb="receive",
        ),
        Action(
            "refund_return_request",
            "return_request",
            "Issue refund",
            "Refund a received return to the original payment method or as store credit.",
            params=(
                money("amount", "Amount to refund; defaults to the items' price.", ex=25.0),
                currency("currency", "Currency of `amount`."),
            ),
            verb="refund",
        ),
    ),
)

SERVICES: tuple[Service, ...] = (STOREFRONT, INVENTORY, SHIPPING, RETURNS)
