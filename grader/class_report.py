"""The instructor's class report: one self-contained HTML page over a batch's results.

`grader report OUT_DIR [--html FILE] [--lang L]` reads a finished `grader batch` folder
and writes FILE (default `OUT_DIR/report.html`); `grader batch … --html FILE` calls
`write_class_report` at the end of the batch. The page shows

- the score distribution (histogram, with the median);
- the pass rate of every check, worst first, each linking to the list of the students
  who failed it (and why, in the words of their feedback);
- the lab's physics, one mark per student: time to first token against prompt size for
  0/4/12 documents (each student's points joined, so a flat or falling line stands out),
  the KV cache's miss against its hit, and how long the slot stayed busy after a cancel;
- integrity flags: numbers the server log does not confirm, report.json not copying its
  sources, files that disagree with each other in ways a real run does not produce;
- a table of students (sortable by a few lines of our own script; without script it is
  sorted by id) linking to each student's feedback, rendered in the page.

The page is one file: inline CSS, inline SVG charts (`grader.charts`), one short inline
script, no network, no font, no external reference. A Content-Security-Policy allows only
that style and that script (by hash), so even text that slipped through escaping could
not run or load anything. Every text a student controls (the submission id is a file
name, messages quote their files) is escaped. The UI labels are in English, Japanese,
Korean or Chinese (`--lang`); each student's feedback stays in the language it was graded
in. The same results give the same bytes: no timestamp, no absolute path, everything
sorted.

Input: `OUT_DIR/results/<id>.json`, one grader result per submission (the id is the file
stem). `gradebook.csv` and `summary.json` are not read: everything is computed from the
results. A file there that is not a readable result is listed at the end of the page and
left out of everything else.

Physics data. Results carry checks, not the measured numbers, so the charts read them from
the submissions: given the submission folders (`folders`: id -> folder, which the batch
knows), `write_physics` loads each one's prefill.json, cache.json and cancel.json with the
grader's own strict loader and the lab's schemas (a file that is missing, too big, not
strict JSON or not valid is left out: that student has no mark on that chart) and writes
what it found to `OUT_DIR/physics.json`, so that `grader report OUT_DIR` can draw the
charts later without the folders (archives are extracted only while the batch runs).
The file:

    {"about": "...", "version": 1,
     "submissions": {"<id>": {"prefill": [{"docs", "prompt_n", "prompt_ms", "ttft_ms"}, ...]
                                          or null,
                              "cache": {"first": {"prompt_n", "ttft_ms"}, "second": {...},
                                        "changed_prefix": {...}} or null,
                              "cancel": {"max_tokens", "received_tokens", "closed_at_ms",
                                         "slot_idle_after_ms"} or null}}}

ids sorted, null where the file was missing or invalid. It is read back as strictly (a
malformed entry counts as no data). Writing it again keeps the entries of submissions
whose folders were not given, for ids that still have a result.

Layering: the engine in `grader/` imports no lab. The lab whose files hold the physics is
named, as `grader batch` names it ("checks:LAB" by default), and imported by that name.
What the page knows of the "first token" lab (which artifacts hold the physics, which
check ids colour the charts and raise which integrity flag) is data in the block marked
"the lab's part" below; a check id a lab does not have never colours or flags anything.
A second lab would move that block into its own package.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import itertools
import json
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader import __version__
from grader.charts import (
    OKABE_ITO,
    Axis,
    BarRow,
    Bin,
    Guide,
    Mark,
    StripMark,
    Style,
    bar_chart,
    esc,
    fmt,
    histogram_chart,
    linear_axis,
    log_axis,
    quantile,
    strip_chart,
    xy_chart,
)

LANGUAGES = ("en", "ja", "ko", "zh")
STATUSES = ("passed", "failed", "skipped", "error")
RESULT_MAX_BYTES = 64 * 1024 * 1024
PHYSICS_FILE = "physics.json"
PHYSICS_VERSION = 1
EXIT_WRITTEN, EXIT_USAGE = 0, 2
DEFAULT_LAB = "checks:LAB"  # as grader.batch: the lab is imported by name, never here
FULL_WIDTH, HALF_WIDTH = 1140, 560  # SVG units = CSS pixels in the page's 1140 px column

# --------------------------------------------------------------------------- labels

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Class report",
        "subtitle": "{lab} lab · {n} submissions",
        "nav": "Contents",
        "submissions": "submissions",
        "graded": "graded",
        "not_graded": "could not be graded",
        "median": "median score",
        "mean": "mean score",
        "full_marks": "full marks",
        "flagged": "with integrity flags",
        "flagged_strong": "contradicting a source",
        "who_failed": "Who failed each check",
        "who_failed_intro": "Each check with the students who failed it, broke it or skipped "
        "it, and their message; the pass-rate chart links here.",
        "meta": "Grader {grader}, rubric {rubric}, feedback in {language}. "
        "The same results always give the same page.",
        "scores": "Score distribution",
        "scores_title": "Scores of the graded submissions",
        "scores_x": "score (points out of {max})",
        "scores_y": "submissions",
        "median_marker": "median {value}",
        "scores_ungraded": "{n} submissions could not be graded and are not counted here; "
        "see the students table.",
        "bin_tooltip": "{range} points: {n} submissions",
        "checks": "Checks, worst first",
        "checks_intro": "Share of the graded submissions where each check passed, failed, "
        "was skipped (an input file did not load) or broke. Click a check to see who failed "
        "it and why.",
        "checks_title": "Pass rate of every check",
        "checks_x": "share of graded submissions (%)",
        "checks_y": "check id",
        "passed": "passed",
        "failed": "failed",
        "skipped": "skipped",
        "error": "error",
        "rate_note": "{rate}% passed",
        "rate_note_failed": "{rate}% · {n} failed",
        "rate_tooltip": "{id}: {passed} passed, {failed} failed, {skipped} skipped, {error} errors",
        "nobody_failed": "Nobody failed this check.",
        "failed_by": "Failed ({n})",
        "skipped_for": "Skipped ({n})",
        "error_for": "Grader error ({n})",
        "no_results": "No results found in results/.",
        "physics": "The lab's physics across the class",
        "physics_intro": "One mark per student, from the student's own prefill.json, "
        "cache.json and cancel.json (only files that passed their schema check). Hover over "
        "a mark to see the student and the numbers; click it for the feedback.",
        "physics_none": "No physics data: this page was built without the submission "
        "folders and there is no physics.json beside results/. `grader batch … --html FILE` "
        "writes it.",
        "prefill_title": "Time to first token against prompt size, 0 → 4 → 12 documents",
        "prefill_desc": "Each student's points for 0, 4 and 12 documents are joined by a "
        "line; a correct run rises to the right.",
        "prefill_x": "prompt size, prompt_n (tokens)",
        "prefill_y": "time to first token, ttft_ms (ms)",
        "prefill_rising": "grows with the documents",
        "prefill_cache_on": "cache left on (prefill.cache_off failed)",
        "prefill_flat": "flat or falling",
        "prefill_point": "{docs} docs: {prompt_n} tokens, {ttft} ms",
        "cache_title": "KV cache: the first request (miss) against the repeat (hit)",
        "cache_desc": "One point per student. The further below the diagonal, the faster "
        "the repeat: the cache was reused.",
        "cache_x": "first request, ttft_ms (ms, log scale)",
        "cache_y": "repeated request, ttft_ms (ms, log scale)",
        "cache_ok": "cache checks passed",
        "cache_bad": "cache.first_is_miss or cache.hit_faster failed",
        "cache_same": "same time: no reuse",
        "cache_tenfold": "10× faster",
        "cache_tooltip": "{id}: first {first} ms ({first_n} tokens), repeat {second} ms "
        "({second_n} tokens)",
        "cancel_title": "Cancellation: how long the slot kept working after the close",
        "cancel_desc": "One point per student, on a log scale. A client that only stops "
        "reading, without closing the connection, leaves the slot generating the whole "
        "answer.",
        "cancel_x": "slot_idle_after_ms: from the close until the slot was idle (ms, log scale)",
        "cancel_freed": "slot freed (cancel.slot_freed passed)",
        "cancel_busy": "kept generating (cancel.slot_freed failed)",
        "cancel_other": "not judged (check skipped or broke)",
        "cancel_tooltip": "{id}: closed at {closed} ms, idle {idle} ms later, "
        "{received} of {max_tokens} tokens received",
        "no_mark": "No mark for {n} graded students: the file was missing or invalid.",
        "off_scale": "{n} values beyond the axis are drawn hollow at its edge.",
        "integrity": "Integrity flags",
        "integrity_intro": "Signs that the saved files are not one real run as the server "
        "produced it. A flag is a reason to look, not a verdict: compare with the "
        "student's files.",
        "strong": "contradicts its source",
        "weak": "worth a look",
        "no_flags": "No integrity flags.",
        "flag.log_mismatch": "measured numbers not found in the server log",
        "flag.report_mismatch": "report.json does not match its source files",
        "flag.chunks_mismatch": "chunks.jsonl does not match the saved stream",
        "flag.cancel_vs_log": "cancel.json says the slot was freed, but the log has no "
        "`cancel task`",
        "flag.log_unconfirmed": "the server log has no per-task timings to confirm the numbers",
        "flag.prefill_vs_log": "prefill.json prompt sizes disagree with the log or cache.json",
        "flag.impossible_timing": "times in an order no real run produces",
        "col_flag": "flag",
        "col_evidence": "evidence",
        "students": "Students",
        "sort_hint": "Click a column heading to sort.",
        "col_student": "student",
        "col_score": "score",
        "col_failed": "failed",
        "col_skipped": "skipped / errors",
        "col_flags": "flags",
        "col_failed_checks": "checks not passed",
        "not_graded_cell": "not graded",
        "feedback": "Feedback per student",
        "feedback_intro": "The feedback each student got, in the language it was graded in.",
        "all_passed": "All {n} checks passed.",
        "passed_list": "{n} checks passed",
        "where": "where",
        "expected": "expected",
        "found": "found",
        "hint": "what to do",
        "why": "common mistake",
        "not_gradable": "Could not be graded",
        "file_problems": "File problems",
        "back": "↑ students",
        "points": "{points}/{max} points",
        "folder": "folder",
        "unreadable": "Result files that could not be read",
        "unreadable_intro": "These files in results/ are not grader results; they are left "
        "out of everything above.",
    },
    "ja": {
        "title": "クラスレポート",
        "subtitle": "{lab} 演習 · 提出 {n} 件",
        "nav": "目次",
        "submissions": "提出",
        "graded": "採点済み",
        "not_graded": "採点できず",
        "median": "得点の中央値",
        "mean": "平均点",
        "full_marks": "満点",
        "flagged": "整合性フラグあり",
        "flagged_strong": "元データと矛盾",
        "who_failed": "チェックごとの不合格者",
        "who_failed_intro": "チェックごとに、不合格・エラー・スキップになった学生と"
        "そのメッセージです。合格率のグラフからここへ移動できます。",
        "meta": "採点器 {grader}、ルーブリック {rubric}、フィードバックの言語 {language}。"
        "同じ結果からは常に同じページが作られます。",
        "scores": "得点分布",
        "scores_title": "採点済みの提出の得点",
        "scores_x": "得点（{max} 点満点）",
        "scores_y": "提出数",
        "median_marker": "中央値 {value}",
        "scores_ungraded": "{n} 件は採点できなかったため、ここには含めていません。"
        "学生一覧を参照してください。",
        "bin_tooltip": "{range} 点: {n} 件",
        "checks": "チェック別の結果（悪い順）",
        "checks_intro": "採点済みの提出のうち、各チェックが合格・不合格・スキップ（入力ファイルを"
        "読み込めなかった）・エラーになった割合です。チェックをクリックすると、不合格だった"
        "学生とその理由が表示されます。",
        "checks_title": "全チェックの合格率",
        "checks_x": "採点済みの提出に占める割合（%）",
        "checks_y": "チェック ID",
        "passed": "合格",
        "failed": "不合格",
        "skipped": "スキップ",
        "error": "エラー",
        "rate_note": "合格 {rate}%",
        "rate_note_failed": "合格 {rate}% · 不合格 {n}",
        "rate_tooltip": "{id}: 合格 {passed}、不合格 {failed}、スキップ {skipped}、エラー {error}",
        "nobody_failed": "このチェックで不合格の学生はいません。",
        "failed_by": "不合格（{n} 人）",
        "skipped_for": "スキップ（{n} 人）",
        "error_for": "採点器のエラー（{n} 人）",
        "no_results": "results/ に採点結果がありません。",
        "physics": "クラス全体の計測値",
        "physics_intro": "学生 1 人につき 1 つの印で、各自の prefill.json・cache.json・"
        "cancel.json（スキーマ検査に合格したファイルのみ）から描いています。印にポインターを"
        "合わせると学生と数値が、クリックするとその学生のフィードバックが表示されます。",
        "physics_none": "計測値のデータがありません。このページは提出フォルダなしで作られ、"
        "results/ の隣に physics.json もありません。`grader batch … --html FILE` で作ると"
        "physics.json も書き出されます。",
        "prefill_title": "プロンプトの長さと最初のトークンまでの時間（文書 0 → 4 → 12 件）",
        "prefill_desc": "学生ごとに、文書 0・4・12 件の点を線で結んでいます。"
        "正しい計測では右上がりになります。",
        "prefill_x": "プロンプトの長さ prompt_n（トークン）",
        "prefill_y": "最初のトークンまでの時間 ttft_ms（ミリ秒）",
        "prefill_rising": "文書とともに増加",
        "prefill_cache_on": "キャッシュが有効のまま（prefill.cache_off 不合格）",
        "prefill_flat": "横ばい・減少",
        "prefill_point": "文書 {docs} 件: {prompt_n} トークン、{ttft} ms",
        "cache_title": "KV キャッシュ: 1 回目（ミス）と 2 回目（ヒット）",
        "cache_desc": "学生 1 人につき 1 点。対角線より下にあるほど 2 回目が速く、"
        "キャッシュが再利用されています。",
        "cache_x": "1 回目の ttft_ms（ミリ秒、対数目盛）",
        "cache_y": "2 回目の ttft_ms（ミリ秒、対数目盛）",
        "cache_ok": "キャッシュのチェックに合格",
        "cache_bad": "cache.first_is_miss または cache.hit_faster が不合格",
        "cache_same": "同じ時間（再利用なし）",
        "cache_tenfold": "10 倍速い",
        "cache_tooltip": "{id}: 1 回目 {first} ms（{first_n} トークン）、"
        "2 回目 {second} ms（{second_n} トークン）",
        "cancel_title": "キャンセル: 接続を閉じてからスロットが空くまでの時間",
        "cancel_desc": "学生 1 人につき 1 点、対数目盛。接続を閉じずに読むのをやめただけでは、"
        "スロットは回答を最後まで生成し続けます。",
        "cancel_x": "slot_idle_after_ms: 接続を閉じてからスロットが空くまで（ミリ秒、対数目盛）",
        "cancel_freed": "スロットが解放された（cancel.slot_freed 合格）",
        "cancel_busy": "生成が続いた（cancel.slot_freed 不合格）",
        "cancel_other": "判定なし（チェックがスキップまたはエラー）",
        "cancel_tooltip": "{id}: {closed} ms で接続を閉じ、その {idle} ms 後にスロットが空いた。"
        "受信 {received}/{max_tokens} トークン",
        "no_mark": "採点済みの学生のうち {n} 人は印がありません（ファイルがないか無効です）。",
        "off_scale": "軸の範囲外の値 {n} 個は、軸の端に白抜きで描いています。",
        "integrity": "整合性フラグ",
        "integrity_intro": "保存されたファイルが、サーバーが実際に出力した 1 回分の実行そのまま"
        "ではないことを示す兆候です。フラグは確認のきっかけであって判定ではありません。"
        "学生のファイルと照らし合わせてください。",
        "strong": "元データと矛盾",
        "weak": "要確認",
        "no_flags": "整合性フラグはありません。",
        "flag.log_mismatch": "計測値がサーバーログに見当たらない",
        "flag.report_mismatch": "report.json が元のファイルと一致しない",
        "flag.chunks_mismatch": "chunks.jsonl が保存したストリームと一致しない",
        "flag.cancel_vs_log": "cancel.json ではスロットが解放されているのに、ログに "
        "`cancel task` がない",
        "flag.log_unconfirmed": "サーバーログにタスクごとの計時がなく、数値を確認できない",
        "flag.prefill_vs_log": "prefill.json のプロンプト長がログまたは cache.json と食い違う",
        "flag.impossible_timing": "実際の実行ではありえない時刻の順序",
        "col_flag": "フラグ",
        "col_evidence": "根拠",
        "students": "学生一覧",
        "sort_hint": "列の見出しをクリックすると並べ替えられます。",
        "col_student": "学生",
        "col_score": "得点",
        "col_failed": "不合格",
        "col_skipped": "スキップ / エラー",
        "col_flags": "フラグ",
        "col_failed_checks": "合格しなかったチェック",
        "not_graded_cell": "採点できず",
        "feedback": "学生ごとのフィードバック",
        "feedback_intro": "各学生が受け取ったフィードバックです（採点時の言語のまま）。",
        "all_passed": "{n} 個のチェックすべてに合格しました。",
        "passed_list": "合格したチェック {n} 個",
        "where": "場所",
        "expected": "期待値",
        "found": "実際の値",
        "hint": "対処",
        "why": "よくある間違い",
        "not_gradable": "採点できませんでした",
        "file_problems": "ファイルの問題",
        "back": "↑ 学生一覧へ",
        "points": "{points}/{max} 点",
        "folder": "フォルダ",
        "unreadable": "読み込めなかった結果ファイル",
        "unreadable_intro": "results/ にある次のファイルは採点結果ではないため、"
        "上記のすべてから除外しています。",
    },
    "ko": {
        "title": "학급 보고서",
        "subtitle": "{lab} 실습 · 제출 {n}건",
        "nav": "목차",
        "submissions": "제출",
        "graded": "채점 완료",
        "not_graded": "채점 불가",
        "median": "점수 중앙값",
        "mean": "평균 점수",
        "full_marks": "만점",
        "flagged": "무결성 플래그 있음",
        "flagged_strong": "원본과 모순",
        "who_failed": "검사별 실패한 학생",
        "who_failed_intro": "검사마다 실패, 오류, 건너뜀이 된 학생과 그 메시지입니다. "
        "통과율 그래프에서 이곳으로 연결됩니다.",
        "meta": "채점기 {grader}, 루브릭 {rubric}, 피드백 언어 {language}. "
        "같은 결과에서는 항상 같은 페이지가 만들어집니다.",
        "scores": "점수 분포",
        "scores_title": "채점된 제출물의 점수",
        "scores_x": "점수({max}점 만점)",
        "scores_y": "제출 수",
        "median_marker": "중앙값 {value}",
        "scores_ungraded": "{n}건은 채점할 수 없어 여기에 포함하지 않았습니다. "
        "학생 표를 참고하세요.",
        "bin_tooltip": "{range}점: {n}건",
        "checks": "검사별 결과(낮은 순)",
        "checks_intro": "채점된 제출물 가운데 각 검사가 통과, 실패, 건너뜀(입력 파일을 읽지 "
        "못함), 오류였던 비율입니다. 검사를 클릭하면 실패한 학생과 그 이유를 볼 수 있습니다.",
        "checks_title": "모든 검사의 통과율",
        "checks_x": "채점된 제출물 대비 비율(%)",
        "checks_y": "검사 ID",
        "passed": "통과",
        "failed": "실패",
        "skipped": "건너뜀",
        "error": "오류",
        "rate_note": "통과 {rate}%",
        "rate_note_failed": "통과 {rate}% · 실패 {n}",
        "rate_tooltip": "{id}: 통과 {passed}, 실패 {failed}, 건너뜀 {skipped}, 오류 {error}",
        "nobody_failed": "이 검사에 실패한 학생이 없습니다.",
        "failed_by": "실패({n}명)",
        "skipped_for": "건너뜀({n}명)",
        "error_for": "채점기 오류({n}명)",
        "no_results": "results/에 채점 결과가 없습니다.",
        "physics": "학급 전체의 측정값",
        "physics_intro": "학생 한 명당 표시 하나로, 각자의 prefill.json, cache.json, "
        "cancel.json(스키마 검사를 통과한 파일만)에서 그렸습니다. 표시에 마우스를 올리면 "
        "학생과 수치가, 클릭하면 그 학생의 피드백이 나옵니다.",
        "physics_none": "측정값 데이터가 없습니다. 이 페이지는 제출 폴더 없이 만들어졌고 "
        "results/ 옆에 physics.json도 없습니다. `grader batch … --html FILE`로 만들면 "
        "physics.json도 함께 기록됩니다.",
        "prefill_title": "프롬프트 길이와 첫 토큰까지의 시간(문서 0 → 4 → 12개)",
        "prefill_desc": "학생마다 문서 0, 4, 12개의 점을 선으로 이었습니다. "
        "올바르게 측정했다면 오른쪽 위로 올라갑니다.",
        "prefill_x": "프롬프트 길이 prompt_n(토큰)",
        "prefill_y": "첫 토큰까지의 시간 ttft_ms(ms)",
        "prefill_rising": "문서 수에 따라 증가",
        "prefill_cache_on": "캐시를 켠 채 측정(prefill.cache_off 실패)",
        "prefill_flat": "평평하거나 감소",
        "prefill_point": "문서 {docs}개: {prompt_n} 토큰, {ttft} ms",
        "cache_title": "KV 캐시: 첫 요청(미스)과 반복 요청(히트)",
        "cache_desc": "학생 한 명당 점 하나. 대각선보다 아래에 있을수록 반복 요청이 빨랐고 "
        "캐시가 재사용된 것입니다.",
        "cache_x": "첫 요청 ttft_ms(ms, 로그 눈금)",
        "cache_y": "반복 요청 ttft_ms(ms, 로그 눈금)",
        "cache_ok": "캐시 검사 통과",
        "cache_bad": "cache.first_is_miss 또는 cache.hit_faster 실패",
        "cache_same": "같은 시간(재사용 없음)",
        "cache_tenfold": "10배 빠름",
        "cache_tooltip": "{id}: 첫 요청 {first} ms({first_n} 토큰), "
        "반복 {second} ms({second_n} 토큰)",
        "cancel_title": "취소: 연결을 닫은 뒤 슬롯이 비기까지의 시간",
        "cancel_desc": "학생 한 명당 점 하나, 로그 눈금. 연결을 닫지 않고 읽기만 멈추면 "
        "슬롯은 답변을 끝까지 생성합니다.",
        "cancel_x": "slot_idle_after_ms: 연결을 닫은 뒤 슬롯이 빌 때까지(ms, 로그 눈금)",
        "cancel_freed": "슬롯 해제됨(cancel.slot_freed 통과)",
        "cancel_busy": "생성이 계속됨(cancel.slot_freed 실패)",
        "cancel_other": "판정 없음(검사 건너뜀 또는 오류)",
        "cancel_tooltip": "{id}: {closed} ms에 연결을 닫았고 {idle} ms 뒤 슬롯이 비었음, "
        "{received}/{max_tokens} 토큰 수신",
        "no_mark": "채점된 학생 중 {n}명은 표시가 없습니다(파일이 없거나 유효하지 않음).",
        "off_scale": "축 범위를 벗어난 값 {n}개는 축 끝에 속이 빈 표시로 그렸습니다.",
        "integrity": "무결성 플래그",
        "integrity_intro": "저장된 파일이 서버가 실제로 만든 한 번의 실행 그대로가 아니라는 "
        "징후입니다. 플래그는 확인해 볼 이유일 뿐 판정이 아닙니다. 학생의 파일과 대조해 "
        "보세요.",
        "strong": "원본과 모순",
        "weak": "확인 필요",
        "no_flags": "무결성 플래그가 없습니다.",
        "flag.log_mismatch": "측정값이 서버 로그에 없음",
        "flag.report_mismatch": "report.json이 원본 파일과 일치하지 않음",
        "flag.chunks_mismatch": "chunks.jsonl이 저장된 스트림과 일치하지 않음",
        "flag.cancel_vs_log": "cancel.json에는 슬롯이 해제되었다고 되어 있지만 로그에 "
        "`cancel task`가 없음",
        "flag.log_unconfirmed": "서버 로그에 작업별 타이밍이 없어 수치를 확인할 수 없음",
        "flag.prefill_vs_log": "prefill.json의 프롬프트 길이가 로그 또는 cache.json과 다름",
        "flag.impossible_timing": "실제 실행에서는 나올 수 없는 시간 순서",
        "col_flag": "플래그",
        "col_evidence": "근거",
        "students": "학생",
        "sort_hint": "열 제목을 클릭하면 정렬됩니다.",
        "col_student": "학생",
        "col_score": "점수",
        "col_failed": "실패",
        "col_skipped": "건너뜀 / 오류",
        "col_flags": "플래그",
        "col_failed_checks": "통과하지 못한 검사",
        "not_graded_cell": "채점 불가",
        "feedback": "학생별 피드백",
        "feedback_intro": "각 학생이 받은 피드백입니다(채점한 언어 그대로).",
        "all_passed": "검사 {n}개를 모두 통과했습니다.",
        "passed_list": "통과한 검사 {n}개",
        "where": "위치",
        "expected": "기대값",
        "found": "실제 값",
        "hint": "해야 할 일",
        "why": "흔한 실수",
        "not_gradable": "채점할 수 없음",
        "file_problems": "파일 문제",
        "back": "↑ 학생 표로",
        "points": "{points}/{max}점",
        "folder": "폴더",
        "unreadable": "읽을 수 없는 결과 파일",
        "unreadable_intro": "results/의 다음 파일은 채점 결과가 아니므로 위의 모든 내용에서 "
        "제외했습니다.",
    },
    "zh": {
        "title": "班级报告",
        "subtitle": "{lab} 实验 · 共 {n} 份提交",
        "nav": "目录",
        "submissions": "提交",
        "graded": "已评分",
        "not_graded": "无法评分",
        "median": "分数中位数",
        "mean": "平均分",
        "full_marks": "满分",
        "flagged": "有一致性标记",
        "flagged_strong": "与来源矛盾",
        "who_failed": "各项检查的未通过者",
        "who_failed_intro": "按检查列出未通过、出错或被跳过的学生及其消息；通过率图表链接到此处。",
        "meta": "评分器 {grader}，评分标准 {rubric}，反馈语言 {language}。"
        "相同的结果总是生成相同的页面。",
        "scores": "分数分布",
        "scores_title": "已评分提交的分数",
        "scores_x": "分数（满分 {max}）",
        "scores_y": "提交数",
        "median_marker": "中位数 {value}",
        "scores_ungraded": "有 {n} 份提交无法评分，未计入此图；请查看学生表。",
        "bin_tooltip": "{range} 分：{n} 份",
        "checks": "各项检查（从差到好）",
        "checks_intro": "在已评分的提交中，每项检查通过、未通过、跳过（输入文件无法读取）"
        "或出错的比例。点击某项检查，可查看未通过的学生及原因。",
        "checks_title": "各项检查的通过率",
        "checks_x": "占已评分提交的比例（%）",
        "checks_y": "检查 ID",
        "passed": "通过",
        "failed": "未通过",
        "skipped": "跳过",
        "error": "出错",
        "rate_note": "通过 {rate}%",
        "rate_note_failed": "通过 {rate}% · 未通过 {n}",
        "rate_tooltip": "{id}：通过 {passed}，未通过 {failed}，跳过 {skipped}，出错 {error}",
        "nobody_failed": "没有学生未通过此项检查。",
        "failed_by": "未通过（{n} 人）",
        "skipped_for": "跳过（{n} 人）",
        "error_for": "评分器出错（{n} 人）",
        "no_results": "results/ 中没有评分结果。",
        "physics": "全班的测量结果",
        "physics_intro": "每名学生一个标记，取自其本人的 prefill.json、cache.json 和 "
        "cancel.json（仅限通过模式检查的文件）。将指针悬停在标记上可查看学生和数值，"
        "点击可查看该学生的反馈。",
        "physics_none": "没有测量数据：本页面生成时没有提供提交文件夹，results/ 旁也没有 "
        "physics.json。使用 `grader batch … --html FILE` 生成时会一并写出 physics.json。",
        "prefill_title": "首个 token 的到达时间与提示长度（0 → 4 → 12 篇文档）",
        "prefill_desc": "每名学生 0、4、12 篇文档的点用线相连；正确的测量应向右上方上升。",
        "prefill_x": "提示长度 prompt_n（token）",
        "prefill_y": "首个 token 的到达时间 ttft_ms（毫秒）",
        "prefill_rising": "随文档增加而增长",
        "prefill_cache_on": "测量时未关闭缓存（prefill.cache_off 未通过）",
        "prefill_flat": "持平或下降",
        "prefill_point": "{docs} 篇文档：{prompt_n} 个 token，{ttft} ms",
        "cache_title": "KV 缓存：首次请求（未命中）与重复请求（命中）",
        "cache_desc": "每名学生一个点。越在对角线下方，重复请求越快，说明缓存得到了复用。",
        "cache_x": "首次请求 ttft_ms（毫秒，对数刻度）",
        "cache_y": "重复请求 ttft_ms（毫秒，对数刻度）",
        "cache_ok": "缓存检查通过",
        "cache_bad": "cache.first_is_miss 或 cache.hit_faster 未通过",
        "cache_same": "用时相同（未复用）",
        "cache_tenfold": "快 10 倍",
        "cache_tooltip": "{id}：首次 {first} ms（{first_n} 个 token），"
        "重复 {second} ms（{second_n} 个 token）",
        "cancel_title": "取消：关闭连接后槽位还忙了多久",
        "cancel_desc": "每名学生一个点，对数刻度。只停止读取而不关闭连接，槽位会一直生成到"
        "回答结束。",
        "cancel_x": "slot_idle_after_ms：从关闭连接到槽位空闲（毫秒，对数刻度）",
        "cancel_freed": "槽位已释放（cancel.slot_freed 通过）",
        "cancel_busy": "仍在生成（cancel.slot_freed 未通过）",
        "cancel_other": "未判定（检查被跳过或出错）",
        "cancel_tooltip": "{id}：在 {closed} ms 关闭连接，{idle} ms 后槽位空闲，"
        "收到 {received}/{max_tokens} 个 token",
        "no_mark": "有 {n} 名已评分的学生没有标记：文件缺失或无效。",
        "off_scale": "有 {n} 个值超出坐标轴范围，以空心标记画在轴的边缘。",
        "integrity": "数据一致性标记",
        "integrity_intro": "这些迹象表明，保存的文件并不是服务器实际产生的某一次运行的原样"
        "记录。标记只是需要查看的理由，而不是结论；请对照学生的文件核实。",
        "strong": "与来源矛盾",
        "weak": "需核实",
        "no_flags": "没有一致性标记。",
        "flag.log_mismatch": "服务器日志中找不到测量值",
        "flag.report_mismatch": "report.json 与其来源文件不一致",
        "flag.chunks_mismatch": "chunks.jsonl 与保存的流不一致",
        "flag.cancel_vs_log": "cancel.json 显示槽位已释放，但日志中没有 `cancel task`",
        "flag.log_unconfirmed": "服务器日志中没有每个任务的计时，无法核实数值",
        "flag.prefill_vs_log": "prefill.json 的提示长度与日志或 cache.json 不符",
        "flag.impossible_timing": "时间顺序在真实运行中不可能出现",
        "col_flag": "标记",
        "col_evidence": "依据",
        "students": "学生",
        "sort_hint": "点击列标题即可排序。",
        "col_student": "学生",
        "col_score": "分数",
        "col_failed": "未通过",
        "col_skipped": "跳过 / 出错",
        "col_flags": "标记",
        "col_failed_checks": "未通过的检查",
        "not_graded_cell": "无法评分",
        "feedback": "每名学生的反馈",
        "feedback_intro": "每名学生收到的反馈（保持评分时的语言）。",
        "all_passed": "全部 {n} 项检查均已通过。",
        "passed_list": "已通过的检查 {n} 项",
        "where": "位置",
        "expected": "预期",
        "found": "实际",
        "hint": "如何处理",
        "why": "常见错误",
        "not_gradable": "无法评分",
        "file_problems": "文件问题",
        "back": "↑ 返回学生表",
        "points": "{points}/{max} 分",
        "folder": "文件夹",
        "unreadable": "无法读取的结果文件",
        "unreadable_intro": "results/ 中的以下文件不是评分结果，已从以上所有内容中排除。",
    },
}


class Labels:
    """The page's words in one language, English for anything missing."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LABELS else "en"
        self._table = LABELS[self.lang]

    def __call__(self, key: str, **params: object) -> str:
        template = self._table.get(key) or LABELS["en"].get(key) or key
        return template.format(**params) if params else template


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class CheckRow:
    """One check of one student's result, as the page needs it."""

    id: str
    title: str
    status: str
    points: float
    max_points: float
    message: str | None = None
    hint: str | None = None
    explanation: str | None = None
    where: str = ""
    expected: str | None = None
    found: str | None = None
    message_id: str | None = None


