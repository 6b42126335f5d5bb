"""The rubric is validated against each check's declared parameters, before grading.

A rubric that the grader would misread stops it with exit 2 and a sentence naming the
key, instead of a check that errors for every student while the summary says "graded".
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.params import Integer, ListOf, Number
from grader.engine.rubric import RubricError, parse_rubric
from grader.words.i18n import Catalog
from grader.words.tomlfile import TOMLDecodeError, loads
from tests.conftest import CORRECT, ROOT

RUBRIC_TEXT = (ROOT / "checks" / "rubric.toml").read_text("utf-8")


def lab_rubric(text: str):
    return parse_rubric(text, "r.toml", LAB.all_check_ids(), LAB.parameters(), LAB.name, LAB.limits)


def refusal(text: str) -> str:
    with pytest.raises(RubricError) as info:
        lab_rubric(text)
    return str(info.value)


def replaced(old: str, new: str) -> str:
    assert old in RUBRIC_TEXT
    return RUBRIC_TEXT.replace(old, new)


def test_the_lab_rubric_satisfies_every_declaration() -> None:
    rubric = lab_rubric(RUBRIC_TEXT)
    assert rubric.settings()["cancel.slot_freed"]["max_idle_fraction"] == 0.25


def test_a_misspelt_parameter_is_refused_naming_the_key_and_the_right_name() -> None:
    message = refusal(replaced("max_idle_fraction = 0.25", "max_idle_fracton = 0.25"))
    assert 'checks."cancel.slot_freed".max_idle_fracton' in message
    assert "did you mean max_idle_fraction" in message


def test_a_string_where_a_number_belongs_is_refused() -> None:
    message = refusal(replaced("max_idle_fraction = 0.25", 'max_idle_fraction = "0.25"'))
    assert 'checks."cancel.slot_freed".max_idle_fraction' in message
    assert '"0.25" (a string)' in message and "a number from 0 to 1" in message


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "1000001", "-1"])
def test_points_must_be_finite_and_bounded(value: str) -> None:
    message = refusal(
        replaced('[checks."health.ok"]\npoints = 1', f'[checks."health.ok"]\npoints = {value}')
    )
    assert 'checks."health.ok".points' in message and "0 to 1000000" in message


def test_a_threshold_out_of_its_range_is_refused() -> None:
    message = refusal(replaced("max_idle_fraction = 0.25", "max_idle_fraction = 2"))
    assert "max_idle_fraction" in message and "2 (a whole number)" in message


def test_a_boolean_is_not_a_number() -> None:
    assert "true (a boolean)" in refusal(
        replaced("max_idle_fraction = 0.25", "max_idle_fraction = true")
    )


def test_a_whole_number_parameter_refuses_a_decimal() -> None:
    message = refusal(replaced("n_ctx = 4096", "n_ctx = 4096.5"))
    assert 'checks."props.server_config".n_ctx' in message and "a whole number" in message


def test_a_list_parameter_checks_every_item() -> None:
    message = refusal(replaced("docs = [0, 4, 12]", 'docs = [0, "4", 12]'))
    assert 'checks."prefill.doc_counts".docs' in message and "a list of 1 to 100" in message


def test_a_missing_parameter_is_refused_before_grading() -> None:
    message = refusal(replaced("max_idle_fraction = 0.25", ""))
    assert 'checks."cancel.slot_freed".max_idle_fraction: missing' in message


def test_a_disabled_check_needs_no_parameters() -> None:
    text = replaced("points = 4\nmax_idle_fraction = 0.25", "points = 4\nenabled = false")
    assert "cancel.slot_freed" in lab_rubric(text).checks


def test_a_rubric_for_another_lab_is_refused() -> None:
    assert 'for the lab "other"' in refusal(replaced('lab = "first-token"', 'lab = "other"'))


def test_an_unknown_top_level_key_is_refused() -> None:
    assert "points_total" in refusal("points_total = 3\n" + RUBRIC_TEXT)


@pytest.mark.parametrize("value", ["0", "1.5", '"4096"', "true"])
def test_a_limit_must_be_a_positive_whole_number(value: str) -> None:
    text = replaced('version = "2026.12"', f'version = "2026.12"\n[limits]\nfile_bytes = {value}')
    assert "limits.file_bytes" in refusal(text)


def test_a_misspelt_limit_is_refused_with_the_right_name() -> None:
    text = replaced('version = "2026.12"', 'version = "2026.12"\n[limits]\nfile_bites = 100')
    assert "limits.file_bites" in refusal(text) and "file_bytes" in refusal(text)


def test_the_error_is_worded_in_the_readers_language() -> None:
    with pytest.raises(RubricError) as info:
        lab_rubric(replaced("max_idle_fraction = 0.25", 'max_idle_fraction = "0.25"'))
    japanese = info.value.text(Catalog("ja", ("grader",)))
    assert "max_idle_fraction" in japanese and "0から1までの数値" in japanese


def test_the_command_exits_2_naming_the_key(capsys, tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(replaced("max_idle_fraction = 0.25", "max_idle_fracton = 0.25"), "utf-8")
    code = main(["check", str(CORRECT), "--rubric", str(rubric), "--lang", "en"])
    err = capsys.readouterr().err
    assert code == 2 and "max_idle_fracton" in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_a_batch_with_a_bad_rubric_exits_2_before_grading(capsys, tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(replaced("max_idle_fraction = 0.25", "max_idle_fraction = nan"), "utf-8")
    out = tmp_path / "out"
    code = main(["batch", str(CORRECT), "--out", str(out), "--rubric", str(rubric)])
    assert code == 2 and "max_idle_fraction" in capsys.readouterr().err
    assert not (out / "results").exists()


def test_spec_types_accept_exactly_their_values() -> None:
    assert Number(0, 1).accepts(0.5) and Number(0, 1).accepts(1)
    assert not any(Number(0, 1).accepts(v) for v in (True, float("nan"), 1.01, "0.5", None))
    assert Integer(1, 5).accepts(5) and not Integer(1, 5).accepts(5.0)
    assert ListOf(Integer(0, 9), 1, 2).accepts([1, 2])
    assert not ListOf(Integer(0, 9), 1, 2).accepts([1, 2, 3])
    assert not ListOf(Integer(0, 9), 1, 2).accepts([])


def _params_read(path: Path) -> dict[str, set[str]]:
    """check id -> the names its function passes to ctx.param(...), read with ast."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.FunctionDef):
            continue
        ids = [
            d.args[0].value
            for d in node.decorator_list
            if isinstance(d, ast.Call)
            and isinstance(d.func, ast.Name)
            and d.func.id == "check"  # @check("id", ...), not another decorator
            and d.args
            and isinstance(d.args[0], ast.Constant)
        ]
        names = {
            call.args[0].value
            for call in ast.walk(node)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "param"
            and call.args
            and isinstance(call.args[0], ast.Constant)
        }
        for cid in ids:
            found[cid] = names
    return found


