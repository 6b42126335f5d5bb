"""`grader export`: a batch's results as the gradebook Canvas and Moodle import, and
feedback files.

What the LMSs accept is taken from their own importers: Canvas's
`app/models/gradebook_importer.rb` (the header must start `Student`, `ID`, then
`SIS User ID` / `SIS Login ID`, then `Section`; a row whose first cell is `Points
Possible` gives each assignment's points; an assignment column is `Title (id)`), Moodle's
"Grade import" (any header, one column mapped to a user field, grade and feedback
columns mapped to items; a byte-order mark is stripped). `canvas_reads` below reads a
file as Canvas's importer does, so the tests hold the export to it.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for, grade
from grader.engine.result import read_result
from grader.export.columns import columns
from grader.export.roster import parse_roster
from tests.conftest import REAL

CLASS = ("correct", "cache_on_in_prefill", "no_close_on_cancel", "role_chunk_counted")
CANVAS_ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section,submission\n"
    '"Doe, Jane",101,S1,jdoe,A,correct\n'
    '"Roe, Rick",102,S2,rroe,A,cache_on_in_prefill\n'
    '"Chunk, Carl",103,S3,cchunk,B,role_chunk_counted\n'
    '"Poe, Ed",104,S4,epoe,B,\n'
)
MOODLE_ROSTER = (
    "First name,Last name,ID number,Institution,Department,Email address,submission\n"
    "Jane,Doe,1001,U,CS,jane@u.edu,correct\n"
    "Rick,Roe,1002,U,CS,rick@u.edu,cache_on_in_prefill\n"
    "Carl,Chunk,1003,U,CS,carl@u.edu,role_chunk_counted\n"
    "Nell,Cancel,1004,U,CS,nell@u.edu,no_close_on_cancel\n"
    "Ug,Raded,1005,U,CS,ug@u.edu,not_a_submission\n"
)


@pytest.fixture(scope="module")
def batch_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four real runs and a folder with no lab files, graded by `grader batch`; then the
    submissions are deleted: an export reads the results alone."""
    root = tmp_path_factory.mktemp("export")
    klass = root / "class"
    for name in CLASS:
        shutil.copytree(REAL / name, klass / name)
    (klass / "not_a_submission").mkdir()
    (klass / "not_a_submission" / "notes.txt").write_text("nothing here\n", "utf-8")
    out = root / "out"
    assert main(["batch", str(klass), "--out", str(out), "--jobs", "1", "--no-progress"]) == 1
    shutil.rmtree(klass)
    return out


@pytest.fixture
def out(batch_out: Path, tmp_path: Path) -> Path:
    """A copy of the batch folder, for a test to write its export into."""
    copy = tmp_path / "out"
    shutil.copytree(batch_out, copy)
    return copy


def export(out: Path, roster: str, *args: str, name: str = "roster.csv") -> tuple[int, Path]:
    path = out.parent / name
    path.write_text(roster, "utf-8")
    code = main(["export", str(out), "--roster", str(path), "--lang", "en", *args])
    return code, path


def rows_of(path: Path) -> list[list[str]]:
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf"), "UTF-8 with a byte-order mark, for Excel"
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def canvas_reads(path: Path) -> dict:
    """The file as Canvas's GradebookImporter reads it: the header checks, the student
    columns, the assignments (title, id), the Points Possible row, the students."""
    table = rows_of(path)
    header = table[0]
    assert len(header) > 3 and re.search("Student", header[0]) and re.search("ID", header[1])
    student_columns = 3
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        student_columns += 1
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        student_columns += 2
    assert re.search("Section", header[student_columns - 1]), "last student column: Section"
    assignments = []
    for name in header[student_columns:]:
        found = re.fullmatch(r"(.*)\s\((\d+)\)", name)
        assignments.append((found.group(1), found.group(2)) if found else (name, None))
    possible, students = None, []
    for row in table[1:]:
        if re.search("Points Possible", row[0]):
            possible = row[student_columns:]
        else:
            students.append(
                {"name": row[0], "id": row[1], "sis": row[2:student_columns - 1],
                 "section": row[student_columns - 1], "grades": row[student_columns:]}
            )  # fmt: skip
    return {"assignments": assignments, "points_possible": possible, "students": students}


