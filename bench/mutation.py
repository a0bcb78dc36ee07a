"""Mutation testing of the verifying core with mutmut 3: per module, how many of the mutants
the fast tests kill. Prints figures; asserts nothing (not run in CI).

    .venv/bin/pip install -e '.[mutation]'                     # mutmut==3.8.1
    .venv/bin/python bench/mutation.py                         # 120 mutants drawn with seed 0
    .venv/bin/python bench/mutation.py --sample 300 --seed 3 [--max-children 2] [--deadline 40]
    .venv/bin/python bench/mutation.py --per-module 10         # at most 10 from each file
    .venv/bin/python bench/mutation.py --sample 0              # every mutant (days, see below)
    .venv/bin/python bench/mutation.py --paths library/reward.py library/judge.py
    .venv/bin/python bench/mutation.py --resume [--subsample 120 --seed 1]  # finish a cut run
    .venv/bin/python bench/mutation.py --report --survivors    # the last run again, no rerun

The modules, the tests each mutant runs and the pytest options are ``[tool.mutmut]`` in
pyproject.toml; ``--paths`` and ``--tests`` replace its ``only_mutate`` and its test
selection for one run. mutmut runs in a snapshot of the project under ``mutants/bench/``
(gitignored): library/, warehouse/, tasks/, tests/, flows/, training/ and pyproject.toml are
copied there and mutmut makes its own ``mutants/`` copy inside it, where the tests run
(``library`` etc. import from that copy, never from the working tree, which others may edit
meanwhile). The snapshot also holds a ``shared`` link to ``../shared``, so the tests that
read ``../shared/specs`` (resolved from their own file) find it from the copy too. Four
things the bench adds for mutmut: bytecode for the mutated modules, compiled once (the
sandbox workers' subprocesses compiled them at every start: PYTHONDONTWRITEBYTECODE is set
here); a pytest plugin that stops Hypothesis shrinking and explaining a failing example
(with the trampolines that took minutes, and turned kills into timeouts) and that, in
mutmut's stats run, credits what a module- or session-scoped fixture calls to every test
using the fixture (mutmut credits it to the first test only, so a mutant reached through a
shared fixture, such as test_compiler.py's corpus, ran one test instead of all that read
the fixture's result); and, in pyproject, mutmut's ``forkserver`` isolation (workers
forked from mutmut's own process, which had run the tests, hung on an inherited lock:
"timeouts" that were no loop).

Mutants are listed once (mutmut's generation step, through its Python API), then a
deterministic sample of their names (``--sample N --seed S``: N drawn uniformly over all
modules; ``--per-module N``: at most N per file) is handed to ``mutmut run NAME...``, which
tests only those, each with the selected tests that reach the mutated function, the mutants
with the fewest tests first. ``--deadline M`` interrupts it after M minutes: what is left is
"not checked", and the slow mutants are the ones left, so the figures lean towards the fast
functions; ``--resume`` goes on with the same sample, and ``--subsample N`` first narrows it
to a seeded random N of it (still a uniform sample of every mutant) to finish sooner. The
figures come from mutmut's ``mutants/**/*.meta`` files. Score = killed / (killed + survived
+ timeout); "no tests" (no selected test reaches the function) and "skipped" are left out of
it and shown apart.

``--survivors`` prints each surviving mutant of the sample with its diff (what a missing
test should catch); ``mutmut show NAME`` in ``mutants/bench`` does the same for one.

Cost, measured on the 2-core machine (2026-12-04, ``nice -n 10``, 2 children, other work
beside): the 7 targets give 18,575 mutants in 35 files. Generating them (and their
bytecode) takes ~1.5 min, stats collection, the clean run and the forced-fail run ~3 min, and
then a mutant takes 10-15 s of wall time on average (a few s when killed, 20-40 s when it
survives the 15-150 tests that reach a compiler function): 120 mutants took ~40 min in all,
and a full run would take 2-3 days (the bench prints its own estimate from the run).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKDIR = ROOT / "mutants" / "bench"
SAMPLE_FILE = "bench-sample.json"
# The snapshot: what mutmut copies (source_paths, also_copy) and what the tests read.
ALWAYS_COPY = ("tests",)
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")

# mutmut 3.8.1's exit-code meanings (mutmut.stats.status_by_exit_code), folded into columns.
STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    37: "skipped",  # caught by a type checker (none configured)
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
    None: "not checked",
}
# [tool.mutmut] keys a --resume takes from pyproject.toml as it is now (the others stay the
# run's own: another test selection or pytest option would reset every verdict).
RUN_SETTINGS = ("timeout_multiplier", "timeout_constant", "process_isolation", "forkserver_warmup")
# mutmut and the tests it runs may write bytecode (into the snapshot; see run_mutmut).
BYTECODE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
COLUMNS = ("killed", "survived", "timeout", "no tests", "skipped", "other", "not checked")

GENERATE = """
import sys
from pathlib import Path
from mutmut.__main__ import (copy_also_copy_files, copy_src_dir, create_mutants,
                             setup_source_paths, store_lines_covered_by_tests)
