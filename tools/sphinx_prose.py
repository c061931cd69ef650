"""Sphinx extension for the book: `{eval}`\\`prose.NAME\\`` pastes the value the notebook glued as NAME.

The chapters quote their numbers with MyST's inline `{eval}` role (tinker_nomics/faces/prose.py explains the
scheme). jupyterlab-myst evaluates those expressions live in JupyterLab. myst-nb evaluates `{eval}` only in
its "inline" execution mode, which bypasses the jupyter-cache and re-executes every notebook on every read;
the book keeps the cached mode instead, and this role answers `{eval}` from the glue data that the cached
execution recorded (tools/bench.py measures both build times; the choice is in the commit that added this).

Only `prose.NAME` expressions are accepted: anything else is an error, as is a NAME that was not glued, so the
build (run with -W) fails rather than printing a hole in a sentence. Registered in _config.yml
(sphinx.local_extensions); it overrides myst-nb's own `eval` role.
"""
from __future__ import annotations

import re

from docutils import nodes
from myst_nb.core.variables import RetrievalError, create_warning
from myst_nb.ext.glue.utils import retrieve_glue_data
from myst_nb.ext.utils import RoleBase

NAMESPACE = "prose"   # tinker_nomics.faces.prose.NAMESPACE (not imported: the build needs no package import here)
EXPRESSION = re.compile(rf"^\s*{NAMESPACE}\.([A-Za-z][A-Za-z0-9_]*)\s*$")
SHORT_WORDS = 20      # longer values are clauses (a story of why a verdict moved), not figures or verdicts


def _warning(message, document, line):
    return create_warning(message, document, line, subtype="prose")


class ProseEvalRole(RoleBase):
    """`{eval}`\\`prose.NAME\\``: the text/plain of the glued NAME, pasted as inline text."""

    def run(self):
        match = EXPRESSION.match(self.text)
        if not match:
            return [], [_warning(f"{{eval}} expression {self.text!r} is not of the form {NAMESPACE}.NAME",
                                 self.document, self.line)]
        name = match.group(1)
        try:
            result = retrieve_glue_data(self.document, name)
        except RetrievalError as exc:
            return [], [_warning(f"{{eval}}`{self.text}`: {exc}", self.document, self.line)]
        text = result.data.get("text/plain")
        if text is None:
            return [], [_warning(f"{{eval}}`{self.text}`: the glued value has no text/plain",
                                 self.document, self.line)]
        # A number or a name is set in bold, as myst-nb sets pasted text; a clause the package words (a verdict,
        # a story of why it changed) reads as the sentence around it (book/_static/tn-book.css).
        classes = ["pasted-text", "prose-value"] + (["prose-clause"] if len(text.split()) > SHORT_WORDS else [])
        node = nodes.inline(text, text, classes=classes)
        self.set_source_info(node)
        return [node], []


def setup(app):
    app.add_role("eval", ProseEvalRole(), override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
