"""An implementation started before the run needs it: its handshake (about a second for Node)
overlaps loading the runner and the corpus instead of following them.

``begin`` resolves the spec and starts the process on a thread at once; whoever holds the
result then either waits for the hello (``hello``) or gives it up (``discard``: abort, wait,
close). A bad spec is kept and raised where the caller asks for the implementation, so the
order in which problems are reported does not change.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import Future, ThreadPoolExecutor

from conformance.errors import ConformanceError
from conformance.implementations.protocol import Hello
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation


class EarlyStart:
    """One implementation being started on a thread of its own."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._implementation: Implementation | None = None
        self._problem: ConformanceError | None = None
        self._starting: Future[Hello] | None = None

    @classmethod
    def begin(cls, spec: str, stages_hint: tuple[str, ...] | None = None) -> EarlyStart:
        """``stages_hint``: the stages a narrowed run may ask (``Implementation.stages_hint``)."""
        early = cls(spec)
        try:
            early._implementation = resolve(spec)
        except ConformanceError as exc:
            early._problem = exc
            return early
        early._implementation.stages_hint = stages_hint
        early._start()
        return early

    @classmethod
    def started(cls, implementation: Implementation) -> EarlyStart:
        """An implementation already resolved (a known one, say), started the same way."""
        early = cls(implementation.spec)
        early._implementation = implementation
        early._start()
        return early

    def _start(self) -> None:
        assert self._implementation is not None
        pool = ThreadPoolExecutor(1, thread_name_prefix="pi-conformance-start")
        self._starting = pool.submit(self._implementation.start)
        pool.shutdown(wait=False)  # the start still runs to its end; no thread is left behind

    @property
    def implementation(self) -> Implementation:
        """The implementation being started; a bad spec's error, raised here."""
        if self._problem is not None:
            raise self._problem
        assert self._implementation is not None
        return self._implementation

    def hello(self) -> Hello:
        """Wait for the handshake; its failure is raised here."""
        assert self._starting is not None, "the spec did not resolve: see .implementation"
        return self._starting.result()

    def settled_hello(self) -> Hello | None:
        """The hello once the handshake is over, or None when the start failed: that
        failure is raised again, in its usual place, by whoever calls ``hello``."""
        if self._starting is None:
            return None
        try:
            return self._starting.result()
        except ConformanceError:
            return None

    def discard(self) -> None:
        """Give the implementation up: a start still under way stops now; then close it."""
        if self._implementation is None:
            return
        self._implementation.abort()
        if self._starting is not None:
            with contextlib.suppress(BaseException):
                self._starting.result()
        self._implementation.close()
