"""The HTML every page of the report shares: escaping, the page shell with its
Content-Security-Policy, and the static assets (stylesheet, scripts) copied beside the pages.

Python-rendered HTML goes through ``escape``; the policy forbids inline scripts and handlers, so
an injection that got past the escaping could not run.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from importlib import resources

from linteval_ray.store.fs import ObjectStore

ASSETS = ("site.css", "site.js", "index.js", "sample.js")
# default-src 'none': no network, no inline script or handler; 'self' still matches file:// pages.
CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'"


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


def page(title: str, body: str, scripts: Iterable[str] = (), body_attrs: str = "") -> str:
    tags = "".join(f"<script src='{escape(src)}'></script>" for src in scripts)
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{escape(title)}</title><link rel='stylesheet' href='assets/site.css'></head>"
            f"<body{body_attrs}>{body}{tags}</body></html>\n")


def write_page(url: str, title: str, body: str, store: ObjectStore) -> str:
    """A static page in the report's style at ``url``, its stylesheet written beside it
    (``assets/site.css``); ``body`` is HTML whose text the caller escaped. Returns ``url``."""
    store.write_atomic(f"{url.rsplit('/', 1)[0]}/assets/site.css", asset("site.css"))
    store.write_atomic(url, page(title, body).encode())
    return url


def write_assets(folder: str, store: ObjectStore, names: Iterable[str] = ASSETS) -> None:
    """Copy the named assets to ``<folder>/assets/``."""
    for name in names:
        store.write_atomic(f"{folder}/assets/{name}", asset(name))


def asset(name: str) -> bytes:
    return (resources.files("linteval_ray.report") / "assets" / name).read_bytes()
