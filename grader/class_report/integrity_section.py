"""The integrity section: the flags the lab's rules raise (strong ones first) and the
pairs of students whose submissions are one run, each with its evidence."""

from __future__ import annotations

from grader.class_report.context import PageContext
from grader.class_report.flags import integrity_flags
from grader.class_report.pairs import find_pairs
from grader.class_report.svg import esc


def integrity(ctx: PageContext) -> str:
    t = ctx.t
    head = (
        f'<section id="integrity"><h2>{esc(t("integrity"))}</h2><p>{esc(t("integrity_intro"))}</p>'
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


def pairs(ctx: PageContext) -> str:
    """The pairs of students whose submissions are one run, with the evidence."""
    t = ctx.t
    found = find_pairs(ctx.students, ctx.spec.pairs if ctx.spec is not None else None)
    head = f"<h3>{esc(t('pairs'))}</h3><p>{esc(t('pairs_intro'))}</p>"
    if not found:
        return head + f'<p class="muted">{esc(t("no_pairs"))}</p>'
    rows = []
    for pair in found:
        evidence = []
        if pair.files:
            evidence.append(t("pair_files", files=", ".join(pair.files)))
        if pair.ids:
            evidence.append(t("pair_ids", ids=", ".join(pair.ids)))
        spec = ctx.spec.pairs if ctx.spec is not None else None
        if spec is not None and pair.near > spec.max_near:
            percent = f"{spec.near * 100:g}"
            evidence.append(t("pair_near", near=pair.near, compared=pair.compared, percent=percent))
        rows.append(
            f"<tr><td>{ctx.link(pair.a)}</td><td>{ctx.link(pair.b)}</td>"
            f"<td>{esc('; '.join(evidence))}</td></tr>"
        )
    return (
        head + f'<div class="scroll" tabindex="0" role="region" aria-label="{esc(t("pairs"))}">'
        f'<table class="flags"><thead><tr><th scope="col">{esc(t("col_student"))}</th>'
        f'<th scope="col">{esc(t("col_student"))}</th>'
        f'<th scope="col">{esc(t("col_evidence"))}</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