from mutmut.mutation.trampoline import set_mutant_under_test
set_mutant_under_test("mutant_generation")
Path("mutants").mkdir(exist_ok=True)
copy_src_dir()
copy_also_copy_files()
setup_source_paths()
store_lines_covered_by_tests()
s = create_mutants(int(sys.argv[1]))
print(f"{s.mutated} files mutated, {s.ignored} copied, {s.unmodified} unchanged")
"""

# A pytest plugin the bench adds (``-p``, written into mutants/): Hypothesis finds a failing
# example as usual but neither shrinks nor explains it (with mutmut's trampolines that took
# minutes and turned kills into timeouts), keeps no example database shared by the mutants
# and sets no deadline (a slow, loaded machine is no kill).
PLUGIN = "compoworld_mutation_hypothesis"
PLUGIN_SOURCE = """from hypothesis import Phase, settings

settings.register_profile(
    "mutation",
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
settings.load_profile("mutation")

# mutmut's stats run credits a function to the tests during whose run it was called: what a
# module- or session-scoped fixture calls is credited to the first test that set it up only,
# so a mutant reached through a shared fixture (a corpus built once for a module) ran that one
# test, and the tests reading the fixture's result afterwards never saw it. Here what each
# shared fixture's setup calls is also credited to every later test that uses the fixture.
import pytest

try:
    from mutmut.mutation.trampoline import get_mutant_under_test
    from mutmut.state import state
except ImportError:  # pytest run without mutmut
    state = None

_HITS = "_compoworld_mutation_hits"


def _collecting_stats():
    return state is not None and get_mutant_under_test() == "stats"


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if fixturedef.scope == "function" or not _collecting_stats():
        return (yield)
    before = set(state()._stats)
    state()._stats.clear()
    try:
        return (yield)
    finally:
        hits = set(state()._stats)
        setattr(fixturedef, _HITS, getattr(fixturedef, _HITS, set()) | hits)
        state()._stats |= before | hits


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    info = getattr(item, "_fixtureinfo", None)
    if info is None or not _collecting_stats():
        return
    for name in item.fixturenames:
        for fixturedef in info.name2fixturedefs.get(name, ()):
            state()._stats |= getattr(fixturedef, _HITS, set())
"""

SHOW = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
for name, path in json.load(sys.stdin):
    print(f"### {name}  ({path})")
    try:
        print(get_diff_for_mutant(name, path=path))
    except Exception as e:  # a stale index: say so and go on
        print(f"(no diff: {e})")
    print()
"""


def mutmut_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]


def only_mutate_patterns(paths: Sequence[str]) -> list[str]:
    """``--paths`` as mutmut globs: a folder means every .py file under it."""
    out = []
    for p in paths:
        p = p.rstrip("/")
        out.append(f"{p}/*.py" if (ROOT / p).is_dir() else p)
    return out


