"""The progress display of a run: counts, elapsed time and an estimate of the time left (tqdm).

Shown only on a terminal; a run whose standard error is a file or a pipe (CI logs, ``2> log``) prints
nothing here, its summary says what happened.
"""

from __future__ import annotations

import sys
from typing import IO


class Progress:
    """``update(record)`` once per finished (claim, fixture); ``close()`` at the end of the run."""

    def __init__(self, total: int, stream: IO[str] | None = None, enabled: bool = True):
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.done, self.bad = total, 0, 0
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = None
        if enabled and tty and total > 0:
            from tqdm import tqdm

            self.bar = tqdm(total=total, file=self.stream, unit="fixture", dynamic_ncols=True, smoothing=0.1,
                            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}] {postfix}")

    def update(self, rec: dict) -> None:
        self.done += 1
        if not rec.get("as_expected", True):
            self.bad += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"fixtures not as expected: {self.bad}; last: {rec.get('claim')} {rec.get('verdict')}"[:96],
                                     refresh=False)
            self.bar.update(1)
            if self.done >= self.total:
                self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
