"""The Korean catalogs follow Korean orthography (한글 맞춤법), one rule per test.

Both catalogs a student reads side by side are checked, the engine's
(`grader/messages/ko.toml`) and the lab's (`checks/messages/ko.toml`). Code is not Korean:
a `backtick span` or a {placeholder} is never read as a Korean word, and what is inside
one is never checked. The particle written right after one is checked, though, because
the student reads the two as one word (`health.json의 status가`).

The house style the rules encode, for the next translator: statements in 합니다체
(`…없습니다.`), what to do in the polite imperative `-세요`, check titles as plain
statements (`…들어 있다`); particles attached, in the form that fits how the word before
them is read, or a form that fits either reading (`이(가)`, `을(를)`, `(으)로`) after a
placeholder, whose value is unknown when the message is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.words.i18n import flatten
from grader.words.tomlfile import loads

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("grader", "checks")


def _catalog() -> dict[str, str]:
    merged: dict[str, str] = {}
    for package in PACKAGES:
        path = ROOT / package / "messages" / "ko.toml"
        table = flatten(loads(path.read_text("utf-8")))
        merged |= {f"{package}:{key}": text for key, text in table.items()}
    return merged


MESSAGES = _catalog()
HANGUL = "가-힣"
CODE = re.compile(r"`[^`]*`")
PLACEHOLDER = re.compile(r"\{\w*\}")


def _literal_braces(text: str) -> str:
    """`{{` and `}}` print one brace: they are text, not placeholders."""
    return text.replace("{{", "\x01").replace("}}", "\x02")


def _without_code(text: str) -> str:
    """The Korean prose alone: code spans and placeholders become one neutral mark."""
    return PLACEHOLDER.sub("X", CODE.sub("X", _literal_braces(text)))


# --- particles -------------------------------------------------------------------------

AFTER_CONSONANT = {
    "이",
    "은",
    "을",
    "과",
    "으로",
    "이라는",
    "이라고",
    "이란",
    "이나",
    "으로는",
    "과는",
}
"""Particle forms for a word whose last syllable ends in a consonant (받침): `책이`."""
AFTER_VOWEL = {"가", "는", "를", "와", "로", "라는", "라고", "란", "나", "로는", "와는", "여야"}
"""Forms for a word that ends in a vowel: `사과가`. `로` also follows ㄹ: `파일로`."""
INVARIANT = {"의", "에", "에서", "에는", "에도", "에게", "도", "만", "까지", "부터", "보다", "마다"}
"""Particles whose form never changes."""
PARTICLES = AFTER_CONSONANT | AFTER_VOWEL | INVARIANT
EITHER = {("이", "가"), ("을", "를"), ("은", "는"), ("과", "와"), ("와", "과")}
"""`이(가)`: the pair written out where the word before is unknown."""

CONSONANT, RIEUL, VOWEL = "consonant", "ㄹ", "vowel"

DIGITS = {
    "0": CONSONANT,  # 영
    "1": RIEUL,  # 일
    "2": VOWEL,  # 이
    "3": CONSONANT,  # 삼
    "4": VOWEL,  # 사
    "5": VOWEL,  # 오
    "6": CONSONANT,  # 육
    "7": RIEUL,  # 칠
    "8": RIEUL,  # 팔
    "9": VOWEL,  # 구
}
"""How the last digit of a number is read, in Sino-Korean numerals."""

LETTERS = {letter: VOWEL for letter in "abcdefghijkopqstuvwxyz"} | {
    "l": RIEUL,  # 엘
    "m": CONSONANT,  # 엠
    "n": CONSONANT,  # 엔
    "r": RIEUL,  # 알
}
"""How a letter is read when a word is spelled out (`ID` 아이디, `KV` 케이브이)."""

READINGS = {
    "check": VOWEL,  # 체크
    "gradable": VOWEL,  # 그레이더블
    "moodle": RIEUL,  # 무들
    "rubric": CONSONANT,  # 루브릭
    "student": VOWEL,  # 스튜던트
    "wheel": RIEUL,  # 휠
    "zip": CONSONANT,  # 집
    "client": VOWEL,  # 클라이언트
    "close": VOWEL,  # 클로즈
    "content": VOWEL,  # 콘텐트
    "done": CONSONANT,  # 던
    "false": VOWEL,  # 폴스
    "fifo": VOWEL,  # 파이포
    "fingerprint": VOWEL,  # 핑거프린트
    "file": RIEUL,  # 파일
    "id": VOWEL,  # 아이디
    "json": CONSONANT,  # 제이슨
    "jsonl": RIEUL,  # 제이슨엘
    "lab": CONSONANT,  # 랩
    "name": CONSONANT,  # 네임
    "ms": VOWEL,  # 밀리초
    "none": CONSONANT,  # 논
    "ok": VOWEL,  # 오케이
    "out": CONSONANT,  # 아웃
    "prompt": VOWEL,  # 프롬프트
    "py": VOWEL,  # 파이
    "python": CONSONANT,  # 파이선
    "readline": CONSONANT,  # 리드라인
    "request": VOWEL,  # 리퀘스트
    "resume": CONSONANT,  # 리줌
    "role": RIEUL,  # 롤
    "sentence": VOWEL,  # 센텐스
    "share": VOWEL,  # 셰어
    "socket": CONSONANT,  # 소켓
    "task": VOWEL,  # 태스크
    "text": VOWEL,  # 텍스트
    "time": CONSONANT,  # 타임
    "toml": RIEUL,  # 토믈
    "true": VOWEL,  # 트루
    "txt": VOWEL,  # 텍스트
    "up": CONSONANT,  # 업
}
"""Words whose spelling does not tell how they are read: each read as Korean writes it."""


def _latin_reading(word: str) -> str | None:
    """How a word in Latin letters ends when read aloud in Korean, None if unsure."""
    lower = word.lower()
    if lower in READINGS:
        return READINGS[lower]
    if len(word) == 1 or (word.isupper() and len(word) <= 5):
        return LETTERS[lower[-1]]  # spelled out: the last letter's name
    if lower.endswith(("m", "n", "ng")):
        return CONSONANT  # 스트림, 토큰, 스트링
    if lower.endswith("l"):
        return RIEUL  # 널, 롤
    if lower[-1] in "aiouywsxzfvdghr":
        return VOWEL  # 키, 프롭스, 로그, 헬스, 서버
    return None  # -e, -p, -t, -k, -b, -c …: 세트 or 셋? Add the word to READINGS.


def _number_reading(number: str) -> str:
    for zeros, reading in (("0000", CONSONANT), ("000", CONSONANT), ("00", CONSONANT)):
        if number.endswith(zeros):  # 만, 천, 백
            return reading
    if number.endswith("0") and len(number) > 1 and number[-2].isdigit():
        return CONSONANT  # 십
    return DIGITS[number[-1]]


def _hangul_reading(syllable: str) -> str:
    final = (ord(syllable) - 0xAC00) % 28
    return VOWEL if final == 0 else RIEUL if final == 8 else CONSONANT


def _strip_brackets(text: str) -> str:
    """The word a particle belongs to, before any parenthesis that explains it:
    `검사({title})를` → `검사`, `stream()을` → `stream`."""
    while text.endswith(")"):
        depth = 0
        for index in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[index], 0)
            if depth == 0:
                text = text[:index]
                break
        else:
            return text
    return text


def _reading(host: str) -> str | None:
    """How the word before a particle ends: a reading, "placeholder" when unknowable,
    or None when it can't be told from the text."""
    host = _strip_brackets(host)
    host = re.sub(rf"[^A-Za-z0-9{HANGUL}}}]+$", "", host)  # quotes, backticks, ], ., …
    if not host:
        return None
    if host.endswith("}"):
        return "placeholder"
    last = host[-1]
    if re.fullmatch(f"[{HANGUL}]", last):
        return _hangul_reading(last)
    number = re.search(r"[0-9]+$", host)
    if number:
        return _number_reading(number.group())
    word = re.search(r"[A-Za-z]+$", host)
    return _latin_reading(word.group()) if word else None


