"""Ask the reader every task and the judge every answer, through any LLM: a live endpoint (behind the
response cache) or :class:`~anchormem.llm.batch.BatchLLM` (requests wait for a batch file; run again
after its results are imported). Both go through the product's prompts, parsing and JSON repair.

The judge sees the question, the gold answer and the reader's answer: never the system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from anchormem.errors import LLMResponseError
from anchormem.eval.answers.tasks import KeyEntry, ReaderTask
from anchormem.llm.batch import BatchPendingError
from anchormem.llm.protocol import LLM
from anchormem.llm.structured import complete_parsed
from anchormem.prompts import answer as answer_prompt
from anchormem.prompts import judge as judge_prompt

__all__ = ["Round", "judge_answers", "read_tasks_with"]

UNREADABLE = ""  # a reader reply that stayed unreadable: no answer, graded WRONG


@dataclass
class Round:
    """What one pass gave: values by task id, and the tasks still waiting for a batch answer."""

    values: dict[str, object] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return not self.pending


def _each(workers: int, items: Sequence[str], one: Callable[[str], object]) -> list[object]:
    if workers <= 1:
        return [one(i) for i in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, items))


def read_tasks_with(reader: LLM, tasks: Sequence[ReaderTask], *, workers: int = 1) -> Round:
    """The reader's answer to every task (``""`` where its reply stayed unreadable)."""
    by_id = {t.task_id: t for t in tasks}

    def one(task_id: str) -> object:
        try:
            text, _cited = complete_parsed(reader, by_id[task_id].messages(), answer_prompt.parse)
            return text
        except BatchPendingError:
            return BatchPendingError
        except LLMResponseError:
            return LLMResponseError

    result = Round()
    for task_id, value in zip(by_id, _each(workers, list(by_id), one), strict=True):
        if value is BatchPendingError:
            result.pending.append(task_id)
        elif value is LLMResponseError:
            result.unreadable.append(task_id)
            result.values[task_id] = UNREADABLE
        else:
            result.values[task_id] = value
    return result


def judge_answers(judge: LLM, key: Mapping[str, KeyEntry], answers: Mapping[str, object], *, workers: int = 1) -> Round:
    """The judge's verdict (True: CORRECT) on every answer; an empty answer is WRONG without a call."""

    def one(task_id: str) -> object:
        entry = key[task_id]
        generated = str(answers[task_id])
        if not generated.strip():
            return False
        try:
            return complete_parsed(
                judge, judge_prompt.build(entry.question, entry.answer, generated), judge_prompt.parse
            )
        except BatchPendingError:
            return BatchPendingError
        except LLMResponseError:
            return LLMResponseError

    ids = sorted(answers)
    result = Round()
    for task_id, value in zip(ids, _each(workers, ids, one), strict=True):
        if value is BatchPendingError:
            result.pending.append(task_id)
        elif value is LLMResponseError:
            result.unreadable.append(task_id)
        else:
            result.values[task_id] = value
    return result
