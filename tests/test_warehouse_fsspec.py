"""The warehouse at an fsspec URL: memory:// (the non-local write and read paths, for real),
file:// (the local path under another name, shared by several processes) and clear errors
for protocols whose package is missing."""

from __future__ import annotations

import importlib.util
import io
import multiprocessing
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fsspec.registry import known_implementations

from warehouse import TABLES, Warehouse, WarehouseError, content_id
from warehouse.store import to_table

from .warehouse_rows import NOW, run_row

MEMORY = fsspec.filesystem("memory")


def run_ids(wh: Warehouse) -> list[str]:
    return sorted(wh.query("select run_id from runs").column("run_id").to_pylist())


@pytest.fixture
def mem_url() -> Iterator[str]:
    """A fresh memory:// warehouse URL; its objects are removed afterwards (the memory
    filesystem is one store per process, shared by every test)."""
    name = f"wh-{uuid.uuid4().hex}"
    yield f"memory://{name}"
    if MEMORY.exists(f"/{name}"):
        MEMORY.rm(f"/{name}", recursive=True)
    assert not MEMORY.glob(f"/{name}/**")


@pytest.fixture
def mem_wh(mem_url: str) -> Iterator[Warehouse]:
    wh = Warehouse(mem_url)
    yield wh
    wh.close()


def objects(wh: Warehouse, pattern: str) -> list[str]:
    base = wh.location.removeprefix("memory://")
    return sorted(MEMORY.glob(f"{base}/{pattern}"))


# -- memory:// ----------------------------------------------------------------------------------
def test_memory_location_is_normalised_and_root_refuses(mem_url: str) -> None:
    wh = Warehouse(mem_url + "/")
    name = mem_url.removeprefix("memory://")
    assert wh.location == f"memory:///{name}"
    assert Warehouse(wh.location).location == wh.location  # round-trips for other openers
    assert not wh.is_local
    assert repr(wh) == f"Warehouse('memory:///{name}')"
    with pytest.raises(WarehouseError, match=r"at a URL.*location"):
        _ = wh.root
    with pytest.raises(WarehouseError, match="at a URL"):
        wh.table_dir("runs")


def test_memory_append_is_idempotent_and_queryable(mem_wh: Warehouse) -> None:
    assert not mem_wh.has_batch("runs", "b1")
    assert mem_wh.append("runs", [run_row("r1", parameters={"n": 3})], batch_id="b1") is True
    assert mem_wh.has_batch("runs", "b1")
    assert mem_wh.append("runs", [run_row("r1-again")], batch_id="b1") is False
    assert mem_wh.append("runs", [run_row("r2")]) is True
    assert mem_wh.append("runs", [run_row("r2")]) is False  # same content, same default id
    assert mem_wh.count("runs") == 2
    assert run_ids(mem_wh) == ["r1", "r2"]
    n = mem_wh.query("select parameters->>'$.n' as n from runs where run_id = $id", {"id": "r1"})
    assert n.column("n").to_pylist() == ["3"]
    assert mem_wh.query_readonly("select count(*) as n from runs").column("n")[0].as_py() == 2
    files = objects(mem_wh, "runs/v1/*")
    r2_id = content_id(to_table([run_row("r2")], TABLES["runs"]))
    # One object per batch, no temporary objects left.
    assert sorted(f.rsplit("/", 1)[1] for f in files) == sorted(["b1.parquet", f"{r2_id}.parquet"])
    # The object is a real Parquet file that carries the table's metadata.
    meta = pq.read_schema(io.BytesIO(MEMORY.cat_file(files[0]))).metadata
    assert meta[b"compoworld.table"] == b"runs"


def test_memory_new_batches_show_up_on_every_connection(mem_wh: Warehouse) -> None:
    assert mem_wh.count("runs") == 0
    other = Warehouse(mem_wh.location)  # another opener of the same warehouse
    try:
        other.append("runs", [run_row("x")], batch_id="x")
        assert mem_wh.count("runs") == 1
        other.append("runs", [run_row("y")], batch_id="y")
        assert run_ids(mem_wh) == ["x", "y"]
    finally:
        other.close()