def toml_table(name: str, table: dict) -> str:
    # JSON strings, lists and booleans are valid TOML values.
    lines = [f"[{name}]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def workspace_pyproject(table: dict) -> str:
    """The project's pyproject.toml with its ``[tool.mutmut]`` table replaced by ``table``."""
    text = (ROOT / "pyproject.toml").read_text()
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", text)
    return text.rstrip("\n") + "\n\n" + toml_table("tool.mutmut", table)


def prepare(workdir: Path, table: dict, reuse: bool, snapshot: bool = True) -> None:
    """Snapshot the project into ``workdir`` (fresh unless ``reuse``; the last snapshot
    as it is, with only its pyproject.toml rewritten, without ``snapshot``)."""
    if workdir.exists() and not reuse:
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "pyproject.toml").write_text(workspace_pyproject(table))
    if not snapshot:
        return
    tops = {Path(p).parts[0] for p in table["source_paths"] + table.get("also_copy", [])}
    for top in sorted(tops | set(ALWAYS_COPY)):
        src = ROOT / top
        if src.is_dir():
            shutil.copytree(src, workdir / top, ignore=IGNORE, dirs_exist_ok=True)
        elif src.is_file():
            shutil.copy2(src, workdir / top)
    shared = ROOT.parent / "shared"
    link = workdir / "shared"
    if shared.is_dir() and not link.exists():
        link.symlink_to(shared, target_is_directory=True)


def mutmut_exe() -> str:
    beside = Path(sys.executable).parent / "mutmut"
    return str(beside) if beside.exists() else (shutil.which("mutmut") or "mutmut")


def load_meta(workdir: Path, patterns: Sequence[str]) -> dict[str, dict]:
    """Source path -> its .meta data, for the files the patterns mutate."""
    base = workdir / "mutants"
    out = {}
    for meta in sorted(base.rglob("*.py.meta")):
        rel = str(meta.relative_to(base))[: -len(".meta")]
        if any(fnmatch.fnmatch(rel, p) for p in patterns):
            out[rel] = json.loads(meta.read_text())
    return out


def draw(by_file: dict[str, list[str]], sample: int, per_module: int, seed: int) -> list[str]:
    """A deterministic sample of mutant names (all of them when both limits are 0)."""
    rng = random.Random(seed)
    names: list[str] = []
    for path in sorted(by_file):
        keys = sorted(by_file[path])
        names += sorted(rng.sample(keys, per_module)) if 0 < per_module < len(keys) else keys
    if 0 < sample < len(names):
        names = sorted(rng.sample(names, sample))
    return names


def status_of(code: int | None) -> str:
    return STATUS.get(code, "other")


def decided(workdir: Path, patterns: Sequence[str], names: set[str]) -> int:
    return sum(
        1
        for meta in load_meta(workdir, patterns).values()
        for k, v in meta["exit_code_by_key"].items()
        if k in names and v is not None
    )


def run_mutmut(
    workdir: Path, names: list[str], children: int, everything: bool, deadline_s: float,
    patterns: Sequence[str],
) -> tuple[int, float, float]:  # fmt: skip
    """``mutmut run`` on the sampled names; its output goes to ``run.log``. A progress line a
    minute; past the deadline mutmut is interrupted (finished mutants keep their verdict).
    Returns its exit status, its wall time and the part of it before the first mutant (stats
    collection, the clean and the forced-fail runs)."""
    cmd = [mutmut_exe(), "run", "--max-children", str(children)]
    cmd += [] if everything else names
    wanted = set(names)
    start = time.perf_counter()
    setup = 0.0
    with open(workdir / "run.log", "w") as log:
        proc = subprocess.Popen(
            cmd, cwd=workdir, env=BYTECODE_ENV, stdout=log, stderr=subprocess.STDOUT
        )
        next_tick = start + 60
        while proc.poll() is None:
            time.sleep(2)
            now = time.perf_counter()
            if not setup and "Running mutation testing" in (workdir / "run.log").read_text(
                errors="replace"
            ):
                setup = now - start
            if deadline_s and now - start > deadline_s:
                print(f"  deadline reached after {(now - start) / 60:.1f} min: interrupting")
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    proc.kill()
                break
            if now >= next_tick:
                next_tick += 60
                done = decided(workdir, patterns, wanted)
                print(f"  {(now - start) / 60:5.1f} min  {done}/{len(wanted)} mutants done")
        rc = proc.wait()
    return rc, time.perf_counter() - start, setup


def tally(meta: dict[str, dict], names: set[str]) -> dict[str, Counter[str]]:
    rows: dict[str, Counter[str]] = {}
    for path, data in meta.items():
        c: Counter[str] = Counter()
        c["generated"] = len(data["exit_code_by_key"])
        for k, v in data["exit_code_by_key"].items():
            if k in names:
                c["sampled"] += 1
                c[status_of(v)] += 1
        rows[path] = c
    return rows


