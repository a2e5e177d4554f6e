"""The environment's on/off switches: one reading for all (pybridge/switches.py)."""

from __future__ import annotations

import pytest

from pybridge.errors import PybridgeError
from pybridge.switches import count, enabled


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


@pytest.mark.parametrize(("value", "number"), [(None, 7), ("", 7), (" 12 ", 12), ("0", 0)])
def test_a_count_is_its_default_unless_set_to_a_whole_number(monkeypatch, value, number):
    if value is None:
        monkeypatch.delenv("PYBRIDGE_TEST_COUNT", raising=False)
    else:
        monkeypatch.setenv("PYBRIDGE_TEST_COUNT", value)
    assert count("PYBRIDGE_TEST_COUNT", 7, "no limit") == number


@pytest.mark.parametrize("value", ["-1", "many", "1.5"])
def test_a_count_that_is_not_a_whole_number_says_what_zero_and_unset_mean(monkeypatch, value):
    monkeypatch.setenv("PYBRIDGE_TEST_COUNT", value)
    said = (rf"PYBRIDGE_TEST_COUNT='{value}' is not a whole number; set one \(0: no limit\), "
            r"or unset it for the default, 7")
    with pytest.raises(PybridgeError, match=said):
        count("PYBRIDGE_TEST_COUNT", 7, "no limit")