def result_of(out: Path, sid: str):
    return read_result(str(out / "results" / f"{sid}.json"))


# --------------------------------------------------------------------------- Canvas


def test_the_canvas_file_is_what_canvas_imports(out: Path) -> None:
    code, _ = export(out, CANVAS_ROSTER, "--to", "canvas")
    read = canvas_reads(out / "canvas.csv")
    assert read["assignments"] == [("first-token", None)]
    assert read["points_possible"] == [f"{result_of(out, 'correct').max_score:g}"]
    assert code == 1  # no_close_on_cancel and not_a_submission have no roster row


def test_the_export_names_the_lms_as_people_write_it(out: Path, capsys) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas")
    err = capsys.readouterr().err
    assert "Canvas gradebook of" in err and "(grade columns: 1)" in err


def test_canvas_gets_each_students_ids_and_section_from_the_roster(out: Path) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas")
    students = canvas_reads(out / "canvas.csv")["students"]
    assert [(s["name"], s["id"], s["sis"], s["section"]) for s in students] == [
        ("Doe, Jane", "101", ["S1", "jdoe"], "A"),
        ("Roe, Rick", "102", ["S2", "rroe"], "A"),
        ("Chunk, Carl", "103", ["S3", "cchunk"], "B"),
    ]


def test_canvas_grades_are_the_scores(out: Path) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas")
    students = canvas_reads(out / "canvas.csv")["students"]
    scores = [f"{result_of(out, sid).score:g}" for sid in CLASS if sid != "no_close_on_cancel"]
    assert [s["grades"] for s in students] == [[scores[0]], [scores[1]], [scores[2]]]


def test_a_canvas_assignment_id_lands_the_total_in_that_assignment(out: Path) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas", "--assignment", "Lab 3", "--assignment-id", "4711")
    assert canvas_reads(out / "canvas.csv")["assignments"] == [("Lab 3", "4711")]


def test_an_assignment_id_that_is_no_canvas_id_is_refused(out: Path, capsys) -> None:
    code, _ = export(out, CANVAS_ROSTER, "--to", "canvas", "--assignment-id", "lab3")
    assert code == 2 and "whole numbers" in capsys.readouterr().err


def test_step_columns_are_one_per_lab_step_and_add_up_to_the_score(out: Path) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas", "--columns", "step")
    read = canvas_reads(out / "canvas.csv")
    steps = [title.split(": ", 1)[1] for title, _ in read["assignments"]]
    assert steps[:3] == ["health", "props", "sse_py"] and "cache" in steps
    assert sum(float(p) for p in read["points_possible"]) == result_of(out, "correct").max_score
    for student, sid in zip(read["students"], ("correct", "cache_on_in_prefill"), strict=False):
        assert sum(float(g) for g in student["grades"]) == result_of(out, sid).score


def test_check_columns_are_one_per_check_in_the_results_order(out: Path) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas", "--columns", "check")
    read = canvas_reads(out / "canvas.csv")
    ids = [c.id for c in result_of(out, "correct").checks]
    assert [title for title, _ in read["assignments"]] == [f"first-token: {i}" for i in ids]
    rick = read["students"][1]["grades"]
    assert rick[ids.index("prefill.cache_off")] == "0"


def test_a_canvas_roster_without_any_identity_column_is_refused(out: Path, capsys) -> None:
    code, _ = export(out, "Name,submission\nJane,correct\n", "--to", "canvas")
    assert code == 2 and "ID, SIS User ID, SIS Login ID, Student" in capsys.readouterr().err
    assert not (out / "canvas.csv").exists()


