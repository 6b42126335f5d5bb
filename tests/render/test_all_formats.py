"""Every output format renders every bundled sample, through the command line too."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from checks import LAB
from grader.cli.main import main
from grader.engine.grade import catalog_for
from grader.render import FORMATS, RenderOptions, renderer
from tests.conftest import EXPECTED, SAMPLES, graded

OPTIONS = RenderOptions(catalog_for(LAB, "en"))
PARSERS = {
    "json": json.loads,
    "gradescope": json.loads,
    "prairielearn": json.loads,
    "junit": lambda text: ET.fromstring(text.encode("utf-8")),
    "junit-gitlab": lambda text: ET.fromstring(text.encode("utf-8")),
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_format_renders_sample(name: str, fmt: str) -> None:
    text = renderer(fmt)(graded(name), OPTIONS)
    assert text.endswith("\n") and text.strip()
    if fmt in PARSERS:
        PARSERS[fmt](text)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_cli_accepts_every_format(fmt: str, capsys) -> None:
    code = main(["check", str(SAMPLES / "role_chunk_counted"), "--format", fmt, "--color", "never"])
    assert code == 1
    assert capsys.readouterr().out.strip()
