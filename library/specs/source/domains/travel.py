"""Business travel services: flights, hotels and car rental."""

from __future__ import annotations

from ..fields import (
    arr,
    boolean,
    company,
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
)
from ..model import Action, Resource, Service

CABINS = ("economy", "premium_economy", "business", "first")

FLIGHTS = Service(
    name="flights",
    title="Skyway Flights",
    domain="travel",
    format="functions",
    tool_types=True,
    desc="Corporate flight booking: search fares, book, change seats, check in and cancel.",
    resources=(
        Resource(
            "booking",
            "A flight reservation for one or more passengers, with its itinerary and fare.",
            (
                s("confirmation_code", "Airline record locator.", ro=True, ex="LH7X2Q"),
                s(
                    "offer_id",
                    "Fare offer returned by `search_flights`.",
                    req=True,
                    immut=True,
                    ex="off_9a8b7c6d",
                ),
                arr(
                    "passengers",
                    obj(
                        "passenger",
                        (
                            person("first_name", "Given name as on the passport.", req=True),
                            person("last_name", "Family name as on the passport.", req=True),
                            date("date_of_birth", "Date of birth.", req=True),
                            email("email", "Passenger email for notices.", req=True),
                            phone("phone", "Passenger mobile."),
                            s("seat", "Assigned seat.", ex="14C"),
                        ),
                        "A traveller.",
                    ),
                    "Travellers on the booking.",
                    req=True,
                ),
                email("booker_email", "Employee who made the booking.", req=True, filt=True),
                s("origin", "IATA code of the departure airport.", ro=True, ex="SFO"),
                s("destination", "IATA code of the arrival airport.", ro=True, ex="FRA"),
                dt("departs_at", "First departure.", ro=True),
                enum("cabin", CABINS, "Cabin class.", ro=True),
                money("total_price", "Total fare paid.", ro=True),
                currency("currency", "Fare currency.", ro=True),
                enum(
                    "status",
                    ("confirmed", "ticketed", "checked_in", "canceled"),
                    "Booking status.",
                    ro=True,
                    filt=True,
                ),
                s("cost_center", "Cost center charged for the trip.", ex="CC-4100"),
            ),
            ops=("create", "get", "list", "update"),
            docs={
                "update": (
                    "Only passenger contact details and the cost center can be changed; "
                    "itinerary changes need a new booking."
                )
            },
        ),
    ),
    actions=(
        Action(
            "search_flights",
            "booking",
            "Search fares",
            (
                "Search one-way fares between two airports on a date. Returns offers "
                "that can be booked with `create_booking`."
            ),
            params=(
                s("origin", "IATA departure airport.", req=True, ex="SFO"),
                s("destination", "IATA arrival airport.", req=True, ex="FRA"),
                date("departure_date", "Travel date.", req=True),
                integer("passengers", "Number of travellers.", default=1, minimum=1),
                enum("cabin", CABINS, "Cabin class.", default="economy"),
            ),
            returns=(
                arr(
                    "offers",
                    obj(
                        "offer",
                        (
                            s("offer_id", "Offer to book."),
                            s("airline", "Marketing airline."),
                            s("flight_number", "Flight number."),
                            dt("departs_at", "Departure."),
                            dt("arrives_at", "Arrival."),
                            integer("stops", "Stops."),
                            money("price", "Price for all passengers."),
                            currency("currency", "Currency."),
                        ),
                        "A fare offer.",
                    ),
                    "Offers, cheapest first.",
                    req=True,
                ),
            ),
            on_item=False,
            method="GET",
            read_only=True,
            path="/flights/search",
        ),
        Action(
            "cancel_booking",
            "booking",
            "Cancel",
            (
                "Cancel a booking. Refundable fares are refunded to the corporate card; "
                "others return a travel credit."
            ),
            params=(
                enum(
                    "reason",
                    ("change_of_plan", "illness", "duplicate", "other"),
                    "Reason.",
                    req=True,
                ),
            ),
            returns=(
                ref("booking_id", "booking", "The booking.", req=True),
                money("refund_amount", "Refunded amount.", req=True),
                currency("currency", "Currency.", req=True),
                s("credit_code", "Travel credit, when not refundable.", null=True),
            ),
            verb="cancel",
        ),
        Action(
            "check_in_booking",
            "booking",
            "Check in",
            "Check in every passenger within 24 hours of departure and return boarding pass links.",
            verb="check_in",
        ),
    ),
)

