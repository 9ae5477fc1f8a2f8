"""The rule for browser tests where Chromium is missing: skipped on a desk, failed on CI."""

from __future__ import annotations

import pytest

from tests import browser_tools, conftest


class _Item:
    """As much of a pytest item as the set-up hook reads: its markers."""

    def __init__(self, *markers: str) -> None:
        self.markers = markers

    def get_closest_marker(self, name: str):
        return pytest.mark.browser.mark if name in self.markers else None


@pytest.fixture
def no_chromium(monkeypatch):
    monkeypatch.setattr(browser_tools, "CHROMIUM", None)
    monkeypatch.delenv("CI", raising=False)


@pytest.mark.parametrize("value", ["true", "TRUE", "1"])
def test_a_browser_test_fails_under_ci_when_chromium_is_missing(no_chromium, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception) as failed:
        conftest.pytest_runtest_setup(_Item("browser"))
    assert str(failed.value) == (
        f"{browser_tools.MISSING}; under CI=true a browser test fails instead of skipping"
    )


@pytest.mark.parametrize("value", [None, "", "false", "0"])
def test_a_browser_test_is_skipped_off_ci_when_chromium_is_missing(no_chromium, monkeypatch, value):
    if value is not None:
        monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception) as skipped:
        conftest.pytest_runtest_setup(_Item("browser"))
    assert str(skipped.value) == browser_tools.MISSING


def test_other_tests_and_a_present_browser_pass_the_check(no_chromium, monkeypatch):
    monkeypatch.setenv("CI", "true")
    conftest.pytest_runtest_setup(_Item("render"))  # not a browser test: nothing raised
    monkeypatch.setattr(browser_tools, "CHROMIUM", "/usr/bin/chromium")
    monkeypatch.setattr(browser_tools, "DRIVER", "/usr/bin/chromedriver")
    conftest.pytest_runtest_setup(_Item("browser"))


def test_opening_chromium_follows_the_same_rule(no_chromium, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception), browser_tools.chromium():
        pass
