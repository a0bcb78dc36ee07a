"""Resource, verb and read/write of a tool, from its HTTP method and path or from its name.

HTTP: the method plus the path's shape: a collection (``/contacts``), an item
(``/contacts/{id}``), or an action on either (``/tickets/{id}/assign``, ``/files:batchGet``).
Functions and MCP tools: the first verb-like word of the name (``get_``, ``list_``,
``create_``, ``send_``...) and the noun around it, checked against the tool's ``<x>_id``
parameters. Read/write follows from the verb unless the publisher declared it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from library.ingest.naming import (
    is_plural,
    pluralize,
    resource_name,
    singular,
    tokens,
    written_plural,
)
from library.toolspec import WRITE_VERBS, Access, Verb

V = Verb
# A verb word -> the verb. The first such word in a tool name decides.
VERB_WORDS: dict[str, Verb] = {
    **dict.fromkeys(
        ("get", "fetch", "retrieve", "read", "show", "view", "describe", "open", "load",
         "inspect", "check", "display", "cat", "pwd", "tail", "head", "peek", "download",
         "export", "lookup", "obtain", "see", "info", "count", "du", "wc", "diff", "explain",
         "can", "is", "has", "health", "status"),
        V.READ,
    ),
    **dict.fromkeys(("list", "browse", "enumerate", "ls", "index"), V.LIST),
    **dict.fromkeys(
        ("search", "find", "query", "filter", "locate", "grep", "match", "discover", "lookup"),
        V.SEARCH,
    ),
    **dict.fromkeys(
        ("create", "add", "new", "insert", "register", "book", "post", "upload", "submit", "make",
         "generate", "write", "mkdir", "touch", "append", "place", "purchase", "buy", "order",
         "schedule", "reserve", "save", "store", "import", "clone", "copy", "cp", "duplicate",
         "invite", "open"),
        V.CREATE,
    ),
    **dict.fromkeys(
        ("update", "set", "modify", "edit", "change", "patch", "rename", "move", "mv", "toggle",
         "enable", "disable", "reset", "replace", "mark", "adjust", "configure", "assign",
         "unassign", "upgrade", "downgrade", "scale", "switch", "lock", "unlock", "activate",
         "deactivate", "upsert", "attach", "detach", "link", "unlink", "tag", "untag", "rate",
         "fill", "press", "release", "extend", "renew", "reschedule", "postpone", "pin",
         "unpin", "star", "unstar", "label", "sort", "reorder"),
        V.UPDATE,
    ),
    **dict.fromkeys(
        ("delete", "remove", "rm", "rmdir", "destroy", "drop", "clear", "erase", "purge",
         "unset", "uninstall", "unsubscribe", "unregister", "deregister", "discard", "revoke"),
        V.DELETE,
    ),
    **dict.fromkeys(
        ("send", "transfer", "pay", "exchange", "return", "refund", "reboot", "restart", "run",
         "execute", "exec", "call", "invoke", "trigger", "connect", "disconnect", "suspend",
         "resume", "grant", "approve", "reject", "decline", "accept", "archive", "unarchive",
         "close", "reopen", "notify", "refuel", "reseat", "dismiss", "calculate", "compute",
         "convert", "translate", "estimate", "validate", "verify", "login", "logout", "signin",
         "signout", "authenticate", "authorize", "follow", "unfollow", "retweet", "comment",
         "mention", "like", "unlike", "share", "publish", "unpublish", "install", "sync",
         "commit", "checkout", "merge", "push", "pull", "rebase", "deploy", "apply", "request",
         "withdraw", "fund", "deposit", "resolve", "cancel", "think", "echo", "start", "stop",
         "pause", "play", "cd", "ping", "test", "analyze", "analyse", "summarize", "preview",
         "render", "print", "forward", "reply", "subscribe", "confirm", "complete", "finish",
         "process", "restore", "backup", "sign", "charge", "capture", "void", "ship", "deliver",
         "block", "unblock", "ban", "mute", "unmute", "upvote", "downvote", "vote", "report",
         "flag", "escalate", "rollback", "revert", "undo", "redo", "broadcast", "dial",
         "message", "email", "sms", "text", "tweet", "opt", "compare", "predict", "classify",
         "detect", "extract", "parse", "format", "encode", "decode", "encrypt", "decrypt",
         "hash", "compress", "resize", "crop", "transcribe", "scan", "crawl", "scrape",
         "monitor", "track", "watch", "unwatch", "recommend", "suggest", "plan", "shorten"),
        V.ACTION,
    ),
}  # fmt: skip
VERB_WORDS["lookup"] = V.SEARCH
VERB_WORDS["open"] = V.READ  # open_nodes, open_task_details: reads, not file handles

# Actions that change nothing: computing, checking, talking about data.
READ_ACTIONS = frozenset(
    {
        "calculate", "compute", "convert", "translate", "estimate", "validate", "verify",
        "think", "echo", "ping", "test", "analyze", "analyse", "summarize", "preview", "render",
        "print", "compare", "predict", "classify", "detect", "extract", "parse", "format",
        "encode", "decode", "hash", "recommend", "suggest", "plan", "transcribe", "scan",
        "crawl", "scrape", "cd", "explain",
    }
)  # fmt: skip
# Words that read as nouns inside paths (``/comments``, ``/posts``) more than as verbs.
_PATH_NOUNS = frozenset(
    {"comment", "post", "message", "email", "sms", "text", "tweet", "order", "index", "status",
     "info", "health", "report", "plan", "track", "format", "hash", "request", "test", "link",
     "tag", "label", "vote", "backup", "deposit", "charge", "export", "import", "release",
     "sign", "block", "scan", "process"}
)  # fmt: skip
_SKIP_SEGMENT = re.compile(
    r"^(v\d+([._]\d+)*[a-z]*|api|apis|rest|public|private|internal|latest|beta|alpha|"
    r"\d+([._]\d+)*|json|xml|[a-z]+\.[a-z]+\..*)$",
    re.IGNORECASE,
)
_PARAM = re.compile(r"^\{[^{}]+\}$|^:[A-Za-z_]\w*$")
_PREPOSITIONS = frozenset(
    {"by", "for", "from", "with", "in", "on", "at", "to", "of", "into", "via", "using", "based",
     "as", "and", "or", "per", "within", "between"}
)  # fmt: skip
_FILLER = frozenset(
    {"a", "an", "the", "all", "details", "detail", "info", "information", "new", "existing",
     "current", "pending", "delivered", "multiple", "my", "their", "recent", "latest",
     "specific", "single", "one", "many", "id", "ids", "list", "available", "next", "previous",
     "last", "first", "some", "any", "each", "every", "own", "other", "selected", "active",
     "out", "up", "off", "down", "back", "over"}
)  # fmt: skip


_VIEWS = frozenset({"ids", "all", "details", "detail", "info"})


@dataclass(frozen=True, slots=True)
class PathShape:
    collection: str | None  # resource of the last literal collection segment
    plural: bool  # that segment was written as a plural (``/contacts``, not ``/account``)
    item: bool  # the path ends on a parameter: one record
    action: str | None  # a verb word after the collection or item, if any
    params: dict[str, str]  # path parameter -> resource named by the segment before it
    # parameters after a collection beside the one naming its record: (parameter, collection)
    others: frozenset[tuple[str, str]] = frozenset()


def path_shape(path: str) -> PathShape:
    segments = [s for s in path.split("?")[0].split("/") if s]
    collection: str | None = None
    params: dict[str, str] = {}
    action: str | None = None
    item = plural = False
    runs: list[list[str]] = []  # path parameters one after another after one collection
    run: list[str] = []
    others: set[tuple[str, str]] = set()
    for i, seg in enumerate(segments):
        word, _, custom = seg.partition(":") if not seg.startswith(":") else (seg, "", "")
        if custom:  # Google-style custom method: /v1/{name}:verify, /files:batchGet
            custom_tokens = tokens(custom)
            verbs = [t for t in custom_tokens if t in VERB_WORDS]
            action = (verbs or list(custom_tokens) or [None])[0]
        if _PARAM.match(word):
            name = word.strip("{}:")
            if collection:
                params[name] = collection
                if item and i > 0 and _PARAM.match(segments[i - 1]):
                    run.append(name)
                else:
                    run = [name]
                    runs.append(run)
            item = True
            continue
        if not word or _SKIP_SEGMENT.match(word):
            continue
        word_tokens = tokens(word)
        last = i == len(segments) - 1
        if last and word_tokens and _is_path_verb(word_tokens[0]):
            action = word_tokens[0]  # /tickets/{id}/assign, /messages/send, /query
            # RPC style, verb and noun in one segment and nothing before it: /getMonitors,
            # /newMonitor (not /tickets/{id}/assignUser, an action on the ticket)
            named = resource_name(word_tokens[1:]) if len(word_tokens) > 1 else None
            if named and collection is None and not item:
                collection, item = named, False
                plural = written_plural(word_tokens[-1])
            break
        if collection is not None and word_tokens and set(word_tokens) <= _VIEWS:
            continue  # ``/notes/ids``, ``/users/{id}/details``: a view of the records before it
        resource = resource_name(word_tokens)
        if resource:
            collection, item = resource, False
            plural = written_plural(word_tokens[-1])
    for names in runs:
        # ``/routing-profiles/{InstanceId}/{RoutingProfileId}``: one of them is the record's
        # id (the one named for the collection, else the last); the others name other things
        # (an instance), which their own names say
        owner = params[names[0]]
        named = [n for n in names if _names_collection(n, owner)]
        keep = (named or names)[-1]
        for name in names:
            if name != keep:
                del params[name]
                others.add((name, owner))
    return PathShape(collection, plural, item, action, params, frozenset(others))


_KEY_WORDS = frozenset({"id", "ids", "key", "name", "slug", "code", "arn", "sid", "uuid"})


def foreign_path_params(paths: Iterable[str]) -> frozenset[tuple[str, str]]:
    """(path parameter, collection) pairs where a document shows the parameter is no id of
    the collection it follows: AWS Connect's ``/users/{InstanceId}/{UserId}`` says so of
    ``InstanceId`` under users, and ``/users/{InstanceId}`` (list or create one) follows it."""
    found: set[tuple[str, str]] = set()
    for path in paths:
        found |= path_shape(path).others
    return frozenset(found)


def _names_collection(param: str, collection: str) -> bool:
    """``RoutingProfileId`` and ``{id}`` name a routing profile; ``InstanceId`` does not."""
    words = tokens(param)
    while words and words[-1] in _KEY_WORDS:
        words = words[:-1]
    want = tokens(singular(collection))
    return not words or words == want[-len(words) :] or want == words[-len(want) :]


def _is_path_verb(word: str) -> bool:
    if word not in VERB_WORDS or word in _PATH_NOUNS:
        return False
    return not (word.endswith("s") and not word.endswith("ss"))


# First words of operations that read, whatever the method (AWS and others list, describe and
# get with POST: ``ListFlows``, ``POST /list-flows``).
_READ_FIRST = frozenset({"list", "describe", "get", "search", "query", "find", "fetch"})


def http_verb(method: str, shape: PathShape, name: str) -> Verb:
    method = method.upper()
    # ``Conversions_Post`` names the HTTP method, not what the call does
    hinted = _name_verb(tuple(t for t in tokens(name) if t != method.lower()))[0]
    first = tokens(name)[:1]
    if method == "POST" and first and first[0] in _READ_FIRST:
        return VERB_WORDS.get(first[0], V.READ)
    if method == "POST" and shape.action in _READ_FIRST and shape.collection:
        # ``POST /getMonitors``: an RPC-style read, of all of them when the noun is plural
        return V.LIST if shape.plural and shape.action in ("get", "list") else V.READ
    if shape.action:
        word_verb = VERB_WORDS.get(shape.action, V.ACTION)
        if word_verb is V.SEARCH or (method == "GET" and word_verb is V.LIST):
            return word_verb
        if method in ("GET", "HEAD"):
            return V.READ
        if word_verb in (V.DELETE, V.CREATE, V.UPDATE) and shape.action in (
            "delete",
            "remove",
            "create",
            "add",
            "new",
            "update",
            "edit",
            "set",
        ):
            return word_verb
        return V.ACTION
    if method in ("GET", "HEAD"):
        if hinted is V.SEARCH:
            return V.SEARCH
        if shape.item:
            return V.READ
        if shape.collection and (shape.plural or hinted is V.LIST):
            return V.LIST
        return V.READ
    if method == "DELETE":
        return V.DELETE
    if method == "PATCH":
        return V.UPDATE
    if method == "PUT":
        return V.CREATE if hinted is V.CREATE and not shape.item else V.UPDATE
    # POST
    if hinted is V.SEARCH:
        return V.SEARCH
    if shape.item:
        return V.CREATE if hinted is V.CREATE else V.UPDATE
    return V.CREATE


def http_access(method: str, verb: Verb) -> Access:
    if method.upper() in ("GET", "HEAD"):
        return "read"
    return "read" if verb in (V.READ, V.LIST, V.SEARCH) else "write"


def _strip_service(toks: tuple[str, ...], service_tokens: Iterable[str]) -> tuple[str, ...]:
    """``git_status`` in service ``git`` -> ``status``; in ``ticket_api``,
    ``ticket_get_login_status`` -> ``get_login_status``."""
    service = set(service_tokens)
    i = 0
    while i < len(toks) - 1 and (toks[i] in service or pluralize(toks[i]) in service):
        i += 1
    return toks[i:]


# Plurals that name one state, not many records (``check_apn_settings()``).
_STATE_PLURALS = frozenset(
    {"data", "settings", "preferences", "options", "stats", "statistics", "details", "metrics"}
)
# Words that say a name is software, not what it keeps.
_SERVICE_WORDS = frozenset(
    {"mcp", "server", "api", "apis", "service", "services", "tool", "tools", "app", "bot",
     "client", "sdk", "remote", "local", "official", "plugin", "connector", "integration"}
)  # fmt: skip


def _names_records(
    whole: tuple[str, ...], stripped: tuple[str, ...], service: tuple[str, ...]
) -> bool:
    """Whether the service-name prefix a tool name lost names the records it acts on: a noun
    of a longer service name (``expense`` of ``expense_tracker``) or the service's plural
    (``note_create`` in ``notes``), not the product itself (``git_add`` in ``git``)."""
    prefix = whole[: len(whole) - len(stripped)]
    if not prefix:
        return False
    rest = [t for t in service if t not in prefix and pluralize(t) not in prefix]
    rest = [t for t in rest if pluralize(t) not in {pluralize(p) for p in prefix}]
    rest = [t for t in rest if t not in _SERVICE_WORDS]  # ``kubectl_mcp_server``: a product
    return bool(rest) or written_plural(prefix[-1]) or pluralize(prefix[-1]) in service


def _name_verb(toks: tuple[str, ...]) -> tuple[Verb | None, int, str]:
    for i, tok in enumerate(toks):
        verb = VERB_WORDS.get(tok)
        if verb is not None:
            if tok == "check" and toks[i + 1 : i + 2] in (("in",), ("out",)):
                return V.ACTION, i + 1, "check_" + toks[i + 1]  # checking in is not checking
            return verb, i, tok
    return None, -1, ""


# What a description's first word says a tool does, when its name holds no verb: reading
# only (``"Get detailed predictions for a ticker"``, ``"Lists the tasks ..."``). Writes are
# not taken from prose: a misread write would be verified as a read that changes nothing.
_DESCRIBED_READS: dict[str, Verb] = {
    **dict.fromkeys(
        ("get", "fetch", "retrieve", "read", "show", "view", "see", "return", "check", "tail",
         "display", "obtain", "inspect", "describe"),
        V.READ,
    ),
    **dict.fromkeys(("list", "browse", "enumerate"), V.LIST),
    **dict.fromkeys(("search", "find", "query", "look"), V.SEARCH),
}  # fmt: skip


def described_verb(description: str | None) -> tuple[Verb | None, str]:
    """(verb, word) of a description that opens with a reading verb, imperative or third
    person (``Get ...``, ``Lists ...``, ``Searches ...``); (None, "") otherwise."""
    first = re.match(r"\s*([A-Za-z]+)\b", description or "")
    if first is None:
        return None, ""
    word = first.group(1).lower()
    for stem in (word, word[:-1] if word.endswith("s") else "", word[:-2]):
        if stem in _DESCRIBED_READS and (stem == word or word.endswith("s")):
            return _DESCRIBED_READS[stem], stem
    return None, ""


def name_verb_resource(
    name: str,
    service: str,
    id_resources: Iterable[str],
    *,
    takes_arguments: bool = True,
    description: str | None = None,
) -> tuple[Verb | None, str | None, str]:
    """(verb, resource, the verb word) from a function-style tool name; ``takes_arguments``:
    whether the tool has a required parameter (``check_notifications()`` lists them all).
    A name with no verb (``predictions_by_ticker``, ``Trending_Headlines``) is a read of
    the thing it names when its ``description`` opens with a reading verb ("Get ...")."""
    whole, service_toks = tokens(name), tokens(service)
    toks = _strip_service(whole, service_toks)
    verb, index, word = _name_verb(toks)
    if verb and not _noun(toks[index + 1 :]) and _names_records(whole, toks, service_toks):
        # ``expense_add`` in ``expense_tracker``: the stripped prefix is what is added
        toks = whole
        verb, index, word = _name_verb(toks)
    if verb is None:
        verb, word = described_verb(description)
        if verb is None or not _noun(toks):
            return None, None, ""
        index = -1  # the whole name is the noun
    after = toks[index + 1 :]
    before = toks[:index]
    # ``create_task_list``: a list that is made, changed or removed is a thing, not a listing
    named_list = verb not in (V.READ, V.LIST, V.SEARCH)
    noun = _noun(after, named_list) or _noun(before, named_list)
    ids = list(id_resources)
    resource = None
    # an <x>_id parameter naming a word of the tool name wins, unless it names the parent
    for candidate in () if _lists_under_parent(verb, noun, ids) else ids:
        stem = candidate.rsplit("_", 1)[-1]
        # not the verb itself: ``list_tasks(task_list_id)`` lists tasks, not task lists
        if any(pluralize(t) == stem or t == stem for i, t in enumerate(toks) if i != index):
            resource = candidate
            break
    if resource is None and noun:
        resource = resource_name(noun)
    # `get_users`, `view_messages`: reading a plural is listing.
    plural = bool(noun) and is_plural(noun[-1]) and noun[-1] not in ("status", "settings")
    if verb is V.READ and plural and word not in ("check", "can", "is", "has", "count", "diff"):
        verb = V.LIST
    many = bool(noun) and written_plural(noun[-1]) and noun[-1] not in _STATE_PLURALS
    if verb is V.READ and word == "check" and not takes_arguments and many:
        verb = V.LIST  # ``check_installed_apps()``: every one of them
    if "all" in after[:2] and verb is V.READ:
        verb = V.LIST
    return verb, resource, word


def _lists_under_parent(verb: Verb | None, noun: tuple[str, ...], ids: list[str]) -> bool:
    """A read of the records under a parent it takes the id of: ``get_card_comments(card_id)``
    and ``get_cards_by_list_id(list_id)`` read comments and cards (the noun, whose plural head
    the id does not name), not the card or the list. Not so for one state of the parent
    (``get_campaign_metrics``) or a noun that is not a plural."""
    if verb not in (V.READ, V.LIST, V.SEARCH) or not noun or not ids:
        return False
    head = noun[-1]
    if not written_plural(head) or head in _STATE_PLURALS:
        return False
    # ``get_task_comments(task_id, comment_id)``: one of them, by its own id
    return pluralize(head) not in {candidate.rsplit("_", 1)[-1] for candidate in ids}


def _noun(toks: tuple[str, ...], named_list: bool = False) -> tuple[str, ...]:
    """The object of the verb: words up to the first preposition, fillers dropped, at most the
    last two (``credit_cards``, ``trending_repositories``); with ``named_list``, ``list``
    after a noun is part of it (``task_list``)."""
    words: list[str] = []
    for tok in toks:
        if tok in _PREPOSITIONS:
            break
        if tok == "list" and named_list and words:
            words.append(tok)
            continue
        if tok in _FILLER or tok.isdigit():
            continue
        words.append(tok)
        if written_plural(tok) and len(tok) > 3:
            break  # `messages_sent` -> messages: the plural is the head noun
    return tuple(words[-2:])


def name_access(verb: Verb | None, word: str) -> Access | None:
    if verb is None:
        return None
    if verb is V.ACTION and word in READ_ACTIONS:
        return "read"
    return "write" if verb in WRITE_VERBS else "read"