@dataclass(frozen=True)
class Student:
    """One result file: the submission's id (the file stem) and its grade."""

    id: str
    gradable: bool
    score: float | None
    max_score: float | None
    checks: tuple[CheckRow, ...] = ()
    format_errors: tuple[str, ...] = ()
    file_problems: tuple[str, ...] = ()
    language: str = "en"
    submission: str = ""
    lab: str = ""
    grader_version: str = ""
    rubric_version: str = ""

    def check(self, check_id: str) -> CheckRow | None:
        return next((c for c in self.checks if c.id == check_id), None)

    def status(self, check_id: str) -> str | None:
        row = self.check(check_id)
        return row.status if row else None

    @property
    def not_passed(self) -> tuple[CheckRow, ...]:
        return tuple(c for c in self.checks if c.status != "passed")


@dataclass(frozen=True)
class Unreadable:
    """A file in results/ that is not a usable result, and why."""

    name: str
    reason: str


class _Bad(ValueError):
    """A result file has the wrong shape."""


def _text(value: Any, what: str, *, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Bad(f"{what} is not a string")
    return value


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(f"{what} is not a number")
    if not math.isfinite(value):
        raise _Bad(f"{what} is not finite")
    return float(value)


def _value_text(value: Any) -> str | None:
    """`expected` / `found` as shown: numbers without float noise, strings as they are."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        from grader.i18n import format_value

        return format_value(value)
    return str(value)


def _where(location: Any) -> str:
    """`file:line (pointer)`, as the text report writes it."""
    if not isinstance(location, dict) or not isinstance(location.get("file"), str):
        return ""
    out = location["file"]
    line = location.get("line")
    if isinstance(line, int) and not isinstance(line, bool):
        out += f":{line}"
    if isinstance(location.get("pointer"), str) and location["pointer"]:
        out += f" ({location['pointer']})"
    return out


def _check_row(data: Any, index: int) -> CheckRow:
    if not isinstance(data, dict):
        raise _Bad(f"checks[{index}] is not an object")
    check_id = _text(data.get("id"), f"checks[{index}].id", optional=False)
    status = data.get("status")
    if status not in STATUSES:
        raise _Bad(f"checks[{index}].status is not one of {', '.join(STATUSES)}")
    for key in ("expected", "found"):
        if isinstance(data.get(key), (dict, list)):
            raise _Bad(f"checks[{index}].{key} is not a plain value")
    return CheckRow(
        id=check_id or "",
        title=_text(data.get("title"), f"checks[{index}].title") or check_id or "",
        status=status,
        points=_number(data.get("points"), f"checks[{index}].points"),
        max_points=_number(data.get("max_points"), f"checks[{index}].max_points"),
        message=_text(data.get("message"), f"checks[{index}].message"),
        hint=_text(data.get("hint"), f"checks[{index}].hint"),
        explanation=_text(data.get("explanation"), f"checks[{index}].explanation"),
        where=_where(data.get("location")),
        expected=_value_text(data.get("expected")),
        found=_value_text(data.get("found")),
        message_id=_text(data.get("message_id"), f"checks[{index}].message_id"),
    )


def _file_problems(artifacts: Any) -> tuple[str, ...]:
    """`file:line: message` of every problem of every artifact that did not load."""
    out: list[str] = []
    for artifact in artifacts if isinstance(artifacts, list) else []:
        if not isinstance(artifact, dict) or artifact.get("status") == "valid":
            continue
        for problem in artifact.get("problems") or []:
            if isinstance(problem, dict) and isinstance(problem.get("message"), str):
                where = _where(problem.get("location")) or str(artifact.get("file", ""))
                out.append(f"{where}: {problem['message']}")
    return tuple(out)


def student_of(result_id: str, data: Any) -> Student:
    """A `Student` from a parsed result; raises ValueError when it is not a result."""
    if not isinstance(data, dict):
        raise _Bad("not a JSON object")
    gradable = data.get("gradable")
    if not isinstance(gradable, bool):
        raise _Bad("no boolean `gradable`")
    checks = data.get("checks", [])
    if not isinstance(checks, list):
        raise _Bad("`checks` is not a list")
    errors = data.get("format_errors") or []
    if not isinstance(errors, list):
        raise _Bad("`format_errors` is not a list")
    rows = tuple(_check_row(c, i) for i, c in enumerate(checks))
    score = _number(data.get("score"), "score") if gradable else None
    max_score = _number(data.get("max_score"), "max_score") if gradable else None
    language = data.get("language")
    return Student(
        id=result_id,
        gradable=gradable,
        score=score,
        max_score=max_score,
        checks=rows,
        format_errors=tuple(str(e) for e in errors),
        file_problems=_file_problems(data.get("artifacts")),
        language=language if language in LANGUAGES else "en",
        submission=str(data.get("submission") or ""),
        lab=str(data.get("lab") or ""),
        grader_version=str(data.get("grader_version") or ""),
        rubric_version=str(data.get("rubric_version") or ""),
    )


def _read_json(path: Path, max_bytes: int) -> Any:
    """A strict JSON document (no NaN, no duplicate keys) of at most `max_bytes`."""
    from grader.jsonload import JsonError, StrictDecoder

    with open(path, "rb") as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _Bad(f"larger than {max_bytes} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Bad("not UTF-8") from exc
    try:
        return StrictDecoder(max_digits=100, max_depth=64).decode(text.lstrip("\ufeff"), path.name)
    except JsonError as exc:
        raise _Bad(f"not strict JSON ({exc.problem.message_id})") from exc


def read_results(out_dir: Path | str) -> tuple[list[Student], list[Unreadable]]:
    """Every `results/<id>.json` of a batch folder, sorted by id, and the files that are
    not results. Hidden files and anything but regular `.json` files are ignored."""
    folder = Path(out_dir) / "results"
    students: list[Student] = []
    unreadable: list[Unreadable] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return students, unreadable
    for entry in entries:
        if entry.name.startswith(".") or not entry.name.endswith(".json"):
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        result_id = entry.name[: -len(".json")]
        try:
            students.append(student_of(result_id, _read_json(Path(entry.path), RESULT_MAX_BYTES)))
        except (OSError, ValueError, RecursionError) as exc:
            unreadable.append(Unreadable(entry.name, str(exc) or type(exc).__name__))
    return students, unreadable


# --------------------------------------------------------------------------- physics


@dataclass(frozen=True)
class PrefillEntry:
    docs: int
    prompt_n: int
    prompt_ms: float
    ttft_ms: float


@dataclass(frozen=True)
class CacheRun:
    prompt_n: int
    ttft_ms: float


@dataclass(frozen=True)
class CancelRun:
    max_tokens: int
    received_tokens: int
    closed_at_ms: float
    slot_idle_after_ms: float


@dataclass(frozen=True)
class Physics:
    """One submission's measured numbers; None where its file was missing or invalid."""

    prefill: tuple[PrefillEntry, ...] | None = None
    cache: dict[str, CacheRun] | None = None
    cancel: CancelRun | None = None


_MAX_PREFILL_ENTRIES = 50
_CACHE_KEYS = ("first", "second", "changed_prefix")


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**12:
        raise _Bad("not a count")
    return value


def _ms(value: Any) -> float:
    number = _number(value, "time")
    if number < 0:
        raise _Bad("negative time")
    return number


def _prefill_of(value: Any) -> tuple[PrefillEntry, ...] | None:
    try:
        if not isinstance(value, list) or not value:
            return None
        return tuple(
            PrefillEntry(
                _count(e["docs"]), _count(e["prompt_n"]), _ms(e["prompt_ms"]), _ms(e["ttft_ms"])
            )
            for e in value[:_MAX_PREFILL_ENTRIES]
        )
    except (KeyError, TypeError, ValueError):
        return None


def _cache_of(value: Any) -> dict[str, CacheRun] | None:
    try:
        return {
            k: CacheRun(_count(value[k]["prompt_n"]), _ms(value[k]["ttft_ms"])) for k in _CACHE_KEYS
        }
    except (KeyError, TypeError, ValueError):
        return None


def _cancel_of(value: Any) -> CancelRun | None:
    try:
        return CancelRun(
            _count(value["max_tokens"]),
            _count(value["received_tokens"]),
            _ms(value["closed_at_ms"]),
            _ms(value["slot_idle_after_ms"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def physics_of(data: Mapping[str, Any]) -> Physics:
    """`Physics` from plain values ({"prefill": ..., "cache": ..., "cancel": ...}), as the
    lab's files or physics.json hold them; anything malformed becomes None."""
    return Physics(
        _prefill_of(data.get("prefill")),
        _cache_of(data.get("cache")),
        _cancel_of(data.get("cancel")),
    )


def physics_json(physics: Physics) -> dict[str, Any]:
    return {
        "prefill": None
        if physics.prefill is None
        else [
            {"docs": e.docs, "prompt_n": e.prompt_n, "prompt_ms": e.prompt_ms, "ttft_ms": e.ttft_ms}
            for e in physics.prefill
        ],
        "cache": None
        if physics.cache is None
        else {
            k: {"prompt_n": physics.cache[k].prompt_n, "ttft_ms": physics.cache[k].ttft_ms}
            for k in _CACHE_KEYS
        },
        "cancel": None
        if physics.cancel is None
        else {
            "max_tokens": physics.cancel.max_tokens,
            "received_tokens": physics.cancel.received_tokens,
            "closed_at_ms": physics.cancel.closed_at_ms,
            "slot_idle_after_ms": physics.cancel.slot_idle_after_ms,
        },
    }


def _lab(lab: Any) -> Any:
    """A `Lab`, given one or its "package:attribute" name (imported by name, as the batch
    does: the engine never imports a lab itself)."""
    if isinstance(lab, str):
        from grader.batch import load_lab

        return load_lab(lab)[0]
    return lab


def extract_physics(folder: Path | str, lab: Any = DEFAULT_LAB) -> Physics:
    """The physics of one submission folder: its prefill.json, cache.json and cancel.json
    loaded by the grader's strict loader and validated by the lab's schemas (`lab`: a `Lab`
    or its "package:attribute" name). Never raises; a file that did not load is None."""
    from grader.limits import DEFAULT_LIMITS
    from grader.loading import load

    specs = {spec.name: spec for spec in _lab(lab).artifacts}
    values: dict[str, Any] = {}
    for name in _PHYSICS_ARTIFACTS:
        if name not in specs:
            continue
        try:
            artifact = load(specs[name], str(folder), DEFAULT_LIMITS)
        except Exception:  # load() never raises; a report must not die for one folder
            continue
        if artifact.status == "valid":
            values[name] = artifact.value
    return physics_of(values)


def read_physics(out_dir: Path | str) -> dict[str, Physics] | None:
    """`OUT_DIR/physics.json` as id -> Physics, or None when there is no usable file."""
    path = Path(out_dir) / PHYSICS_FILE
    try:
        data = _read_json(path, RESULT_MAX_BYTES)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("submissions"), dict):
        return None
    return {
        str(k): physics_of(v) if isinstance(v, dict) else Physics()
        for k, v in data["submissions"].items()
    }


def write_physics(
    out_dir: Path | str, folders: Mapping[str, Path | str | None], lab: Any = DEFAULT_LAB
) -> Path:
    """Extract the physics of each folder (id -> folder; None: no folder, no data) into
    `OUT_DIR/physics.json`, keeping the entries of other ids that still have a result;
    returns the file's path. One line per submission, ASCII only, ids sorted."""
    from grader.atomic import write_atomic

    out = Path(out_dir)
    entries = read_physics(out) or {}
    the_lab = _lab(lab) if folders else None
    for result_id, folder in folders.items():
        entries[result_id] = Physics() if folder is None else extract_physics(folder, the_lab)
    if (out / "results").is_dir():
        students, unreadable = read_results(out)
        ids = {s.id for s in students} | {u.name[: -len(".json")] for u in unreadable}
        entries = {k: v for k, v in entries.items() if k in ids or k in folders}

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))

    about = (
        "Numbers from each submission's prefill.json, cache.json and cancel.json (files that "
        "loaded and passed their schema; null otherwise), for the class report: grader report "
        "OUT_DIR. Written by grader batch --html."
    )
    rows = ",\n".join(f"  {dump(k)}: {dump(physics_json(entries[k]))}" for k in sorted(entries))
    text = (
        f'{{\n "about": {dump(about)},\n "version": {PHYSICS_VERSION},\n'
        f' "submissions": {{\n{rows}\n }}\n}}\n'
    )
    path = out / PHYSICS_FILE
    write_atomic(str(path), text.encode("ascii"))
    return path


# --------------------------------------------------------------------------- the lab's part

_PHYSICS_ARTIFACTS = ("prefill", "cache", "cancel")
_PREFILL_FAIL = "prefill.cache_off"
_CACHE_CHECKS = ("cache.first_is_miss", "cache.hit_faster")
_CANCEL_CHECK = "cancel.slot_freed"


@dataclass(frozen=True)
class Flag:
    """One integrity flag on one student: its kind, how strong, and the evidence."""

    key: str
    strong: bool
    check_id: str
    message: str


def _failed(student: Student, *check_ids: str) -> list[CheckRow]:
    return [c for c in student.checks if c.id in check_ids and c.status == "failed"]


def _flags_of(student: Student) -> tuple[Flag, ...]:
    """The integrity flags of one graded student, strongest first."""
    if not student.gradable:
        return ()
    flags: list[Flag] = []

    def add(key: str, strong: bool, rows: Iterable[CheckRow]) -> None:
        flags.extend(Flag(key, strong, r.id, r.message or r.title) for r in rows)

    # contradicts its source: a number that the server (log) or the file it copies disagrees with
    add("log_mismatch", True, _failed(student, "log.matches_measurements"))
    add("report_mismatch", True, _failed(student, "report.copies_sources"))
    add("chunks_mismatch", True, _failed(student, "chunks.match_sse"))
    if student.status("cancel.slot_freed") == "passed":
        add("cancel_vs_log", True, _failed(student, "log.cancel_task"))
    # worth a look: a real llama-server log always has timing lines; a prompt size the log
    # contradicts; times in an order a real run cannot have
    confirm = student.check("log.matches_measurements")
    if (
        confirm
        and confirm.status == "passed"
        and (confirm.message_id or "").endswith(".unconfirmed")
    ):
        add("log_unconfirmed", False, [confirm])
    add("prefill_vs_log", False, _failed(student, _PREFILL_FAIL))
    add(
        "impossible_timing",
        False,
        _failed(
            student,
            "ttft.before_total",
            "prefill.ttft_covers_prefill",
            "sentence.order",
            "chunks.time_order",
        ),
    )
    return tuple(flags)


STRONG_FLAGS = frozenset({"log_mismatch", "report_mismatch", "chunks_mismatch", "cancel_vs_log"})
FLAG_KEYS = (
    "log_mismatch",
    "report_mismatch",
    "chunks_mismatch",
    "cancel_vs_log",
    "log_unconfirmed",
    "prefill_vs_log",
    "impossible_timing",
)


# --------------------------------------------------------------------------- chart data


@dataclass(frozen=True)
class ScoreBin:
    lo: float
    hi: float
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Histogram:
    width: float
    max_score: float
    bins: tuple[ScoreBin, ...]
    median: float | None


def score_histogram(students: Sequence[Student], max_bins: int = 25) -> Histogram:
    """Bins of equal width (1, 2, 5, 10, 20, ... points) from 0, the last one holding the
    maximum score, over the graded students; at most `max_bins` bins."""
    graded = [s for s in students if s.gradable and s.score is not None]
    top = max((s.max_score or 0.0 for s in graded), default=0.0)
    top = max(top, max((s.score or 0.0 for s in graded), default=0.0))
    widths = (float(f * 10**e) for e in range(16) for f in (1, 2, 5))
    width = next((w for w in widths if math.floor(top / w) + 1 <= max_bins), None)
    if width is None:  # an absurd score in a tampered result: still max_bins bins
        width = top / (max_bins - 1)
    count = min(math.floor(top / width) + 1, max_bins)
    members: list[list[str]] = [[] for _ in range(count)]
    for s in graded:
        index = min(max(math.floor((s.score or 0.0) / width), 0), count - 1)
        members[index].append(s.id)
    scores = sorted(s.score for s in graded if s.score is not None)
    return Histogram(
        width,
        top,
        tuple(ScoreBin(i * width, (i + 1) * width, tuple(m)) for i, m in enumerate(members)),
        quantile(scores, 0.5) if scores else None,
    )


@dataclass(frozen=True)
class CheckRate:
    """How the graded class did on one check, with who failed, skipped or broke it."""

    id: str
    title: str
    order: int
    failed_ids: tuple[str, ...] = ()
    skipped_ids: tuple[str, ...] = ()
    error_ids: tuple[str, ...] = ()
    passed: int = 0
    messages: dict[str, str] = field(default_factory=dict)

    @property
    def ran(self) -> int:
        return self.passed + len(self.failed_ids) + len(self.skipped_ids) + len(self.error_ids)

    @property
    def rate(self) -> float | None:
        return self.passed / self.ran if self.ran else None


def pass_rates(students: Sequence[Student]) -> list[CheckRate]:
    """Every check that appears in a graded result, worst pass rate first (ties: more
    failures first, then the lab's order); a check that never ran comes last. The rate is
    passed / graded results that have the check, as summary.json computes it."""
    order: dict[str, int] = {}
    titles: dict[str, str] = {}
    data: dict[str, dict[str, Any]] = {}
    for s in students:
        if not s.gradable:
            continue
        for c in s.checks:
            if c.id not in order:
                order[c.id] = len(order)
                titles[c.id] = c.title
                data[c.id] = {"passed": 0, "failed": [], "skipped": [], "error": [], "messages": {}}
            entry = data[c.id]
            if c.status == "passed":
                entry["passed"] += 1
            else:
                entry[c.status].append(s.id)
                entry["messages"][s.id] = c.message or ""
    rates = [
        CheckRate(
            id=cid,
            title=titles[cid],
            order=order[cid],
            failed_ids=tuple(data[cid]["failed"]),
            skipped_ids=tuple(data[cid]["skipped"]),
            error_ids=tuple(data[cid]["error"]),
            passed=data[cid]["passed"],
            messages=data[cid]["messages"],
        )
        for cid in order
    ]
    return sorted(
        rates, key=lambda r: (r.rate if r.rate is not None else 2.0, -len(r.failed_ids), r.order)
    )


@dataclass(frozen=True)
class PrefillLine:
    """One student's prefill points (prompt_n, ttft_ms, docs) in order of docs."""

    id: str
    points: tuple[tuple[int, float, int], ...]
    kind: str  # "rising", "cache_on" or "flat"


def prefill_lines(students: Sequence[Student], physics: Mapping[str, Physics]) -> list[PrefillLine]:
    """Every graded student with a readable prefill.json: its entries in order of docs
    (stable), and whether the line rises (both prompt_n and ttft_ms strictly growing),
    rises but was measured with the cache on (`prefill.cache_off` failed), or is flat or
    falling somewhere."""
    lines = []
    for s in students:
        p = physics.get(s.id)
        if not s.gradable or p is None or p.prefill is None:
            continue
        entries = sorted(p.prefill, key=lambda e: e.docs)
        points = tuple((e.prompt_n, e.ttft_ms, e.docs) for e in entries)
        rising = all(b[0] > a[0] and b[1] > a[1] for a, b in itertools.pairwise(points))
        if not rising:
            kind = "flat"
        elif s.status(_PREFILL_FAIL) == "failed":
            kind = "cache_on"
        else:
            kind = "rising"
        lines.append(PrefillLine(s.id, points, kind))
    return lines


@dataclass(frozen=True)
class CachePoint:
    id: str
    first: CacheRun
    second: CacheRun
    ok: bool


def cache_points(students: Sequence[Student], physics: Mapping[str, Physics]) -> list[CachePoint]:
    """Every graded student with a readable cache.json: first (miss) and second (hit),
    `ok` unless one of the cache checks failed."""
    out = []
    for s in students:
        p = physics.get(s.id)
        if not s.gradable or p is None or p.cache is None:
            continue
        ok = not _failed(s, *_CACHE_CHECKS)
        out.append(CachePoint(s.id, p.cache["first"], p.cache["second"], ok))
    return out


@dataclass(frozen=True)
class CancelPoint:
    id: str
    run: CancelRun
    status: str  # "freed", "busy" or "other"


def cancel_points(students: Sequence[Student], physics: Mapping[str, Physics]) -> list[CancelPoint]:
    """Every graded student with a readable cancel.json: its idle time and whether
    `cancel.slot_freed` passed (freed), failed (busy) or did not judge (other)."""
    out = []
    for s in students:
        p = physics.get(s.id)
        if not s.gradable or p is None or p.cancel is None:
            continue
        status = {"passed": "freed", "failed": "busy"}.get(s.status(_CANCEL_CHECK) or "", "other")
        out.append(CancelPoint(s.id, p.cancel, status))
    return out


def integrity_flags(students: Sequence[Student]) -> list[tuple[Student, tuple[Flag, ...]]]:
    """The students with at least one flag: most strong flags first, then by id."""
    flagged = [(s, f) for s in students if (f := _flags_of(s))]
    return sorted(flagged, key=lambda sf: (-sum(f.strong for f in sf[1]), -len(sf[1]), sf[0].id))


# --------------------------------------------------------------------------- the page

_SLUG = re.compile(r"[^A-Za-z0-9_.-]")


def anchor(prefix: str, text: str) -> str:
    """A fragment id for `text`: readable when it is plain, made unique with a hash when
    characters had to be replaced."""
    slug = _SLUG.sub("_", text)
    if slug != text or not slug:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        slug = f"{slug[:60]}-{digest}"
    return f"{prefix}-{slug}"


def _percent(part: int, whole: int) -> str:
    """A share as a whole percent that never rounds to 0 or 100 unless it is."""
    if whole <= 0:
        return "–"
    if part == whole:
        return "100"
    if part == 0:
        return "0"
    return str(min(99, max(1, round(100 * part / whole))))


def _score_text(student: Student, t: Labels) -> str:
    if not student.gradable or student.score is None:
        return t("not_graded_cell")
    return f"{fmt(student.score)}/{fmt(student.max_score or 0.0)}"


CSS = """
:root{color-scheme:light;--ink:#222;--muted:#5a5a5a;--line:#d9d9d9;--bg:#fff;--soft:#f5f6f8;
--blue:#0072B2;--verm:#D55E00;--orange:#E69F00;--purple:#CC79A7;--grey:#999}
*{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK JP",
"Hiragino Sans","Microsoft YaHei","Malgun Gothic",sans-serif;color:var(--ink);background:var(--bg);
line-height:1.45;font-size:15px}
body{margin:0 auto;max-width:1180px;padding:0 20px 40px}
header{padding:18px 0 6px;border-bottom:2px solid var(--ink)}
h1{font-size:1.7rem;margin:0 0 2px}
h2{font-size:1.3rem;margin:34px 0 8px;padding-top:6px;border-top:1px solid var(--line)}
h3{font-size:1.05rem;margin:18px 0 4px}
p{margin:6px 0}
.muted,.meta{color:var(--muted)}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em}
a{color:#0b5c99}
nav ol{display:flex;flex-wrap:wrap;gap:4px 18px;list-style:none;padding:0;margin:10px 0 4px}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(118px,1fr));gap:8px;
margin:14px 0}
.figures div{background:var(--soft);border-radius:6px;padding:8px 12px}
.figures dt{font-size:.85rem;color:var(--muted)}
.figures dd{margin:0;font-size:1.5rem;font-weight:700}
figure{margin:12px 0 18px}
figcaption{color:var(--muted);font-size:.9rem;margin-top:4px}
svg.chart{display:block;width:100%;height:auto;max-width:100%;background:#fff}
svg.chart a.mark:hover *,svg.chart a.bar:hover rect{stroke:#000;stroke-width:2}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:20px}
table{border-collapse:collapse;width:100%;font-size:.92rem;margin:8px 0}
th,td{text-align:left;vertical-align:top;padding:4px 8px;border-bottom:1px solid var(--line)}
th{background:var(--soft);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
th button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;
color:inherit}
th[aria-sort=ascending] button.sort::after{content:" ▲"}
th[aria-sort=descending] button.sort::after{content:" ▼"}
.js-only{display:none}
html.js .js-only{display:inline}
.badge{display:inline-block;border-radius:3px;padding:0 6px;font-size:.82rem;font-weight:600;
border:1px solid currentColor;white-space:nowrap}
.s-passed{color:var(--blue)}.s-failed{color:var(--verm)}.s-skipped{color:#666}.s-error{color:#8a3d6b}
.strong{color:#fff;background:var(--verm);border-color:var(--verm)}
.weak{color:#7a5200;background:#fdf1d6;border-color:var(--orange)}
.check-detail{border-left:3px solid var(--line);padding:2px 0 2px 12px;margin:6px 0}
.check-detail>summary{cursor:pointer;padding:3px 0}
.check-detail[open]{border-left-color:var(--verm)}
.kinds{list-style:none;padding:0;margin:6px 0 10px;display:flex;flex-wrap:wrap;gap:4px 22px}
.scroll{max-height:30rem;overflow:auto;border:1px solid var(--line);border-radius:4px}
.scroll table{margin:0}
.scroll thead th{position:sticky;top:0;z-index:1}
.scroll td:first-child{white-space:nowrap}
.who{margin:4px 0 8px;padding-left:20px}
.who li{margin:2px 0}
details.student{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:0 10px}
details.student>summary{cursor:pointer;padding:6px 0;font-weight:600}
details.student[open]{background:#fcfcfd}
details.student:target{outline:3px solid var(--orange)}
.feedback ol{padding-left:20px}
.feedback li{margin:8px 0}
.feedback dl{display:grid;grid-template-columns:max-content 1fr;gap:0 10px;margin:4px 0}
.feedback dt{color:var(--muted)}
.feedback dd{margin:0;overflow-wrap:anywhere}
.hint{font-weight:600}
.why{color:var(--muted);font-size:.92rem}
.sid{overflow-wrap:break-word}
td.num{white-space:nowrap}
.who.clean{columns:2 24em;padding-left:0;list-style:none}
details.who>summary{cursor:pointer;margin:4px 0}
@media print{
html{font-size:10pt}
body{max-width:none;padding:0}
nav,.js-only,html.js .js-only{display:none}
a{color:inherit;text-decoration:none}
h2{break-after:avoid}
figure,tr,.check-detail,details.student{break-inside:avoid}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
details.student{border:0;padding:0;margin:2px 0}
.scroll{max-height:none;overflow:visible;border:0}
.scroll thead th{position:static}
}
"""

SCRIPT = """
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    for (; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") { el.open = true; }
    }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  function key(row, col, numeric) {
    var cell = row.cells[col];
    var text = cell ? (cell.getAttribute("data-sort") || cell.textContent) : "";
    if (numeric) { var n = parseFloat(text); return isNaN(n) ? -Infinity : n; }
    return text.trim().toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    var body = table.tBodies[0];
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        var numeric = th.getAttribute("data-type") === "number";
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a, col, numeric), y = key(b, col, numeric);
          var c = x < y ? -1 : (x > y ? 1 : 0);
          return ascending ? c : -c;
        });
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  root.setAttribute("data-ready", "1");
})();
"""


def _csp_hash(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


CSP = (
    f"default-src 'none'; style-src {_csp_hash(CSS)}; script-src {_csp_hash(SCRIPT)}; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True)
class ClassData:
    """Everything the page shows, read from a batch folder."""

    students: tuple[Student, ...]
    unreadable: tuple[Unreadable, ...] = ()
    physics: Mapping[str, Physics] | None = None


def load_class(out_dir: Path | str) -> ClassData:
    students, unreadable = read_results(out_dir)
    return ClassData(tuple(students), tuple(unreadable), read_physics(out_dir))


def _common(values: Iterable[str]) -> str:
    """One value, or the distinct values joined (the same batch normally has one)."""
    distinct = sorted({v for v in values if v})
    return ", ".join(distinct) if distinct else "?"


class _Page:
    """Builds the HTML of a `ClassData` in one language."""

    def __init__(self, data: ClassData, lang: str) -> None:
        self.data = data
        self.t = Labels(lang)
        self.students = list(data.students)
        self.graded = [s for s in self.students if s.gradable]
        self.anchors = {s.id: anchor("student", s.id) for s in self.students}
        self.flags = {s.id: f for s, f in integrity_flags(self.students)}

    # ---- pieces

    def link(self, student_id: str) -> str:
        return f'<a class="sid" href="#{self.anchors[student_id]}">{esc(student_id)}</a>'

    def href(self, student_id: str) -> str:
        return "#" + self.anchors[student_id]

    def header(self) -> str:
        t = self.t
        scores = sorted(s.score for s in self.graded if s.score is not None)
        median = fmt(quantile(scores, 0.5)) if scores else "–"
        mean = fmt(round(sum(scores) / len(scores), 1)) if scores else "–"
        full = sum(1 for s in self.graded if s.score is not None and s.score >= (s.max_score or 0))
        lab = _common(s.lab for s in self.students)
        figures = [
            (t("submissions"), len(self.students)),
            (t("graded"), len(self.graded)),
            (t("not_graded"), len(self.students) - len(self.graded)),
            (t("median"), median),
            (t("mean"), mean),
            (t("full_marks"), full),
            (t("flagged"), len(self.flags)),
            (t("flagged_strong"), sum(any(f.strong for f in fl) for fl in self.flags.values())),
        ]
        sections = [
            ("scores", t("scores")),
            ("checks", t("checks")),
            ("physics", t("physics")),
            ("integrity", t("integrity")),
            ("students", t("students")),
            ("who-failed", t("who_failed")),
            ("feedback", t("feedback")),
        ]
        if self.data.unreadable:
            sections.append(("unreadable", t("unreadable")))
        meta = t(
            "meta",
            grader=_common(s.grader_version for s in self.students),
            rubric=_common(s.rubric_version for s in self.students),
            language=_common(s.language for s in self.students),
        )
        return (
            f"<header><h1>{esc(t('title'))}</h1>"
            f'<p class="meta">{esc(t("subtitle", lab=lab, n=len(self.students)))}</p>'
            f'<p class="meta">{esc(meta)}</p>'
            '<dl class="figures">'
            + "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in figures)
            + f'</dl><nav aria-label="{esc(t("nav"))}"><ol>'
            + "".join(f'<li><a href="#{k}">{esc(v)}</a></li>' for k, v in sections)
            + "</ol></nav></header>"
        )

    def scores(self) -> str:
        t = self.t
        hist = score_histogram(self.students)
        bins = []
        whole = all(float(s.score or 0).is_integer() for s in self.graded)
        for b in hist.bins:
            last = min(b.hi - 1 if whole else b.hi, hist.max_score)
            span = fmt(b.lo) if last <= b.lo else f"{fmt(b.lo)}–{fmt(last)}"
            bins.append(Bin(b.lo, b.hi, len(b.ids), t("bin_tooltip", range=span, n=len(b.ids))))
        markers = []
        if hist.median is not None:
            markers.append((hist.median, t("median_marker", value=fmt(hist.median))))
        svg = histogram_chart(
            "chart-scores",
            t("scores_title"),
            t("scores_x", max=fmt(hist.max_score)),
            t("scores_y"),
            bins,
            Style(t("scores_y"), OKABE_ITO["blue"]),
            markers=markers,
            width=FULL_WIDTH,
            height=300,
        )
        ungraded = len(self.students) - len(self.graded)
        note = (
            f"<figcaption>{esc(t('scores_ungraded', n=ungraded))}</figcaption>" if ungraded else ""
        )
        return (
            f'<section id="scores"><h2>{esc(t("scores"))}</h2>'
            f"<figure>{svg}{note}</figure></section>"
        )

    def checks(self) -> str:
        t = self.t
        rates = pass_rates(self.students)
        styles = {
            "passed": Style(t("passed"), OKABE_ITO["blue"], "square", line_width=0),
            "failed": Style(t("failed"), OKABE_ITO["vermillion"], "square", line_width=0),
            "skipped": Style(t("skipped"), OKABE_ITO["grey"], "square", line_width=0),
            "error": Style(t("error"), OKABE_ITO["reddish_purple"], "square", line_width=0),
        }
        rows = []
        for r in rates:
            pct = _percent(r.passed, r.ran)
            note = (
                t("rate_note_failed", rate=pct, n=len(r.failed_ids))
                if r.failed_ids
                else t("rate_note", rate=pct)
            )
            rows.append(
                BarRow(
                    r.id,
                    (
                        ("passed", r.passed),
                        ("failed", len(r.failed_ids)),
                        ("skipped", len(r.skipped_ids)),
                        ("error", len(r.error_ids)),
                    ),
                    r.ran,
                    note,
                    t(
                        "rate_tooltip",
                        id=r.id,
                        passed=r.passed,
                        failed=len(r.failed_ids),
                        skipped=len(r.skipped_ids),
                        error=len(r.error_ids),
                    )
                    + f" — {r.title}",
                    "#" + anchor("check", r.id),
                )
            )
        svg = bar_chart(
            "chart-checks",
            t("checks_title"),
            t("checks_x"),
            styles,
            rows,
            y_label=t("checks_y"),
            width=FULL_WIDTH,
        )
        empty = "" if rates else f'<p class="muted">{esc(t("no_results"))}</p>'
        return (
            f'<section id="checks"><h2>{esc(t("checks"))}</h2><p>{esc(t("checks_intro"))}</p>'
            f"{empty}<figure>{svg}</figure></section>"
        )

    def who_failed(self) -> str:
        """Per check (worst first), the students who failed it, broke it or skipped it, with
        their message; each check a `<details>` the pass-rate chart links to."""
        t = self.t
        blocks = []
        clean_checks = []
        for r in pass_rates(self.students):
            if not (r.failed_ids or r.skipped_ids or r.error_ids):
                clean_checks.append(
                    f'<li id="{anchor("check", r.id)}"><code>{esc(r.id)}</code> {esc(r.title)}</li>'
                )
                continue
            counts = " ".join(
                f'<span class="badge s-{status}">{esc(t(label, n=len(ids)))}</span>'
                for label, ids, status in (
                    ("failed_by", r.failed_ids, "failed"),
                    ("error_for", r.error_ids, "error"),
                    ("skipped_for", r.skipped_ids, "skipped"),
                )
                if ids
            )
            lists = []
            for label, ids, status in (
                ("failed_by", r.failed_ids, "failed"),
                ("error_for", r.error_ids, "error"),
                ("skipped_for", r.skipped_ids, "skipped"),
            ):
                if ids:
                    items = "".join(
                        f"<li>{self.link(i)}: {esc(r.messages.get(i, ''))}</li>" for i in ids
                    )
                    lists.append(
                        f'<p><span class="badge s-{status}">{esc(t(label, n=len(ids)))}</span></p>'
                        f'<ul class="who">{items}</ul>'
                    )
            blocks.append(
                f'<details class="check-detail" id="{anchor("check", r.id)}"><summary>'
                f"<code>{esc(r.id)}</code> {esc(r.title)} "
                f'<span class="muted">· {esc(t("rate_note", rate=_percent(r.passed, r.ran)))}'
                f"</span> {counts}</summary>{''.join(lists)}</details>"
            )
        if clean_checks:
            blocks.append(
                f"<h3>{esc(t('nobody_failed'))}</h3>"
                f'<ul class="who clean">{"".join(clean_checks)}</ul>'
            )
        return (
            f'<section id="who-failed"><h2>{esc(t("who_failed"))}</h2>'
            f'<p class="muted">{esc(t("who_failed_intro"))}</p>{"".join(blocks)}</section>'
        )

    def _figure(self, svg: str, description: str, drawn: int, off_scale: int) -> str:
        """The chart with its caption: what it shows, who has no mark, what is off scale."""
        notes = [description]
        missing = len(self.graded) - drawn
        if missing:
            notes.append(self.t("no_mark", n=missing))
        if off_scale:
            notes.append(self.t("off_scale", n=off_scale))
        return f"<figure>{svg}<figcaption>{esc(' '.join(notes))}</figcaption></figure>"

    def physics(self) -> str:
        t = self.t
        head = f'<section id="physics"><h2>{esc(t("physics"))}</h2>'
        if self.data.physics is None:
            return head + f'<p class="muted">{esc(t("physics_none"))}</p></section>'
        physics = self.data.physics
        return (
            head
            + f"<p>{esc(t('physics_intro'))}</p>"
            + self._prefill_chart(physics)
            + '<div class="pair">'
            + self._cache_chart(physics)
            + self._cancel_chart(physics)
            + "</div></section>"
        )

    def _prefill_chart(self, physics: Mapping[str, Physics]) -> str:
        t = self.t
        lines = prefill_lines(self.students, physics)
        x = linear_axis(t("prefill_x"), [float(p[0]) for line in lines for p in line.points])
        y = linear_axis(t("prefill_y"), [p[1] for line in lines for p in line.points])
        styles = {
            "rising": Style(t("prefill_rising"), OKABE_ITO["blue"], "circle", "", 1.0, 0.45),
            "cache_on": Style(
                t("prefill_cache_on"), OKABE_ITO["orange"], "square", "5 3", 1.6, 0.9
            ),
            "flat": Style(t("prefill_flat"), OKABE_ITO["vermillion"], "triangle", "", 2.4, 0.95),
        }
        marks = [
            Mark(
                tuple((float(n), ms) for n, ms, _ in line.points),
                line.kind,
                f"{line.id}: "
                + "; ".join(
                    t("prefill_point", docs=d, prompt_n=n, ttft=fmt(ms)) for n, ms, d in line.points
                ),
                self.href(line.id),
            )
            for line in lines
        ]
        off = sum(
            1
            for line in lines
            for n, ms, _ in line.points
            if not (x.contains(n) and y.contains(ms))
        )
        svg = xy_chart(
            "chart-prefill",
            t("prefill_title"),
            x,
            y,
            styles,
            marks,
            description=t("prefill_desc"),
            width=FULL_WIDTH,
            height=440,
        )
        return self._figure(svg, t("prefill_desc"), len(lines), off)

    def _cache_chart(self, physics: Mapping[str, Physics]) -> str:
        t = self.t
        points = cache_points(self.students, physics)
        values = [p.first.ttft_ms for p in points] + [p.second.ttft_ms for p in points]
        both = log_axis("", values)
        x = Axis(t("cache_x"), both.lo, both.hi, both.ticks, log=True)
        y = Axis(t("cache_y"), both.lo, both.hi, both.ticks, log=True)
        styles = {
            "ok": Style(t("cache_ok"), OKABE_ITO["blue"], "circle", "", 1.0, 0.7),
            "bad": Style(t("cache_bad"), OKABE_ITO["vermillion"], "triangle", "", 1.0, 0.95),
        }
        marks = [
            Mark(
                ((p.first.ttft_ms, p.second.ttft_ms),),
                "ok" if p.ok else "bad",
                t(
                    "cache_tooltip",
                    id=p.id,
                    first=fmt(p.first.ttft_ms),
                    first_n=p.first.prompt_n,
                    second=fmt(p.second.ttft_ms),
                    second_n=p.second.prompt_n,
                ),
                self.href(p.id),
            )
            for p in points
        ]
        guides = [
            Guide(((both.lo, both.lo), (both.hi, both.hi)), t("cache_same")),
            Guide(((both.lo, both.lo / 10), (both.hi, both.hi / 10)), t("cache_tenfold")),
        ]
        off = sum(
            1 for p in points if not (x.contains(p.first.ttft_ms) and y.contains(p.second.ttft_ms))
        )
        svg = xy_chart(
            "chart-cache",
            t("cache_title"),
            x,
            y,
            styles,
            marks,
            guides=guides,
            description=t("cache_desc"),
            width=HALF_WIDTH,
            height=500,
        )
        return self._figure(svg, t("cache_desc"), len(points), off)

    def _cancel_chart(self, physics: Mapping[str, Physics]) -> str:
        t = self.t
        points = cancel_points(self.students, physics)
        x = log_axis(t("cancel_x"), [p.run.slot_idle_after_ms for p in points], floor=0.1)
        rows = {
            "freed": Style(t("cancel_freed"), OKABE_ITO["blue"], "circle"),
            "busy": Style(t("cancel_busy"), OKABE_ITO["vermillion"], "triangle"),
        }
        if any(p.status == "other" for p in points):
            rows["other"] = Style(t("cancel_other"), OKABE_ITO["grey"], "diamond")
        marks = [
            StripMark(
                p.run.slot_idle_after_ms,
                p.status,
                t(
                    "cancel_tooltip",
                    id=p.id,
                    idle=fmt(p.run.slot_idle_after_ms),
                    closed=fmt(p.run.closed_at_ms),
                    received=p.run.received_tokens,
                    max_tokens=p.run.max_tokens,
                ),
                p.id,
                self.href(p.id),
            )
            for p in points
        ]
        off = sum(1 for p in points if not x.contains(p.run.slot_idle_after_ms))
        svg = strip_chart(
            "chart-cancel",
            t("cancel_title"),
            x,
            rows,
            marks,
            description=t("cancel_desc"),
            width=HALF_WIDTH,
        )
        return self._figure(svg, t("cancel_desc"), len(points), off)

    def integrity(self) -> str:
        t = self.t
        head = (
            f'<section id="integrity"><h2>{esc(t("integrity"))}</h2>'
            f"<p>{esc(t('integrity_intro'))}</p>"
        )
        flagged = integrity_flags(self.students)
        if not flagged:
            return head + f'<p class="muted">{esc(t("no_flags"))}</p></section>'
        rows = []
        for student, flags in flagged:
            for number, flag in enumerate(flags):
                cell = (
                    f'<td rowspan="{len(flags)}">{self.link(student.id)}</td>'
                    if number == 0
                    else ""
                )
                severity = "strong" if flag.strong else "weak"
                rows.append(
                    f'<tr>{cell}<td><span class="badge {severity}">{esc(t(severity))}</span> '
                    f"{esc(t('flag.' + flag.key))}</td>"
                    f"<td><code>{esc(flag.check_id)}</code>: {esc(flag.message)}</td></tr>"
                )
        kinds = []
        for key in FLAG_KEYS:
            ids = {s.id for s, flags in flagged if any(f.key == key for f in flags)}
            if ids:
                severity = "strong" if key in STRONG_FLAGS else "weak"
                kinds.append(
                    f'<li><span class="badge {severity}">{len(ids)}</span> '
                    f"{esc(t('flag.' + key))}</li>"
                )
        legend = (
            f'<p><span class="badge strong">{esc(t("strong"))}</span> '
            f'<span class="badge weak">{esc(t("weak"))}</span></p>'
        )
        return (
            head
            + legend
            + f'<ul class="kinds">{"".join(kinds)}</ul>'
            + f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("integrity"))}">'
            f'<table class="flags"><thead><tr><th scope="col">{esc(t("col_student"))}</th>'
            f'<th scope="col">{esc(t("col_flag"))}</th>'
            f'<th scope="col">{esc(t("col_evidence"))}</th>'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>"
        )

    def table(self) -> str:
        t = self.t
        rows = []
        for s in self.students:
            flags = self.flags.get(s.id, ())
            strong = sum(f.strong for f in flags)
            failed = sum(c.status == "failed" for c in s.checks)
            other = sum(c.status in ("skipped", "error") for c in s.checks)
            score = s.score if s.gradable and s.score is not None else -1
            not_passed = " ".join(c.id for c in s.not_passed)
            flag_text = "".join(
                f' <span class="badge {kind}" title="{esc(t(kind))}">{count}</span>'
                for kind, count in (("strong", strong), ("weak", len(flags) - strong))
                if count
            )
            rows.append(
                f"<tr><td>{self.link(s.id)}</td>"
                f'<td class="num score" data-sort="{score:.6g}">{esc(_score_text(s, t))}</td>'
                f'<td class="num">{failed if s.gradable else ""}</td>'
                f'<td class="num">{other if s.gradable else ""}</td>'
                f'<td class="num" data-sort="{strong * 1000 + len(flags)}">{flag_text}</td>'
                f'<td class="mono">{esc(not_passed)}</td></tr>'
            )
        return (
            f'<section id="students"><h2>{esc(t("students"))}</h2>'
            f'<p class="js-only muted">{esc(t("sort_hint"))}</p>'
            f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("students"))}">'
            '<table class="sortable"><thead><tr>'
            f'<th scope="col">{esc(t("col_student"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_score"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_failed"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_skipped"))}</th>'
            f'<th scope="col" class="num" data-type="number">{esc(t("col_flags"))}</th>'
            f'<th scope="col">{esc(t("col_failed_checks"))}</th>'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></section>"
        )

    def _check_item(self, c: CheckRow) -> str:
        t = self.t
        facts = []
        if c.where:
            facts.append((t("where"), f"<code>{esc(c.where)}</code>"))
        if c.expected is not None:
            facts.append((t("expected"), f"<code>{esc(c.expected)}</code>"))
        if c.found is not None:
            facts.append((t("found"), f"<code>{esc(c.found)}</code>"))
        dl = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in facts)
        return (
            f'<li><p><span class="badge s-{c.status}">{esc(t(c.status))}</span> '
            f"<code>{esc(c.id)}</code> {esc(c.title)} "
            f'<span class="muted">({esc(t("points", points=fmt(c.points), max=fmt(c.max_points)))})'
            "</span></p>"
            + (f"<p>{esc(c.message)}</p>" if c.message else "")
            + (f"<dl>{dl}</dl>" if dl else "")
            + (f'<p class="hint">→ {esc(c.hint)}</p>' if c.hint else "")
            + (f'<p class="why">{esc(c.explanation)}</p>' if c.explanation else "")
            + "</li>"
        )

    def feedback(self) -> str:
        t = self.t
        blocks = []
        for s in self.students:
            failed = sum(c.status == "failed" for c in s.checks)
            badge = (
                f' <span class="badge s-failed">{failed} {esc(t("failed"))}</span>'
                if failed
                else ""
            )
            body = []
            if s.submission:
                body.append(
                    f'<p class="muted">{esc(t("folder"))}: <code>{esc(s.submission)}</code></p>'
                )
            if not s.gradable:
                errors = "".join(f"<li>{esc(e)}</li>" for e in s.format_errors)
                body.append(f"<p><strong>{esc(t('not_gradable'))}</strong></p><ul>{errors}</ul>")
            else:
                issues = s.not_passed
                if issues:
                    body.append("<ol>" + "".join(self._check_item(c) for c in issues) + "</ol>")
                else:
                    body.append(f"<p>{esc(t('all_passed', n=len(s.checks)))}</p>")
                passed = [c for c in s.checks if c.status == "passed"]
                if passed and issues:
                    items = "".join(
                        f"<li><code>{esc(c.id)}</code> {esc(c.title)}"
                        + (f' <span class="muted">— {esc(c.message)}</span>' if c.message else "")
                        + "</li>"
                        for c in passed
                    )
                    body.append(
                        f"<details><summary>{esc(t('passed_list', n=len(passed)))}</summary>"
                        f"<ul>{items}</ul></details>"
                    )
                if s.file_problems:
                    problems = "".join(f"<li><code>{esc(p)}</code></li>" for p in s.file_problems)
                    body.append(f"<p>{esc(t('file_problems'))}</p><ul>{problems}</ul>")
            body.append(f'<p><a href="#students">{esc(t("back"))}</a></p>')
            blocks.append(
                f'<details class="student" id="{self.anchors[s.id]}">'
                f'<summary><span class="sid">{esc(s.id)}</span> · {esc(_score_text(s, t))}{badge}'
                "</summary>"
                f'<div class="feedback" lang="{esc(s.language)}">{"".join(body)}</div></details>'
            )
        return (
            f'<section id="feedback"><h2>{esc(t("feedback"))}</h2>'
            f'<p class="muted">{esc(t("feedback_intro"))}</p>{"".join(blocks)}</section>'
        )

    def unreadable(self) -> str:
        if not self.data.unreadable:
            return ""
        t = self.t
        items = "".join(
            f"<li><code>{esc(u.name)}</code>: {esc(u.reason)}</li>" for u in self.data.unreadable
        )
        return (
            f'<section id="unreadable"><h2>{esc(t("unreadable"))}</h2>'
            f"<p>{esc(t('unreadable_intro'))}</p><ul>{items}</ul></section>"
        )

    def html(self) -> str:
        t = self.t
        lab = _common(s.lab for s in self.students)
        return (
            "<!DOCTYPE html>\n"
            f'<html lang="{self.t.lang}"><head><meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="firsttoken-grader {esc(__version__)}">\n'
            f"<title>{esc(t('title'))} · {esc(lab)}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n"
            + self.header()
            + "\n<main>\n"
            + "\n".join(
                (
                    self.scores(),
                    self.checks(),
                    self.physics(),
                    self.integrity(),
                    self.table(),
                    self.who_failed(),
                    self.feedback(),
                    self.unreadable(),
                )
            )
            + f"\n</main>\n<script>{SCRIPT}</script>\n</body></html>\n"
        )


