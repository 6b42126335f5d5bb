"""What a check sees of a JSON file is what its schema declares, and no check misses the rest.

The parsers keep of a valid document, and of each valid JSON Lines record and chat
stream chunk, only the members its schema declares (`grader.reading.schema_declared`), so that
memory is bound by the format, not by what a file is padded with. That is safe only if
no check reads a member its schema does not name: every sample and real capture, and a
copy of each with an extra member in every JSON object, grades to the same result with
and without it. Here every file is cut down, whatever its size (`PRUNED_FROM` is 0), so
that the samples, small files all, show what a check would miss.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from checks import LAB, SCHEMAS
from grader.engine.grade import grade
from grader.engine.rubric import load_lab_rubric
from grader.reading import parsers
from grader.reading.limits import Limits
from grader.reading.parsers import json_document, json_lines
from grader.reading.schema import SchemaSet
from tests.conftest import CORRECT, ROOT
from tests.output_identity import sample_folders

LIMITS = Limits()
PADDING = "zz_padding"


def _padded(value: object) -> object:
    """`value` with one more member in every object, at any depth."""
    if isinstance(value, dict):
        return {**{k: _padded(v) for k, v in value.items()}, PADDING: [{"x": "y" * 10}]}
    if isinstance(value, list):
        return [_padded(v) for v in value]
    return value


def _padded_text(text: str) -> str | None:
    """The JSON `text` with an extra member in every object; None when it is no JSON (or
    too deep for json)."""
    try:
        return json.dumps(_padded(json.loads(text)))
    except (ValueError, RecursionError):
        return None


def _pad_lines(path: Path, pad: Callable[[str], str | None]) -> None:
    """Each line of `path` as `pad` makes it (None: as it was), its line end kept."""
    lines = []
    for line in path.read_text("utf-8", errors="replace").splitlines(keepends=True):
        body = line.rstrip("\r\n")
        padded = pad(body)
        lines.append(line if padded is None else padded + line[len(body) :])
    path.write_text("".join(lines), "utf-8")


def _pad_event(line: str) -> str | None:
    head, _, data = line.partition(":")
    padded = _padded_text(data) if head == "data" else None
    return None if padded is None else f"data: {padded}"


def _pad_folder(source: Path, target: Path) -> None:
    """A copy of `source` whose JSON documents, JSON Lines records and SSE `data:` events
    each hold an extra member in every object (a file or line that is no JSON is copied
    as it is)."""
    shutil.copytree(source, target)
    for path in target.glob("*.json"):
        with contextlib.suppress(UnicodeDecodeError):  # no UTF-8: copied as it is
            padded = _padded_text(path.read_text("utf-8"))
            if padded is not None:
                path.write_text(padded, "utf-8")
    for path in target.glob("*.jsonl"):
        _pad_lines(path, _padded_text)
    for path in target.glob("sse_raw.txt"):
        _pad_lines(path, _pad_event)


def _graded(folder: Path) -> str:
    rubric = load_lab_rubric(LAB, None)
    return json.dumps(grade(LAB, str(folder), rubric).to_dict(), sort_keys=True)


def _whole(self: SchemaSet, name: str) -> None:
    return None  # every value kept whole: the grader as it was before


def _model_only_in_settings(source: Path, target: Path, model: str | None) -> None:
    """The real capture with props.json naming its model as an older server does
    (`default_generation_settings.model`, no `model_path`), which log.lab_run reads:
    the model it names, or (None) the one the log loaded."""
    shutil.copytree(source, target)
    props = json.loads((target / "props.json").read_text("utf-8"))
    loaded = props.pop("model_path")
    props["default_generation_settings"]["model"] = model or loaded
    (target / "props.json").write_text(json.dumps(props), "utf-8")


FOLDERS = sample_folders()


@pytest.fixture(autouse=True)
def every_file_cut_down(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsers, "PRUNED_FROM", 0)


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_sample_and_its_padded_copy_grade_the_same_with_and_without_pruning(
    folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    padded = tmp_path / "padded"
    _pad_folder(ROOT / folder, padded)
    pruned = [_graded(ROOT / folder), _graded(padded)]
    monkeypatch.setattr(SchemaSet, "declared", _whole)
    assert [_graded(ROOT / folder), _graded(padded)] == pruned


@pytest.mark.parametrize(("model", "lab_run"), [(None, "passed"), ("/m/other.gguf", "failed")])
def test_a_model_named_only_in_the_generation_settings_is_still_read(
    model: str | None, lab_run: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "older_server"
    _model_only_in_settings(CORRECT, folder, model)
    result = grade(LAB, str(folder), load_lab_rubric(LAB, None))
    assert next(c.status for c in result.checks if c.id == "log.lab_run") == lab_run
    pruned = _graded(folder)
    monkeypatch.setattr(SchemaSet, "declared", _whole)
    assert _graded(folder) == pruned


def test_the_samples_include_files_with_undeclared_members() -> None:
    """The comparison above sees undeclared members in the samples themselves (the real
    servers' props.json), not only in the padded copies."""
    props = json.loads((CORRECT / "props.json").read_text("utf-8"))
    assert SCHEMAS.pruned("props", props) != props


def test_a_padded_document_is_parsed_to_what_it_declares() -> None:
    text = json.dumps({"status": "ok", "padding": [{"x": 1}] * 100})
    parsed = json_document(SCHEMAS["health"])(text, "health.json", LIMITS)
    assert (parsed.value, parsed.problems) == ({"status": "ok"}, [])


def test_an_invalid_document_is_explained_with_its_undeclared_members() -> None:
    """Validation comes first: what it says of a value is said of the whole value."""
    text = json.dumps({"status": 5, "padding": 1})
    parsed = json_document(SCHEMAS["health"])(text, "health.json", LIMITS)
    assert [p.message_id for p in parsed.problems] == ["schema.type"]


def test_each_padded_record_is_parsed_to_what_it_declares() -> None:
    text = "".join(json.dumps({"t_ms": i, "text": "a", "pad": [i]}) + "\n" for i in range(3))
    parsed = json_lines(SCHEMAS["chunks_record"])(text, "chunks.jsonl", LIMITS)
    assert parsed.value == [{"t_ms": i, "text": "a"} for i in range(3)]


def test_a_record_holding_only_what_it_declares_is_not_copied() -> None:
    record = {"t_ms": 1.5, "text": "a"}
    assert SCHEMAS.pruned("chunks_record", record) is record


def test_an_edited_schema_declares_what_the_file_says(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    shutil.copytree(SCHEMAS.folder, folder)
    path = folder / "health.schema.json"
    schema = json.loads(path.read_text("utf-8"))
    schema["properties"]["uptime"] = {"type": "number"}
    path.write_text(json.dumps(schema), "utf-8")
    edited = SchemaSet(str(folder))
    assert edited.declared("health") == {"status": None, "uptime": None}


def test_a_file_shorter_than_pruned_from_is_kept_as_it_was_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cutting down costs more than a small file's undeclared members weigh."""
    document = json.dumps({"status": "ok", "padding": [1, 2, 3]})
    lines = json.dumps({"t_ms": 1, "text": "a", "pad": [0]}) + "\n"
    monkeypatch.setattr(parsers, "PRUNED_FROM", max(len(document), len(lines)) + 1)
    parsed = json_document(SCHEMAS["health"])(document, "health.json", LIMITS)
    records = json_lines(SCHEMAS["chunks_record"])(lines, "chunks.jsonl", LIMITS)
    assert parsed.value == {"status": "ok", "padding": [1, 2, 3]}
    assert records.value == [{"t_ms": 1, "text": "a", "pad": [0]}]


def test_a_file_of_pruned_from_characters_is_cut_down(monkeypatch: pytest.MonkeyPatch) -> None:
    document = json.dumps({"status": "ok", "padding": [1, 2, 3]})
    lines = json.dumps({"t_ms": 1, "text": "a", "pad": [0]}) + "\n"
    monkeypatch.setattr(parsers, "PRUNED_FROM", min(len(document), len(lines)))
    parsed = json_document(SCHEMAS["health"])(document, "health.json", LIMITS)
    records = json_lines(SCHEMAS["chunks_record"])(lines, "chunks.jsonl", LIMITS)
    assert parsed.value == {"status": "ok"}
    assert records.value == [{"t_ms": 1, "text": "a"}]


def test_each_padded_chunk_of_a_stream_is_parsed_to_what_it_declares() -> None:
    from checks.formats.chat_stream import chat_stream

    chunk = {"choices": [{"delta": {"content": "a", "pad": 1}}], "system_fingerprint": "b1"}
    text = f"data: {json.dumps({**chunk, 'pad': [0] * 50})}\n\ndata: [DONE]\n\n"
    limits = load_lab_rubric(LAB, None).make_limits(LAB.limits)
    parsed = chat_stream(SCHEMAS["sse_chunk"])(text, "sse_raw.txt", limits)
    expected = {"choices": [{"delta": {"content": "a"}}], "system_fingerprint": "b1"}
    assert [e.chunk for e in parsed.value.chunks] == [expected]


def test_a_stream_from_another_build_is_still_told_by_its_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sse.one_response reads each chunk's `system_fingerprint`: declared, so kept."""
    folder = tmp_path / "other_build"
    shutil.copytree(CORRECT, folder)
    stream = folder / "sse_raw.txt"
    text = stream.read_text("utf-8")
    assert '"system_fingerprint":"b' in text
    stream.write_text(text.replace('"system_fingerprint":"b', '"system_fingerprint":"x'), "utf-8")
    result = grade(LAB, str(folder), load_lab_rubric(LAB, None))
    assert next(c for c in result.checks if c.id == "sse.one_response").status == "failed"
    pruned = _graded(folder)
    monkeypatch.setattr(SchemaSet, "declared", _whole)
    assert _graded(folder) == pruned
