"""The engine: skip with reasons, errors contained, rubric tuning without code."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from checks import LAB
from grader.engine.api import Check, Fail, check
from grader.engine.grade import grade, load_artifacts
from grader.engine.lab import Lab
from grader.engine.params import Number
from grader.engine.rubric import RubricError, load_rubric, parse_rubric
from grader.engine.runner import run_checks
from grader.reading.limits import DEFAULT_LIMITS
from tests.conftest import CORRECT, ROOT, SAMPLES, check_of, statuses

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def lab_with(*extra: Check) -> Lab:
    return dataclasses.replace(LAB, checks=(*LAB.checks, *extra))


def settings_for(lab: Lab, **extra_points: float) -> dict:
    settings = parse_rubric(RUBRIC_TEXT, "rubric.toml", LAB.all_check_ids()).settings()
    return settings | {cid: {"points": p, "enabled": True} for cid, p in extra_points.items()}


def test_a_check_that_raises_is_an_error_and_grading_goes_on() -> None:
    @check("demo.broken", reads=("ttft",))
    def broken(ctx):
        return 1 / 0

    lab = lab_with(broken)
    outcomes = run_checks(
        lab,
        load_artifacts(lab, str(CORRECT), {}, DEFAULT_LIMITS),
        settings_for(lab, **{"demo.broken": 1}),
    )
    by_id = {o.id: o for o in outcomes}
    assert by_id["demo.broken"].status == "error"
    assert "ZeroDivisionError" in str(by_id["demo.broken"].params["detail"])
    assert by_id["ttft.medians"].status == "passed"


def test_a_check_whose_prerequisite_failed_is_skipped_with_the_reason(submission: Path) -> None:
    @check("demo.after_health", reads=("health",), after=("health.ok",))
    def after(ctx):
        raise Fail("never")

    (submission / "health.json").write_text('{"status": "loading"}', "utf-8")
    lab = lab_with(after)
    outcomes = run_checks(
        lab,
        load_artifacts(lab, str(submission), {}, DEFAULT_LIMITS),
        settings_for(lab, **{"demo.after_health": 1}),
    )
    skipped = next(o for o in outcomes if o.id == "demo.after_health")
    assert skipped.status == "skipped" and skipped.params["check"] == "health.ok"
    assert skipped.message_id == "engine.skipped.check"


def test_rubric_points_change_the_score_without_code(tmp_path: Path) -> None:
    text = RUBRIC_TEXT.replace(
        '[checks."health.ok"]\npoints = 1', '[checks."health.ok"]\npoints = 10'
    )
    path = tmp_path / "rubric.toml"
    path.write_text(text, "utf-8")
    rubric = load_rubric(str(path), "checks", LAB.rubric_file, LAB.all_check_ids())
    result = grade(LAB, str(CORRECT), rubric)
    assert check_of(result, "health.ok").max_points == 10


def test_rubric_threshold_change_flips_a_verdict(tmp_path: Path) -> None:
    strict = RUBRIC_TEXT.replace("max_idle_fraction = 0.25", "max_idle_fraction = 0.0001")
    rubric = parse_rubric(strict, "strict.toml", LAB.all_check_ids())
    result = grade(LAB, str(SAMPLES / "role_chunk_counted"), rubric)  # idle 28 ms
    assert statuses(result)["cancel.slot_freed"] == "failed"


def test_disabled_check_is_not_run_nor_counted() -> None:
    text = RUBRIC_TEXT.replace(
        '[checks."health.ok"]\npoints = 1', '[checks."health.ok"]\npoints = 1\nenabled = false'
    )
    result = grade(LAB, str(CORRECT), parse_rubric(text, "r.toml", LAB.all_check_ids()))
    assert "health.ok" not in statuses(result)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (RUBRIC_TEXT.replace('[checks."health.ok"]\npoints = 1', ""), "health.ok"),
        (RUBRIC_TEXT + '\n[checks."nope.x"]\npoints = 1\n', "nope.x"),
        (
            RUBRIC_TEXT.replace(
                '[checks."health.ok"]\npoints = 1', '[checks."health.ok"]\npoints = -1'
            ),
            "health.ok",
        ),
        (
            RUBRIC_TEXT.replace(
                '[checks."health.ok"]\npoints = 1', '[checks."health.ok"]\npoints = "1"'
            ),
            "health.ok",
        ),
        ("lab = 'x'\n[[", "TOML"),
    ],
)
def test_unusable_rubric_is_an_error_naming_the_problem(text: str, words: str) -> None:
    with pytest.raises(RubricError, match=words.replace(".", r"\.")):
        parse_rubric(text, "r.toml", LAB.all_check_ids())


def test_a_missing_rubric_threshold_is_an_error_on_that_check_only() -> None:
    text = RUBRIC_TEXT.replace("max_idle_fraction = 0.25", "")
    result = grade(LAB, str(CORRECT), parse_rubric(text, "r.toml", LAB.all_check_ids()))
    assert check_of(result, "cancel.slot_freed").status == "error"
    assert "max_idle_fraction" in (check_of(result, "cancel.slot_freed").message or "")
    assert statuses(result)["cancel.interrupted"] == "passed"


def test_grader_package_does_not_import_the_lab() -> None:
    """No module of the engine names a lab; only grader/engine/labs.py imports one, by the name
    an entry point (or the command line) gives. The renderers and the heavy commands are
    imported by name too, each from the engine's own table."""
    importing = []
    for path in (ROOT / "grader").rglob("*.py"):
        text = path.read_text("utf-8")
        assert not re.search(r"^\s*(from|import) checks\b", text, re.M), path
        if "import_module(" in text:
            importing.append(path.relative_to(ROOT).as_posix())
    assert sorted(importing) == [
        "grader/cli/main.py",
        "grader/engine/labs.py",
        "grader/render/__init__.py",
    ]
    from grader.render import FORMATS  # the renderers, imported by their engine name

    assert all(module.startswith("grader.render.") for module in FORMATS.values())
    from grader.cli.main import _HEAVY  # the heavy commands' modules, by their engine name

    assert all(module.startswith("grader.") for _, module in _HEAVY.values())


