"""What a person sees while the app starts: the kernels banner says the measured time, then
that the workers are ready."""

from __future__ import annotations

import re
from pathlib import Path

from gapsweep.web.app import COMPILING_TEXT, READY_TEXT, kernel_banner


def test_the_banner_gives_the_measured_compile_time_and_then_says_ready():
    # compiling: open, the measured first-start figure of the docs' setup page (moved there
    # from the README, issue 35 part 7), polling on
    is_open, text, colour, stop = kernel_banner(ready=False, shown=False)
    assert (is_open, text, colour, stop) == (True, COMPILING_TEXT, "warning", False)
    page = Path(__file__).resolve().parents[2] / "docs" / "install.md"
    measured = re.search(r"(\d+) s measured with `gapsweep warmup`",
                         page.read_text(encoding="utf-8")).group(1)
    assert f"{measured} s measured" in COMPILING_TEXT
    # ready after the person saw it compiling: "workers ready", green, polling off
    assert kernel_banner(ready=True, shown=True) == (True, READY_TEXT, "success", True)
    # ready from the start: no banner at all
    assert kernel_banner(ready=True, shown=False)[0] is False
