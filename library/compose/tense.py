"""English past tense of request verbs, for saying what was done ("close" -> "closed",
"reply" -> "replied", "partially update the order" -> "partially updated the order")."""

from __future__ import annotations

import re

# Past tenses that the regular rules get wrong (tool summaries start with a request verb).
_IRREGULAR = {
    "bid": "bid",
    "bind": "bound",
    "bring": "brought",
    "build": "built",
    "buy": "bought",
    "cast": "cast",
    "choose": "chose",
    "cut": "cut",
    "do": "did",
    "draw": "drew",
    "find": "found",
    "forbid": "forbade",
    "forget": "forgot",
    "freeze": "froze",
    "get": "got",
    "give": "gave",
    "hang": "hung",
    "hold": "held",
    "keep": "kept",
    "lay": "laid",
    "lead": "led",
    "leave": "left",
    "lend": "lent",
    "let": "let",
    "make": "made",
    "meet": "met",
    "override": "overrode",
    "overwrite": "overwrote",
    "pay": "paid",
    "prepay": "prepaid",
    "put": "put",
    "quit": "quit",
    "read": "read",
    "rebuild": "rebuilt",
    "redo": "redid",
    "rerun": "reran",
    "resend": "resent",
    "reset": "reset",
    "rewrite": "rewrote",
    "run": "ran",
    "say": "said",
    "sell": "sold",
    "send": "sent",
    "set": "set",
    "shut": "shut",
    "spend": "spent",
    "split": "split",
    "take": "took",
    "tell": "told",
    "undo": "undid",
    "unbind": "unbound",
    "unfreeze": "unfroze",
    "upset": "upset",
    "withdraw": "withdrew",
    "withhold": "withheld",
    "write": "wrote",
}
# Stressed on the last syllable: the final consonant doubles (submit -> submitted).
_DOUBLES = frozenset(
    [
        "acquit",
        "admit",
        "commit",
        "compel",
        "confer",
        "control",
        "defer",
        "deter",
        "emit",
        "equip",
        "expel",
        "forbid",
        "infer",
        "omit",
        "occur",
        "patrol",
        "permit",
        "prefer",
        "propel",
        "rebut",
        "recur",
        "refer",
        "regret",
        "remit",
        "repel",
        "submit",
        "transfer",
        "transmit",
        "unpin",
        "unplug",
        "unstar",
        "unwrap",
        "unzip",
    ]
)
_VOWELS = "aeiou"
# Verbs that end like adverbs ("reply to the message" is not "partially update ...").
_LY_VERBS = frozenset(
    [
        "ally",
        "apply",
        "bully",
        "comply",
        "dally",
        "fly",
        "imply",
        "multiply",
        "rally",
        "rely",
        "reply",
        "supply",
        "tally",
    ]
)


def past(verb: str) -> str:
    """``close`` -> ``closed``, ``reply`` -> ``replied``, ``send`` -> ``sent``, ``tag`` ->
    ``tagged``: English past tense of a request verb, for saying what was done."""
    low = verb.lower()
    if low in _IRREGULAR:
        out = _IRREGULAR[low]
    elif low.endswith("e"):
        out = low + "d"
    elif low.endswith("y") and len(low) > 1 and low[-2] not in _VOWELS:
        out = low[:-1] + "ied"
    elif low in _DOUBLES or _short_cvc(low):
        out = low + low[-1] + "ed"
    else:
        out = low + "ed"
    return verb[:1] + out[1:] if verb[:1].isupper() else out


def _short_cvc(word: str) -> bool:
    """One syllable ending consonant-vowel-consonant (stop, tag, scan, star): doubles."""
    if len(word) < 3 or not word.isalpha() or word[-1] in "wxy" + _VOWELS:
        return False
    if word[-2] not in _VOWELS or word[-3] in _VOWELS:
        return False
    return len(re.findall(r"[aeiouy]+", word)) == 1


def past_phrase(phrase: str) -> str:
    """A request (``partially update the order``) in the past tense (``partially updated
    the order``)."""
    words = phrase.split(" ")
    first = words[0].lower()
    at = 1 if len(words) > 1 and first.endswith("ly") and first not in _LY_VERBS else 0
    words[at] = past(words[at])
    if len(words) > at + 2 and words[at + 1] in ("and", "or"):  # "solve and close the ticket"
        words[at + 2] = past(words[at + 2])
    return " ".join(words)