def test_canvas_s_own_gradebook_export_is_a_roster(out: Path) -> None:
    """Its Points Possible row and the test student are no students of ours; the login
    is the folder name here, so the key is found without --key."""
    roster = (
        "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (11),Current Score\n"
        "    Points Possible,,,,,10,(read only)\n"
        '"Doe, Jane",101,S1,correct,A,9,90\n'
        '"Student, Test",999,,,A,,\n'
    )
    code, _ = export(out, roster, "--to", "canvas", "--assignment-id", "11")
    read = canvas_reads(out / "canvas.csv")
    assert [s["name"] for s in read["students"]] == ["Doe, Jane"]
    listed = rows_of(out / "canvas.csv.unmatched.csv")
    assert ["Student, Test", "", "", "no graded submission for this student"] in listed
    assert code == 1


CANVAS_GRADEBOOK = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (11),Lab 3: First token (4711),"
    "Current Score\n"
    "    Points Possible,,,,,10,83,(read only)\n"
    '"Doe, Jane",101,S1,correct,A,9,,90\n'
)


def test_canvas_fills_the_rosters_assignment_of_the_lab_by_default(out: Path, capsys) -> None:
    export(out, CANVAS_GRADEBOOK, "--to", "canvas")
    assert canvas_reads(out / "canvas.csv")["assignments"] == [("Lab 3: First token", "4711")]
    assert "Lab 3: First token (4711)" in capsys.readouterr().err


def test_canvas_asks_which_assignment_when_none_of_the_rosters_names_the_lab(
    out: Path, capsys
) -> None:
    roster = CANVAS_GRADEBOOK.replace("Lab 3: First token (4711)", "Lab 2 (12)")
    code, _ = export(out, roster, "--to", "canvas")
    err = capsys.readouterr().err
    assert code == 2 and "--assignment-id" in err and "Lab 1 (11), Lab 2 (12)" in err
    assert not (out / "canvas.csv").exists()


def test_canvas_takes_the_rosters_title_for_an_assignment_id(out: Path) -> None:
    export(out, CANVAS_GRADEBOOK, "--to", "canvas", "--assignment-id", "11")
    assert canvas_reads(out / "canvas.csv")["assignments"] == [("Lab 1", "11")]


def test_canvas_takes_the_rosters_id_for_an_assignment_name(out: Path) -> None:
    export(out, CANVAS_GRADEBOOK, "--to", "canvas", "--assignment", "lab 1")
    assert canvas_reads(out / "canvas.csv")["assignments"] == [("lab 1", "11")]


def test_canvas_says_it_will_make_a_new_assignment_when_the_roster_has_none(
    out: Path, capsys
) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas")
    assert "new assignment first-token" in capsys.readouterr().err


# --------------------------------------------------------------------------- Moodle

MOODLE_GRADES = MOODLE_ROSTER.replace(
    "Email address,submission", "Email address,Assignment: First token (Real),submission"
).replace("@u.edu,", "@u.edu,-,")


def test_moodle_grade_and_feedback_go_to_the_rosters_grade_item_of_the_lab(
    out: Path, capsys
) -> None:
    export(out, MOODLE_GRADES, "--to", "moodle")
    header = rows_of(out / "moodle.csv")[0]
    assert header == [
        "Email address", "Assignment: First token (Real)", "Assignment: First token (Feedback)",
    ]  # fmt: skip
    assert "grade item Assignment: First token" in capsys.readouterr().err


def test_moodle_says_feedback_needs_an_item_when_the_roster_has_none(out: Path, capsys) -> None:
    export(out, MOODLE_ROSTER, "--to", "moodle")
    assert "attaches feedback only to an item that exists" in capsys.readouterr().err


