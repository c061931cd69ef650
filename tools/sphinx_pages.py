"""Sphinx extension for the book: each page's scripts, once.

sphinx-thebe (loaded by Jupyter Book 1 for the "Live Code" button) adds its configuration as an inline script
whose body declares `const THEBE_JS_URL` and three other constants, from an event that fires after the HTML
builder has collected the registered scripts. Sphinx 7.4's `app.add_js_file` then records it twice: in the
builder's list under the name None, and in the registry, which the builder copies in again under the name ''
(`filename or ''`). Its duplicate check compares names, so both copies reach every page and the second throws
"Identifier 'THEBE_JS_URL' has already been declared" (sphinx-togglebutton's selector script is doubled the
same way, harmlessly). This drops such repeats from each page's script list, treating None and '' as the same
name; the first occurrence keeps its place, so the load order is unchanged. Registered in _config.yml
(sphinx.local_extensions).
"""
from __future__ import annotations


def _key(script):
    attributes = getattr(script, "attributes", {}) or {}
    return (getattr(script, "filename", script) or "", tuple(sorted((k, str(v)) for k, v in attributes.items())))


def drop_repeated_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", drop_repeated_scripts, priority=900)   # after the themes add theirs
    return {"parallel_read_safe": True, "parallel_write_safe": True}
