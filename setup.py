"""Build hook: ship the documentation pages (docs/*.md) inside the package.

Everything else about the build is in pyproject.toml. The pages are copied into
``conflicteval/docs/`` of the built package, where ``conflicteval docs [TOPIC]``
reads them, so a user who installed a wheel has the same pages as the checkout.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DOCS = Path(__file__).resolve().parent / "docs"


class BuildWithDocs(build_py):
    """``build_py`` that also copies docs/*.md to ``<build>/conflicteval/docs/``."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "conflicteval" / "docs"
        target.mkdir(parents=True, exist_ok=True)
        for page in sorted(DOCS.glob("*.md")):
            shutil.copy2(page, target / page.name)


setup(cmdclass={"build_py": BuildWithDocs})
