"""One workflow fills no more than ``Balance.MOTIF_SHARE`` of a run (offboarding's
hand-overs walk easily: uncapped it was 35% of 1,000 tasks and carried none of their
thresholds), except while a starving run has its caps lifted."""

from __future__ import annotations

from types import SimpleNamespace

from library.compose import ComposeConfig
from library.compose.compose import MOTIF_CAP, Balance


def _task(motif: str, n: int) -> SimpleNamespace:
    return SimpleNamespace(
        motif=motif, capabilities=[], difficulty="medium", services=[f"s{n}", f"t{n}"],
        domain=f"d{n % 7}",
    )  # fmt: skip


def test_a_workflow_at_its_share_takes_no_more_tasks() -> None:
    balance = Balance(SimpleNamespace(config=ComposeConfig()))  # type: ignore[arg-type]
    for n in range(40):
        balance.add(_task("offboarding" if n % 2 else f"other{n}", n))  # type: ignore[arg-type]
    assert balance.over(["a", "b"], "people", "offboarding") == MOTIF_CAP  # 20 of 40
    assert balance.over(["a", "b"], "people", "refund") is None
    balance.lifted = True  # a starving run takes what it finds
    assert balance.over(["a", "b"], "people", "offboarding") is None
