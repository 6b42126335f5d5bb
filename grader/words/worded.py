"""Exceptions that say why in the reader's language.

A fault the grader reports about its set-up or its inputs (no lab, a refused archive, a
member that can't be extracted) is raised deep down, where nobody knows who will read
it; it carries a catalog message id and its parameters instead of a sentence, and the
command that catches it words it for its reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from grader.words.i18n import Catalog, WordsItself
    from grader.words.problems import Param


class Worded(Exception):
    """An exception that says why as a catalog message (`message_id`, `params`), so each
    reader gets it in their language: `text(catalog)`; `str()` is the English. A
    parameter that is itself `Worded` is worded in the same language."""

    def __init__(self, message_id: str, **params: Param | WordsItself) -> None:
        super().__init__(message_id)
        self.message_id = message_id
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:  # a batch worker may hand one to its parent
        return (_rebuilt, (type(self), self.message_id, self.params))

    def text(self, catalog: Catalog) -> str:
        params = {
            key: value.text(catalog) if isinstance(value, Worded) else value
            for key, value in self.params.items()
        }
        return str(catalog.text(self.message_id, params) or self.message_id)

    def __str__(self) -> str:
        from grader.words.i18n import Catalog

        return self.text(Catalog("en", ("grader",)))


def _rebuilt(cls: type[Worded], message_id: str, params: dict[str, Param | WordsItself]) -> Worded:
    return cls(message_id, **params)
