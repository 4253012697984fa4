#!/usr/bin/env python3
"""Every relative link of the documents resolves: to a file that exists and, with a #fragment, to a heading of
that file. The same documents are installed with the same places relative to each other, so the check runs on
the source tree and on an installed package's documentation folder.

  test_doc_links.py ROOT            the source tree (README.md at ROOT)
  test_doc_links.py --self-test     a broken link and a broken fragment in a scratch tree make it fail"""
import os
import re
import sys
import tempfile

DOCUMENTS = ["README.md", "docs/*.md", "checker/README.md", "checker/corpus/README.md", "hazards/README.md",
             "conformance/README.md", "lessons/README.md", "reports/SCHEMA.md"]
LINK = re.compile(r"\[(?:[^\]]|\\\])*\]\(([^)\s]+)\)")


def documents(root):
    found = []
    for pattern in DOCUMENTS:
        folder, _, name = pattern.rpartition("/")
        where = os.path.join(root, folder)
        if name == "*.md":
            found += [os.path.join(folder, f) for f in sorted(os.listdir(where)) if f.endswith(".md")] if os.path.isdir(where) else []
        elif os.path.isfile(os.path.join(root, pattern)):
            found.append(pattern)
    return found


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    with open(path) as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, flags=re.M)}


def problems(root):
    out = []
    pages = documents(root)
    if "README.md" not in pages:
        return [f"{root}: no README.md"]
    for page in pages:
        with open(os.path.join(root, page)) as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)  # code is not a link
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue  # a web address
            path, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(root, os.path.dirname(page), path)) if path else os.path.join(root, page)
            if not os.path.exists(resolved):
                out.append(f"{page}: the link to {target} points at nothing")
                continue
            if os.path.isdir(resolved):
                out.append(f"{page}: the link to {target} is a folder; link its README.md")
                continue
            if fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                out.append(f"{page}: the link to {target} names no heading of {os.path.relpath(resolved, root)}")
    return out


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "README.md"), "w") as f:
            f.write("# T\n\n[a](docs/a.md#there) [b](docs/missing.md) [c](docs/a.md#nowhere)\n```\n[code](x.md)\n```\n")
        with open(os.path.join(tmp, "docs", "a.md"), "w") as f:
            f.write("# A\n\n## There\n\n[back](../README.md#t)\n")
        found = problems(tmp)
        expected = ["README.md: the link to docs/missing.md points at nothing",
                    "README.md: the link to docs/a.md#nowhere names no heading of docs/a.md"]
        if found != expected:
            print("the link check did not catch what it must:", found)
            return 1
    print("the link check catches a missing file and a missing heading, and leaves code alone")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    print(f"{len(documents(sys.argv[1]))} documents, {len(found)} broken link(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