def _attached_particles(text: str) -> Iterator[tuple[str, str, bool]]:
    """(the word before, the particle, written in both forms?) for every particle
    attached to something that is not a Hangul syllable: code, a placeholder, a Latin
    word, a number, a closing bracket or quote."""
    text = _literal_braces(text)
    for match in re.finditer(f"[{HANGUL}]+", text):
        start, run = match.start(), match.group()
        before = text[:start]
        if not before or before[-1].isspace() or re.fullmatch(f"[{HANGUL}]", before[-1]):
            continue
        if before[-1] in "([{“‘":  # it opens a parenthesis or a quote: `이(가)`, `(으)로`
            continue
        either = re.search(r"\((으|이)\)$", before)
        if either:  # `(으)로`, `(이)라는`: fits both readings
            if run in PARTICLES or either.group(1) + run in PARTICLES:
                yield before[: either.start()], either.group(1) + run, True
            continue
        if run not in PARTICLES:
            continue
        pair = re.match(rf"\(([{HANGUL}]+)\)", text[match.end() :])
        yield before, run, bool(pair and (run, pair.group(1)) in EITHER)


# --- the rules: each finds, in one message, the places that break it ---------------------

_SPACED_AFTER_CODE = re.compile(
    r"[A-Za-z0-9_`}\])\"'”’]\s+(?:\((?:으|이)\))?(?:"
    + "|".join(sorted(PARTICLES | {f"{a}\\({b}\\)" for a, b in EITHER}, key=len, reverse=True))
    + f")(?![{HANGUL}])"
)
_SPACED_AFTER_WORD = re.compile(rf"[{HANGUL}]\s+(?:은|는|을|를|의|에서|으로)(?![{HANGUL}])")


