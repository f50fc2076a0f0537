"""The alignment's check table: the kinds it reports, its order, and the kinds' written strings."""

from __future__ import annotations

from refinery.agents.alignment import Finding, FindingKind, align
from refinery.agents.alignment.checks import registry


def test_the_checks_report_every_kind_but_the_story_wide_name_drift() -> None:
    reported = {kind for check in registry.CHECKS for kind in check.reports}
    assert reported == set(FindingKind) - {FindingKind.NAME_DRIFT}


def test_the_checks_run_in_their_table_order() -> None:
    assert [c.check.__module__.rsplit(".", 1)[-1] for c in registry.CHECKS] == [
        "negation",
        "quantifier",
        "connectives",
        "implication",
        "negated_condition",
        "negated_side",
        "negation_scope",
        "argument_order",
        "attitude",
        "repeated",
        "word_unsymbolised",
        "entity_unsymbolised",
        "symbol_ungrounded",
    ]


def test_finding_kinds_keep_the_strings_written_files_hold() -> None:
    assert [k.value for k in FindingKind] == [
        "negation_missing",
        "negation_extra",
        "quantifier",
        "and_as_or",
        "or_as_and",
        "exclusive_or",
        "conjunct_missing",
        "implication_missing",
        "implication_reversed",
        "argument_order",
        "word_unsymbolised",
        "entity_unsymbolised",
        "symbol_ungrounded",
        "name_drift",
        "attitude_dropped",
        "repeated_conjunct",
    ]


def test_align_fills_in_where_each_check_leaves_empty() -> None:
    (finding,) = align({"conclusion": "∀x Fish(x)"}, {"conclusion": "Some fish sting."}).findings
    assert finding.where == "conclusion"
    assert finding.kind is FindingKind.QUANTIFIER
    assert Finding(FindingKind.QUANTIFIER, 0.8, (), (), "m").where == ""
