#!/usr/bin/env python3
"""Drives LangBot's `/mcp` with the official MCP Python SDK (SPEC §12: `mcp==1.30.0`).

Usage:
    official_client.py URL OWNER_KEY VIEW_KEY
or the environment variables MCP_URL, MCP_OWNER_KEY, MCP_VIEW_KEY.

OWNER_KEY is a full API key of the Workspace owner; VIEW_KEY is scoped to
`resource.view` + `workspace.view`. The script creates a pipeline and a bot through tools,
reads them back, sets the message language, and checks that a bad key is an HTTP 401 and a
tool the view-only key may not call is an HTTP 403. It prints one line per check and a final
`official MCP client (mcp==X): N passed, M failed`; the exit status is non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import sys
import traceback
import uuid
from typing import Any, Awaitable, Callable

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

SUPPORTED_VERSIONS = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
BRIEF_TOOLS = [
    "get_system_info",
    "list_bots",
    "get_bot",
    "create_bot",
    "update_bot",
    "delete_bot",
    "list_pipelines",
    "get_pipeline",
    "create_pipeline",
    "update_pipeline",
    "delete_pipeline",
    "list_llm_models",
    "get_llm_model",
    "list_embedding_models",
    "list_model_providers",
    "get_starred_model",
    "set_starred_model",
    "get_default_model",
    "get_workspace_message_language",
    "set_workspace_message_language",
]
VIEW_ONLY_HIDDEN = ["create_bot", "delete_bot", "create_pipeline", "set_workspace_message_language"]
CALL_TIMEOUT = 30.0
SESSION_TIMEOUT = 90.0

try:
    MCP_VERSION = importlib.metadata.version("mcp")
except importlib.metadata.PackageNotFoundError:  # pragma: no cover
    MCP_VERSION = "unknown"


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: Any = "") -> bool:
        if ok:
            self.passed += 1
            print(f"ok     {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAILED {name}: {detail}", flush=True)
        return ok

    def equal(self, name: str, actual: Any, expected: Any) -> bool:
        return self.check(name, actual == expected, f"got {actual!r}, expected {expected!r}")


def step(awaitable: Awaitable[Any]) -> Awaitable[Any]:
    """One client call, bounded in time."""
    return asyncio.wait_for(awaitable, CALL_TIMEOUT)


def status_codes(exc: BaseException) -> list[int]:
    """HTTP statuses of every `httpx.HTTPStatusError` inside `exc` (groups, causes, contexts)."""
    found: list[int] = []
    seen: set[int] = set()

    def walk(e: BaseException | None) -> None:
        if e is None or id(e) in seen:
            return
        seen.add(id(e))
        if isinstance(e, httpx.HTTPStatusError):
            found.append(e.response.status_code)
        for inner in getattr(e, "exceptions", ()) or ():
            walk(inner)
        walk(e.__cause__)
        walk(e.__context__)

    walk(exc)
    return found


async def with_session(url: str, key: str, body: Callable[[ClientSession, Callable[[], str | None]], Awaitable[Any]]) -> Any:
    """Runs `body` inside a fresh client session authenticated with `key`."""

    async def run() -> Any:
        timeout = httpx.Timeout(CALL_TIMEOUT, read=CALL_TIMEOUT * 2)
        async with httpx.AsyncClient(headers={"X-API-Key": key}, timeout=timeout) as http:
            async with streamable_http_client(url, http_client=http) as (read, write, get_session_id):
                async with ClientSession(read, write) as session:
                    return await body(session, get_session_id)

    return await asyncio.wait_for(run(), SESSION_TIMEOUT)


def text_json(result: Any) -> Any:
    return json.loads(result.content[0].text)


def member(key: str) -> Callable[[Any], Any]:
    """LangBot's result of a list or get tool: the array or object under `key` of the data."""
    return lambda data: data.get(key)


def ok_with(data: Any) -> Any:
    """LangBot's result of an update or delete: `{"ok": true}` (plus the data's fields)."""
    return {"ok": True, **data}


def check_ok_result(c: Checks, name: str, result: Any, langbot: Callable[[Any], Any] = lambda d: d) -> Any:
    """A successful tool result: structuredContent is the HTTP data (an object) and the text
    item is LangBot's result, `langbot(data)`."""
    c.check(f"{name}: isError is false", result.isError is False, result)
    c.check(f"{name}: one text item", len(result.content) == 1 and result.content[0].type == "text", result.content)
    structured = result.structuredContent
    c.check(f"{name}: structuredContent is an object", isinstance(structured, dict), structured)
    try:
        parsed = text_json(result)
    except Exception as e:  # noqa: BLE001
        c.check(f"{name}: text is JSON", False, e)
        return structured
    expected = langbot(structured) if isinstance(structured, dict) else None
    c.equal(f"{name}: text is LangBot's result", parsed, expected)
    return structured


