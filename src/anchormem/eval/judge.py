"""The LLM judge of the LoCoMo evaluation: is a generated answer CORRECT against the gold one?

Every call goes through its own :class:`~anchormem.llm.accounting.Accounting` under the phase
``"judging"``, so the judge's cost is reported apart from the method's.
"""

from __future__ import annotations

from anchormem.llm.accounting import Accounting
from anchormem.llm.protocol import LLM
from anchormem.llm.structured import complete_parsed
from anchormem.prompts import judge as judge_prompt

__all__ = ["JUDGING", "Judge"]

JUDGING = "judging"


class Judge:
    """Grade answers with ``llm`` (prompt :mod:`anchormem.prompts.judge`)."""

    def __init__(self, llm: LLM, accounting: Accounting | None = None) -> None:
        self.accounting = accounting or Accounting()
        self._llm = self.accounting.wrap(llm, JUDGING)

    @property
    def model(self) -> str:
        return self._llm.model

    def grade(self, question: str, gold: str, generated: str) -> bool:
        """True when ``generated`` is judged CORRECT; an empty answer is WRONG without a call.

        Raises :class:`~anchormem.errors.LLMResponseError` when the verdict stays unreadable and
        :class:`~anchormem.errors.LLMUnavailableError` when the endpoint is down.
        """
        if not generated.strip():
            return False
        return complete_parsed(self._llm, judge_prompt.build(question, gold, generated), judge_prompt.parse)