def spaced_particles(text: str) -> list[str]:
    prose = _literal_braces(CODE.sub("`X`", text))
    return [m.group() for p in (_SPACED_AFTER_CODE, _SPACED_AFTER_WORD) for m in p.finditer(prose)]


def one_form_after_a_placeholder(text: str) -> list[str]:
    return [
        f"{host[-20:]}{particle}"
        for host, particle, either in _attached_particles(text)
        if not either and particle not in INVARIANT and _reading(host) == "placeholder"
    ]


def _fits(particle: str, reading: str) -> bool:
    if reading == VOWEL:
        return particle in AFTER_VOWEL
    if reading == RIEUL and particle.startswith("으로"):
        return False  # 파일로, not 파일으로
    return particle in AFTER_CONSONANT or (reading == RIEUL and particle.startswith("로"))


def particle_of_the_wrong_form(text: str) -> list[str]:
    found = []
    for host, particle, either in _attached_particles(text):
        if either or particle in INVARIANT:
            continue
        reading = _reading(host)
        if reading is None:
            found.append(f"{host[-20:]}{particle} (how is it read? add it to READINGS)")
        elif reading != "placeholder" and not _fits(particle, reading):
            found.append(f"{host[-20:]}{particle} (after a {reading})")
    return found


SAI_SIOT = {
    "기대값": "기댓값",
    "최대값": "최댓값",
    "최소값": "최솟값",
    "결과값": "결괏값",
    "절대값": "절댓값",
    "근사값": "근삿값",
    "대표값": "대푯값",
    "초기값": "초깃값",
    "함수값": "함숫값",
}
"""Compounds of 값 after a vowel take the 사이시옷 (한글 맞춤법 제30항)."""


def sai_siot_left_out(text: str) -> list[str]:
    return [
        f"{wrong} → {right}" for wrong, right in SAI_SIOT.items() if wrong in _without_code(text)
    ]


_DEPENDENT_NOUN = re.compile(rf"([{HANGUL}])(수(?=(?:는|도)? (?:있|없))|것|때)(?=[\s{HANGUL}.,)])")


def dependent_noun_attached(text: str) -> list[str]:
    return [
        m.group()
        for m in _DEPENDENT_NOUN.finditer(_without_code(text))
        if _hangul_reading(m.group(1)) == RIEUL
        or (m.group(2) == "것" and _hangul_reading(m.group(1)) == CONSONANT)
    ]


def negation_attached(text: str) -> list[str]:
    return re.findall(f"[{HANGUL}]*지않[{HANGUL}]*", _without_code(text))


def native_ordinal_attached(text: str) -> list[str]:
    return re.findall("(?:첫|두|세|네|다섯)번째", _without_code(text))


COUNTERS = "개|회|명|건|줄|번째|자리|단계|배|초|바이트|점|토큰"
_SPACED_COUNTER = re.compile(rf"(?:[0-9]|\{{\w+\}})\s+(?:{COUNTERS})(?![{HANGUL}])")


def counter_spaced(text: str) -> list[str]:
    return _SPACED_COUNTER.findall(CODE.sub("`X`", text))


def percent_spaced(text: str) -> list[str]:
    return re.findall(r"(?:[0-9]|\{\w+\})\s+%", CODE.sub("`X`", text))


def bracket_spaced(text: str) -> list[str]:
    return re.findall(rf"[{HANGUL}]+ \(", _without_code(text))


HAEYO = (
    "어요",
    "아요",
    "여요",
    "에요",
    "예요",
    "해요",
    "나요",
    "가요",
    "까요",
    "지요",
    "죠",
    "네요",
    "데요",
)
"""해요체 endings of statements and questions (the imperative `-세요` is not one)."""


def _sentence_endings(text: str) -> Iterator[str]:
    """The last Korean word of every sentence of `text` that ends in one."""
    for sentence in re.split(r"(?<=[.!?])\s+", _without_code(text)):
        tail = re.sub(r"[\s.!?:\"'”’)\]]+$", "", _strip_brackets(sentence.rstrip(" .!?")))
        word = re.search(f"[{HANGUL}]+$", tail)
        if word:
            yield word.group()


