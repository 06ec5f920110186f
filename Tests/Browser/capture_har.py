#!/usr/bin/env python3
"""Capture a HAR 1.2 file from a real headless Chromium, for `reqbench import har`'s tests.

    capture_har.py --page URL --out FILE [--cross URL] [--chromium PATH] [--timeout S]

Chromium (Debian's `chromium`) is started headless with `--remote-debugging-pipe`: the
DevTools protocol as NUL-terminated JSON on file descriptors 3 (to the browser) and 4 (from
it), so no WebSocket client is needed. The browser opens PAGE (a same-origin page on the
fixture server), and a script in the page sets a cookie and sends what a web app sends: a GET
with a query and a bearer token, a JSON POST, a form POST, a PUT of text and a DELETE; with
--cross, a no-cors GET of that URL too (the nginx TLS server, over HTTP/2, so pseudo-headers
such as `:authority` appear as browsers record them). Every request and response the Network
domain reports (the browser's own headers, `sec-*` included, cookies, timings, bodies) is
written as an entry the way DevTools' "Save all as HAR" lays one out (its `_initiator`,
`_priority`, `_resourceType`, `cache`, `connection`, `pageref`, `serverIPAddress`, `timings`
with `_blocked_queueing`).

Only loopback is reached; the browser's profile is a temporary folder removed at exit; every
wait is bounded by --timeout (default 30 s). Exit status 0 with the HAR written, 1 on failure
(the reason on stderr).
"""

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import sys
import tempfile
import time
import urllib.parse

PAGE_SCRIPT = r"""
(async () => {
  document.cookie = "session=abc123; path=/";
  const token = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl";
  await fetch("/anything/api/users?page=2&sort=name",
              {headers: {"Authorization": token, "Accept": "application/json"}});
  await fetch("/anything/api/login", {method: "POST",
              headers: {"Content-Type": "application/json"},
              body: JSON.stringify({user: "ada", password: "secret"})});
  await fetch("/anything/api/search", {method: "POST",
              body: new URLSearchParams({q: "swift curl", lang: "en"})});
  await fetch("/anything/api/items/7", {method: "PUT",
              headers: {"Content-Type": "text/plain"}, body: "renamed"});
  await fetch("/anything/api/items/7", {method: "DELETE"});
  if (CROSS) { await fetch(CROSS, {mode: "no-cors"}); }
  return "sent";
})()
"""


class Failure(Exception):
    pass


