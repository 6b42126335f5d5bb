"""The integrity section: the flags the lab's rules raise (strong ones first) and the
groups of students whose submissions are one run, each one row with its evidence
(`grader.class_report.groups`: a run copied around a class is one row). The groups are
read from the batch's summary.json when it has them for these results (computed once,
where the batch graded), else found here, in linear time either way."""

from __future__ import annotations

from grader.class_report.context import PageContext
from grader.class_report.flags import integrity_flags
from grader.class_report.groups import Group, find_groups
from grader.class_report.pairs import compared_of, positions_of
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


SHOWN = 12  # students named in a group's row before the rest fold away
SHOWN_GROUPS = 100
"""Groups drawn on the page; the others are counted (summary.json lists them all): the page
stays light whatever the class."""


def class_groups(ctx: PageContext) -> tuple[list[Group], int, int]:
    """The class's groups, how many near timings made a link, and at how many positions
    the students were compared: the batch's, when its summary.json has them for these
    very results (`ClassData.integrity`), else found from the results."""
    spec = ctx.spec.pairs
    stored = ctx.integrity
    if stored is not None and "groups" in stored:
        groups = [Group.from_dict(g) for g in stored["groups"]]
        needed = int(stored.get("near_timings_needed", 0))
        positions = int(stored.get("positions", 0))
        return groups, needed, positions
    graded = [compared_of(s, spec) for s in ctx.students if s.gradable]
    groups, needed = find_groups(graded, spec)
    return groups, needed, positions_of(graded)


def pairs(ctx: PageContext) -> str:
    """The students whose submissions are one run, with the evidence: one row per group."""
    t = ctx.t
    spec = ctx.spec.pairs if ctx.spec is not None else None
    head = f"<h3>{esc(t('pairs'))}</h3><p>{esc(t('pairs_intro'))}</p>"
    if spec is None:
        return head + f'<p class="muted">{esc(t("no_pairs"))}</p>'
    found, needed, positions = class_groups(ctx)
    graded = ctx.graded
    percent = f"{spec.near * 100:g}"
    if positions and len(graded) > 1:  # what made a pair of near timings, or that none did
        rule = "pairs_near_rule" if needed <= positions else "pairs_near_none"
        said = t(rule, needed=needed, percent=percent, students=len(graded))
        head += f'<p class="muted">{esc(said)}</p>'
    if not found:
        return head + f'<p class="muted">{esc(t("no_pairs"))}</p>'
    rows = []
    for group in found[:SHOWN_GROUPS]:
        evidence = []
        if group.files:
            evidence.append(t("pair_files", files=", ".join(group.files)))
        if group.ids:
            evidence.append(t("pair_ids", ids=", ".join(group.ids[:SHOWN])))
        if group.keys_shared:
            evidence.append(t("pair_keys", shared=group.keys_shared, keys=group.keys))
        if group.near >= needed:
            evidence.append(
                t("pair_near", near=group.near, compared=group.compared, percent=percent)
            )
        links = [ctx.link(i) for i in group.members]
        named = ", ".join(links[:SHOWN])
        if len(links) > SHOWN:
            rest = ", ".join(links[SHOWN:])
            more = esc(t("many_more", n=len(links) - SHOWN))
            named += f' <details class="who"><summary>{more}</summary>{rest}</details>'
        rows.append(
            f'<tr id="{esc(group.id)}"><td class="num">{len(group.members)}</td><td>{named}</td>'
            f"<td>{esc('; '.join(evidence))}</td></tr>"
        )
    if len(found) > SHOWN_GROUPS:
        others = sum(len(g.members) for g in found[SHOWN_GROUPS:])
        rows.append(
            f'<tr><td class="num">{others}</td>'
            f'<td colspan="2" class="muted">{esc(t("more_groups", n=len(found) - SHOWN_GROUPS))}'
            "</td></tr>"
        )
    return (
        head + f'<p class="muted">{esc(t("groups_intro"))}</p>'
        f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("pairs"))}">'
        f'<table class="flags"><thead><tr><th scope="col" class="num">{esc(t("col_count"))}</th>'
        f'<th scope="col">{esc(t("col_students"))}</th>'
        f'<th scope="col">{esc(t("col_evidence"))}</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