def score(c: Counter[str]) -> float | None:
    tested = c["killed"] + c["survived"] + c["timeout"]
    return c["killed"] / tested if tested else None


def report(rows: dict[str, Counter[str]]) -> Counter[str]:
    head = ["generated", "sampled", *COLUMNS]
    width = max([len(p) for p in rows] + [5])
    print(f"{'module':{width}}  " + "  ".join(f"{h:>9}" for h in head) + f"  {'score':>7}")
    total: Counter[str] = Counter()
    for path, c in sorted(rows.items()):
        total.update(c)
        if not c["sampled"]:
            continue  # its mutants count in the total's "generated"
        s = score(c)
        print(
            f"{path:{width}}  "
            + "  ".join(f"{c[h]:>9}" for h in head)
            + f"  {'-' if s is None else f'{s:.1%}':>7}"
        )
    s = score(total)
    print(
        f"{'total':{width}}  "
        + "  ".join(f"{total[h]:>9}" for h in head)
        + f"  {'-' if s is None else f'{s:.1%}':>7}"
    )
    tested = total["killed"] + total["survived"] + total["timeout"]
    if tested:
        both = (total["killed"] + total["timeout"]) / tested
        print(f"(timeouts counted as kills, as mutmut's badge does: {both:.1%})")
    return total


