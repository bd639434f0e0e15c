"""Progress bars for long work, fed by the pipelines' ``progress(stage, done, total)`` callback."""

from __future__ import annotations

import sys
from typing import Any


class Bars:
    """One tqdm bar per stage, on stderr; silent when disabled or stderr is not a terminal."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bars: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        bar = self._bars.get(stage)
        if bar is None or bar.total != total:
            if bar is not None:
                bar.close()
            bar = self._bars[stage] = tqdm(total=total, desc=stage, unit="item", leave=False, file=sys.stderr)
        bar.update(done - bar.n)

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()

    def __enter__(self) -> Bars:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
