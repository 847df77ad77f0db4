"""interrupts.held: clean-up runs to its end whatever signals arrive meanwhile."""

from __future__ import annotations

import os
import signal

import pytest

from conformance.cli.support import interrupted_exit_code, sigterm_as_interrupt
from conformance.execution.interrupts import held


def test_ctrl_c_inside_is_noted_not_raised_and_the_handler_is_back_after():
    with held() as received:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        finished = True
    assert finished and received == [signal.SIGINT, signal.SIGINT]
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        signal.sigtimedwait([], 0.1)  # let the handler run


def test_a_sigterm_held_still_makes_the_command_exit_143():
    with sigterm_as_interrupt():
        with held() as received:
            os.kill(os.getpid(), signal.SIGTERM)
        assert received == [signal.SIGTERM]
        assert interrupted_exit_code() == 143
