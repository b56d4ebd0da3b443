"""Small samples: which paired test can be trusted with few topics, stated once.

The rule (every number it uses is printed with it):

- **The bootstrap test is refused below** :data:`MIN_BOOTSTRAP_TOPICS` **(10) topics.** It
  resamples the topics themselves, so with n topics it sees at most C(2n-1, n) distinct
  resamples (3 for n = 2) and its null distribution is far too narrow: on 2 topics it gives
  p = 0.0001 where the paired t-test gives 0.25. Its p-values are then anti-conservative.
- **Below** :data:`SMALL_N` **(10) topics a warning** says so for every test: the randomization
  (sign-flip) test is the reliable one (valid for any n; exact over the 2**n sign patterns up to
  Monte Carlo error), the t-test assumes normal differences, and the percentile bootstrap CIs
  are too narrow. It also gives the smallest p-value the randomization test can reach, 2 / 2**n
  (2 of the 2**n sign patterns always reach the observed mean): when that is not below alpha,
  no difference can be significant with those topics.
"""

from __future__ import annotations

from harness.errors import DataError

__all__ = ["MIN_BOOTSTRAP_TOPICS", "SMALL_N", "check_test_for_n", "small_sample_note"]

MIN_BOOTSTRAP_TOPICS = 10
SMALL_N = 10


def check_test_for_n(test: str, n: int) -> None:
    """DataError when ``test`` cannot be trusted with ``n`` topics (the bootstrap below 10)."""
    if test == "bootstrap" and n < MIN_BOOTSTRAP_TOPICS:
        raise DataError(
            "compare.test",
            f"the bootstrap test needs at least {MIN_BOOTSTRAP_TOPICS} topics (got {n}): with fewer, its "
            "p-values are too small (anti-conservative); use test: randomization (reliable for any n) or t",
        )


def small_sample_note(n: int, alpha: float) -> str | None:
    """The warning for ``n`` < SMALL_N topics, or None."""
    if n >= SMALL_N:
        return None
    floor = 2.0 / 2**n if n > 0 else 1.0
    reach = (
        f"no difference can be significant at alpha = {alpha:g}"
        if floor >= alpha
        else f"p-values below {floor:.3g} are impossible"
    )
    return (
        f"only {n} topics are compared: the randomization test is the reliable test at this n (its smallest "
        f"possible p is 2/2^{n} = {floor:.3g}, so {reach}); the t-test assumes normally distributed "
        "differences, the bootstrap test is refused below 10 topics, and the bootstrap CIs are too narrow"
    )
