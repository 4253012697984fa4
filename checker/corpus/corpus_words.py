"""The strings the two documents hand on to a program, a compiler or pytest: each one's problem as a sentence, or
None. A problem is found while the documents are read, before anything is built or run: a NUL byte would
otherwise stop the first run with Python's own error, and a pytest selection pytest cannot read would end both
runs of the file in a usage error."""
import os
import re

# Control characters (NUL included) end an argument early or break a path; no argument or path needs one.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# pytest's -k grammar (_pytest/mark/expression.py): words of these characters, and/or/not, and parentheses.
_TOKEN = re.compile(r"\s*(?:(\()|(\))|((?:\w|[:+\-.\[\]\\/])+))")


def control_character(text):
    """The first control character in `text`, said, or None."""
    found = _CONTROL.search(text)
    if found is None:
        return None
    return f"holds a control character ({found.group()!r} at position {found.start()}); none is allowed"


def pytest_file_problem(name):
    """A pytest program is a file the corpus finds in a folder given: one plain name test_*.py."""
    if not name.startswith("test_") or not name.endswith(".py") or "/" in name or control_character(name):
        return "expected a pytest file's plain name, test_*.py (as the corpus folder holds it)"
    return None


def _selection_tokens(expression):
    tokens, at = [], 0
    while at < len(expression):
        if not expression[at:].strip():
            break
        found = _TOKEN.match(expression, at)
        if found is None:
            return None, f"the character {expression[at:].lstrip()[0]!r} is not allowed there"
        tokens.append(found.group(1) or found.group(2) or found.group(3))
        at = found.end()
    return tokens, None


def selection_problem(expression):
    """Why pytest's -k would refuse `expression` (words, and/or/not, balanced parentheses), or None."""
    tokens, problem = _selection_tokens(expression)
    if problem:
        return problem
    at = 0

    def take(word):
        nonlocal at
        if at < len(tokens) and tokens[at] == word:
            at += 1
            return True
        return False

    def either():  # expr: and_expr ('or' and_expr)*
        both()
        while take("or"):
            both()

    def both():  # and_expr: not_expr ('and' not_expr)*
        negated()
        while take("and"):
            negated()

    def negated():  # not_expr: 'not' not_expr | '(' expr ')' | word
        nonlocal at
        if take("not"):
            return negated()
        if take("("):
            either()
            if not take(")"):
                raise ValueError("a '(' is not closed")
            return None
        if at >= len(tokens):
            raise ValueError("it ends where a word or '(' is expected")
        if tokens[at] in ("and", "or", ")"):
            raise ValueError(f"{tokens[at]!r} stands where a word or '(' is expected")
        at += 1
        return None

    if not tokens:
        return None
    try:
        either()
        if at < len(tokens):
            raise ValueError(f"{tokens[at]!r} follows a whole expression")
    except ValueError as err:
        return str(err)
    return None


def path_problem(path):
    """A path under the staged folder, as it is written once: relative, normal (no '.', '..', '//' or a trailing
    '/'), no control character."""
    said = control_character(path)
    if said:
        return said
    if os.path.isabs(path) or ".." in path.split("/"):
        return "a path outside the staged folder (absolute, or with '..')"
    if os.path.normpath(path) != path or path.endswith("/"):
        return f"not a normal path (written plainly it is {os.path.normpath(path)!r})"
    return None
