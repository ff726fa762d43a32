"""Keyword signatures and docstrings built at import from the library's option tables.

Names, defaults, ranges, choices and help come from fx_filter_options_table(),
fx_equalize_options_table() and fx_normalize_options_table(); nothing is copied here.
Functions are generated with real keyword-only parameters (fast to call, and
inspect.signature / help() show them as `fxkit filter --help` does).
"""

import inspect
import textwrap

from . import _fxkit as _C


def table(job):
    """The library's option rows of a job (a list of dicts)."""
    rows = _C._option_table(job)
    for r in rows:
        r["py_default"] = _python_default(r)
    return rows


def _python_default(row):
    d = row["default"]
    if row["type"] == "string" and isinstance(d, str):
        # numbers given as text ("0" for --border-value) read as numbers
        try:
            return int(d)
        except ValueError:
            try:
                return float(d)
            except ValueError:
                return d
    return d


_TYPE_WORDS = {"int": "int", "double": "float", "bool": "bool", "string": "str", "enum": "str"}


def describe(row):
    """One option as a numpydoc-like entry, from its table row."""
    kind = _TYPE_WORDS[row["type"]]
    head = "%s : %s, default %r" % (row["name"], kind, row["py_default"])
    flag = row["option"] + (" (-%s)" % row["alias"] if row["alias"] else "")
    lines = [head, "    %s  [%s]" % (row["help"], flag)]
    if row["type"] in ("int", "double"):
        lo, hi = row["min"], row["max"]
        if lo or hi:
            fmt = (lambda v: "%d" % v) if row["type"] == "int" else (lambda v: "%g" % v)
            lines.append("    range [%s, %s]" % (fmt(lo), fmt(hi)))
    if row["choices"]:
        lines.append("    one of: " + ", ".join(row["choices"]))
    return "\n".join(lines)


def make_function(name, positional, rows, generic, body, namespace, doc):
    """def NAME(POSITIONAL..., *, TABLE OPTIONS..., GENERIC...): BODY

    rows: table rows (keyword-only, table defaults); generic: (name, default) pairs of
    the binding's own keywords; body: the function's code, which sees `_opts` (the tuple
    of the table options' values, in table order) and every parameter by name."""
    defaults = {}
    params = list(positional) + ["*"]
    for r in rows:
        defaults["_d_" + r["name"]] = r["py_default"]
        params.append("%s=_d_%s" % (r["name"], r["name"]))
    for g, value in generic:
        defaults["_d_" + g] = value
        params.append("%s=_d_%s" % (g, g))
    opts = "(" + "".join("%s, " % r["name"] for r in rows) + ")"
    src = "def %s(%s):\n    _opts = %s\n%s" % (
        name, ", ".join(params), opts, textwrap.indent(textwrap.dedent(body), "    "))
    ns = dict(namespace)
    ns.update(defaults)
    exec(compile(src, "<fxkit %s>" % name, "exec"), ns)
    fn = ns[name]
    fn.__doc__ = doc
    fn.__module__ = "fxkit"
    return fn


def signature_of(positional, rows, generic):
    P = inspect.Parameter
    params = [P(p, P.POSITIONAL_OR_KEYWORD) for p in positional]
    params += [P(r["name"], P.KEYWORD_ONLY, default=r["py_default"]) for r in rows]
    params += [P(g, P.KEYWORD_ONLY, default=v) for g, v in generic]
    return inspect.Signature(params)
