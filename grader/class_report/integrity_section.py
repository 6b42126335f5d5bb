"""The integrity section: the flags the lab's rules raise (strong ones first) and the
students whose submissions are one run, each group with its evidence (the pairs, joined:
students linked by pairs are one group, so a run copied around a class is one row)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grader.class_report.context import PageContext
from grader.class_report.flags import integrity_flags
from grader.class_report.pairs import Pair, compared_of, pairs_and_needed, positions_of
from grader.class_report.svg import esc

EVIDENCE = ("corroborated", "consistent", "unconfirmed", "contradicted")
"""The columns of the evidence table, in the order `artifacts[].evidence` ranks them."""


def evidence(ctx: PageContext) -> str:
    """How many students' numbers the server's record backed, step by step, and what that
    proves and cannot: a table of counts (no names; each student's page says theirs)."""
    t = ctx.t
    steps: dict[str, dict[str, int]] = {}
    for student in ctx.students:
        for step, kind in student.evidence.items():
            steps.setdefault(step, dict.fromkeys(EVIDENCE, 0))[kind] += 1
    said = f'<p class="muted">{esc(t("evidence_intro"))}</p>'
    if not steps:
        return said
    head = "".join(f'<th scope="col" class="num">{esc(t(f"evidence_{k}"))}</th>' for k in EVIDENCE)
    rows = "".join(
        f"<tr><td><code>{esc(step)}</code></td>"
        + "".join(f'<td class="num">{counts[k] or ""}</td>' for k in EVIDENCE)
        + "</tr>"
        for step, counts in steps.items()
    )
    return (
        said + f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("integrity"))}">'
        f'<table class="flags"><thead><tr><th scope="col">{esc(t("col_step"))}</th>{head}'
        f"</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def integrity(ctx: PageContext) -> str:
    t = ctx.t
    head = (
        f'<section id="integrity"><h2>{esc(t("integrity"))}</h2><p>{esc(t("integrity_intro"))}</p>'
        + evidence(ctx)
    )
    flagged = integrity_flags(ctx.students, ctx.spec)
    if not flagged:
        return head + f'<p class="muted">{esc(t("no_flags"))}</p>' + pairs(ctx) + "</section>"
    labels = ctx.spec.flag_labels if ctx.spec is not None else {}
    strong = ctx.spec.strong_flags if ctx.spec is not None else frozenset()
    rows = []
    for student, flags in flagged:
        for number, flag in enumerate(flags):
            cell = f'<td rowspan="{len(flags)}">{ctx.link(student.id)}</td>' if number == 0 else ""
            severity = "strong" if flag.strong else "weak"
            rows.append(
                f'<tr>{cell}<td><span class="badge {severity}">{esc(t(severity))}</span> '
                f"{esc(t.text(labels[flag.key]))}</td>"
                f"<td><code>{esc(flag.check_id)}</code>: {esc(flag.message)}</td></tr>"
            )
    kinds = []
    for key, label in labels.items():
        ids = {s.id for s, flags in flagged if any(f.key == key for f in flags)}
        if ids:
            severity = "strong" if key in strong else "weak"
            kinds.append(
                f'<li><span class="badge {severity}">{len(ids)}</span> {esc(t.text(label))}</li>'
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
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>" + pairs(ctx) + "</section>"
    )


@dataclass(frozen=True)
class RunGroup:
    """Students linked by pairs (each one a pair with at least one other): one run
    handed in by all of them, with the evidence their pairs show."""

    ids: tuple[str, ...]
    files: tuple[str, ...]
    run_ids: tuple[str, ...]
    near: int
    compared: int
    by_timings: bool = False  # the near timings of its closest pair make a pair alone


def run_groups(found: Sequence[Pair]) -> list[RunGroup]:
    """The pairs joined into groups (connected students), largest first: a run handed
    in by 40 students is one row, not 780 pairs."""
    parent: dict[str, str] = {}

    def root(sid: str) -> str:
        while parent.setdefault(sid, sid) != sid:
            parent[sid] = parent[parent[sid]]
            sid = parent[sid]
        return sid

    for pair in found:
        parent[root(pair.a)] = root(pair.b)
    members: dict[str, list[Pair]] = {}
    for pair in found:
        members.setdefault(root(pair.a), []).append(pair)
    groups = []
    for pairs_of in members.values():
        ids = sorted({p.a for p in pairs_of} | {p.b for p in pairs_of})
        best = max(pairs_of, key=lambda p: (p.near, p.compared))
        groups.append(
            RunGroup(
                tuple(ids),
                tuple(sorted({f for p in pairs_of for f in p.files})),
                tuple(sorted({i for p in pairs_of for i in p.ids})),
                best.near,
                best.compared,
                best.by_timings,
            )
        )
    return sorted(groups, key=lambda g: (-len(g.ids), g.ids))


SHOWN = 12  # students named in a group's row before the rest fold away


def pairs(ctx: PageContext) -> str:
    """The students whose submissions are one run, with the evidence: one row per group
    of students linked by pairs (a pair is a group of two)."""
    t = ctx.t
    spec = ctx.spec.pairs if ctx.spec is not None else None
    head = f"<h3>{esc(t('pairs'))}</h3><p>{esc(t('pairs_intro'))}</p>"
    if spec is None:
        return head + f'<p class="muted">{esc(t("no_pairs"))}</p>'
    graded = [compared_of(s, spec) for s in ctx.students if s.gradable]
    found, needed = pairs_and_needed(graded, spec)
    percent = f"{spec.near * 100:g}"
    positions = positions_of(graded)
    if positions and len(graded) > 1:  # what made a pair of near timings, or that none did
        rule = "pairs_near_rule" if needed <= positions else "pairs_near_none"
        said = t(rule, needed=needed, percent=percent, students=len(graded))
        head += f'<p class="muted">{esc(said)}</p>'
    if not found:
        return head + f'<p class="muted">{esc(t("no_pairs"))}</p>'
    rows = []
    for group in run_groups(found):
        evidence = []
        if group.files:
            evidence.append(t("pair_files", files=", ".join(group.files)))
        if group.run_ids:
            evidence.append(t("pair_ids", ids=", ".join(group.run_ids)))
        if group.by_timings:
            evidence.append(
                t("pair_near", near=group.near, compared=group.compared, percent=percent)
            )
        links = [ctx.link(i) for i in group.ids]
        named = ", ".join(links[:SHOWN])
        if len(links) > SHOWN:
            rest = ", ".join(links[SHOWN:])
            more = esc(t("many_more", n=len(links) - SHOWN))
            named += f' <details class="who"><summary>{more}</summary>{rest}</details>'
        rows.append(
            f'<tr><td class="num">{len(group.ids)}</td><td>{named}</td>'
            f"<td>{esc('; '.join(evidence))}</td></tr>"
        )
    return (
        head + f'<p class="muted">{esc(t("groups_intro"))}</p>'
        f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("pairs"))}">'
        f'<table class="flags"><thead><tr><th scope="col" class="num">{esc(t("col_count"))}</th>'
        f'<th scope="col">{esc(t("col_students"))}</th>'
        f'<th scope="col">{esc(t("col_evidence"))}</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
