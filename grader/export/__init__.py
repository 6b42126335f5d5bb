"""Exports for the instructor: a batch's results as an LMS gradebook, and feedback files.

`grader export OUT_DIR` (`cli`) reads a `grader batch` folder's result files, nothing
else, and writes what an LMS imports as it is:

- `roster`: who each submission is in the LMS (the instructor's CSV, matched by a key
  column; whoever is not matched is reported);
- `columns`: the grade columns the instructor chose: the total, one per lab step, or one
  per check;
- `lms`: Canvas's gradebook import CSV and Moodle's grade import CSV (with feedback);
- `feedback`: one Markdown or HTML feedback file per student.

Every text cell is formula-safe (`grader.export.spreadsheet`); the same results give the same
bytes.
"""
