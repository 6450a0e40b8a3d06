"""MkDocs hooks (``mkdocs.yml`` ``hooks:``): generated reference pages, notebooks as pages, numbers from benchmark
results, and a loud failure for a page the nav leaves out."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from docsgen import numbers, reference
from docsgen.notebooks import notebook_markdown

log = logging.getLogger("mkdocs.plugins.docsgen")


class _NotebookPage(File):
    """A ``.ipynb`` file in ``docs/`` served as a page of its own Markdown rendering."""

    def is_documentation_page(self) -> bool:
        return True

    @property
    def content_string(self) -> str:
        return notebook_markdown(Path(self.abs_src_path))


def _nav_files(nav: Any) -> set[str]:
    found: set[str] = set()
    for item in nav or ():
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            for child in item.values():
                found |= _nav_files(child) if isinstance(child, list) else {child}
    return found


def on_files(files: Files, config: Any) -> Files:
    for name, build in reference.PAGES.items():
        files.append(File.generated(config, name, content=build()))
    for file in list(files):
        if file.src_uri.endswith(".ipynb"):
            files.remove(file)
            files.append(
                _NotebookPage(file.src_uri, config["docs_dir"], config["site_dir"], config["use_directory_urls"])
            )
    listed = _nav_files(config["nav"])
    left_out = sorted(f.src_uri for f in files if f.is_documentation_page() and f.src_uri not in listed)
    if left_out:
        raise PluginError(f"pages missing from mkdocs.yml's nav: {', '.join(left_out)}; add each to the nav")
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    try:
        return numbers.render(markdown, page.file.src_uri)
    except numbers.NumberError as err:
        raise PluginError(str(err)) from None