@pytest.mark.parametrize(
    "sql",
    [
        "insert into runs select * from runs",
        "create table t as select 1",
        "select 1; drop view runs",
        "copy runs to 'memory://elsewhere/x.parquet'",
    ],
)
def test_memory_query_readonly_refuses_writes(mem_wh: Warehouse, sql: str) -> None:
    mem_wh.append("runs", [run_row("r1")], batch_id="b1")
    with pytest.raises(WarehouseError, match="read-only"):
        mem_wh.query_readonly(sql)
    assert mem_wh.count("runs") == 1
    assert not MEMORY.exists("/elsewhere/x.parquet")


def test_memory_empty_tables_bind_with_their_columns(mem_wh: Warehouse) -> None:
    for schema in TABLES.values():
        result = mem_wh.query(f'select * from "{schema.name}"')
        assert result.num_rows == 0
        assert result.column_names == schema.schema.names
    mem_wh.append("runs", [run_row("r1")])
    assert mem_wh.count("runs") == 1
    assert mem_wh.count("tasks") == 0  # other tables stay empty but bound


def test_memory_readers_never_see_temporary_objects(mem_wh: Warehouse) -> None:
    mem_wh.append("runs", [run_row("r1")], batch_id="b1")
    folder = mem_wh.location.removeprefix("memory://") + "/runs/v1"
    MEMORY.pipe_file(f"{folder}/.tmp-{uuid.uuid4().hex}", b"half a parquet file")
    assert run_ids(mem_wh) == ["r1"]
    assert not mem_wh.has_batch("runs", ".tmp")


# -- the non-local write path: temporary object, then move -------------------------------------
def test_publish_skips_an_existing_batch_and_leaves_no_temporary(mem_wh: Warehouse) -> None:
    folder = mem_wh.location.removeprefix("memory://") + "/runs/v1"
    assert mem_wh._publish(folder, "b1", b"first") is True
    assert mem_wh._publish(folder, "b1", b"second") is False
    assert MEMORY.cat_file(f"{folder}/b1.parquet") == b"first"
    assert [p.rsplit("/", 1)[1] for p in MEMORY.glob(f"{folder}/*")] == ["b1.parquet"]
    assert MEMORY.glob(f"{folder}/.tmp-*") == []


