"""Clean-up that a second Ctrl-C must not cut short.

The first Ctrl-C (or SIGTERM) stops a run; what follows (stopping the workers, writing the
report's footer) must finish, or the report is left without its footer and workers go on
writing after it. Inside ``held()``, SIGINT and SIGTERM are noted, not raised; a SIGTERM
still reaches the handler that was in place (so the command exits 143, not 130), with the
interrupt it raises swallowed. Only the main thread receives signals: elsewhere ``held`` is
a no-op.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def held() -> Iterator[list[int]]:
    """Hold Ctrl-C and SIGTERM until the block ends; yields the signals received meanwhile."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def note(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous = {signum: signal.signal(signum, note) for signum in _SIGNALS}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        on_sigterm = previous[signal.SIGTERM]
        if signal.SIGTERM in received and callable(on_sigterm):
            with contextlib.suppress(KeyboardInterrupt):
                on_sigterm(signal.SIGTERM, None)


__all__ = ["held"]
