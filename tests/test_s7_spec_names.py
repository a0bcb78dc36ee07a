"""Specs read in process (benches, the validity audit of a warehouse) name services as the
factory does: tau2's and tau-bench's ``retail`` are two services, the later file's renamed
``tau_bench_retail``, never one merged ``retail`` whose tasks an audit cannot replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from library.compose.spec_library import specs_by_service

SPECS = Path(__file__).resolve().parents[2] / "shared" / "specs" / "functions"
FILES = [SPECS / "tau2" / "retail.json", SPECS / "tau_bench" / "retail.json"]

pytestmark = pytest.mark.skipif(
    not all(f.is_file() for f in FILES), reason="../shared/specs not present"
)


def test_two_files_claiming_one_service_are_two_services() -> None:
    services = specs_by_service(FILES)
    assert set(services) == {"retail", "tau_bench_retail"}
    assert {s.source_file for s in services["retail"]} == {str(FILES[0])}
    assert {s.source_file for s in services["tau_bench_retail"]} == {str(FILES[1])}
    assert all(s.service == "tau_bench_retail" for s in services["tau_bench_retail"])