class DevTools:
    """The DevTools protocol over the pipe: calls wait for their result, events are kept."""

    def __init__(self, to_browser, from_browser, deadline):
        self.to_browser = to_browser
        self.from_browser = from_browser
        self.deadline = deadline
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self):
        while b"\0" not in self.buffer:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise Failure("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise Failure("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise Failure(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, done):
        """Reads events until done(events) is true."""
        while not done(self.events):
            reply = self._read_message()
            if "method" in reply:
                self.events.append(reply)


def chromium_path(given):
    for candidate in [given, os.environ.get("REQBENCH_CHROMIUM"), "/usr/lib/chromium/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise Failure("no Chromium: install Debian's chromium package (apt-get install chromium)")


def start_chromium(path, profile):
    """Starts the browser with the protocol's pipe at fds 3 and 4; returns (pid, to, from).

    posix_spawn's dup2 actions place the pipe ends; they are first moved above 10 so that
    placing them cannot overwrite one another, and every other descriptor of ours is
    close-on-exec."""
    to_r, to_w = os.pipe()
    from_r, from_w = os.pipe()
    child_in = fcntl.fcntl(to_r, fcntl.F_DUPFD_CLOEXEC, 10)
    child_out = fcntl.fcntl(from_w, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(to_r)
    os.close(from_w)
    log = os.open(os.path.join(profile, "chromium.log"), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    args = [path, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-sync",
            "--disable-background-networking", "--disable-component-update",
            "--disable-dev-shm-usage", "--ignore-certificate-errors", "--remote-debugging-pipe",
            f"--user-data-dir={profile}", "about:blank"]
    actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, log, 1), (os.POSIX_SPAWN_DUP2, log, 2),
               (os.POSIX_SPAWN_DUP2, child_in, 3), (os.POSIX_SPAWN_DUP2, child_out, 4)]
    pid = os.posix_spawn(path, args, os.environ, file_actions=actions, setsid=True)
    for fd in (child_in, child_out, log):
        os.close(fd)
    return pid, to_w, from_r


def stop_chromium(pid, deadline):
    """Waits for the browser to exit until the deadline, then kills its process group."""
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.05)
    try:
        os.killpg(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def iso(seconds):
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{whole}.{int((seconds % 1) * 1000):03d}Z"


def header_list(headers):
    return [{"name": name, "value": value} for name, raw in headers.items()
            for value in str(raw).split("\n")]


def http_version(protocol):
    return {"h2": "http/2.0", "h3": "http/3.0"}.get(protocol or "", protocol or "")


def timings(timing, issued, response_time, end_time):
    """DevTools' HAR timings (its Log.ts buildTimings), in milliseconds."""
    result = {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0,
              "receive": 0, "_blocked_queueing": -1}
    if not timing:
        return result
    request_time = timing["requestTime"]
    queued = (request_time - issued) * 1000 if issued < request_time else -1
    result["blocked"] = result["_blocked_queueing"] = queued
    starts = [t for t in (timing["dnsStart"], timing["connectStart"], timing["sendStart"]) if t >= 0]
    blocked_start = min(starts) if starts else -1
    if blocked_start >= 0:
        result["blocked"] = max(result["blocked"], 0) + blocked_start
    dns_end = timing["dnsEnd"] if timing["dnsEnd"] >= 0 else -1
    result["dns"] = dns_end - (blocked_start if dns_end >= 0 else 0)
    ssl_end = timing["sslEnd"] if timing["sslEnd"] > 0 else -1
    result["ssl"] = ssl_end - (timing["sslStart"] if ssl_end > 0 else 0)
    connect_end = timing["connectEnd"] if timing["connectEnd"] >= 0 else -1
    if connect_end >= 0:
        result["connect"] = connect_end - min(t for t in (dns_end, blocked_start, connect_end) if t >= 0)
    send_end = timing["sendEnd"] if timing["sendEnd"] >= 0 else 0
    send_start = max(connect_end, dns_end, blocked_start) if timing["sendEnd"] >= 0 else 0
    result["send"] = max(send_end - send_start, 0)
    highest = max(send_end, connect_end, ssl_end, dns_end, blocked_start, 0)
    wait_end = (response_time - request_time) * 1000
    result["wait"] = max(wait_end - highest, 0)
    result["receive"] = max((end_time - request_time) * 1000 - wait_end, 0)
    return {key: round(value, 3) for key, value in result.items()}


def entries_of(events, bodies, post_data, page_id):
    by_request = {}
    order = []
    for event in events:
        params = event.get("params", {})
        request_id = params.get("requestId")
        if request_id is None:
            continue
        record = by_request.get(request_id)
        if record is None:
            record = by_request[request_id] = {}
            order.append(request_id)
        name = event["method"]
        if name == "Network.requestWillBeSent" and "sent" not in record:
            record["sent"] = params
        elif name in ("Network.requestWillBeSentExtraInfo", "Network.responseReceived",
                      "Network.responseReceivedExtraInfo", "Network.loadingFinished",
                      "Network.loadingFailed"):
            record[name.split(".")[1]] = params
    entries = []
    for request_id in order:
        record = by_request[request_id]
        sent, received = record.get("sent"), record.get("responseReceived")
        finished = record.get("loadingFinished")
        if not sent or not received or not finished:
            continue
        request, response = sent["request"], received["response"]
        extra_in = record.get("requestWillBeSentExtraInfo", {})
        extra_out = record.get("responseReceivedExtraInfo", {})
        version = http_version(response.get("protocol"))
        request_headers = header_list(extra_in.get("headers") or request.get("headers", {}))
        cookies = [{"name": c["cookie"]["name"], "value": c["cookie"]["value"],
                    "path": c["cookie"].get("path", "/"), "domain": c["cookie"].get("domain", ""),
                    "expires": None, "httpOnly": c["cookie"].get("httpOnly", False),
                    "secure": c["cookie"].get("secure", False)}
                   for c in extra_in.get("associatedCookies", []) if not c.get("blockedReasons")]
        query = urllib.parse.parse_qsl(urllib.parse.urlsplit(request["url"]).query, keep_blank_values=True)
        har_request = {
            "method": request["method"], "url": request["url"], "httpVersion": version,
            "headers": request_headers, "queryString": [{"name": k, "value": v} for k, v in query],
            "cookies": cookies, "headersSize": -1, "bodySize": 0}
        text = post_data.get(request_id)
        if text is not None:
            mime = next((h["value"] for h in request_headers if h["name"].lower() == "content-type"), "")
            har_request["bodySize"] = len(text.encode())
            har_request["postData"] = {"mimeType": mime, "text": text}
            if mime.startswith("application/x-www-form-urlencoded"):
                har_request["postData"]["params"] = [
                    {"name": k, "value": v} for k, v in urllib.parse.parse_qsl(text, keep_blank_values=True)]
        body, encoded = bodies.get(request_id, ("", False))
        content = {"size": len(base64.b64decode(body)) if encoded else len(body.encode()),
                   "mimeType": response.get("mimeType") or "x-unknown", "text": body}
        if encoded:
            content["encoding"] = "base64"
        response_headers = extra_out.get("headers") or response.get("headers", {})
        headers_text = extra_out.get("headersText")
        transfer = int(finished.get("encodedDataLength", 0))
        headers_size = len(headers_text.encode()) if headers_text else -1
        har_response = {
            "status": response["status"], "statusText": response.get("statusText", ""),
            "httpVersion": version, "headers": header_list(response_headers), "cookies": [],
            "content": content, "redirectURL": "", "headersSize": headers_size,
            "bodySize": transfer - headers_size if headers_size >= 0 else -1,
            "_transferSize": transfer, "_error": None}
        timing = timings(response.get("timing"), sent["timestamp"], received["timestamp"], finished["timestamp"])
        entries.append({
            "_initiator": {"type": sent.get("initiator", {}).get("type", "other")},
            "_priority": request.get("initialPriority"),
            "_resourceType": (sent.get("type") or "other").lower(),
            "cache": {}, "connection": str(response.get("connectionId", "")), "pageref": page_id,
            "request": har_request, "response": har_response,
            "serverIPAddress": response.get("remoteIPAddress", ""),
            "startedDateTime": iso(sent["wallTime"]),
            "time": round(sum(v for k, v in timing.items() if not k.startswith("_") and v > 0), 3),
            "timings": timing})
    return entries


def capture(page, cross, path, timeout):
    deadline = time.monotonic() + timeout
    profile = tempfile.mkdtemp(prefix="reqbench-chromium-")
    pid = None
    try:
        pid, to_browser, from_browser = start_chromium(path, profile)
        tools = DevTools(to_browser, from_browser, deadline)
        version = tools.call("Browser.getVersion")
        target = tools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Network.enable", "Page.enable", "Runtime.enable"):
            tools.call(method, session=session)
        tools.call("Network.setCacheDisabled", {"cacheDisabled": True}, session=session)
        started = time.time()
        tools.call("Page.navigate", {"url": page}, session=session)
        tools.wait_for(lambda events: any(e["method"] == "Page.loadEventFired" for e in events))
        script = PAGE_SCRIPT.replace("CROSS", json.dumps(cross or ""), 2)
        result = tools.call("Runtime.evaluate", {"expression": script, "awaitPromise": True,
                                                 "returnByValue": True}, session=session)
        if result.get("result", {}).get("value") != "sent":
            raise Failure(f"the page's script failed: {json.dumps(result)[:400]}")

        def settled(events):
            started_ids = {e["params"]["requestId"] for e in events if e["method"] == "Network.requestWillBeSent"}
            ended = {e["params"]["requestId"] for e in events
                     if e["method"] in ("Network.loadingFinished", "Network.loadingFailed")}
            return started_ids <= ended
        tools.wait_for(settled)
        bodies, post_data = {}, {}
        for event in list(tools.events):
            params = event.get("params", {})
            if event["method"] == "Network.loadingFinished":
                try:
                    got = tools.call("Network.getResponseBody", {"requestId": params["requestId"]}, session=session)
                    bodies[params["requestId"]] = (got.get("body", ""), got.get("base64Encoded", False))
                except Failure:
                    pass  # a body the browser did not keep (a no-cors response's is opaque)
            elif event["method"] == "Network.requestWillBeSent" and params["request"].get("hasPostData"):
                got = tools.call("Network.getRequestPostData", {"requestId": params["requestId"]}, session=session)
                post_data[params["requestId"]] = got.get("postData", "")
        load = next(e["params"]["timestamp"] for e in tools.events if e["method"] == "Page.loadEventFired")
        first = next(e["params"]["timestamp"] for e in tools.events if e["method"] == "Network.requestWillBeSent")
        entries = entries_of(tools.events, bodies, post_data, "page_1")
        har = {"log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": version.get("product", "").split("/")[-1]},
            "pages": [{"startedDateTime": iso(started), "id": "page_1", "title": page,
                       "pageTimings": {"onContentLoad": -1, "onLoad": round((load - first) * 1000, 3)}}],
            "entries": entries}}
        try:
            tools.call("Browser.close")
        except Failure:
            pass
        return har
    finally:
        if pid is not None:
            stop_chromium(pid, max(deadline, time.monotonic() + 1.0))
        shutil.rmtree(profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--cross")
    parser.add_argument("--chromium")
    parser.add_argument("--timeout", type=float, default=30.0)
    options = parser.parse_args()
    for url in filter(None, (options.page, options.cross)):
        host = urllib.parse.urlsplit(url).hostname
        if host not in ("127.0.0.1", "::1", "localhost"):
            print(f"capture_har.py: {url} is not on loopback", file=sys.stderr)
            return 1
    try:
        har = capture(options.page, options.cross, chromium_path(options.chromium), options.timeout)
    except Failure as failure:
        print(f"capture_har.py: {failure}", file=sys.stderr)
        return 1
    if not har["log"]["entries"]:
        print("capture_har.py: Chromium reported no exchanges", file=sys.stderr)
        return 1
    partial = options.out + ".part"
    with open(partial, "w") as out:
        json.dump(har, out, indent=2)
    os.replace(partial, options.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