def test_the_moodle_file_has_the_user_column_the_grades_and_their_feedback(out: Path) -> None:
    export(out, MOODLE_ROSTER, "--to", "moodle", "--columns", "step")
    table = rows_of(out / "moodle.csv")
    header = table[0]
    steps = [c.key for c in columns([result_of(out, "correct")], "step")]
    assert header[0] == "Email address"
    assert header[1::2] == [f"first-token: {s}" for s in steps]
    assert header[2::2] == [f"first-token: {s} (feedback)" for s in steps]
    assert [row[0] for row in table[1:]] == [
        "jane@u.edu", "rick@u.edu", "carl@u.edu", "nell@u.edu", "ug@u.edu",
    ]  # fmt: skip


def test_moodle_feedback_says_what_did_not_pass_and_what_to_do(out: Path) -> None:
    export(out, MOODLE_ROSTER, "--to", "moodle")
    rick = rows_of(out / "moodle.csv")[2]
    assert rick[0] == "rick@u.edu" and rick[1] == f"{result_of(out, 'cache_on_in_prefill').score:g}"
    lines = rick[2].splitlines()
    assert lines[0].startswith("prefill.cache_off (0/4): For 0 docs prompt_n is 13")
    assert lines[1].startswith("  what to do: ") and "cache_prompt" in lines[1]


def test_a_submission_that_could_not_be_graded_has_no_grade_and_says_why(out: Path) -> None:
    code, _ = export(out, MOODLE_ROSTER, "--to", "moodle")
    ug = rows_of(out / "moodle.csv")[5]
    assert ug[:2] == ["ug@u.edu", ""]  # empty, never a zero
    assert "no lab files found" in ug[2]
    assert code == 1


def test_moodle_feedback_stays_in_the_language_it_was_graded_in(out: Path) -> None:
    export(out, MOODLE_ROSTER, "--to", "moodle", "--lang", "ja")
    table = rows_of(out / "moodle.csv")
    ja = catalog_for(LAB, "ja")
    assert table[0][2] == ja.text("export.feedback_column", {"name": "first-token"})
    assert "フィードバック" in table[0][2]
    assert "what to do:" in table[2][2]  # graded in English


def test_moodle_users_are_found_by_the_column_named(out: Path) -> None:
    export(out, MOODLE_ROSTER, "--to", "moodle", "--user-field", "ID number")
    assert [row[0] for row in rows_of(out / "moodle.csv")] == [
        "ID number", "1001", "1002", "1003", "1004", "1005",
    ]  # fmt: skip


def test_a_moodle_roster_without_a_user_column_is_refused(out: Path, capsys) -> None:
    code, _ = export(out, "Name,submission\nJane,correct\n", "--to", "moodle")
    assert code == 2 and "--user-field" in capsys.readouterr().err


# --------------------------------------------------------------------------- who is who


def test_a_submission_without_a_roster_row_is_reported_and_listed(out: Path, capsys) -> None:
    code, _ = export(out, CANVAS_ROSTER, "--to", "canvas")
    err = capsys.readouterr().err
    assert "2 submissions have no row in the roster (submission)" in err
    assert "no_close_on_cancel" in err and "not_a_submission" in err
    listed = rows_of(out / "canvas.csv.unmatched.csv")
    assert listed[0] == ["id", "source", "score", "problem"]
    assert {row[0] for row in listed[1:3]} == {"no_close_on_cancel", "not_a_submission"}
    assert code == 1


def test_a_roster_student_without_a_submission_is_reported(out: Path, capsys) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas")
    assert "1 student of the roster has no graded submission (submission): Poe, Ed" in (
        capsys.readouterr().err
    )


def test_a_key_in_two_roster_rows_gives_neither_the_grade(out: Path, capsys) -> None:
    roster = CANVAS_ROSTER + '"Doe, Jim",105,S5,jimd,A,correct\n'
    export(out, roster, "--to", "canvas")
    names = [s["name"] for s in canvas_reads(out / "canvas.csv")["students"]]
    assert "Doe, Jane" not in names and "Doe, Jim" not in names
    assert "2 roster rows are left out" in capsys.readouterr().err


