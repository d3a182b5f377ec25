"""The documentation: every command and option of ``parity`` is named on the command-line page, in its
command's section, and the README stays a front page (at most 200 lines, the two set-up commands, links
that resolve). Needs no MkDocs: ``tox -e docs`` builds the site."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from harness.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
CLI_PAGE = REPO / "docs" / "cli.md"
README = REPO / "README.md"
SETUP_COMMANDS = (
    "python3 -m pip install tox && tox -e parity-linux",
    "python3 -m pip install tox && tox -e lint,test",
)


def _subcommands(parser: argparse.ArgumentParser, prefix: str = "parity") -> dict[str, argparse.ArgumentParser]:
    """Every command below ``parser``, by its full name (``parity trace``), subcommands of subcommands too."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[f"{prefix} {name}"] = sub
                found.update(_subcommands(sub, f"{prefix} {name}"))
    return found


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [s for action in parser._actions for s in action.option_strings]


def _sections(text: str) -> dict[str, str]:
    """The page's text under each heading that names a command (``## `parity gc` ``), to the next such."""
    sections: dict[str, str] = {}
    name = None
    for line in text.splitlines():
        heading = re.match(r"#{1,6} .*?`(parity(?: [a-z][\w-]*)+)`", line)
        if heading:
            name = heading.group(1)
            sections.setdefault(name, "")
        elif re.match(r"#{1,6} ", line):
            name = None
        elif name:
            sections[name] += line + "\n"
    return sections


def _names(option: str, text: str) -> bool:
    """Whether ``text`` names ``option`` as itself (``--out`` is not named by ``--output``)."""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def undocumented(page: str) -> list[str]:
    """What the command-line page does not document, as ``parity COMMAND [OPTION]``."""
    parser = build_parser()
    sections = _sections(page)
    missing = [f"parity {o}" for o in _options(parser) if not _names(o, page)]
    for command, sub in _subcommands(parser).items():
        if command not in sections:
            missing.append(f"{command} (no section headed `{command}`)")
            continue
        missing += [
            f"{command} {o}" for o in _options(sub) if o not in ("-h", "--help") and not _names(o, sections[command])
        ]
    return missing


def test_every_command_and_option_is_documented():
    missing = undocumented(CLI_PAGE.read_text(encoding="utf-8"))
    assert not missing, f"docs/cli.md does not document: {', '.join(missing)}"


def test_the_check_finds_what_is_missing():
    page = CLI_PAGE.read_text(encoding="utf-8")
    assert "`--verify-cause`" in page and "## `parity trace`" in page
    assert "parity diff --verify-cause" in undocumented(page.replace("--verify-cause", "--verify"))
    assert "parity trace --capture" in undocumented(page.replace("`--capture I[,J...]`", "`I[,J...]`"))
    # an option named only in another command's section does not count
    without = re.sub(r"(## `parity gc`.*?)--yes", r"\1", page, flags=re.S)
    assert "parity gc --yes" in undocumented(without)
    assert any(
        m.startswith("parity migrate (no section")
        for m in undocumented(page.replace("## `parity migrate`", "## migrate"))
    )


def test_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; at most 200 (the rest belongs in docs/)"
    for command in SETUP_COMMANDS:
        assert sum(line.strip() == command for line in lines) == 1, f"README.md lacks the set-up command {command!r}"
    assert "ops_matrix/heatmap.png" in text


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md"))]
)
def test_relative_links_resolve(page: str):
    """README's links into docs/ (and the pages' links, which tox -e docs checks too) name files that exist."""
    path = REPO / page
    targets = re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8"))
    generated = {"img/heatmap.png", "img/heatmap.svg", "matrix-tables.md"}  # tools/mkdocs_hooks.py adds them
    broken = [
        t
        for t in targets
        if not re.match(r"[a-z]+:", t)
        and not t.startswith("#")
        and t.split("#")[0] not in generated
        and not (path.parent / t.split("#")[0]).exists()
    ]
    assert not broken, f"{page} links to {broken}, which do not exist"