def not_hamnida_or_seyo(text: str) -> list[str]:
    return [
        ending
        for ending in _sentence_endings(text)
        if (ending.endswith("다") and not ending.endswith("니다"))
        or ending.endswith((*HAEYO, "십시오", "하라", "해라"))
    ]


def polite_title(text: str) -> list[str]:
    return [e for e in _sentence_endings(text) if e.endswith(("니다", "세요", *HAEYO))]


def _is_check_title(key: str) -> bool:
    return key.endswith(".title") and not key.startswith("grader:report.")


def _breaking(rule: Callable[[str], list[str]], titles: bool | None = None) -> list[str]:
    """`key: what breaks the rule` for every message (only titles, only the others)."""
    return [
        f"{key}: {found}"
        for key, text in MESSAGES.items()
        if titles is None or _is_check_title(key) == titles
        for found in rule(text)
    ]


# --- the catalogs follow them --------------------------------------------------------------


def test_particles_attach_to_the_word_before_them() -> None:
    """A particle is written without a space after its word (한글 맞춤법 제41항), also
    after code, a placeholder, a Latin word or a number: `status가`, not `status 가`."""
    assert _breaking(spaced_particles) == []


def test_a_particle_after_a_placeholder_fits_either_reading() -> None:
    """A placeholder's value is unknown when the message is written (a number, a file
    name, a check id), so the particle after it is written in both forms (`{file}이(가)`,
    `{name}(이)라는`), is one whose form never changes (`의`, `에`, `이다`), or the
    sentence names the thing (`{file} 파일이`)."""
    assert _breaking(one_form_after_a_placeholder) == []


def test_a_particle_fits_how_the_word_before_it_is_read() -> None:
    """After a final consonant 이/은/을/과/으로, after a vowel 가/는/를/와/로, after ㄹ 로;
    a Latin word as Korean writes it (외래어 표기법), a number as it is read:
    `JSON이` (제이슨), `sse.py가` (파이), `null로` (널), `4096이` (…육),
    `검사({title})를` (검사, the bracket explains it)."""
    assert _breaking(particle_of_the_wrong_form) == []


def test_sai_siot_compounds_are_spelled_as_the_standard_dictionary_does() -> None:
    """`기댓값`, `최댓값`, `결괏값`: 표준국어대사전's spelling, not `기대값`."""
    assert _breaking(sai_siot_left_out) == []


def test_dependent_nouns_stand_apart_from_the_word_before_them() -> None:
    """의존 명사 수, 것, 때 are words of their own (제42항): `할 수 있습니다`, `한 것`,
    `할 때`. (수 only before 있다/없다: `실수`, `-ㄹ수록` are not it.)"""
    assert _breaking(dependent_noun_attached) == []


def test_the_negation_ji_anta_is_spaced() -> None:
    """보조 용언 않다 is written apart from -지 (제47항): `하지 않습니다`."""
    assert _breaking(negation_attached) == []


def test_an_ordinal_after_a_native_numeral_is_spaced() -> None:
    """`첫 번째`, `두 번째` are two words; only after digits does 번째 attach (`3번째`)."""
    assert _breaking(native_ordinal_attached) == []


def test_counters_attach_to_a_number_in_digits() -> None:
    """A counter after a number in digits is written attached, one way throughout
    (제43항 다만): `5회`, `{count}개`, `{limit}바이트`. (`ms` is a unit symbol and keeps
    its space, as SI writes it: `500 ms`.)"""
    assert _breaking(counter_spaced) == []


def test_the_percent_sign_attaches_to_its_number() -> None:
    """`50%`, `{rate}%`: Korean writes the percent sign without a space."""
    assert _breaking(percent_spaced) == []


def test_a_bracket_attaches_to_the_word_it_explains() -> None:
    """A parenthesis that explains the word before it follows that word without a space
    (문장 부호 규정, 소괄호): `슬롯(대화 자리)`, not `슬롯 (대화 자리)`."""
    assert _breaking(bracket_spaced) == []


def test_sentences_are_statements_in_hamnida_or_instructions_in_seyo() -> None:
    """A message says what is in 합니다체 (`…없습니다`) and what to do in the polite
    imperative (`…저장하세요`): never 해요체 statements or questions (`…없어요`,
    `…맞나요?`), 해라체 (`…없다.`, `…하라`) or the stiff `…하십시오`."""
    assert _breaking(not_hamnida_or_seyo, titles=False) == []