def test_rubric_limits_table_changes_a_size_cap() -> None:
    text = RUBRIC_TEXT.replace(
        'version = "2026.12"', 'version = "2026.12"\n\n[limits]\nfile_bytes = 100'
    )
    rubric = parse_rubric(text, "r.toml", LAB.all_check_ids())
    result = grade(LAB, str(CORRECT), rubric)
    assert statuses(result)["chunks.schema"] == "failed"  # chunks.jsonl is over 100 bytes
    assert statuses(result)["ttft.schema"] == "passed"  # the lab's json_bytes caps it


def test_rubric_limits_table_refuses_unknown_or_negative_limits() -> None:
    for table in ("file_bites = 100", "file_bytes = -1"):
        text = RUBRIC_TEXT.replace(
            'version = "2026.12"', f'version = "2026.12"\n\n[limits]\n{table}'
        )
        with pytest.raises(RubricError, match="limits"):
            parse_rubric(text, "r.toml", LAB.all_check_ids())


def _outcomes(lab: Lab, folder: Path, **points: float) -> dict:
    outcomes = run_checks(
        lab, load_artifacts(lab, str(folder), {}, DEFAULT_LIMITS), settings_for(lab, **points)
    )
    return {o.id: o for o in outcomes}


def test_a_prerequisite_declared_later_still_runs_first(submission: Path) -> None:
    @check("demo.dependent", reads=("health",), after=("demo.premise",))
    def dependent(ctx):
        return None

    @check("demo.premise", reads=("health",))
    def premise(ctx):
        raise Fail("never")

    by_id = _outcomes(
        lab_with(dependent, premise), submission, **{"demo.dependent": 1, "demo.premise": 1}
    )
    assert by_id["demo.dependent"].status == "skipped"
    assert list(by_id).index("demo.dependent") < list(by_id).index("demo.premise")


def test_a_skip_propagates_and_names_the_first_cause(submission: Path) -> None:
    @check("demo.middle", reads=("health",), confirmed_by=("health.ok",))
    def middle(ctx):
        return None

    @check("demo.last", reads=("health",), after=("demo.middle",))
    def last(ctx):
        return None

    (submission / "health.json").write_text('{"status": "loading"}', "utf-8")
    by_id = _outcomes(lab_with(middle, last), submission, **{"demo.middle": 1, "demo.last": 1})
    assert by_id["demo.middle"].message_id == "engine.skipped.unconfirmed"
    assert by_id["demo.last"].status == "skipped"
    assert by_id["demo.last"].params["check"] == "health.ok"


def test_an_unconfirmed_check_earns_no_points(submission: Path) -> None:
    @check("demo.confirmed", reads=("health",), confirmed_by=("health.ok",))
    def confirmed(ctx):
        return None

    (submission / "health.json").write_text('{"status": "loading"}', "utf-8")
    skipped = _outcomes(lab_with(confirmed), submission, **{"demo.confirmed": 5})["demo.confirmed"]
    assert (skipped.status, skipped.points, skipped.max_points) == ("skipped", 0, 5)


def test_a_disabled_prerequisite_gates_nothing(submission: Path) -> None:
    @check("demo.gated", reads=("health",), confirmed_by=("health.ok",))
    def gated(ctx):
        return None

    lab = lab_with(gated)
    (submission / "health.json").write_text('{"status": "loading"}', "utf-8")
    settings = settings_for(lab, **{"demo.gated": 1})
    settings["health.ok"] = {**settings["health.ok"], "enabled": False}
    outcomes = run_checks(lab, load_artifacts(lab, str(submission), {}, DEFAULT_LIMITS), settings)
    assert {o.id: o.status for o in outcomes}["demo.gated"] == "passed"