def render_report(data: ClassData, lang: str = "en") -> str:
    """The page's HTML: a pure function of `data` and `lang`."""
    return _Page(data, lang).html()


def write_class_report(
    out_dir: Path,
    html_path: Path,
    lang: str,
    folders: Mapping[str, Path | str | None] | None = None,
    lab: Any = DEFAULT_LAB,
) -> None:
    """Write the class report of the batch folder `out_dir` to `html_path` (atomically).

    With `folders` (id -> submission folder, as the batch found them), first extract their
    physics into `out_dir/physics.json`, reading them with `lab`'s artifact declarations
    (a `Lab` or its "package:attribute" name, as `grader batch` takes it); without, use
    that file if it is there. Call it while the folders still exist (the batch removes
    extracted archives when it ends)."""
    from grader.atomic import write_atomic

    if folders is not None:
        write_physics(out_dir, folders, lab)
    page = render_report(load_class(out_dir), lang)
    write_atomic(str(html_path), page.encode("utf-8", "replace"))


# --------------------------------------------------------------------------- CLI


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `report` to the `grader` command's subparsers; `run_report(args)` runs it."""
    parser = subparsers.add_parser(
        "report",
        help="write the class report (one HTML page) of a finished grader batch",
        description=(
            "Read OUT_DIR/results/*.json (and OUT_DIR/physics.json, written by "
            "`grader batch --html`) and write one self-contained HTML page: score "
            "distribution, pass rate of every check, the lab's physics across the class, "
            "integrity flags and every student's feedback. "
            "Exit status: 0 written, 2 bad usage (no such folder, no results/, can't write)."
        ),
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of grader batch")
    parser.add_argument(
        "--html", metavar="FILE", help="where to write the page (default: OUT_DIR/report.html)"
    )
    parser.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        help="language of the page (default: from LC_ALL / LC_MESSAGES / LANG, else en); "
        "each student's feedback stays in the language it was graded in",
    )
    return parser


