"""Step 1: the server is up and configured as the lab runs it."""

from __future__ import annotations

from grader.engine.api import Context, Fail, check
from grader.engine.params import Integer


@check("health.ok", reads=("health",))
def health_ok(ctx: Context) -> None:
    """/health said the model is loaded."""
    status = ctx["health"]["status"]
    if status != "ok":
        raise Fail("not_ok", expected="ok", found=status, at=ctx.at("health", "/status"))


@check(
    "props.server_config",
    reads=("props",),
    confirmed_by=("log.lab_run",),
    params={"n_ctx": Integer(1, 10_000_000), "total_slots": Integer(1, 1024)},
)
def server_config(ctx: Context) -> None:
    """The server runs with the lab's context size and a single slot."""
    props = ctx["props"]
    n_ctx = props["default_generation_settings"]["n_ctx"]
    if n_ctx != ctx.param("n_ctx"):
        raise Fail(
            "n_ctx",
            expected=ctx.param("n_ctx"),
            found=n_ctx,
            at=ctx.at("props", "/default_generation_settings/n_ctx"),
        )
    if props["total_slots"] != ctx.param("total_slots"):
        raise Fail(
            "slots",
            expected=ctx.param("total_slots"),
            found=props["total_slots"],
            at=ctx.at("props", "/total_slots"),
        )
