"""An answer that is not the answer to the request in flight is blamed on the case it belongs
to (the request it names, or the case after whose answer it was written), never on the next,
innocent case, which is asked again on a fresh process."""

from __future__ import annotations

import pytest
from helpers import run_spec


@pytest.mark.parametrize("apart", [False, True], ids=["one-write", "two-writes"])
def test_an_answer_sent_twice_is_blamed_on_its_own_case(corpus, fake, apart):
    outcome = run_spec(corpus, fake("answers_twice", "--on", "small.beta",
                                    *(["--apart"] if apart else [])))
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", "protocol")}
    assert "twice" in beta[0].message or "after its answer" in beta[0].message
    # Cases run in id order: alpha, beta, delta, gamma; delta comes after the guilty beta.
    for innocent in ("small.alpha", "small.delta", "small.gamma"):
        assert outcome.statuses(innocent) == {"pass"}, outcome.of(innocent)[0].message


def test_a_duplicate_of_the_last_case_is_blamed_on_it(corpus, fake):
    outcome = run_spec(corpus, fake("answers_twice", "--on", "small.gamma"))
    assert {r.status for r in outcome.of("small.gamma")} == {"error"}
    assert outcome.statuses("small.alpha") == outcome.statuses("small.delta") == {"pass"}


def test_output_after_an_answer_is_blamed_on_that_case_not_the_next(corpus, fake):
    outcome = run_spec(corpus, fake("out_of_order", "--on", "small.beta"))
    # beta (seq 2) is answered with seq 1: request 1 (alpha) got a second answer, so alpha's
    # is not to be trusted; beta, asked again on a fresh process, is answered out of order.
    assert {r.status for r in outcome.of("small.alpha")} == {"error"}
    assert "seq 1" in outcome.of("small.alpha")[0].message
    assert {r.status for r in outcome.of("small.beta")} == {"error"}
    assert outcome.statuses("small.gamma") == outcome.statuses("small.delta") == {"pass"}
