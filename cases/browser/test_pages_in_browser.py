"""Every HTML page hazardlab writes, opened in a real browser (Debian's chromium, headless, driven over the
DevTools protocol on a pipe: no package beyond Python's own). The pages are made here by the real tools from
runs kept in cases/browser/runs/ (a validation run on four H200s and a soak with a fault aimed at a peer copy,
both as the GPUs wrote them): a GPU report with its race-window, bandwidth and peer sections, a soak report, the
fleet report of both, and a `hazardlab check` page with findings. For each page, at 1280 and at 390 pixels wide:

- no console error, no uncaught exception, and no request leaves the page (it loads nothing);
- every plot has a box that is not empty, and every point, line and marker of it lies inside that box;
- no text overflows sideways: the page does not scroll sideways, and no box's text runs past its edge;
- every folded section (a finding's stacks) opens when its summary is clicked, and shows what it holds.

A screenshot of each page at each width is kept in the output folder. Then each property is broken once in a
copy of a page (a request to another host, a point moved off its plot, a wide table without its scrolling box,
a folded section that cannot open) and the test must catch each one, or it fails.

Usage: test_pages_in_browser.py --hazardlab HAZARDLAB --out FOLDER [--chromium PATH]
                                [--check-page PAGE] [--docs-images FOLDER]
--check-page adds a page `hazardlab check --html` wrote on a GPU. --docs-images writes the documentation's pictures
(the first screen of the kept validation run's GPU 0 report, and of the check page: the GPU's if given) there.
Exit 0 when every page holds; 1 otherwise; 77 (skipped) where chromium is missing, but 1 under CI, which installs it.
"""

import argparse
import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTHS = (1280, 390)

# What the page must hold, measured in the page itself. Returns {"problems": [...], "plots": n, "folded": n}.
PAGE_CHECKS = textwrap.dedent('''
(() => {
  const problems = [];
  const root = document.documentElement;
  const width = root.clientWidth;
  if (root.scrollWidth > width + 1)
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px of content in a ${width} px window`);
  const describe = (el) => {
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60);
    return `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? ' class=' + el.className : ''}> "${text}"`;
  };
  const hidden = (el) => el.closest('details:not([open])') !== null && el.closest('summary') === null;
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') || hidden(el)) continue;
    const style = getComputedStyle(el);
    if (style.display === 'inline' || style.display === 'none' || el.clientWidth === 0) continue;
    if (style.overflowX !== 'visible') continue;  // a box that scrolls or clips holds its own content
    if (el.scrollWidth > el.clientWidth + 1)
      problems.push(`text runs ${el.scrollWidth - el.clientWidth} px past the edge of ${describe(el)}`);
  }
  let plots = 0;
  for (const svg of document.querySelectorAll('svg')) {
    if (hidden(svg)) continue;
    plots += 1;
    const box = svg.getBoundingClientRect();
    if (box.width < 20 || box.height < 20) {
      problems.push(`a plot with an empty box (${box.width} x ${box.height}): ${svg.getAttribute('aria-label')}`);
      continue;
    }
    let marks = 0;
    for (const mark of svg.querySelectorAll('circle, path, line, polyline, rect')) {
      const b = mark.getBoundingClientRect();
      marks += 1;
      if (b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 || b.bottom > box.bottom + 1)
        problems.push(`a mark of the plot "${svg.getAttribute('aria-label')}" lies outside its box: ` +
                      `${Math.round(b.left - box.left)},${Math.round(b.top - box.top)} ` +
                      `${Math.round(b.width)}x${Math.round(b.height)} in ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
    if (marks === 0) problems.push(`a plot with nothing drawn: ${svg.getAttribute('aria-label')}`);
  }
  let folded = 0;
  for (const details of document.querySelectorAll('details')) {
    folded += 1;
    const summary = details.querySelector('summary');
    if (!summary) { problems.push(`a folded section without a summary: ${describe(details)}`); continue; }
    summary.click();
    const inside = [...details.children].filter((c) => c !== summary);
    const shown = inside.some((c) => c.getBoundingClientRect().height > 0);
    if (!details.open || !shown) problems.push(`a folded section does not open: ${describe(summary)}`);
  }
  return {problems, plots, folded};
})()
''')


