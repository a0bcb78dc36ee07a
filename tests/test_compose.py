"""Task composition over the reference services and the compiled bundled corpus: every kept
task passes the four verification checks, every mutation of a gold plan fails its task,
the mix of services and capabilities meets the issue's bar, instructions state what the
user must supply and nothing the agent could not discover, the people and the work of a
task belong to its request, and runs are deterministic."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import orjson
import pytest

from library.compose import (
    CAPABILITIES,
    ComposeConfig,
    ComposeEnv,
    Task,
    completes,
    compose_tasks,
    make_env,
    merge_tasks,
    paraphrase_task,
    render_instruction,
    run_task,
    sample_markdown,
)
from library.compose.compose import Balance
from library.compose.corpus import Library
from library.compose.domains import task_domain
from library.compose.motifs import BY_NAME, STAFF_WORK, claimed_by, staff_work
from library.compose.plan import literal_texts, show
from library.compose.realism import matching_literal
from library.compose.render import SENTENCES
from library.graph.nodes import name_words
from library.llm import LLMClient
from library.llm.testing import ScriptedModel
from library.rubric import completion, evaluate, same
from library.seed.vocab import is_person_resource
from library.services import reference_service_classes
from tests.libraries import bundled_library

SUBSET = [
    "assets",
    "calendar",
    "crm",
    "customer_success",
    "expenses",
    "helpdesk",
    "hr",
    "identity",
    "inventory",
    "invoicing",
    "leave",
    "loyalty",
    "mail",
    "meetings",
    "payments",
    "quotes",
    "recruiting",
    "returns",
    "reviews",
    "shipping",
    "storefront",
    "subscriptions",
    "timesheets",
    "todo",
]
CORPUS_TASKS = 150


@pytest.fixture(scope="module")
def reference() -> tuple[ComposeEnv, list[Task], dict[str, int]]:
    classes = reference_service_classes()
    env = make_env(classes)
    # (a request never asks for a name it states: in this small library that leaves fewer
    # tasks to the 40-per-task bound, hence a larger one)
    tasks, rejections = compose_tasks(classes, 60, env=env, seed=3, max_candidates=6000)
    return env, tasks, rejections


@pytest.fixture(scope="module")
def library() -> Library:
    return bundled_library(SUBSET)


@pytest.fixture(scope="module")
def corpus(library: Library) -> tuple[ComposeEnv, list[Task], dict[str, int]]:
    env = make_env(library.classes, library.nodes)
    tasks, rejections = compose_tasks(library.classes, CORPUS_TASKS, env=env, seed=11)
    return env, tasks, rejections


# -- the four checks, re-done from the task row alone -----------------------------------------
def assert_verified(task: Task, env: ComposeEnv) -> None:
    classes = env.classes
    final, envelopes = run_task(task, classes)
    assert all(e["success"] for e in envelopes), task.task_id
    # 1. the gold plan passes every criterion
    assert all(evaluate(task.rubric, task.initial_state, final, task.gold_answer()))
    # 2. doing nothing fails
    assert not completion(task.rubric, task.initial_state, task.initial_state, "")
    # 3. replay is deterministic
    again, envelopes_again = run_task(task, classes)
    assert orjson.dumps(again) == orjson.dumps(final)
    assert orjson.dumps(envelopes_again) == orjson.dumps(envelopes)
    # 4. dropping any single write fails
    for i, step in enumerate(task.gold_plan):
        if step["write"]:
            plan = task.gold_plan[:i] + task.gold_plan[i + 1 :]
            assert not completes(task, classes, plan), (task.task_id, i)


def test_reference_tasks_pass_the_four_checks(reference) -> None:
    env, tasks, _ = reference
    assert len(tasks) == 60
    for task in tasks:
        assert_verified(task, env)
        # Up to 10 steps, or up to the hard band's length for walks that aim for it.
        assert len(task.services) >= 2 and 3 <= len(task.gold_plan) <= env.config.hard_steps[1]


def test_corpus_tasks_pass_the_four_checks(corpus) -> None:
    env, tasks, _ = corpus
    assert len(tasks) == CORPUS_TASKS
    for task in random.Random(0).sample(tasks, 20):  # the reference set checks all 60
        assert_verified(task, env)


# -- mutations -------------------------------------------------------------------------------
def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return round(value * 1.7 + 1, 2)
    if isinstance(value, list):
        return [_changed(v) for v in value] or ["changed"]
    return f"{value} (changed)"


def _created(task: Task, env: ComposeEnv) -> set[str]:
    _, envelopes = run_task(task, env.classes)
    return {
        e["data"]["id"]
        for e, step in zip(envelopes, task.gold_plan, strict=True)
        if step["write"]
        and isinstance(e.get("data"), dict)
        and isinstance(e["data"].get("id"), str)
    }


def _checked(task: Task, name: str, value: Any, created: set[str]) -> bool:
    """Whether the rubric looks at this argument: a field it expects, the record id a
    criterion is about, or a record the plan created (which a criterion describes)."""
    if isinstance(value, str) and value in created:
        return True
    for c in task.rubric:
        if c.get("id") == value:
            return True
        fields = c.get("fields") or {}
        if c["kind"] == "record_created" and name in fields and same(fields[name], value):
            return True
        if c["kind"] == "field_updated" and c["field"] == name and same(c["value"], value):
            return True
    return False


def _mutations(task: Task, env: ComposeEnv) -> list[tuple[str, list[dict], str, dict | None]]:
    """(what, plan, answer, final-state edit) for each mutation that applies to the task."""
    out: list[tuple[str, list[dict], str, dict | None]] = []
    plan, answer = task.gold_plan, task.gold_answer()
    created = _created(task, env)
    for i, step in enumerate(plan):
        if not step["write"]:
            continue
        out.append((f"drop {i}", plan[:i] + plan[i + 1 :], answer, None))
        for name, value in step["arguments"].items():
            if _checked(task, name, value, created):
                changed = {**step, "arguments": {**step["arguments"], name: _changed(value)}}
                out.append(
                    (f"argument {i}.{name}", [*plan[:i], changed, *plan[i + 1 :]], answer, None)
                )
    for c in task.rubric:
        if c["kind"] == "record_unchanged":
            out.append(("guard", _touch(task, env, c), answer, c))
        if c["kind"] == "collection_untouched":
            out.append(("collection guard", plan, answer, c))
    for fact in task.answer:
        value = fact["value"]
        wrong = value + 1 if isinstance(value, int | float) else "unknown"
        out.append(("answer", plan, answer.replace(_shown(value), _shown(wrong)), None))
    return out


def _shown(value: Any) -> str:
    return show(value)


def _touch(task: Task, env: ComposeEnv, guard: dict) -> list[dict]:
    """The gold plan plus the same write applied to the guarded record, when a step of
    the plan writes that collection through an id parameter."""
    for step in task.gold_plan:
        tool = env.catalog.tools[step["tool"]]
        if step["write"] and tool.own and tool.collection == guard["collection"]:
            extra = {**step, "arguments": {**step["arguments"], tool.own: guard["id"]}}
            return [*task.gold_plan, extra]
    return list(task.gold_plan)


def _fails(
    task: Task, env: ComposeEnv, plan: Sequence[dict], answer: str, guard: dict | None
) -> bool:
    final, _ = run_task(task, env.classes, plan)
    if guard is not None:
        records = final[guard["service"]][guard["collection"]]
        if guard["kind"] == "collection_untouched":
            records["intruder"] = {"id": "intruder"}
        elif (
            records.get(guard["id"])
            == task.initial_state[guard["service"]][guard["collection"]][guard["id"]]
        ):
            # The extra call was refused or changed nothing: touch the record in the state.
            records[guard["id"]] = {**records[guard["id"]], "_touched": True}
    return not completion(task.rubric, task.initial_state, final, answer)


@pytest.mark.parametrize("fixture", ["reference", "corpus"])
def test_every_mutation_fails_its_task(fixture: str, request: pytest.FixtureRequest) -> None:
    env, tasks, _ = request.getfixturevalue(fixture)
    kinds: Counter[str] = Counter()
    wanted = {"drop", "argument", "guard", "answer"}
    if fixture == "reference":
        # the reference services' only answers would be names of people the request
        # states (asked of no one): their answers are the corpus's to check
        wanted.remove("answer")
    for i, task in enumerate(tasks[:40]):  # the gate checks all of them at compose
        if i >= 12 and wanted <= set(kinds):
            break  # 12 tasks, and as many more as it takes to see every kind
        for what, plan, answer, edit in _mutations(task, env):
            kinds[what.split(" ")[0]] += 1
            assert _fails(task, env, plan, answer, edit), (task.task_id, what)
    assert wanted <= set(kinds)


def test_every_write_has_an_argument_the_rubric_checks(corpus) -> None:
    env, tasks, _ = corpus
    # A sample of 60 (each task is run to see what it creates): 0.2 CPU-s a task.
    for task in random.Random(1).sample(tasks, 60):
        created = _created(task, env)
        for step in task.gold_plan:
            if step["write"]:
                args = step["arguments"].items()
                assert any(_checked(task, n, v, created) for n, v in args), step["tool"]


# -- the mix ---------------------------------------------------------------------------------
def test_mix_of_services_and_capabilities(corpus) -> None:
    _, tasks, rejections = corpus
    n = len(tasks)
    assert n >= 140
    # One matter per request: a short request reaches a third service through the tools
    # that tell people or log the work (mail, a to-do list, a meeting), fewer in this subset
    # than in the corpus. The 60% is measured on the whole corpus by
    # ``bench/task_validity.py`` (66% at 1,000 tasks); here 58%.
    assert sum(len(t.services) >= 3 for t in tasks) / n >= 0.5
    share = Counter(c for t in tasks for c in t.capabilities)
    for cap in ("sequential-dependency", "cross-service", "selection-rule", "threshold", "guard"):
        assert share[cap] / n >= 0.05, (cap, share[cap])
    assert set(share) <= set(CAPABILITIES)
    assert len({t.domain for t in tasks}) >= 5
    steps = Counter(len(t.gold_plan) for t in tasks)
    assert min(steps) >= 3 and max(steps) <= ComposeConfig().hard_steps[1]
    assert isinstance(rejections, dict)


# -- instructions ----------------------------------------------------------------------------
def _ids(task: Task) -> set[str]:
    """Every record id of the initial state (seeded and injected records)."""
    return {
        rid
        for state in task.initial_state.values()
        for coll in state.values()
        if isinstance(coll, dict)
        for rid in coll
    }


@pytest.mark.parametrize("fixture", ["reference", "corpus"])
def test_instructions_state_user_values_and_hide_ids(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    env, tasks, _ = request.getfixturevalue(fixture)
    for task in tasks:
        text = task.instruction
        for lit in task.literals:
            assert lit in text
        for step in task.gold_plan:
            for name, bind in step["binds"].items():
                if bind["from"] == "user":
                    for lit in literal_texts(step["arguments"][name]):
                        assert lit in text, (task.task_id, name, lit)
                elif bind["from"] == "rule" and "policy" in bind:
                    # A house rule in the environment: the instruction names the note.
                    assert task.gold_plan[bind["policy"]]["arguments"]["query"] in text
                elif bind["from"] == "rule":
                    for value in (bind["limit"], bind["above"], bind["otherwise"]):
                        assert literal_texts(value)[0] in text
                else:
                    assert bind["from"] == "step" and bind["step"] < task.gold_plan.index(step)
            if step.get("select", {}).get("rule") == "matching":
                select = step["select"]
                assert matching_literal(select["field"], select["value"]) in text
        # No record id (seeded, injected or created) appears: the agent must find them.
        _, envelopes = run_task(task, env.classes)
        created = {
            e["data"]["id"]
            for e in envelopes
            if isinstance(e.get("data"), dict) and isinstance(e["data"].get("id"), str)
        }
        for rid in _ids(task) | created:
            assert rid not in text, (task.task_id, rid)


@pytest.mark.parametrize("fixture", ["reference", "corpus"])
def test_rendering_is_reproducible_from_the_plan(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    _, tasks, _ = request.getfixturevalue(fixture)
    for task in tasks:
        # Each step's sentence, in one of the phrasings, is in the step-by-step rendering
        # (the review's view and the fallback), in order; the instruction itself names
        # the changes (tests/test_render_instructions.py).
        steps = render_instruction(task.gold_plan, steps=True)
        at = 0
        for i, step in enumerate(task.gold_plan):
            forms = [SENTENCES[step["text"]["kind"]](step["text"], v)[1:] for v in range(6)]
            found = [steps.find(f, at) for f in forms]
            hits = [f for f in found if f >= 0]
            assert hits, (task.task_id, i, forms[0])
            at = min(hits)
        assert render_instruction(task.gold_plan)


# -- runs ------------------------------------------------------------------------------------
def test_same_seed_same_tasks(library: Library) -> None:
    def run() -> list[str]:
        env = make_env(library.classes, library.nodes)
        return [t.task_id for t in compose_tasks(library.classes, 25, env=env, seed=5).tasks]

    first = run()
    assert first == run()
    env = make_env(library.classes, library.nodes)
    other = [t.task_id for t in compose_tasks(library.classes, 25, env=env, seed=6).tasks]
    assert other != first


def test_shards_merge_without_duplicates(reference) -> None:
    env, _, _ = reference
    parts = [compose_tasks([], 27, env=env, seed=9, shard=i, shards=2).tasks for i in range(2)]
    merged, _ = merge_tasks(parts, 30)
    assert len(merged) == 30
    assert len({t.task_id for t in merged}) == 30
    # a plan shape at most as often as one shard kept it (a shard short of new shapes may
    # repeat one, on another customer: ``compose.Balance``), never once per shard
    most: Counter[str] = Counter()
    for part in parts:
        for shape, k in Counter(t.shape() for t in part).items():
            most[shape] = max(most[shape], k)
    merged_shapes = Counter(t.shape() for t in merged)
    assert all(k <= most[shape] for shape, k in merged_shapes.items()), merged_shapes
    # (19 of 30: without the answers that asked a name the request states, and with the
    # openings that lead to the work drawn more, these four services give fewer shapes
    # than the 28 they gave)
    assert len(merged_shapes) >= 18


def test_rejections_are_counted_with_reasons() -> None:
    classes = reference_service_classes()
    config = ComposeConfig(min_services=5, max_services=5)  # only 4 reference services
    tasks, rejections = compose_tasks(classes, 5, config=config, seed=1, max_candidates=30)
    assert tasks == []
    assert sum(rejections.values()) == 30
    assert rejections.get("too_few_services", 0) > 0


def test_task_rows_are_json_and_complete(corpus) -> None:
    _, tasks, _ = corpus
    splits = Counter(t.split for t in tasks)
    assert set(splits) <= {"sft", "rl", "eval"} and splits["sft"] > splits["eval"]
    row = tasks[0].to_row()
    orjson.dumps(row)
    for key in (
        "task_id",
        "seed",
        "services",
        "domain",
        "capabilities",
        "difficulty",
        "instruction",
        "initial_state",
        "gold_plan",
        "rubric",
        "split",
    ):
        assert key in row
    assert Task.model_validate(orjson.loads(orjson.dumps(tasks[0].model_dump()))) == tasks[0]
    for task in tasks:
        assert set(task.distractor_services).isdisjoint(task.services)
        assert all(c.describe() for c in task.criteria())


def test_a_task_read_back_from_the_warehouse_lists_its_records_in_the_same_order(
    corpus, tmp_path
) -> None:
    """Rollouts read tasks from the warehouse: a record list, and any bind by position in
    it, must come out as in the task composition verified (its records in the order made)."""
    from tasks.compose import write_tasks
    from tasks.rollout import load_tasks
    from warehouse import Warehouse

    _, tasks, _ = corpus
    wh = Warehouse(tmp_path / "warehouse")
    assert write_tasks(wh, tasks, run="order") == len(tasks)
    loaded = {t.task_id: t for t in load_tasks(wh)}

    def record_ids(state: Any) -> list[list[str]]:
        return [list(v) for v in _dicts(state) if all(isinstance(x, dict) for x in v.values())]

    unsorted = 0
    for task in tasks:
        ids = record_ids(task.initial_state)
        unsorted += any(keys != sorted(keys) for keys in ids)
        assert record_ids(loaded[task.task_id].initial_state) == ids, task.task_id
    assert unsorted, "no state lists its records out of sorted order: the test shows nothing"


def _dicts(value: Any) -> list[dict[str, Any]]:
    """Every dict inside a JSON value, outermost first."""
    if isinstance(value, list):
        return [d for item in value for d in _dicts(item)]
    if not isinstance(value, dict):
        return []
    return [value, *(d for item in value.values() for d in _dicts(item))]


def test_sample_markdown(corpus) -> None:
    _, tasks, _ = corpus
    text = sample_markdown(tasks, 20)
    lines = text.strip().splitlines()
    assert len(lines) == 20 and all(line.startswith("- *") for line in lines)


# -- paraphrase ------------------------------------------------------------------------------
def test_paraphrase_keeps_literals_or_falls_back(reference) -> None:
    _, tasks, _ = reference
    task = next(t for t in tasks if t.literals)
    kept = "Please do this: " + task.template_instruction.replace("In ", "Over in ", 1)
    dropped = task.template_instruction.replace(task.literals[0], "that value")
    with ScriptedModel([kept, dropped]) as model:
        good, ok = paraphrase_task(task, LLMClient(model.settings()))
        assert ok and good.instruction == kept
        assert good.template_instruction == task.template_instruction
        # A fresh client: the first one would replay its recorded answer to the same prompt.
        bad, ok = paraphrase_task(task, LLMClient(model.settings()))
        assert not ok and bad.instruction == task.template_instruction
        assert model.hits == 2


def test_only_verified_tools_are_used(corpus, library: Library) -> None:
    _, tasks, _ = corpus
    unverified = {
        f"{svc}__{tool}"
        for svc, tools in library.verified.items()
        for tool, ok in tools.items()
        if not ok
    }
    assert unverified  # the corpus has some, so the check means something
    used = {step["tool"] for task in tasks for step in task.gold_plan}
    assert not used & unverified
    env = make_env(library.classes, library.nodes)
    assert not set(env.catalog.tools) & unverified


def test_state_json_from_the_record_cache_is_model_dump() -> None:
    # Task states are exported through the record cache: the same JSON (and key order),
    # before and after a write, as dumping the whole state.
    from library.compose.views import DumpCache
    from library.runtime import World
    from library.seed import seed_pool

    world = World([c() for c in reference_service_classes()], seed=4)
    world.seed_states(seed_pool(0), 6)
    cache = DumpCache()
    for write in (False, True):
        if write:
            call = world.call("crm__create_contact", {"name": "Al Ko", "email": "al@ko.io"})
            assert call["success"]
        for name, svc in world.services.items():
            dumped = svc.state.model_dump(mode="json")
            assert orjson.dumps(cache.state_json(svc.state)) == orjson.dumps(dumped), name


def test_a_task_is_in_its_workflows_domain() -> None:
    # A refund that also books a meeting and sends mail is commerce: the generic
    # collaboration tools do not outvote the workflow's own work (which made the balance
    # cap discard whole walks after the fact: ~10% of composition CPU).
    services = ["meetings", "returns", "mail", "calendar"]
    writes = ["returns", "meetings", "mail"]
    assert task_domain(services, writes) == "collaboration"
    assert task_domain(services, writes, {"commerce"}) == "commerce"
    # A workflow whose work the plan does not touch leaves the plain vote.
    assert task_domain(services, writes, {"finance"}) == "collaboration"


def test_no_service_or_domain_fills_the_set(corpus, reference) -> None:
    # Balance: a run's tasks stay within the share caps (a meetings tool fits nearly every
    # workflow; uncapped, one service was in 54% of the bundled corpus's tasks).
    # A run that starves under the caps has them lifted for ``Balance.RELIEF`` tasks, then
    # back: what one relief lets through is over the cap at most by that many.
    env, tasks, _ = corpus
    cfg = env.config
    services = Counter(s for t in tasks for s in t.services)
    domains = Counter(t.domain for t in tasks)
    # (reliefs double each time the run starves again: 10, 20, 40 in this run; a second
    # relief lets through twice what the first did)
    most = math.ceil(cfg.max_service_share * CORPUS_TASKS) + 2 * Balance.RELIEF
    assert max(services.values()) <= most, services
    # (a relief lifts the domain cap too: the same slack)
    most = math.ceil(cfg.max_domain_share * CORPUS_TASKS) + 2 * Balance.RELIEF
    assert max(domains.values()) <= most, domains
    # A library too narrow for the caps (mail in every workflow) still gives every task.
    _, few, _ = reference
    assert len(few) == 60


# -- the people and the work of a task belong to its request ----------------------------------
def _request_side(plan: Sequence[dict[str, Any]], k: int) -> bool:
    """Whether read ``k`` found its record from the request: by what it states, off the
    opening record or a record the plan wrote, or by a person (lookups search for the
    request's own person only: ``test_compose_quality``), not through another record's id."""
    return all(
        b.get("from") == "user"
        or b.get("step") == 0
        or plan[b["step"]]["write"]
        or "@" in str(plan[k]["arguments"].get(name))
        for name, b in plan[k]["binds"].items()
    )


def _listed(value: Any) -> list[str]:
    return [str(v) for v in (value if isinstance(value, list) else [value])]


def test_roles_go_to_people_the_request_is_about(corpus) -> None:
    """A host, an assignee, a recipient ... read off a record is someone on the request's
    own records: not the hiring manager of the job of an application, nor the author of a
    policy note, nor the owner of a record the work is not about, nor (outside a follow-up)
    the recipient of the subject's last chat message."""
    env, tasks, _ = corpus
    checked = 0
    for task in tasks:
        plan = task.gold_plan
        motif = BY_NAME[task.motif]
        notes = {rule["step"] for rule in task.house_rules}
        written = {  # (step, record path) of records a write acts on
            (b["step"], b["path"].rpartition(".")[0])
            for s in plan
            if s["write"]
            for b in s["binds"].values()
            if b.get("from") == "step" and b["path"].rpartition(".")[2].endswith("id")
        }
        named = {  # people the request names, or its opening record does
            env.identity("email", v)
            for s in plan
            for name, b in s["binds"].items()
            if b.get("from") == "user" or b.get("step") == 0
            for v in _listed(s["arguments"].get(name))
            if "@" in v
        }
        for i, step in enumerate(plan):
            tool = env.catalog.tools[step["tool"]]
            for name, bind in step["binds"].items():
                p = tool.param(name)
                k = bind.get("step")
                if not step["write"] or p is None or (p.key or p.item_key) != "email":
                    continue
                if bind.get("from") != "step" or k == 0 or plan[k]["write"]:
                    continue
                if {env.identity("email", v) for v in _listed(step["arguments"][name])} <= named:
                    continue
                checked += 1
                source = env.catalog.tools[plan[k]["tool"]]
                where = f"{task.task_id} step {i} {step['tool']}.{name} from step {k} {source.name}"
                assert k not in notes, where
                if (k, bind["path"].rpartition(".")[0]) in written:
                    continue
                assert _request_side(plan, k), where
                coll = str(source.collection)
                # Correspondence is follow-up's own: elsewhere, whom the subject wrote to
                # or called has no part in the work.
                about = claimed_by(coll) & {motif.name, *(motif.allies - {"follow-up"})}
                assert about or is_person_resource(coll), where
    assert checked >= 20


MONEY = frozenset(
    {"payment", "payments", "charge", "charges", "invoice", "invoices", "order", "orders"}
)


def test_a_customer_s_matter_makes_no_staff_records_and_a_refund_charges_no_one(corpus) -> None:
    """Expense reports and employee records are our colleagues' alone: a customer's trip
    files none. A refund gives money back: it creates no payment, charge, invoice or order."""
    env, tasks, _ = corpus
    outsiders = refunds = 0
    for task in tasks:
        opening = task.gold_plan[0]["arguments"].values()
        people = [v for v in opening if isinstance(v, str) and "@" in v]
        writes = [env.catalog.tools[s["tool"]] for s in task.gold_plan if s["write"]]
        if people and task.motif not in STAFF_WORK and not env.is_staff("email", people[0]):
            outsiders += 1
            assert not [t.name for t in writes if staff_work(t.collection)], task.task_id
        if task.motif == "refund":
            refunds += 1
            made = [t for t in writes if t.kind == "create"]
            new_money = [t.name for t in made if set(name_words(str(t.collection))) & MONEY]
            assert not new_money, (task.task_id, new_money)
    assert outsiders >= 20 and refunds >= 2  # (refunds are rarer since voids are billing's)


def test_a_refund_s_amount_pays_for_nothing_new(corpus) -> None:
    """Money read off a refund is money going back: it is never the amount of a new
    payment or payment link ("create a payment of the refund's amount")."""
    env, tasks, _ = corpus
    moved = 0
    for task in tasks:
        for i, step in enumerate(task.gold_plan):
            tool = env.catalog.tools[step["tool"]]
            if not step["write"] or "refund" in str(tool.collection):
                continue
            for name, bind in step["binds"].items():
                p = tool.param(name)
                if p is None or p.key != "money" or bind.get("from") != "step":
                    continue
                moved += 1
                source = env.catalog.tools[task.gold_plan[bind["step"]]["tool"]]
                assert "refund" not in str(source.collection), (task.task_id, i, name)
    # (few: money moves in refunds and billing, ~15% of this sample beside the hand-overs)
    assert moved >= 2


def test_one_message_a_person_and_no_money_from_what_the_plan_made(corpus) -> None:
    """A request writes to each person once (not a draft, a new e-mail and a reply with the
    same news), and an amount comes from a record that was there, not from one the plan
    made ("a payment of the payment link's amount")."""
    env, tasks, _ = corpus
    messages = amounts = 0
    for task in tasks:
        told: list[str] = []
        for step in task.gold_plan:
            tool = env.catalog.tools[step["tool"]]
            if not step["write"] or not set(name_words(str(tool.collection))) & MESSAGE_WORDS:
                continue
            for name, value in step["arguments"].items():
                if name in ("to", "recipient", "recipient_email", "to_email"):
                    told += [env.identity("email", v) for v in _listed(value)]
            if tool.name.startswith("reply"):
                replied = step["arguments"][str(tool.own)]
                record = task.initial_state[tool.service][str(tool.collection)].get(replied, {})
                told.append(env.identity("email", record.get("from", replied)))
        messages += len(told)
        assert len(told) == len(set(told)), (task.task_id, told)
        for step in task.gold_plan:
            tool = env.catalog.tools[step["tool"]]
            for name, bind in step["binds"].items():
                p = tool.param(name)
                if step["write"] and p is not None and p.key == "money" and "step" in bind:
                    amounts += 1
                    source = task.gold_plan[bind["step"]]
                    assert source["kind"] != "create", (task.task_id, step["tool"], name)
    assert messages >= 30 and amounts >= 2


MESSAGE_WORDS = frozenset({"message", "messages", "email", "emails", "draft", "drafts", "sms"})


def test_each_shard_draws_on_every_seeded_world() -> None:
    """Shards that split the candidates by parity would each see half of the worlds (and
    one world costs more to walk than another): each shard cycles through all of them."""
    from library.compose.compose import candidate

    class Drawn(Exception):
        pass

    class Env:
        config = ComposeConfig()
        seen: list[int] = []

        def world(self, seed: int) -> None:
            self.seen.append(seed)
            raise Drawn

    env = Env()
    for shard in (0, 1):
        env.seen.clear()
        for j in range(shard, shard + 2 * 2 * env.config.worlds, 2):
            with pytest.raises(Drawn):
                candidate(env, 0, j, shards=2)  # type: ignore[arg-type]
        assert sorted(set(env.seen)) == list(range(env.config.worlds)), (shard, env.seen)
