"""A DNS name with its root dot ("eu.example.com.", the canonical form a DNS API asks for)
is the name without it: an agent that writes the zone as the spec says is graded as right as
one that leaves the dot off. Nothing else loses its final dot."""

from __future__ import annotations

from library.rubric.values import matches, same


def test_a_rooted_domain_name_is_the_same_name() -> None:
    assert same("eu.changfisher.com.", "eu.changfisher.com")
    assert same("EU.ChangFisher.com.", "eu.changfisher.com")
    assert matches({"name": "cdn.example.co.uk."}, {"name": "cdn.example.co.uk"})


def test_other_text_keeps_its_full_stop() -> None:
    assert not same("Done.", "Done")
    assert not same("Created the zone x.example.com.", "Created the zone x.example.com")
    assert not same("e.g.", "e.g")
    assert not same("eu.changfisher.com.", "us.changfisher.com")
