"""Record ids of the types real APIs declare: integers, UUIDs, strings matching a pattern.

Inside a service every id is a string (collections are ``dict[str, Record]``); these helpers
make new ids of the declared shape, deterministically from the state's counter, and
``IntId``/``IntRef`` show integer ids as integers on the wire while keeping them strings inside.
"""

from __future__ import annotations

import hashlib
import random
import re
import string
import uuid
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING, Annotated, Any

import rstr
from pydantic import AfterValidator, BeforeValidator, PlainSerializer
from rstr.xeger import STAR_PLUS_LIMIT, sre_parse

from library.runtime.semantic import ID, REF_MAX_LENGTH, Semantic

if TYPE_CHECKING:
    from library.runtime.service import Service

MAX_TRIES = 32


def _text_of_int(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _int_of_text(value: str) -> int | str:
    return int(value) if value.lstrip("-").isdigit() else value


# A record id that is an integer on the wire and a string inside the service.
IntId = Annotated[
    str,
    BeforeValidator(_text_of_int),
    PlainSerializer(_int_of_text, return_type=int, when_used="json"),
]


class IntRef:
    """``IntRef["orders"]``: a tool parameter holding the integer id of an ``orders`` record;
    the tool body receives it as the string the collection is keyed by."""

    def __class_getitem__(cls, resource: str) -> Any:
        return Annotated[int, Semantic(ID, resource), AfterValidator(str)]


def int_id(service: Service) -> str:
    """The next integer id: the service's counter, so ids never repeat after a delete."""
    service.state.seq += 1
    return str(service.state.seq)


def uuid_id(service: Service, prefix: str) -> str:
    """A UUID derived from the service's counter (deterministic under replay)."""
    seed = service.new_id(prefix)
    return str(uuid.UUID(bytes=hashlib.blake2b(seed.encode(), digest_size=16).digest(), version=4))


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@lru_cache(maxsize=512)
def _parsed(pattern: str) -> Any:
    return sre_parse.parse(pattern)


PLAIN = string.ascii_letters + string.digits + "-_."  # what ``.`` and ``[^...]`` draw from
# Members of each parsed character class, keyed by the class's id (the class itself is kept
# alongside so the id is never reused).
_CLASS_MEMBERS: dict[int, tuple[Any, list[str]]] = {}


class _Xeger(rstr.Rstr):
    """rstr's generator, with each pattern's parse and each character class's members
    cached: rstr re-derives both on every draw, and seeding a world draws thousands of
    patterned values (two thirds of its time went there). Negated classes list their
    members in a fixed order, so draws do not depend on the process's string hashing.
    ``repeat_limit`` caps the repeats of ``*``, ``+`` and wide ``{m,n}`` (rstr's own cap is
    100 per repeat, so an ARN of five ``[^:]+`` parts came out 300 characters long)."""

    repeat_limit = STAR_PLUS_LIMIT

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        # "any character" and "any but ...": plain characters, as a person would write them
        # (rstr draws from all of ``string.printable``: tabs, newlines, form feeds)
        self._cases = {
            **self._cases,
            "any": lambda _: self._random.choice(PLAIN),
            "not_literal": lambda x: self._random.choice(PLAIN.replace(chr(x), "")),
        }

    def _handle_repeat(self, start_range: int, end_range: int, value: Any) -> str:
        end_range = min(end_range, start_range + self.repeat_limit)
        return super()._handle_repeat(start_range, end_range, value)

    def xeger(self, string_or_regex: str | re.Pattern[str]) -> str:
        pattern = string_or_regex if isinstance(string_or_regex, str) else string_or_regex.pattern
        result = self._build_string(_parsed(pattern))
        self._cache.clear()
        return result

    def _handle_in(self, value: Any) -> Any:
        known = _CLASS_MEMBERS.get(id(value))
        if known is None or known[0] is not value:
            members = list(chain(*(self._handle_state(i) for i in value)))
            if members[0] is False:  # a negated class: plain characters it allows, if any
                allowed = set(PLAIN).difference(members[1:])
                members = sorted(allowed or set(string.printable).difference(members[1:]))
            known = _CLASS_MEMBERS[id(value)] = (value, members)
        return self._random.choice(known[1])


def pattern_id(
    service: Service,
    prefix: str,
    pattern: str,
    taken: Any = (),
    min_length: int = 0,
    max_length: int | None = None,
) -> str:
    """A new id matching ``pattern`` within the length bounds and not in ``taken``: the
    runtime's own id when it fits, else a string drawn from the pattern (``rstr``), seeded by
    the service's counter. Ids are passed as ``Ref`` parameters, so none is longer than a
    ``Ref`` takes, whatever the spec allows."""
    high = REF_MAX_LENGTH if max_length is None else min(max_length, REF_MAX_LENGTH)
    seed = service.new_id(prefix)
    fits = min_length <= len(seed) <= high and seed not in taken
    if fits and _compiled(pattern).search(seed) is not None:
        return seed
    found = draw_pattern(random.Random(seed), pattern, min_length, high, taken)
    if found is None:
        raise ValueError(f"no id matching {pattern!r} could be drawn")
    return found


def draw_pattern(
    rng: random.Random,
    pattern: str,
    min_length: int = 0,
    max_length: int | None = None,
    taken: Any = (),
    tries: int = MAX_TRIES,
) -> str | None:
    """A string matching ``pattern`` within the length bounds and not in ``taken``, drawn with
    ``rstr`` from ``rng``, or None when ``tries`` draws found none. A draw longer than
    ``max_length`` halves the repeats that ``*``, ``+`` and wide ``{m,n}`` may add; one shorter
    than ``min_length`` is repeated (rstr stops at 100 repeats)."""
    compiled = _compiled(pattern)
    xeger = _Xeger(rng)
    for _ in range(tries):
        try:
            drawn = xeger.xeger(pattern)
        except Exception:  # a construct rstr cannot draw from (lookbehinds, backreferences)
            return None
        longer = (drawn or "x") * (min_length // max(len(drawn), 1) + 1)
        for text in (drawn, drawn[:max_length] if max_length is not None else drawn, longer):
            fits = len(text) >= min_length and (max_length is None or len(text) <= max_length)
            if fits and text not in taken and compiled.search(text) is not None:
                return text
        if max_length is not None and len(drawn) > max_length:
            xeger.repeat_limit //= 2
    return None


def pattern_text(
    seed: random.Random | str, pattern: str, min_length: int = 0, max_length: int | None = None
) -> str:
    """A string matching ``pattern`` within the length bounds, drawn with ``rstr`` from a seeded
    generator (a field value where the spec declares a pattern)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    found = draw_pattern(rng, pattern, min_length, max_length)
    if found is None:
        raise ValueError(f"no text matching {pattern!r} could be drawn")
    return found


def pattern_or(
    value: object,
    seed: random.Random | str,
    pattern: str,
    min_length: int = 0,
    max_length: int | None = None,
) -> str:
    """``value`` where it is text matching ``pattern`` within the bounds (a channel named
    by its meaning, ``billing-team``), else a string drawn to match (``pattern_text``)."""
    if (
        isinstance(value, str)
        and re.fullmatch(pattern, value) is not None
        and len(value) >= min_length
        and (max_length is None or len(value) <= max_length)
    ):
        return value
    return pattern_text(seed, pattern, min_length, max_length)


def fit_text(text: str, min_length: int = 0, max_length: int | None = None) -> str:
    """A seeded text cut or padded to the spec's length bounds."""
    if max_length is not None and len(text) > max_length:
        text = text[:max_length].rstrip() or text[:max_length]
    if len(text) < min_length:
        text = text + "0" * (min_length - len(text))
    return text


def int_ref(value: str | None) -> int | None:
    """A seeded reference to a record with integer ids, as the integer the spec shows."""
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def uuid_text(seed: random.Random | str) -> str:
    """A UUID drawn from a seeded generator (a field whose format is ``uuid``)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


class AnyRef:
    """``AnyRef["videos"]``: an id parameter the spec lets be a number or a text (``17`` or a
    UUID); the tool body receives the text the collection is keyed by."""

    def __class_getitem__(cls, resource: str) -> Any:
        return Annotated[int | str, Semantic(ID, resource), AfterValidator(str)]
