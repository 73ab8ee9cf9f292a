"""The README's Python example runs as printed and prints its table."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- python-example:"


def example():
    if not README.is_file():
        pytest.skip(f"no README.md at {README} (tests run outside the checkout)")
    text = README.read_text()
    match = re.search(re.escape(MARKER) + r".*?-->\n```python\n(.*?)```", text, re.S)
    assert match, f"no Python example after {MARKER!r} in README.md"
    return match.group(1)


def test_readme_example_runs():
    run = subprocess.run([sys.executable, "-c", example()], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[1].split()[:2] == ["step", "ms"]
    assert any(line.startswith("recipe end to end") for line in lines)
    assert run.stderr == ""