def test_an_unknown_prerequisite_is_refused_when_the_lab_is_built() -> None:
    @check("demo.typo", reads=("health",), confirmed_by=("health.okk",))
    def typo(ctx):
        return None

    with pytest.raises(ValueError, match=r"health\.okk"):
        lab_with(typo)


def test_a_cycle_of_prerequisites_is_refused_when_the_lab_is_built() -> None:
    @check("demo.a", reads=("health",), after=("demo.b",))
    def a(ctx):
        return None

    @check("demo.b", reads=("health",), after=("demo.a",))
    def b(ctx):
        return None

    with pytest.raises(ValueError, match="itself"):
        lab_with(a, b)


def test_recorded_measurements_reach_the_result_even_when_the_check_fails() -> None:
    @check("demo.records", reads=("ttft",))
    def records(ctx):
        ctx.record(p50=ctx["ttft"]["ttft_p50"])
        raise Fail("never")

    lab = lab_with(records)
    rubric = parse_rubric(
        RUBRIC_TEXT + '\n[checks."demo.records"]\npoints = 1\n', "r.toml", lab.all_check_ids()
    )
    result = grade(lab, str(CORRECT), rubric)
    assert check_of(result, "demo.records").data == {"p50": 222.796}


def test_a_check_keeps_the_rubric_parameters_it_was_judged_by() -> None:
    @check("demo.judged", reads=("ttft",), params={"limit_ms": Number(0, 10_000)})
    def judged(ctx):
        ctx.record(p50=ctx["ttft"]["ttft_p50"])

    lab = lab_with(judged)
    rubric = parse_rubric(
        RUBRIC_TEXT + '\n[checks."demo.judged"]\npoints = 1\nlimit_ms = 250\n',
        "r.toml",
        lab.all_check_ids(),
    )
    data = check_of(grade(lab, str(CORRECT), rubric), "demo.judged").data
    assert data == {"params": {"limit_ms": 250}, "p50": 222.796}


def test_a_measurement_may_not_take_the_runners_params_key() -> None:
    @check("demo.sneaky", reads=("ttft",))
    def sneaky(ctx):
        ctx.record(params={"limit_ms": 1})

    lab = lab_with(sneaky)
    rubric = parse_rubric(
        RUBRIC_TEXT + '\n[checks."demo.sneaky"]\npoints = 1\n', "r.toml", lab.all_check_ids()
    )
    assert check_of(grade(lab, str(CORRECT), rubric), "demo.sneaky").status == "error"


@pytest.mark.parametrize(
    "ask",
    [
        lambda ctx: ctx["ttft"],  # declared nowhere
        lambda ctx: ctx["prefill"],  # only used: its value may be None, ask optional()
        lambda ctx: ctx.optional("ttft"),
        lambda ctx: ctx.at("ttft", "/runs"),
        lambda ctx: ctx.sha256("ttft"),
    ],
)
def test_an_artifact_a_check_did_not_declare_is_refused(ask) -> None:
    """What a check depends on is what it declares: the skips rely on it."""

    @check("demo.sneaky", reads=("health",), uses=("prefill",))
    def sneaky(ctx):
        ask(ctx)

    by_id = _outcomes(lab_with(sneaky), CORRECT, **{"demo.sneaky": 1})
    assert by_id["demo.sneaky"].status == "error"
    assert "does not declare" in str(by_id["demo.sneaky"].params["detail"])


def test_what_a_check_declares_it_may_ask_for() -> None:
    @check("demo.declared", reads=("health",), uses=("prefill", "ttft"))
    def declared(ctx):
        assert ctx["health"]["status"] == "ok" and ctx.optional("prefill")
        assert ctx.at("ttft", "/runs").file == "ttft.json" and ctx.sha256("health")

    by_id = _outcomes(lab_with(declared), CORRECT, **{"demo.declared": 1})
    assert by_id["demo.declared"].status == "passed"


@pytest.mark.parametrize(
    ("declaration", "words"),
    [
        ({"reads": "ttft"}, "not the string"),
        ({"reads": ("ttft",), "after": ("demo.self",)}, "itself"),
        ({"reads": ("ttft",), "uses": ("ttft",)}, "both reads and uses"),
    ],
)
def test_a_misdeclared_check_fails_when_it_is_declared(declaration, words: str) -> None:
    with pytest.raises((TypeError, ValueError), match=words):
        check("demo.self", **declaration)


def test_the_run_order_is_sorted_once_per_lab_and_is_the_declared_order() -> None:
    from grader.engine.api import run_order
    from grader.engine.runner import _in_order

    first = _in_order(LAB.checks)
    assert first == run_order(LAB.checks)
    assert _in_order(LAB.checks) is first  # the same lab: not sorted again
    other = lab_with()
    assert other.checks is not LAB.checks and _in_order(other.checks) == first
    assert _in_order(list(LAB.checks)) is not first  # a list may change: sorted each time