async def owner_flow(c: Checks, url: str, key: str) -> None:
    suffix = uuid.uuid4().hex[:8]

    async def body(session: ClientSession, get_session_id: Callable[[], str | None]) -> None:
        init = await step(session.initialize())
        c.check("initialize: protocolVersion supported", str(init.protocolVersion) in SUPPORTED_VERSIONS, init.protocolVersion)
        c.equal("initialize: serverInfo.name", init.serverInfo.name, "LangBot")
        c.equal("initialize: stateless (no session id)", get_session_id(), None)

        ping = await step(session.send_ping())
        c.check("ping answers", ping is not None, ping)

        tools = await step(session.list_tools())
        names = {t.name for t in tools.tools}
        missing = [t for t in BRIEF_TOOLS if t not in names]
        c.check("list_tools: every required tool is listed", not missing, f"missing {missing}")
        c.check(
            "list_tools: every inputSchema is an object schema",
            all(t.inputSchema.get("type") == "object" for t in tools.tools),
            [t.name for t in tools.tools if t.inputSchema.get("type") != "object"],
        )
        create_bot = next((t for t in tools.tools if t.name == "create_bot"), None)
        if create_bot is not None:
            c.equal("list_tools: create_bot requires bot_data", create_bot.inputSchema.get("required"), ["bot_data"])

        info = check_ok_result(c, "get_system_info", await step(session.call_tool("get_system_info", {})))
        c.check("get_system_info: has a version", isinstance((info or {}).get("version"), str), info)

        # A pipeline, the default, so the bot's default routes target it.
        created = check_ok_result(
            c,
            "create_pipeline",
            await step(
                session.call_tool(
                    "create_pipeline",
                    {"pipeline_data": {"name": f"mcp-client-{suffix}", "is_default": True}},
                )
            ),
        )
        pipeline_uuid = (created or {}).get("uuid")
        c.check("create_pipeline: answers the uuid", isinstance(pipeline_uuid, str) and pipeline_uuid, created)

        got = check_ok_result(
            c,
            "get_pipeline",
            await step(session.call_tool("get_pipeline", {"pipeline_uuid": pipeline_uuid})),
            member("pipeline"),
        )
        pipeline = (got or {}).get("pipeline") or {}
        c.equal("get_pipeline: uuid", pipeline.get("uuid"), pipeline_uuid)
        c.equal("get_pipeline: name", pipeline.get("name"), f"mcp-client-{suffix}")
        c.equal("get_pipeline: is_default", pipeline.get("is_default"), True)

        listed = check_ok_result(
            c, "list_pipelines", await step(session.call_tool("list_pipelines", {})), member("pipelines")
        )
        c.check(
            "list_pipelines: contains the pipeline",
            any(p.get("uuid") == pipeline_uuid for p in (listed or {}).get("pipelines", [])),
            listed,
        )

        # A bot.
        bot_data = {
            "name": f"mcp-bot-{suffix}",
            "adapter": "http_bot",
            "adapter_config": {"inbound_secret": f"inbound-{suffix}", "callback_url": "http://127.0.0.1:9/cb"},
        }
        created = check_ok_result(
            c, "create_bot", await step(session.call_tool("create_bot", {"bot_data": bot_data}))
        )
        bot_uuid = (created or {}).get("uuid")
        c.check("create_bot: answers the uuid", isinstance(bot_uuid, str) and bot_uuid, created)

        result = await step(session.call_tool("get_bot", {"bot_uuid": bot_uuid}))
        got = check_ok_result(c, "get_bot", result, member("bot"))
        bot = (got or {}).get("bot") or {}
        c.equal("get_bot: uuid", bot.get("uuid"), bot_uuid)
        c.equal("get_bot: name", bot.get("name"), bot_data["name"])
        c.equal("get_bot: adapter", bot.get("adapter"), "http_bot")
        config = bot.get("adapter_config") or {}
        c.equal("get_bot: inbound_secret is masked", config.get("inbound_secret"), "***")
        c.equal("get_bot: callback_url", config.get("callback_url"), "http://127.0.0.1:9/cb")
        c.check("get_bot: the secret never appears", f"inbound-{suffix}" not in result.content[0].text, result.content[0].text)
        routes = bot.get("event_bindings") or []
        c.equal("get_bot: two default routes", len(routes), 2)
        c.check(
            "get_bot: default routes target the default pipeline",
            bool(routes) and all(r.get("target_type") == "pipeline" and r.get("target_uuid") == pipeline_uuid for r in routes),
            routes,
        )

        updated = check_ok_result(
            c,
            "update_bot",
            await step(session.call_tool("update_bot", {"bot_uuid": bot_uuid, "bot_data": {"name": f"renamed-{suffix}"}})),
            ok_with,
        )
        c.equal("update_bot: answers {}", updated, {})
        got = check_ok_result(
            c, "get_bot after update", await step(session.call_tool("get_bot", {"bot_uuid": bot_uuid})), member("bot")
        )
        c.equal("get_bot after update: name", ((got or {}).get("bot") or {}).get("name"), f"renamed-{suffix}")

        # The message language.
        set_lang = check_ok_result(
            c,
            "set_workspace_message_language",
            await step(session.call_tool("set_workspace_message_language", {"language": "ja_JP"})),
        )
        c.equal("set_workspace_message_language: answers ja_JP", (set_lang or {}).get("language"), "ja_JP")
        get_lang = check_ok_result(
            c, "get_workspace_message_language", await step(session.call_tool("get_workspace_message_language", {}))
        )
        c.equal("get_workspace_message_language: ja_JP", (get_lang or {}).get("language"), "ja_JP")

        # A domain error is an isError result with {code, msg} and no structuredContent.
        missing_bot = await step(session.call_tool("get_bot", {"bot_uuid": str(uuid.uuid4())}))
        c.check("get_bot(unknown): isError", missing_bot.isError is True, missing_bot)
        c.equal("get_bot(unknown): no structuredContent", missing_bot.structuredContent, None)
        try:
            error = text_json(missing_bot)
        except Exception as e:  # noqa: BLE001
            error = {"unparsable": str(e)}
        c.equal("get_bot(unknown): code", error.get("code"), "resource_not_found")
        c.check("get_bot(unknown): msg", isinstance(error.get("msg"), str) and error.get("msg"), error)

        # An unknown tool is a JSON-RPC error (McpError), and the session survives it.
        try:
            unknown = await step(session.call_tool("no_such_tool", {}))
            c.check("unknown tool: JSON-RPC error", False, f"got a result {unknown}")
        except McpError as e:
            c.check("unknown tool: JSON-RPC error", True)
            c.check("unknown tool: message names it", "no_such_tool" in str(e.error.message), e.error)

        # Clean up through tools.
        deleted = check_ok_result(
            c, "delete_bot", await step(session.call_tool("delete_bot", {"bot_uuid": bot_uuid})), ok_with
        )
        c.equal("delete_bot: answers {}", deleted, {})
        gone = await step(session.call_tool("get_bot", {"bot_uuid": bot_uuid}))
        c.check("get_bot after delete: isError", gone.isError is True, gone)
        deleted = check_ok_result(
            c,
            "delete_pipeline",
            await step(session.call_tool("delete_pipeline", {"pipeline_uuid": pipeline_uuid})),
            ok_with,
        )
        c.equal("delete_pipeline: no routes removed", (deleted or {}).get("removed_routes"), [])

    await with_session(url, key, body)