def show_survivors(workdir: Path, meta: dict[str, dict], names: set[str], timeouts: bool) -> None:
    keep = {"survived", "timeout"} if timeouts else {"survived"}
    todo = [
        (k, path)
        for path, data in sorted(meta.items())
        for k, v in sorted(data["exit_code_by_key"].items())
        if k in names and status_of(v) in keep
    ]
    print(f"\n{len(todo)} surviving mutants{' and timeouts' if timeouts else ''}:\n")
    if todo:
        subprocess.run(
            [sys.executable, "-c", SHOW], cwd=workdir, input=json.dumps(todo), text=True,
            check=False,
        )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--paths", nargs="+", help="files or folders to mutate (default: pyproject)"
    )
    parser.add_argument(
        "--tests", nargs="+", help="test files each mutant may run (default: pyproject)"
    )
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument(
        "--sample", type=int, default=120, help="mutants drawn in all; 0: every one"
    )
    parser.add_argument("--per-module", type=int, default=0, help="at most N mutants per file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deadline", type=float, default=0, help="minutes; interrupt mutmut after")
    parser.add_argument("--workdir", type=Path, default=WORKDIR)
    parser.add_argument("--reuse", action="store_true", help="keep the last snapshot and mutants")
    parser.add_argument(
        "--resume", action="store_true",
        help="the last sample again, its timeouts and mutants not checked only",
    )  # fmt: skip
    parser.add_argument(
        "--subsample", type=int, default=0,
        help="with --resume: keep a seeded random N of the sample (finish a run cut short)",
    )  # fmt: skip
    parser.add_argument("--timeout-multiplier", type=float, help="replaces pyproject's")
    parser.add_argument("--timeout-constant", type=float, help="replaces pyproject's")
    parser.add_argument("--report", action="store_true", help="figures of the last run, no run")
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants + diffs")
    parser.add_argument("--timeouts", action="store_true", help="with --survivors: timeouts too")
    args = parser.parse_args()
    workdir: Path = args.workdir.resolve()
    sys.stdout.reconfigure(line_buffering=True)  # progress lines show up in a log at once

    if args.report:
        info = json.loads((workdir / SAMPLE_FILE).read_text())
        patterns, names = info["only_mutate"], set(info["names"])
        meta = load_meta(workdir, patterns)
        print(f"run of {info['date']}: {info['command']}")
    else:
        if args.resume:  # the run's own table: another test selection would reset every verdict
            pyproject = tomllib.loads((workdir / "pyproject.toml").read_text())
            table = dict(pyproject["tool"]["mutmut"])
            now = mutmut_config()  # settings that change how mutants run, not what they are
            table |= {k: now[k] for k in RUN_SETTINGS if k in now}
        else:
            table = dict(mutmut_config())
            if args.paths:
                table["only_mutate"] = only_mutate_patterns(args.paths)
            if args.tests:
                table["pytest_add_cli_args_test_selection"] = list(args.tests)
            table["use_git_change_detection"] = False  # the snapshot is no git checkout
            table["pytest_add_cli_args"] = [*table.get("pytest_add_cli_args", []), "-p", PLUGIN]
        if args.timeout_multiplier is not None:
            table["timeout_multiplier"] = args.timeout_multiplier
        if args.timeout_constant is not None:
            table["timeout_constant"] = args.timeout_constant
        patterns = table["only_mutate"]

        t0 = time.perf_counter()
        prepare(workdir, table, args.reuse or args.resume, snapshot=not args.resume)
        gen = subprocess.run(
            [sys.executable, "-c", GENERATE, str(args.max_children)], cwd=workdir,
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if gen.returncode != 0:
            print(gen.stdout[-3000:], gen.stderr[-3000:])
            raise SystemExit(f"mutant generation failed ({gen.returncode})")
        (workdir / "mutants" / f"{PLUGIN}.py").write_text(PLUGIN_SOURCE)
        # Bytecode once for all: the tests' subprocesses (sandbox workers) would otherwise
        # compile the mutated modules, several times the size of the sources, at every start.
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "-j", str(args.max_children), "mutants"],
            cwd=workdir, env=BYTECODE_ENV, capture_output=True, check=False,
        )  # fmt: skip
        generate_s = time.perf_counter() - t0
        meta = load_meta(workdir, patterns)
        by_file = {path: list(data["exit_code_by_key"]) for path, data in meta.items()}
        total_mutants = sum(len(v) for v in by_file.values())
        if args.resume:
            info = json.loads((workdir / SAMPLE_FILE).read_text())
            chosen = info["names"]
            if 0 < args.subsample < len(chosen):  # still a uniform sample of every mutant
                chosen = sorted(random.Random(args.seed).sample(chosen, args.subsample))
                then = " ".join(["bench/mutation.py", *sys.argv[1:]])
                info |= {"names": chosen, "command": f"{info['command']}, then {then}"}
                (workdir / SAMPLE_FILE).write_text(json.dumps(info, indent=1))
            codes = {k: v for data in meta.values() for k, v in data["exit_code_by_key"].items()}
            todo = [n for n in chosen if status_of(codes.get(n)) in ("timeout", "not checked")]
            everything = False
        else:
            everything = args.sample == 0 and args.per_module == 0
            chosen = todo = draw(by_file, args.sample, args.per_module, args.seed)
            (workdir / SAMPLE_FILE).write_text(
                json.dumps(
                    {
                        "date": time.strftime("%Y-%m-%d %H:%M"),
                        "command": " ".join(["bench/mutation.py", *sys.argv[1:]]),
                        "only_mutate": patterns,
                        "names": chosen,
                    },
                    indent=1,
                )
            )
        names = set(chosen)
        print(f"snapshot + generation: {generate_s:.0f} s ({gen.stdout.strip().splitlines()[-1]})")
        print(f"{total_mutants} mutants in {len(by_file)} files; testing {len(todo)}")
        rc, run_s, setup_s = run_mutmut(
            workdir, todo, args.max_children, everything, args.deadline * 60, patterns
        )
        if rc != 0:
            print(f"mutmut exited {rc}; the end of {workdir / 'run.log'}:")
            print((workdir / "run.log").read_text(errors="replace")[-3000:])
        meta = load_meta(workdir, patterns)
        tested = max(decided(workdir, patterns, set(todo)), 1)  # (a --resume reruns timeouts)
        setup_s = setup_s or run_s
        each = (run_s - setup_s) / tested
        full = generate_s + setup_s + each * total_mutants
        print(
            f"wall: {generate_s / 60:.1f} min generating, {run_s / 60:.1f} min in mutmut run "
            f"({setup_s / 60:.1f} min of it stats + clean run), "
            f"{(generate_s + run_s) / 60:.1f} min in all"
        )
        print(
            f"{each:.1f} s of wall time a mutant ({tested} tested, {args.max_children} "
            f"children): a full run of {total_mutants} mutants ~{full / 3600:.0f} h"
        )
    print()
    report(tally(meta, names))
    if args.survivors:
        show_survivors(workdir, meta, names, args.timeouts)


if __name__ == "__main__":
    main()
