"""A record the plan creates is referred to by what it is, not by the id the gold run gave
it: ids come from a per-service counter, so an agent that creates the same records in
another order (the TSIG key before the zone) gets other ids, and its work is still right."""

from __future__ import annotations

from library.compose.derive import state_criteria
from library.rubric import FieldUpdated, RecordCreated
from library.rubric.criteria import new_record
from library.runtime.world import CollectionDiff, WorldDiff

OLD_ZONE = {"id": "zon_old", "name": "old.example.com"}


def _states(zones: dict, keys: dict, files: dict | None = None) -> dict:
    return {"dns": {"zones": zones, "cryptokeys": keys, "files": files or {}}}


def test_a_reference_to_a_created_record_is_checked_as_a_new_record_of_its_collection():
    initial = _states({"zon_old": OLD_ZONE}, {})
    key = RecordCreated("dns", "cryptokeys", {"zone_id": new_record("zones"), "keytype": "csk"})
    zone_b = {"id": "zon_b", "name": "careers.example.com"}  # the id another order gives
    right = _states(
        {"zon_old": OLD_ZONE, "zon_b": zone_b},
        {"k1": {"id": "k1", "zone_id": "zon_b", "keytype": "csk"}},
    )
    assert key.check(initial, right, "")
    on_the_old_zone = _states(
        {"zon_old": OLD_ZONE, "zon_b": zone_b},
        {"k1": {"id": "k1", "zone_id": "zon_old", "keytype": "csk"}},
    )
    assert not key.check(initial, on_the_old_zone, "")  # an existing zone is not the new one
    dangling = _states(
        {"zon_old": OLD_ZONE}, {"k1": {"id": "k1", "zone_id": "zon_b", "keytype": "csk"}}
    )
    assert not key.check(initial, dangling, "")  # no such zone was made
    wrong_type = _states(
        {"zon_old": OLD_ZONE, "zon_b": zone_b},
        {"k1": {"id": "k1", "zone_id": "zon_b", "keytype": "ksk"}},
    )
    assert not key.check(initial, wrong_type, "")
    assert "a new zones record's id" in key.describe()
    # an update pointing a record at the new one, likewise
    files = {"f1": {"id": "f1", "zone_id": "zon_b"}}
    moved = FieldUpdated("dns", "files", "f1", "zone_id", new_record("zones"))
    assert moved.check(
        _states({"zon_old": OLD_ZONE}, {}, {"f1": {"id": "f1"}}),
        _states({"zon_old": OLD_ZONE, "zon_b": zone_b}, {}, files),
        "",
    )
    assert not moved.check(
        _states({"zon_old": OLD_ZONE}, {}, {"f1": {"id": "f1"}}),
        _states({"zon_old": OLD_ZONE}, {}, {"f1": {"id": "f1", "zone_id": "zon_old"}}),
        "",
    )


def test_the_rubric_refers_to_the_plan_s_new_records_by_collection():
    zone = {"id": "zon_a", "name": "careers.example.com"}
    key = {"id": "cry_1", "zone_id": "zon_a", "keytype": "csk"}
    diff = WorldDiff(
        {
            "dns": {
                "zones": CollectionDiff(added={"zon_a": zone}),
                "cryptokeys": CollectionDiff(added={"cry_1": key}),
                "files": CollectionDiff(updated={"f1": {"zone_id": (None, "zon_a")}}),
            }
        }
    )
    criteria = state_criteria(diff, [], {})
    made = [c for c in criteria if isinstance(c, RecordCreated) and c.collection == "cryptokeys"]
    assert made and made[0].fields["zone_id"] == new_record("zones")
    assert made[0].fields["keytype"] == "csk"