class Browser:
    """Headless chromium over --remote-debugging-pipe: JSON messages ended by NUL on fds 3 (in) and 4 (out)."""

    def __init__(self, chromium, profile):
        to_browser_r, self._to_browser_w = os.pipe()
        self._from_browser_r, from_browser_w = os.pipe()
        spare = (to_browser_r, from_browser_w)

        # Above 4 first, so that placing one on 3 or 4 cannot close the other; dup2 makes the copies inheritable.
        to_browser_r, from_browser_w = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_browser_w,
                                                                                                   fcntl.F_DUPFD, 10)

        def pipes_as_3_and_4():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        flags = ["--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                 "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
                 f"--user-data-dir={profile}", "about:blank"]
        if os.geteuid() == 0:
            flags.insert(0, "--no-sandbox")  # chromium refuses to run as root with its sandbox
        self.process = subprocess.Popen([chromium, *flags], preexec_fn=pipes_as_3_and_4, close_fds=False,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_browser_r, from_browser_w, *spare):
            os.close(fd)
        self._next_id = 0
        self._replies, self.events = {}, queue.Queue()
        self._lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        with os.fdopen(self._from_browser_r, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\0" in buffer:
                    message, buffer = buffer.split(b"\0", 1)
                    m = json.loads(message)
                    if "id" in m:
                        with self._lock:
                            self._replies[m["id"]] = m
                            self._lock.notify_all()
                    else:
                        self.events.put(m)

    def send(self, method, params=None, session=None, timeout=30):
        with self._lock:
            self._next_id += 1
            ident = self._next_id
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser_w, json.dumps(message).encode() + b"\0")
        with self._lock:
            if not self._lock.wait_for(lambda: ident in self._replies, timeout):
                raise TimeoutError(f"chromium did not answer {method} within {timeout} s")
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def look_at(browser, page, width, screenshot, top_only=False):
    """Loads `page` at `width` and returns what is wrong with it, and its counts."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    while not browser.events.empty():
        browser.events.get_nowait()
    for domain in ("Page", "Runtime", "Log", "Network"):
        browser.send(f"{domain}.enable", session=session)
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
    url = "file://" + os.path.abspath(page)
    browser.send("Page.navigate", {"url": url}, session=session)
    problems, loaded = [], False
    while not loaded:
        try:
            event = browser.events.get(timeout=30)
        except queue.Empty:
            problems.append("the page did not finish loading within 30 s")
            break
        if event.get("sessionId") != session:
            continue
        method, params = event["method"], event.get("params", {})
        if method == "Page.loadEventFired":
            loaded = True
        problems += what_went_wrong(method, params, url)
    # What arrives just after the load event (a late script error, a late request) is read too.
    browser.send("Runtime.evaluate", {"expression": "new Promise(r => setTimeout(r, 200))", "awaitPromise": True},
                 session=session)
    while not browser.events.empty():
        event = browser.events.get_nowait()
        if event.get("sessionId") == session:
            problems += what_went_wrong(event["method"], event.get("params", {}), url)
    measured = browser.send("Runtime.evaluate", {"expression": PAGE_CHECKS, "returnByValue": True},
                            session=session)["result"]["value"]
    problems += measured["problems"]
    if top_only:  # a picture for the documentation: the first screen of the page, as a reader first sees it
        browser.send("Runtime.evaluate", {"expression": "document.querySelectorAll('details').forEach(d => d.open = false)"},
                     session=session)
        shot = browser.send("Page.captureScreenshot", {"format": "png", "clip": {"x": 0, "y": 0, "width": width,
                                                                                 "height": 1000, "scale": 1}},
                            session=session)
    else:
        shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
    with open(screenshot, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    browser.send("Target.closeTarget", {"targetId": target})
    return problems, measured["plots"], measured["folded"]


def what_went_wrong(method, params, page_url):
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        return ["console error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])]
    if method == "Runtime.exceptionThrown":
        return ["uncaught exception: " + params["exceptionDetails"].get("text", "")]
    if method == "Log.entryAdded" and params["entry"].get("level") == "error":
        return ["console error: " + params["entry"].get("text", "")]
    if method == "Network.requestWillBeSent":
        url = params["request"]["url"]
        if url != page_url and not url.startswith("data:"):
            return [f"a request leaves the page: {url}"]
    return []


# A program that `hazardlab check` runs here without a GPU, writing its process's log the way the injected library
# does (checker/core/process_log.cpp), so that the real launcher writes a real page with findings and stacks.
FAKE_CHECKED_PROGRAM = textwrap.dedent('''
    import json, os
    pid = os.getpid()
    path = os.path.join(os.environ["HL_CHECK_LOG_FOLDER"], f"process-{pid}.jsonl")
    def finding(kind, api, end, memory, access_line, copy_line, module_offset):
        return {"type": "finding",
                "finding": {"kind": kind, "copy": {"id": 7, "api": api, "stream": 140213,
                            "stream_kind": "non-blocking", "host_end": end, "host_begin": 139870000000000,
                            "bytes": 4194304, "memory": memory, "graph_node": False, "site": 11},
                            "address": 139870000786432, "offset": 786432, "access_site": 12, "thread": pid,
                            "relies_on": []},
                "copy_stack": [{"module": "/usr/lib/x86_64-linux-gnu/libcudart.so.13", "offset": 462699},
                               {"module": "/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so",
                                "offset": module_offset}],
                "access_stack": [{"module": "/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cpu.so",
                                  "offset": module_offset + 4096}],
                "copy_python": [{"file": "/home/someone/projects/a-rather-long-project-name/training/staging_loop.py",
                                 "line": copy_line, "function": "stage_next_batch_into_the_pinned_ring"},
                                {"file": "/home/someone/projects/a-rather-long-project-name/train.py", "line": 88,
                                 "function": "<module>"}],
                "access_python": [{"file": "/home/someone/projects/a-rather-long-project-name/training/staging_loop.py",
                                   "line": access_line, "function": "stage_next_batch_into_the_pinned_ring"}],
                "access_python_of_main_thread": True}
    lines = [{"type": "process", "pid": pid, "parent": os.getppid(), "program": "python3", "watching": True,
              "not_watching_because": ""},
             finding("host-wrote-copy-source", "cuMemcpyHtoDAsync_v2", "source", "pinned", 49, 50, 28712759),
             finding("host-read-copy-destination", "cuMemcpyDtoHAsync_v2", "destination", "pinned", 61, 60, 28712999),
             {"type": "summary", "stats": {"copies_watched": 65, "pageable_d2h_async": 0, "findings": 2,
              "occurrences": 2, "neighbour_faults": 3, "copies_sampled_out": 0}}]
    with open(path, "w") as log:
        for line in lines:
            log.write(json.dumps(line) + "\\n")
''')


def make_pages(hazardlab, out):
    """The pages, made by the real tools: {name: path}."""
    pages, runs = {}, []
    work = os.path.join(out, "made")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for archive in sorted(os.listdir(os.path.join(HERE, "runs"))):
        if not archive.endswith(".tar.xz"):
            continue
        name = archive[:-len(".tar.xz")]
        with tarfile.open(os.path.join(HERE, "runs", archive)) as t:
            t.extractall(os.path.join(work, name), filter="data") if sys.version_info >= (3, 12) else \
                t.extractall(os.path.join(work, name))
        (run,) = os.listdir(os.path.join(work, name))
        run = os.path.join(work, name, run)
        runs.append(run)
        reports = os.path.join(work, name + "-reports")
        # Its exit status is the verdict's (the soak's fault fails it): the pages are what is looked at.
        done = subprocess.run([hazardlab, "report", "--run", run, "--out", reports], capture_output=True, text=True)
        if not os.path.isdir(os.path.join(reports, "latest")):
            raise SystemExit(f"hazardlab report wrote nothing for {name}: {done.stderr}")
        for page in sorted(os.listdir(os.path.join(reports, "latest"))):
            if page.endswith(".html"):
                pages[f"{name}-{page[:-5]}"] = os.path.join(reports, "latest", page)
    fleet = os.path.join(work, "fleet")
    done = subprocess.run([hazardlab, "merge", "--out", fleet, *runs], capture_output=True, text=True)
    if not os.path.exists(os.path.join(fleet, "fleet.html")):
        raise SystemExit(f"hazardlab merge wrote no page: {done.stderr}")
    pages["fleet"] = os.path.join(fleet, "fleet.html")
    program = os.path.join(work, "checked_program.py")
    with open(program, "w") as f:
        f.write(FAKE_CHECKED_PROGRAM)
    check_page = os.path.join(work, "check.html")
    subprocess.run([hazardlab, "check", "--html", check_page, "--", sys.executable, program], capture_output=True)
    if not os.path.exists(check_page):
        raise SystemExit("hazardlab check wrote no page")
    pages["check"] = check_page
    return pages


# Each property broken once, in a copy of a page: (what, page, the change, a word the problem must contain).
BREAKAGES = (
    ("a request to another host", "check", lambda html: html.replace("</body>", "<img src='http://example.invalid/x.png' alt=''></body>"),
     "request leaves the page"),
    ("a point moved off its plot", None, lambda html: html.replace("<circle cx='", "<circle cx='-400", 1),
     "outside its box"),
    ("a wide table without its scrolling box", "check",
     lambda html: html.replace("</body>", "<table><tr><td>" + "x" * 400 + "</td></tr></table></body>"), "sideways"),
    ("a folded section that cannot open", "check",
     lambda html: html.replace("<style>", "<style>details>ul{display:none}", 1), "does not open"),
    ("a console error", "check", lambda html: html.replace("</body>", "<script>console.error('broken')</script></body>"),
     "console error"),
)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hazardlab", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    parser.add_argument("--check-page", help="a page hazardlab check --html wrote on a GPU, looked at too")
    parser.add_argument("--docs-images", help="write the documentation's pictures into this folder")
    args = parser.parse_args()
    if not args.chromium:
        if os.environ.get("CI"):
            print("FAIL chromium is not installed, and CI installs it (apt install chromium)")
            return 1
        print("skipped: chromium is not installed (apt install chromium)")
        return 77
    os.makedirs(args.out, exist_ok=True)
    pages = make_pages(os.path.abspath(args.hazardlab), args.out)
    if args.check_page:
        pages["check-on-gpu"] = args.check_page
    failures = []
    profile = tempfile.mkdtemp(prefix="hazardlab-chromium-")
    browser = Browser(args.chromium, profile)
    try:
        for name, page in pages.items():
            for width in WIDTHS:
                shot = os.path.join(args.out, f"{name}-{width}.png")
                problems, plots, folded = look_at(browser, page, width, shot)
                print(f"{'FAIL' if problems else 'ok  '} {name} at {width} px: {plots} plot(s), {folded} folded "
                      f"section(s), screenshot {os.path.basename(shot)}")
                for p in problems[:8]:
                    print(f"       {p}")
                if problems:
                    failures.append(f"{name} at {width} px")
        if args.docs_images:
            os.makedirs(args.docs_images, exist_ok=True)
            for picture, name in (("gpu-report.png", "validation-4xH200-gpu0"),
                                  ("check-report.png", "check-on-gpu" if args.check_page else "check")):
                problems, _, _ = look_at(browser, pages[name], WIDTHS[0], os.path.join(args.docs_images, picture),
                                         top_only=True)
                print(f"{'FAIL' if problems else 'ok  '} picture {picture} of {name}")
                if problems:
                    failures.append(f"picture {picture}")
        # Each property broken once, and each page broken once (the breakages taken in turn, a plot's only where
        # the page has one): the test must see every one.
        plotted = next(n for n, p in pages.items() if "<circle" in open(p).read())
        trials = [(what, page_name or plotted, breakage, word) for what, page_name, breakage, word in BREAKAGES]
        others = [b for b in BREAKAGES if b[1] is not None]
        for i, name in enumerate(n for n in pages if n not in {t[1] for t in trials}):
            with open(pages[name]) as f:
                html = f.read()
            # A folded section can only be broken where the page folds something.
            usable = [b for b in others if "folded" not in b[0] or "<details>" in html]
            what, _, breakage, word = usable[i % len(usable)]
            trials.append((what, name, breakage, word))
        for what, page_name, breakage, word in trials:
            source = pages[page_name]
            broken = os.path.join(args.out, "broken.html")
            with open(source) as f, open(broken, "w") as g:
                g.write(breakage(f.read()))
            problems, _, _ = look_at(browser, broken, WIDTHS[0], os.path.join(args.out, "broken.png"))
            caught = any(word in p for p in problems)
            print(f"{'ok  ' if caught else 'FAIL'} {page_name} broken on purpose, {what}: "
                  + (f"caught ({next(p for p in problems if word in p)[:100]})" if caught else f"not caught: {problems}"))
            if not caught:
                failures.append(f"not caught: {what}")
            os.remove(broken)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(f"{len(pages)} page(s) at {len(WIDTHS)} widths; {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