def test_check_titles_are_plain_statements() -> None:
    """A check's title states what passing proves, plainly, as a heading does
    (`서버 로그에 \\`cancel task\\`가 찍혀 있다`), not in the polite style of the
    messages under it."""
    assert sum(map(_is_check_title, MESSAGES)) > 30, "the check titles are found"
    assert _breaking(polite_title, titles=True) == []


# --- the rules find what they name ---------------------------------------------------------

RULE_CASES = [
    (
        spaced_particles,
        'health.json 의 status 가 "ok"입니다.',
        'health.json의 status가 "ok"입니다.',
    ),
    (spaced_particles, "`voice-llm log` 의 출력", "`voice-llm log`의 출력"),
    (spaced_particles, "{file} 이(가) 있습니다.", "{file}이(가) 있습니다."),
    (spaced_particles, "파일 을 저장하세요.", "파일을 저장하세요."),
    (one_form_after_a_placeholder, "{file}이 없습니다.", "{file} 파일이 없습니다."),
    (
        one_form_after_a_placeholder,
        "`{near}`는 문자가 아닙니다.",
        "`{near}`은(는) 문자가 아닙니다.",
    ),
    (one_form_after_a_placeholder, "{name}라는 실습", "{name}(이)라는 실습"),
    (one_form_after_a_placeholder, "{name}({ref})가 없습니다.", "{name}({ref})이(가) 없습니다."),
    (particle_of_the_wrong_form, "JSON가 아닙니다.", "JSON이 아닙니다."),
    (particle_of_the_wrong_form, "sse.py이 있습니다.", "sse.py가 있습니다."),
    (particle_of_the_wrong_form, "null으로 씁니다.", "null로 씁니다."),
    (particle_of_the_wrong_form, "4096가 아닙니다.", "4096이 아닙니다."),
    (particle_of_the_wrong_form, "검사({title})을 통과하세요.", "검사({title})를 통과하세요."),
    (particle_of_the_wrong_form, "--lab NAME로 고르세요.", "--lab NAME으로 고르세요."),
    (sai_siot_left_out, "기대값: 1", "기댓값: 1"),
    (dependent_noun_attached, "확인할수 없습니다.", "확인할 수 없습니다."),
    (dependent_noun_attached, "받은것을 쓰세요.", "받은 것을 쓰세요."),
    (dependent_noun_attached, "끝날때까지", "끝날 때까지"),
    (negation_attached, "끝나지않습니다.", "끝나지 않습니다."),
    (native_ordinal_attached, "첫번째 값", "첫 번째 값"),
    (counter_spaced, "{count} 개 있습니다.", "{count}개 있습니다."),
    (percent_spaced, "{percent} % 이내", "{percent}% 이내"),
    (bracket_spaced, "슬롯 (대화 자리)", "슬롯(대화 자리)"),
    (not_hamnida_or_seyo, "파일이 없어요.", "파일이 없습니다."),
    (not_hamnida_or_seyo, "파일이 맞나요?", "파일이 맞는지 확인하세요."),
    (not_hamnida_or_seyo, "다시 저장하십시오.", "다시 저장하세요."),
    (not_hamnida_or_seyo, "파일이 없다.", "파일이 없습니다(확인 필요)."),
    (polite_title, "스트림이 [DONE]으로 끝납니다", "스트림이 [DONE]으로 끝난다"),
]


@pytest.mark.parametrize(
    ("rule", "wrong", "right"),
    RULE_CASES,
    ids=[f"{rule.__name__}-{index}" for index, (rule, _, _) in enumerate(RULE_CASES)],
)
def test_each_rule_finds_the_mistake_it_names(
    rule: Callable[[str], list[str]], wrong: str, right: str
) -> None:
    assert rule(wrong) != []
    assert rule(right) == []


@pytest.mark.parametrize(
    ("host", "reading"),
    [
        ("health.json", CONSONANT),
        ("sse.py", VOWEL),
        ("null", RIEUL),
        ("4096", CONSONANT),
        ("256", CONSONANT),
        ("0.5", VOWEL),
        ("10", CONSONANT),
        ("UTF-8", RIEUL),
        ("ID", VOWEL),
        ("`voice-llm up`", CONSONANT),
        ("검사({title})", VOWEL),
        ("{file}", "placeholder"),
        ("`{near}`", "placeholder"),
    ],
)
def test_the_word_before_a_particle_is_heard_as_korean_reads_it(host: str, reading: str) -> None:
    """`health.json` ends like 제이슨, `4096` like …육, `검사(…)` like 검사."""
    assert _reading(host) == reading
