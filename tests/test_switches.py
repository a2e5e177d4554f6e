"""The environment's on/off switches: one reading for all (pybridge/switches.py)."""

from __future__ import annotations

import pytest

from pybridge.errors import PybridgeError
from pybridge.switches import enabled


@pytest.mark.parametrize(("value", "on"), [(None, True), ("", True), ("1", True), (" 1 ", True), ("0", False)])
def test_a_switch_is_on_unless_it_is_zero(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv("PYBRIDGE_TEST_SWITCH", raising=False)
    else:
        monkeypatch.setenv("PYBRIDGE_TEST_SWITCH", value)
    assert enabled("PYBRIDGE_TEST_SWITCH", "do it the slow way") is on


def test_any_other_value_says_what_zero_would_do(monkeypatch):
    monkeypatch.setenv("PYBRIDGE_TEST_SWITCH", "yes")
    said = r"PYBRIDGE_TEST_SWITCH='yes' is neither 0 nor 1; set 0 to do it the slow way"
    with pytest.raises(PybridgeError, match=said):
        enabled("PYBRIDGE_TEST_SWITCH", "do it the slow way")
