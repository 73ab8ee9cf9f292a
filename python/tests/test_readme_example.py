"""The pages' Python examples run as printed (docs/testing.md, "Code on the pages").

Every ```python block that follows a line <!-- test: python NAME --> on
README.md, docs/*.md, bench/README.md, python/README.md or
examples/*/README.md runs in a fresh interpreter (this one's), from an empty
directory, and must exit 0 with nothing on stderr. Its test id is
<page>_<NAME>, <page> as the C examples' (cmake/qmm_doc_examples.cmake):
readme for README.md, NAME for docs/NAME.md, the directory's name for
<dir>/README.md.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "docs/*.md", "bench/README.md", "python/README.md",
         "examples/*/README.md"]
BLOCK = re.compile(r"^<!-- test: python ([A-Za-z0-9_]+) -->\n```python\n(.*?)^```$",
                   re.S | re.M)


def page_id(page):
    relative = page.relative_to(ROOT)
    if relative == Path("README.md"):
        name = "readme"
    elif relative.parent == Path("docs"):
        name = relative.stem
    else:
        name = relative.parent.name
    return name.replace("-", "_")


def examples():
    """(id, code) of every marked Python block, page by page."""
    found = []
    for pattern in PAGES:
        for page in sorted(ROOT.glob(pattern)):
            for match in BLOCK.finditer(page.read_text(encoding="utf-8")):
                found.append((f"{page_id(page)}_{match.group(1)}", match.group(2)))
    return found


EXAMPLES = examples() if (ROOT / "README.md").is_file() else []


def test_pages_have_examples():
    if not (ROOT / "README.md").is_file():
        pytest.skip(f"no README.md at {ROOT} (tests run outside the checkout)")
    names = [name for name, _ in EXAMPLES]
    assert "readme_first" in names and "python_recipe" in names, names
    assert len(names) == len(set(names)), names


@pytest.mark.parametrize("code", [code for _, code in EXAMPLES],
                         ids=[name for name, _ in EXAMPLES])
def test_page_example_runs(code, tmp_path):
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
