"""A server-sent events server the project did not write: sse-starlette's EventSourceResponse
under uvicorn (.ci/lib.sh rb_start_sse). The stream tests (Tests/RequestEngineTests/StreamTests.swift,
Tests/ReqbenchTests/StreamCommandTests.swift) read it; sse-starlette does the framing (its default
line end is CRLF, multi-line data becomes several `data:` lines, `ping` sends comments).

GET /events?count=N&interval=S&ping=S&retry=MS&end_after=K&sep=lf|crlf|cr
    `tick` events with ids, after the request's Last-Event-ID; end_after=K ends the response after
    K events of this connection (a drop the client reconnects after).
GET /multiline   one event whose data has three lines, then one with an event type and id.
POST /chat       {"prompt": "..."}: a chat-like completion, one `data:` per token, then [DONE].
GET /health      200 "ok" (for the start-up wait).
"""
import asyncio
import json

from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

SEPARATORS = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}


def number(request, name, default, kind=int):
    try:
        return kind(request.query_params.get(name, default))
    except ValueError:
        return default


async def events(request: Request):
    count = min(number(request, "count", 10), 1_000_000)
    interval = min(number(request, "interval", 0.0, float), 60.0)
    ping = number(request, "ping", 15.0, float)
    end_after = number(request, "end_after", 0)
    retry = request.query_params.get("retry")
    sep = SEPARATORS.get(request.query_params.get("sep", "crlf"), "\r\n")
    try:
        start = int(request.headers.get("last-event-id", "0")) + 1
    except ValueError:
        start = 1

    async def generate():
        sent = 0
        for n in range(start, count + 1):
            if sent and interval:
                await asyncio.sleep(interval)
            yield ServerSentEvent(
                data=json.dumps({"tick": n}), event="tick", id=str(n),
                retry=int(retry) if retry and sent == 0 else None)
            sent += 1
            if end_after and sent >= end_after:
                return

    return EventSourceResponse(generate(), ping=ping, sep=sep)


async def multiline(request: Request):
    async def generate():
        yield ServerSentEvent(data="line one\nline two\nline three")
        yield ServerSentEvent(data="typed", event="update", id="42")

    return EventSourceResponse(generate(), ping=15)


async def chat(request: Request):
    body = await request.json()
    words = f"You said: {body.get('prompt', '')}. Here it comes one token at a time.".split(" ")

    async def generate():
        for i, word in enumerate(words):
            token = word if i == 0 else " " + word
            yield {"data": json.dumps({"choices": [{"delta": {"content": token}}]})}
            await asyncio.sleep(0.01)
        yield {"data": "[DONE]"}

    return EventSourceResponse(generate(), ping=15)


async def health(request: Request):
    return PlainTextResponse("ok")


app = Starlette(routes=[
    Route("/events", events),
    Route("/multiline", multiline),
    Route("/chat", chat, methods=["POST"]),
    Route("/health", health),
])