def test_one_batch_id_written_concurrently_from_threads_keeps_one_copy(
    mem_wh: Warehouse,
) -> None:
    rows = [run_row(f"r{i}") for i in range(50)]
    start = threading.Barrier(8)
    results: list[bool] = []
    errors: list[BaseException] = []

    def write() -> None:
        try:
            start.wait()
            results.append(mem_wh.append("runs", rows, batch_id="same"))
        except BaseException as exc:  # reported below; a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert errors == []
    assert len(results) == 8 and any(results)  # racers may all see True; one copy survives
    assert [p.rsplit("/", 1)[1] for p in objects(mem_wh, "runs/v1/*")] == ["same.parquet"]
    assert objects(mem_wh, "runs/v1/.tmp-*") == []
    assert run_ids(mem_wh) == sorted(f"r{i}" for i in range(50))
    # Distinct ids from many threads: all land.
    threads = [
        threading.Thread(target=mem_wh.append, args=("runs", [run_row(f"t{i}")], f"t{i}"))
        for i in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert mem_wh.count("runs") == 58


# -- schema versions: older version folders read the same at a URL as locally -------------------
def write_old_version(fs: fsspec.AbstractFileSystem, base: str) -> None:
    """A batch from an imagined runs v0: fewer columns, and one since dropped."""
    old = pa.table(
        {
            "run_id": ["old-1", "old-2"],
            "flow": ["factory", "factory"],
            "status": ["completed", "failed"],
            "started_at": pa.array([NOW, NOW], pa.timestamp("us", tz="UTC")),
            "ended_at": pa.array([NOW, NOW], pa.timestamp("us", tz="UTC")),
            "duration_s": [2.0, 3.0],
            "legacy_host": ["a", "b"],
        }
    )
    sink = io.BytesIO()
    pq.write_table(old, sink)
    fs.makedirs(f"{base}/runs/v0", exist_ok=True)
    fs.pipe_file(f"{base}/runs/v0/old.parquet", sink.getvalue())


def test_older_version_folders_union_by_name_locally_and_at_a_url(
    tmp_path: Path, mem_wh: Warehouse
) -> None:
    local = Warehouse(tmp_path)
    write_old_version(fsspec.filesystem("file"), str(tmp_path))
    write_old_version(MEMORY, mem_wh.location.removeprefix("memory://"))
    sql = "select run_id, error, legacy_host from runs order by run_id"
    results = []
    for wh in (local, mem_wh):
        wh.append("runs", [run_row("new-1", error="boom")], batch_id="new")
        result = wh.query(sql)
        assert result.to_pylist() == [
            {"run_id": "new-1", "error": "boom", "legacy_host": None},
            {"run_id": "old-1", "error": None, "legacy_host": "a"},
            {"run_id": "old-2", "error": None, "legacy_host": "b"},
        ]
        results.append(wh.query("select * from runs order by run_id"))
    assert results[0].equals(results[1])  # same columns, types and rows both ways


# -- file:// is the local path ----------------------------------------------------------------
def test_file_url_is_the_same_warehouse_as_the_plain_path(tmp_path: Path) -> None:
    by_url = Warehouse(f"file://{tmp_path}/")
    by_path = Warehouse(tmp_path)
    assert by_url.is_local and by_path.is_local
    assert by_url.root == by_path.root == tmp_path
    assert by_url.location == f"file://{tmp_path}"  # normalised: no trailing slash
    assert by_path.location == str(tmp_path)
    assert Warehouse(by_url.location).root == tmp_path
    assert by_url.append("runs", [run_row("u1")], batch_id="u1") is True
    assert by_path.append("runs", [run_row("u1")], batch_id="u1") is False
    assert by_path.append("runs", [run_row("p1")], batch_id="p1") is True
    assert by_url.has_batch("runs", "p1") and by_path.has_batch("runs", "u1")
    expected = by_path.query("select * from runs order by run_id")
    assert expected.num_rows == 2
    assert by_url.query("select * from runs order by run_id").equals(expected)
    assert sorted(p.name for p in (tmp_path / "runs" / "v1").iterdir()) == [
        "p1.parquet",
        "u1.parquet",
    ]


def append_worker(location: str, who: str, n: int) -> None:
    """Runs in a spawned process: own batches, and batches every process races on."""
    wh = Warehouse(location)
    for i in range(n):
        wh.append("runs", [run_row(f"{who}-{i}")], batch_id=f"{who}-{i}")
        wh.append("runs", [run_row(f"shared-{i}")], batch_id=f"shared-{i}")
    wh.close()


def test_processes_sharing_a_file_url_warehouse_lose_and_duplicate_nothing(
    tmp_path: Path,
) -> None:
    location = f"file://{tmp_path}"
    who, n = ["a", "b", "c"], 40
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=append_worker, args=(location, w, n)) for w in who]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    ids = Warehouse(location).query("select run_id from runs").column("run_id").to_pylist()
    expected = [f"{w}-{i}" for w in who for i in range(n)] + [f"shared-{i}" for i in range(n)]
    assert sorted(ids) == sorted(expected)  # equal lists: nothing lost, nothing twice
    names = [p.name for p in (tmp_path / "runs" / "v1").iterdir()]
    assert len(names) == len(expected)
    assert not [name for name in names if name.startswith(".tmp-")]


# -- errors --------------------------------------------------------------------------------------
def missing_protocol() -> tuple[str, str]:
    """A protocol fsspec knows whose package is not installed: s3 unless s3fs is present."""
    for protocol in ("s3", "gcs", "abfs", "oci", "dropbox"):
        package = known_implementations[protocol]["class"].split(".", 1)[0]
        if importlib.util.find_spec(package) is None:
            return protocol, package
    pytest.skip("every candidate protocol package is installed")


def test_a_missing_protocol_package_is_named_with_the_url() -> None:
    protocol, package = missing_protocol()
    url = f"{protocol}://bucket/compoworld"
    with pytest.raises(WarehouseError) as info:
        Warehouse(url)
    assert url in str(info.value)
    assert f"package '{package}'" in str(info.value)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("nope://x", "Protocol not known: nope"),
        ("memory://", "name a folder"),
        ("simplecache::memory://x", "chained"),
    ],
)
def test_unusable_urls_are_refused_clearly(url: str, message: str) -> None:
    with pytest.raises(WarehouseError, match=message) as info:
        Warehouse(url)
    assert url in str(info.value)