async def bad_key_flow(c: Checks, url: str) -> None:
    async def body(session: ClientSession, _: Callable[[], str | None]) -> None:
        await step(session.initialize())

    try:
        await with_session(url, "lbk_" + "0" * 43, body)
        c.check("bad key: HTTP 401", False, "initialize succeeded")
    except BaseException as e:  # noqa: BLE001 - ExceptionGroup, or whatever the transport raised
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        codes = status_codes(e)
        c.check("bad key: HTTP 401", 401 in codes, f"statuses {codes}: {e!r}")


async def view_key_flow(c: Checks, url: str, key: str) -> None:
    async def body(session: ClientSession, _: Callable[[], str | None]) -> None:
        init = await step(session.initialize())
        c.equal("view key: initialize", init.serverInfo.name, "LangBot")
        tools = await step(session.list_tools())
        names = {t.name for t in tools.tools}
        c.check("view key: list_bots is listed", "list_bots" in names, sorted(names))
        c.check(
            "view key: manage tools are not listed",
            not [t for t in VIEW_ONLY_HIDDEN if t in names],
            [t for t in VIEW_ONLY_HIDDEN if t in names],
        )
        check_ok_result(c, "view key: list_bots", await step(session.call_tool("list_bots", {})), member("bots"))
        # A tool the key may not call: HTTP 403, which the client raises.
        await step(
            session.call_tool(
                "create_bot",
                {"bot_data": {"name": "denied", "adapter": "http_bot", "adapter_config": {}}},
            )
        )

    try:
        await with_session(url, key, body)
        c.check("view key: create_bot is HTTP 403", False, "create_bot succeeded")
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        codes = status_codes(e)
        c.check("view key: create_bot is HTTP 403", 403 in codes, f"statuses {codes}: {e!r}")


async def main() -> int:
    args = sys.argv[1:]
    url = args[0] if len(args) > 0 else os.environ.get("MCP_URL")
    owner_key = args[1] if len(args) > 1 else os.environ.get("MCP_OWNER_KEY")
    view_key = args[2] if len(args) > 2 else os.environ.get("MCP_VIEW_KEY")
    if not (url and owner_key and view_key):
        print(__doc__, file=sys.stderr)
        print("missing URL, OWNER_KEY or VIEW_KEY", file=sys.stderr)
        return 2

    c = Checks()
    for name, flow in [
        ("owner flow", lambda: owner_flow(c, url, owner_key)),
        ("bad key flow", lambda: bad_key_flow(c, url)),
        ("view key flow", lambda: view_key_flow(c, url, view_key)),
    ]:
        try:
            await flow()
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            c.check(f"{name} completed", False, "".join(traceback.format_exception(e)))

    print(f"official MCP client (mcp=={MCP_VERSION}): {c.passed} passed, {c.failed} failed", flush=True)
    return 0 if c.failed == 0 and c.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
