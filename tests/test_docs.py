"""The README and the reference pages of docs/ (issue 35 part 7, design.md 4.6).

The README is the newcomer's page: it keeps the two commands verbatim, and every link of it
and of docs/*.md leads somewhere that exists. Commands the pages show are the command line's
own, scripts they credit with a figure exist, and the MkDocs site builds with ``--strict``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from gapsweep.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *PAGES]

# design.md 4.6: one command that sets up and runs the main job, one that sets up and passes
# the tests; and the headless run of the same study
SERVE = "./scripts/setup.sh && .venv/bin/gapsweep serve"
TEST = "./scripts/test.sh"
HEADLESS = "gapsweep run examples/clearance_x_stiffness.toml"

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
COMMAND = re.compile(r"(?:^|[\s`(;&|$]|\.venv/bin/)gapsweep((?: +[a-z][a-z0-9-]*){1,2})")


def _prose_and_code(text: str) -> tuple[list[str], list[str]]:
    """The page's prose lines (code spans blanked) and its code: the lines of fenced blocks
    and of indented blocks (4 spaces or more, after a blank line or another such line),
    then the code spans of the prose."""
    prose: list[str] = []
    code: list[str] = []
    fenced = False
    after_blank_or_code = True
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if fenced:
            code.append(line)
            continue
        if line.startswith("    ") and line.strip() and after_blank_or_code:
            code.append(line)
            continue
        after_blank_or_code = not line.strip()
        code.extend(m.group(2) for m in CODE_SPAN.finditer(line))
        prose.append(CODE_SPAN.sub("", line))
    return prose, code


def slug(heading: str) -> str:
    """A heading's anchor as Python-Markdown's toc extension (MkDocs' default) makes it."""
    text = re.sub(r"<[^>]*>", "", heading)
    text = text.replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings (outside code blocks)."""
    found: set[str] = set()
    text = page.read_text(encoding="utf-8")
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced and (m := re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)):
            found.add(slug(m.group(1)))
    return found


def relative_links(page: Path) -> list[str]:
    """The page's link and image targets that point into the repository (no scheme)."""
    prose, _ = _prose_and_code(page.read_text(encoding="utf-8"))
    targets = [m.group(1) for line in prose for m in LINK.finditer(line)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def test_the_readme_keeps_the_two_commands_verbatim_and_the_headless_run():
    readme = README.read_text(encoding="utf-8")
    _, code = _prose_and_code(readme)
    blocks = [line.strip() for line in code]
    assert SERVE in blocks, "the README lost the set-up-and-serve command"
    assert TEST in blocks, "the README lost the test command"
    assert any(line.endswith(HEADLESS) for line in blocks), "the README lost the headless run"
    # the commands name what exists, and CI runs the README's test command (design.md 4.6)
    for name in ("scripts/setup.sh", "scripts/test.sh", "examples/clearance_x_stiffness.toml"):
        assert (ROOT / name).is_file(), name
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves_to_a_file_and_its_anchor(page: Path):
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: link {target!r}: no {dest}"
        assert ROOT in dest.parents or dest == ROOT, f"{page.name}: {target!r} leaves the repo"
        if anchor:
            assert dest.suffix == ".md", f"{page.name}: anchor {target!r} into a non-page"
            assert anchor in anchors(dest), (
                f"{page.name}: link {target!r}: no heading with anchor #{anchor} in {dest.name}"
                f" (has {sorted(anchors(dest))})")
        if dest.suffix.lower() in (".png", ".svg", ".jpg"):
            # pictures stay small: the repository carries them
            assert dest.stat().st_size < 200_000, f"{dest.name}: {dest.stat().st_size} bytes"


def test_the_link_checker_sees_links_and_anchors():
    # what the checker is built on: a page's links are found and a missing anchor is missed
    readme_links = relative_links(README)
    assert "docs/install.md" in readme_links and "docs/img/trends.png" in readme_links
    assert "cost" in anchors(ROOT / "docs" / "settled-motion.md")
    assert slug("A night's study (100,000 cases)") == "a-nights-study-100000-cases"
    assert slug("c = 0.1 mm: chaos, and a chaotic transient") == (
        "c-01-mm-chaos-and-a-chaotic-transient")


def _subcommands() -> dict[str, set[str]]:
    """The command line's subcommands, each with its own subcommands (empty when none)."""
    import argparse

    def choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    return {name: set(choices(sub)) for name, sub in choices(build_parser()).items()}


def test_every_gapsweep_command_the_pages_show_is_a_real_subcommand():
    commands = _subcommands()
    named: set[tuple[str, ...]] = set()
    for page in DOCUMENTS:
        _, code = _prose_and_code(page.read_text(encoding="utf-8"))
        for line in code:
            for m in COMMAND.finditer(line):
                words = tuple(m.group(1).split())
                named.add(words)
                assert words[0] in commands, (
                    f"{page.name}: `gapsweep {words[0]}` is no subcommand of gapsweep "
                    f"({', '.join(sorted(commands))})")
                inner = commands[words[0]]
                if inner and len(words) > 1:
                    assert words[1] in inner, (
                        f"{page.name}: `gapsweep {' '.join(words)}`: {words[1]} is no "
                        f"subcommand of `gapsweep {words[0]}` ({', '.join(sorted(inner))})")
    # the pages show the main commands (else the extraction above found nothing to check)
    shown = {words[0] for words in named}
    assert {"serve", "run", "simulate", "mechanism", "export", "user"} <= shown, shown


def test_every_benchmark_script_the_pages_credit_exists():
    for page in DOCUMENTS:
        for name in set(re.findall(r"benchmarks/(\w+\.py)", page.read_text(encoding="utf-8"))):
            assert (ROOT / "benchmarks" / name).is_file(), f"{page.name}: benchmarks/{name}"
    assert (ROOT / "docs" / "make_pictures.py").is_file()


def test_the_docs_build_with_mkdocs_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is in the test extra: pip install -e '.[test]'")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    # every page is built, none left out of the navigation
    for page in PAGES:
        stem = page.stem
        built = tmp_path / "site" / ("index.html" if stem == "index" else f"{stem}/index.html")
        assert built.is_file(), f"{page.name} was not built"
    # the site reads offline: no script, picture or stylesheet fetched from the network
    for html in (tmp_path / "site").rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        fetched = re.findall(r'<(?:script|img)[^>]+src="https?://[^"]*"|<link[^>]+href="https?://'
                             r'[^"]*"', text)
        assert not fetched, f"{html.name} loads {fetched[:3]}"