def test_a_submission_named_by_two_roster_rows_is_said_once_as_left_out(out: Path, capsys) -> None:
    roster = CANVAS_ROSTER + '"Doe, Jim",105,S5,jimd,A,correct\n'
    export(out, roster, "--to", "canvas")
    lines = capsys.readouterr().err.splitlines()
    assert any("left out" in line and "correct" in line for line in lines)
    assert not any("no row in the roster" in line and "correct" in line for line in lines)


def test_every_submission_matched_exits_0_and_leaves_no_stale_list(out: Path) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas")
    assert (out / "canvas.csv.unmatched.csv").is_file()
    roster = "Student,ID,SIS User ID,SIS Login ID,Section,submission\n" + "".join(
        f"S{i},{i},,,A,{sid}\n" for i, sid in enumerate((*CLASS, "not_a_submission"))
    )
    code, _ = export(out, roster, "--to", "canvas")
    assert code == 1  # not_a_submission is matched but has no grade
    (out / "results" / "not_a_submission.json").unlink()
    code, _ = export(out, roster.replace("S4,4,,,A,not_a_submission\n", ""), "--to", "canvas")
    assert code == 0 and not (out / "canvas.csv.unmatched.csv").exists()


def test_the_key_matches_the_folder_name_up_to_case(out: Path) -> None:
    for sid in CLASS:  # ids as a batch of section folders makes them
        (out / "results" / f"{sid}.json").rename(out / "results" / f"sec-a__{sid}.json")
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    summary["ids"] = [f"sec-a__{sid}" for sid in CLASS]  # as that batch's summary names them
    (out / "summary.json").write_text(json.dumps(summary), "utf-8")
    roster = "Student,ID,SIS User ID,SIS Login ID,Section\n" + '"Doe, Jane",101,S1,CORRECT,A\n'
    export(out, roster, "--to", "canvas")  # the key: SIS Login ID, the first known column
    assert [s["name"] for s in canvas_reads(out / "canvas.csv")["students"]] == ["Doe, Jane"]


def test_a_roster_saved_by_excel_with_semicolons_and_a_bom_is_read() -> None:
    roster = parse_roster("\ufeffStudent;ID;submission\r\nDoe, Jane;101;correct\r\n".encode())
    assert roster.columns == ("Student", "ID", "submission")
    assert roster.rows == ({"Student": "Doe, Jane", "ID": "101", "submission": "correct"},)


def test_a_roster_without_a_key_column_asks_for_one(out: Path, capsys) -> None:
    code, _ = export(out, "Student,ID,Section\nJane,1,A\n", "--to", "canvas")
    assert code == 2 and "--key" in capsys.readouterr().err
    code, _ = export(out, "Student,ID,Section\nJane,1,A\n", "--to", "canvas", "--key", "Login")
    assert code == 2


# --------------------------------------------------------------------------- cells


def test_no_cell_starts_a_formula(out: Path) -> None:
    roster = (
        "Student,ID,SIS User ID,SIS Login ID,Section,submission\n"
        '"=HYPERLINK(""http://x"")",101,+1,-2,@sec,correct\n'
    )
    export(out, roster, "--to", "canvas")
    row = canvas_reads(out / "canvas.csv")["students"][0]
    assert row["name"] == '\'=HYPERLINK("http://x")'
    assert row["sis"] == ["'+1", "'-2"] and row["section"] == "'@sec"


def test_every_field_is_quoted_and_rows_end_in_crlf(out: Path) -> None:
    export(out, CANVAS_ROSTER, "--to", "canvas")
    lines = (out / "canvas.csv").read_bytes().decode("utf-8-sig").split("\r\n")
    assert lines[0].startswith('"Student","ID","SIS User ID"') and lines[-1] == ""


