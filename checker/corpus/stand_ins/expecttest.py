"""A stand-in for the `expecttest` module, which PyTorch's test utilities import and the GPU machines lack.

Only what torch.testing._internal.common_utils uses of it: a TestCase whose inline expectations compare the
text and fail on a difference (the real module can also rewrite the test file; this one never writes)."""
import re
import unittest


def _normalized(text):
    return re.sub(r"\s+\n", "\n", str(text)).strip()


class TestCase(unittest.TestCase):
    longMessage = True

    def assertExpectedInline(self, actual, expect, skip=0):  # noqa: N802 (the real module's name)
        self.assertEqual(_normalized(actual), _normalized(expect))

    def assertExpectedRaisesInline(self, exc_type, callable, expect, *args, **kwargs):  # noqa: N802
        try:
            callable(*args, **kwargs)
        except exc_type as e:
            self.assertExpectedInline(str(e), expect)
            return
        self.fail(f"{exc_type.__name__} was not raised")