HOTELS = Service(
    name="hotels",
    title="Staylink Hotels",
    domain="travel",
    format="bfcl",
    desc="Hotel search and reservations for business travel.",
    resources=(
        Resource(
            "property",
            "A hotel that can be booked.",
            (
                s("name", "Hotel name.", ro=True, ex="Hotel Adlon Berlin"),
                s("city", "City.", ro=True, filt=True, ex="Berlin"),
                s(
                    "country",
                    "Country (ISO 3166-1 alpha-2).",
                    ro=True,
                    pattern=r"^[A-Z]{2}$",
                    ex="DE",
                ),
                integer("stars", "Star rating.", ro=True, filt=True),
                money("nightly_rate", "Lowest nightly rate.", ro=True),
                currency("currency", "Rate currency.", ro=True),
            ),
            plural="properties",
            ops=("get", "list", "search"),
            timestamps=False,
            search_fields=("name", "city"),
        ),
        Resource(
            "reservation",
            "A hotel stay booked for a guest.",
            (
                ref("property_id", "property", "Hotel.", req=True, immut=True, filt=True),
                person("guest_name", "Guest as on the ID.", req=True),
                email(
                    "guest_email",
                    "Guest email; the confirmation is sent here.",
                    req=True,
                    filt=True,
                ),
                phone("guest_phone", "Guest mobile."),
                date("check_in", "Arrival date.", req=True),
                date("check_out", "Departure date.", req=True),
                integer("rooms", "Rooms booked.", default=1, minimum=1),
                company("company_name", "Company for the corporate rate."),
                s("confirmation_number", "Hotel confirmation number.", ro=True, ex="HA-55821"),
                money("total_price", "Total for the stay.", ro=True),
                currency("currency", "Currency.", ro=True),
                enum(
                    "status",
                    ("confirmed", "canceled", "checked_in", "completed"),
                    "Status.",
                    ro=True,
                    filt=True,
                ),
            ),
            ops=("create", "get", "list", "update"),
        ),
    ),
    actions=(
        Action(
            "cancel_reservation",
            "reservation",
            "Cancel a reservation",
            (
                "Cancels a reservation. Free until 18:00 local time the day before "
                "arrival; later cancellations are charged one night."
            ),
            returns=(
                ref("reservation_id", "reservation", "The reservation.", req=True),
                money("cancellation_fee", "Fee charged.", req=True),
                currency("currency", "Currency.", req=True),
            ),
            verb="cancel",
        ),
        Action(
            "check_availability",
            "property",
            "Check availability",
            "Checks whether a hotel has rooms for the dates and quotes the total.",
            params=(
                date("check_in", "Arrival.", req=True),
                date("check_out", "Departure.", req=True),
                integer("rooms", "Rooms needed.", default=1),
            ),
            returns=(
                boolean("available", "Rooms are available.", req=True),
                money("total_price", "Total for the stay.", req=True),
                currency("currency", "Currency.", req=True),
            ),
            method="GET",
            read_only=True,
            verb="availability",
        ),
    ),
)

CAR_RENTAL = Service(
    name="car_rental",
    title="Roadie Car Rental",
    domain="travel",
    format="functions",
    desc="Rental cars for business trips: search vehicles at a location, book, extend and return.",
    resources=(
        Resource(
            "rental",
            "A car rental with pick-up and drop-off, driver and price.",
            (
                s("vehicle_class", "Requested class, e.g. compact or SUV.", req=True, ex="compact"),
                s("pickup_location", "Pick-up branch or airport code.", req=True, ex="FRA"),
                s("dropoff_location", "Drop-off branch; defaults to the pick-up location."),
                dt("pickup_at", "Pick-up time.", req=True),
                dt("dropoff_at", "Drop-off time.", req=True),
                person("driver_name", "Main driver.", req=True),
                email("driver_email", "Driver email.", req=True, filt=True),
                phone("driver_phone", "Driver mobile."),
                boolean("insurance", "Add full insurance.", default=True),
                s("confirmation_number", "Rental confirmation.", ro=True, ex="RD-884120"),
                money("total_price", "Estimated total.", ro=True),
                currency("currency", "Currency.", ro=True),
                enum(
                    "status",
                    ("reserved", "picked_up", "returned", "canceled"),
                    "Status.",
                    ro=True,
                    filt=True,
                ),
            ),
            ops=("create", "get", "list", "update", "delete"),
            docs={"delete": "Deleting a reservation before pick-up cancels it free of charge."},
        ),
    ),
    actions=(
        Action(
            "extend_rental",
            "rental",
            "Extend",
            "Extends an active rental to a later drop-off time and returns the new price.",
            params=(dt("dropoff_at", "New drop-off time.", req=True),),
            verb="extend",
        ),
        Action(
            "return_rental",
            "rental",
            "Return the car",
            (
                "Closes a rental at drop-off with mileage and fuel level; extra charges "
                "are added to the total."
            ),
            params=(
                integer("odometer_km", "Odometer reading.", req=True),
                enum(
                    "fuel_level",
                    ("full", "three_quarters", "half", "quarter", "empty"),
                    "Fuel level.",
                    req=True,
                ),
            ),
            verb="return",
        ),
    ),
)

SERVICES: tuple[Service, ...] = (FLIGHTS, HOTELS, CAR_RENTAL)