def test_every_parameter_a_check_reads_is_declared() -> None:
    declared = LAB.parameters()
    for path in sorted((ROOT / "checks").glob("*.py")):
        for cid, names in _params_read(path).items():
            assert names == set(declared[cid]), cid


def test_a_good_rubric_loads_without_importing_pydantic() -> None:
    code = (
        "import sys; from checks import LAB; from grader.engine.rubric import load_lab_rubric; "
        "load_lab_rubric(LAB, None, 'checks'); print('pydantic' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip() == "False", proc.stderr


def test_a_limit_the_lab_declares_is_set_in_the_rubric_like_the_engines() -> None:
    from grader.engine.grade import grade

    text = replaced('version = "2026.12"', 'version = "2026.12"\n[limits]\nlog_lines = 10')
    rubric = lab_rubric(text)
    assert rubric.make_limits()["log_lines"] == 10
    assert rubric.make_limits()["sse_events"] == LAB.limits["sse_events"]  # the lab's default
    result = grade(LAB, str(CORRECT), rubric)
    log = next(a for a in result.artifacts if a.name == "log")
    assert [p.message_id for p in log.problems] == ["log.too_many_lines"]


def test_a_misspelt_lab_limit_is_refused_with_the_labs_name() -> None:
    text = replaced('version = "2026.12"', 'version = "2026.12"\n[limits]\nlog_line = 10')
    assert "limits.log_line" in refusal(text) and "log_lines" in refusal(text)


# --------------------------------------------------------------------------- [gradescope]


def test_the_lab_rubric_says_what_gradescope_shows() -> None:
    rubric = lab_rubric(RUBRIC_TEXT)
    assert rubric.gradescope_setting("visibility") == "visible"
    assert rubric.gradescope_setting("stdout_visibility") == "hidden"
    assert rubric.gradescope_setting("leaderboard") is False


def test_a_rubric_without_gradescope_settings_gets_the_defaults() -> None:
    start = RUBRIC_TEXT.index("[gradescope]")
    end = RUBRIC_TEXT.index("[checks.", start)
    rubric = lab_rubric(RUBRIC_TEXT[:start] + RUBRIC_TEXT[end:])
    assert rubric.visibility("health.ok") == "visible"
    assert rubric.gradescope_setting("stdout_visibility") == "hidden"


def test_a_checks_own_visibility_overrides_the_default() -> None:
    own = 'points = 4\nvisibility = "hidden"\nmax_idle_fraction'
    text = replaced("points = 4\nmax_idle_fraction", own)
    rubric = lab_rubric(text)
    assert rubric.visibility("cancel.slot_freed") == "hidden"
    assert rubric.visibility("cancel.interrupted") == "visible"


@pytest.mark.parametrize("key", ["visibility", "stdout_visibility"])
def test_a_visibility_gradescope_does_not_know_is_refused(key: str) -> None:
    message = refusal(replaced(f'\n{key} = "', f'\n{key} = "sometimes"  # "'))
    assert f"gradescope.{key}" in message
    assert '"visible", "hidden", "after_due_date", "after_published"' in message


def test_a_checks_visibility_is_validated_like_every_rubric_key() -> None:
    own = "points = 4\nvisibility = true\nmax_idle_fraction"
    text = replaced("points = 4\nmax_idle_fraction", own)
    message = refusal(text)
    assert 'checks."cancel.slot_freed".visibility' in message and "true (a boolean)" in message


def test_a_misspelt_gradescope_setting_is_refused_with_the_right_name() -> None:
    message = refusal(replaced("stdout_visibility =", "stdout_visiblity ="))
    assert "gradescope.stdout_visiblity" in message
    assert "did you mean stdout_visibility" in message


def test_the_leaderboard_setting_is_true_or_false() -> None:
    assert "true or false" in refusal(replaced("leaderboard = false", 'leaderboard = "yes"'))


@pytest.mark.parametrize(
    ("lang", "reason"),
    [("en", "there is no such file"), ("ja", "そのファイルがありません"), ("zh", "没有这个文件")],
)
def test_a_missing_rubric_file_is_said_in_the_readers_words_not_the_systems(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lang: str, reason: str
) -> None:
    absent = tmp_path / "rubric.toml"
    assert main(["check", str(CORRECT), "--rubric", str(absent), "--lang", lang]) == 2
    err = capsys.readouterr().err
    assert reason in err and "No such file or directory" not in err


def test_a_rubric_that_is_not_utf8_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rubric = tmp_path / "rubric.toml"
    rubric.write_bytes(b'lab = "\xff"\n')
    assert main(["check", str(CORRECT), "--rubric", str(rubric), "--lang", "ko"]) == 2
    assert "파일이 UTF-8 텍스트가 아닙니다" in capsys.readouterr().err


def test_text_that_is_not_toml_raises_the_modules_own_error() -> None:
    with pytest.raises(TOMLDecodeError):
        loads("a = = 1")