def test_the_same_results_give_the_same_bytes(out: Path) -> None:
    export(out, MOODLE_ROSTER, "--to", "moodle", "--columns", "check")
    first = (out / "moodle.csv").read_bytes()
    export(out, MOODLE_ROSTER, "--to", "moodle", "--columns", "check")
    assert (out / "moodle.csv").read_bytes() == first


# --------------------------------------------------------------------------- feedback files


def test_feedback_is_one_markdown_file_per_student_as_the_markdown_report(out: Path) -> None:
    assert main(["export", str(out), "--feedback", str(out / "fb")]) == 0
    assert sorted(p.name for p in (out / "fb").iterdir()) == sorted(
        f"{sid}.md" for sid in (*CLASS, "not_a_submission")
    )
    text = (out / "fb" / "cache_on_in_prefill.md").read_text("utf-8")
    assert text.startswith("## first-token — Score: ")
    assert "prefill.cache_off" in text and "What to fix" in text


def test_feedback_in_html_is_one_self_contained_escaped_page(out: Path) -> None:
    data = json.loads((out / "results" / "correct.json").read_text("utf-8"))
    data["checks"][0]["status"], data["checks"][0]["points"] = "failed", 0
    data["checks"][0]["message"] = "<script>alert(1)</script>"
    data["score"] -= data["checks"][0]["max_points"]
    data["summary"]["passed"] -= 1
    data["summary"]["failed"] += 1
    (out / "results" / "correct.json").write_text(json.dumps(data), "utf-8")
    args = ["export", str(out), "--feedback", str(out / "fb"), "--feedback-format", "html"]
    assert main(args) == 0
    page = (out / "fb" / "correct.html").read_text("utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<html lang="en">' in page
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "src=" not in page and "href=" not in page  # nothing to load


def test_a_feedback_file_is_in_the_language_its_submission_was_graded_in(out: Path) -> None:
    """Its messages can't be reworded, so the words around them follow them: --lang ja
    over results graded in English gives English files, never Japanese headings."""
    args = ["export", str(out), "--feedback", str(out / "fb"), "--lang", "ja"]
    assert main([*args, "--feedback-format", "html"]) == 0
    page = (out / "fb" / "cache_on_in_prefill.html").read_text("utf-8")
    assert '<html lang="en">' in page and "得点" not in page


def test_feedback_graded_in_japanese_is_japanese_throughout(out: Path, rubric) -> None:
    result = grade(LAB, str(REAL / "cache_on_in_prefill"), rubric, lang="ja")
    (out / "results" / "cache_on_in_prefill.json").write_text(result.to_json(), "utf-8")
    assert main(["export", str(out), "--feedback", str(out / "fb"), "--lang", "en"]) == 0
    text = (out / "fb" / "cache_on_in_prefill.md").read_text("utf-8")
    heading = catalog_for(LAB, "ja").raw("render.hint")
    assert heading and heading in text and "what to do" not in text


def test_feedback_of_a_submission_that_could_not_be_graded_says_why(out: Path) -> None:
    main(["export", str(out), "--feedback", str(out / "fb")])
    text = (out / "fb" / "not_a_submission.md").read_text("utf-8")
    assert "Not graded" in text and "no lab files found" in text


# --------------------------------------------------------------------------- usage


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), "nothing to export"),
        (("--to", "canvas"), "--to canvas needs --roster CSV"),
    ],
)
def test_usage_errors_exit_2_saying_what_to_do(out: Path, capsys, args, words: str) -> None:
    assert main(["export", str(out), "--lang", "en", *args]) == 2
    assert words in capsys.readouterr().err


def test_a_folder_without_results_exits_2(tmp_path: Path, capsys) -> None:
    assert main(["export", str(tmp_path), "--feedback", str(tmp_path / "fb"), "--lang", "en"]) == 2
    assert "run grader batch" in capsys.readouterr().err