def run_report(args: argparse.Namespace) -> int:
    """Run `grader report` from parsed arguments; returns the exit status."""
    from grader.i18n import language_from_environment

    out = Path(args.out_dir)
    if not out.is_dir():
        print(f"grader report: no such folder: {out}", file=sys.stderr)
        return EXIT_USAGE
    if not (out / "results").is_dir():
        print(
            f"grader report: {out / 'results'} not found: run `grader batch … --out {out}` first",
            file=sys.stderr,
        )
        return EXIT_USAGE
    html_path = Path(args.html) if args.html else out / "report.html"
    lang = args.lang or language_from_environment()
    try:
        write_class_report(out, html_path, lang)
    except OSError as exc:
        print(f"grader report: can't write {html_path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    students, unreadable = read_results(out)
    graded = sum(s.gradable for s in students)
    physics = "with" if (out / PHYSICS_FILE).is_file() else "without"
    extra = f", {len(unreadable)} unreadable result files" if unreadable else ""
    print(
        f"grader report: {len(students)} submissions, {graded} graded{extra}; "
        f"{physics} physics data; report in {html_path}",
        file=sys.stderr,
    )
    return EXIT_WRITTEN


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m grader.class_report OUT_DIR`, until `grader report` is wired."""
    parser = argparse.ArgumentParser(prog="grader")
    add_report_parser(parser.add_subparsers(dest="command", required=True))
    return run_report(parser.parse_args(["report", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    sys.exit(main())
