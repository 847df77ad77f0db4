"""The implementation processes of a run: ``jobs`` of them started side by side, every one
closed on the way out whatever happens, and all answering the same hello."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from conformance.errors import ConformanceError, ImplementationError
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation


def _start(impl: Implementation) -> Implementation:
    impl.start()
    return impl


@contextlib.contextmanager
def started(spec: str, jobs: int, first: Implementation | None = None,
            stages_hint: tuple[str, ...] | None = None) -> Iterator[list[Implementation]]:
    """``jobs`` running instances of the implementation (started side by side, since a
    handshake can take a second), all closed on the way out, whatever happens.
    ``first``: one already started (``EarlyStart``); ``stages_hint``: the stages a narrowed
    run may ask (``Implementation.stages_hint``)."""
    instances: list[Implementation] = [first] if first is not None else []
    try:
        wanted = [resolve(spec) for _ in range(jobs - len(instances))]
        for impl in wanted:
            impl.stages_hint = stages_hint
        with ThreadPoolExecutor(max_workers=max(1, len(wanted))) as pool:
            futures = [pool.submit(_start, impl) for impl in wanted]
            problems = []
            try:
                for future, impl in zip(futures, wanted, strict=True):
                    try:
                        instances.append(future.result())
                    except ConformanceError as exc:
                        problems.append(exc)
                        with contextlib.suppress(Exception):
                            impl.close()
            except BaseException:  # Ctrl-C: end the handshakes now, not at their timeout
                for impl in wanted:
                    impl.abort()
                    if impl not in instances:
                        instances.append(impl)  # closed below, like the started ones
                raise
        if problems:
            raise problems[0]
        for number, impl in enumerate(instances[1:], start=2):
            changed = instances[0].hello.differences(impl.hello)
            if changed:  # the run is planned from the first hello: refuse, never mix
                raise ImplementationError(
                    f"{spec}: worker {number} answered a different hello than worker 1 "
                    f"({'; '.join(changed)}); every process must say the same")
        yield instances
    finally:
        for impl in instances:
            with contextlib.suppress(Exception):
                impl.close()


__all__ = ["started"]
