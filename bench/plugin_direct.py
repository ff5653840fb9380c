#!/usr/bin/env python3
"""The plugin runtime's own latency for one tool call, as a bare host sees it: no LangBot,
only langbot-plugin's own host-side classes (its Handler over its stdio or WebSocket client
controller, as LangBot's Python host uses them). Starts its own `lbp rt` in a scratch
directory holding one unpacked plugin, does LangBot's handshake (__ping, set_runtime_config,
a tenant action with the OSS bridge binding; see /work/shared/reference/mcp_plugins.md B5),
answers get_plugin_settings, waits until the plugin is initialized, then calls `TOOL` N times
(after 10 warm-up calls) and prints JSON: p50/p99 in ms, and the runtime's start as this
host saw it (ms from spawning it to answering __ping, and to the plugin initialized).

    $PLUGIN_PYTHON bench/plugin_direct.py stdio|ws RUNTIME_DIR N [TOOL]

RUNTIME_DIR must hold data/plugins/<author>__<name>/. `stdio` spawns `lbp rt -s` (LangBot's
default outside Docker); `ws` spawns `lbp rt` on a free control port with a control token and
connects to it. The runtime's log goes to this script's stderr.
"""
import asyncio
import hashlib
import json
import os
import socket
import sys
import time
import uuid

from langbot_plugin.entities.io.actions.enums import (
    CommonAction,
    LangBotToRuntimeAction,
    RuntimeToLangBotAction,
)
from langbot_plugin.entities.io.resp import ActionResponse
from langbot_plugin.runtime.io.controllers.stdio.client import StdioClientController
from langbot_plugin.runtime.io.controllers.ws.client import WebSocketClientController
from langbot_plugin.runtime.io.handler import Handler

MODE, RUNTIME_DIR, N = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3])
TOOL = sys.argv[4] if len(sys.argv) > 4 else "get_weather_alerts"
WARM_UP = 10
INSTANCE = str(uuid.uuid4())
WORKSPACE = str(uuid.uuid4())
SEED = f"langbot:oss-plugin-bridge:{INSTANCE}:{WORKSPACE}"
# LangBot's deterministic bridge binding (connector._legacy_oss_bridge_binding).
BINDING = {
    "instance_uuid": INSTANCE,
    "workspace_uuid": WORKSPACE,
    "placement_generation": 1,
    "installation_uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, SEED)),
    "runtime_revision": 1,
    "artifact_digest": hashlib.sha256(SEED.encode()).hexdigest(),
}
RUNTIME_CONFIG = {
    "runtime_identity": {"instance_uuid": INSTANCE, "runtime_id": f"{INSTANCE}:plugin-runtime"},
    "worker_policy": {"max_cpus": 1.0, "max_memory_mb": 512, "max_pids": 128,
                      "max_open_files": 256, "max_file_size_mb": 512},
    "runtime_profile": "oss_dev",
}
# The session shape LangBot's Rust host sends (tools::CallCtx::of_run).
SESSION = {"launcher_type": "person", "launcher_id": "bench", "sender_id": "bench",
           "bot_uuid": str(uuid.uuid4())}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BenchHost(Handler):
    """The host side of the control connection: answers what the runtime asks of the host
    for a plugin that calls no host API (unknown actions get the Handler's quick error)."""

    name = "BenchHost"

    def __init__(self, conn):
        super().__init__(conn, file_storage_dir=os.path.join(RUNTIME_DIR, "host-transfer"))

        @self.action(CommonAction.PING)
        async def ping(data):
            return ActionResponse.success({"message": "pong"})

        @self.action(RuntimeToLangBotAction.GET_PLUGIN_SETTINGS)
        async def settings(data):
            seed = f"bench:{data.get('plugin_author')}/{data.get('plugin_name')}"
            return ActionResponse.success({
                "enabled": True, "priority": 0, "plugin_config": {}, "install_source": "local",
                "install_info": {}, "installation_uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, seed)),
            })

        @self.action(RuntimeToLangBotAction.INITIALIZE_PLUGIN_SETTINGS)
        async def initialize(data):
            return ActionResponse.success({})


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


async def session(conn, spawned, result):
    host = BenchHost(conn)
    reader = asyncio.create_task(host.run())
    await host.call_action(CommonAction.PING, {}, timeout=60)
    result["pong_ms"] = (time.perf_counter() - spawned) * 1000
    await host.call_action(LangBotToRuntimeAction.SET_RUNTIME_CONFIG, RUNTIME_CONFIG, timeout=10)
    deadline = time.monotonic() + 120
    while True:
        listed = await host.call_action(LangBotToRuntimeAction.LIST_PLUGINS, {}, timeout=10,
                                        action_context=BINDING)
        if any(p.get("status") == "initialized" for p in listed.get("plugins", [])):
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"no plugin initialized within 120 s: {listed}")
        await asyncio.sleep(0.02)
    result["ready_ms"] = (time.perf_counter() - spawned) * 1000
    times = []
    for i in range(WARM_UP + N):
        text = f"direct-{i}"
        data = {"tool_name": TOOL, "tool_parameters": {"state": text}, "session": SESSION,
                "query_id": i + 1, "query_uuid": str(uuid.uuid4()), "include_plugins": None}
        started = time.perf_counter()
        reply = await host.call_action(LangBotToRuntimeAction.CALL_TOOL, data, timeout=180,
                                       action_context=BINDING)
        elapsed = (time.perf_counter() - started) * 1000
        assert text in json.dumps(reply.get("tool_response")), reply
        if i >= WARM_UP:
            times.append(elapsed)
    result.update(calls=len(times), p50=pct(times, 50), p99=pct(times, 99))
    await host.close()
    reader.cancel()


async def main():
    result = {}
    rt = [sys.executable, "-m", "langbot_plugin.cli.__init__", "rt", "--skip-deps-check",
          "--ws-debug-port", str(free_port())]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    spawned = time.perf_counter()
    if MODE == "stdio":
        controller = StdioClientController(rt[0], rt[1:] + ["-s"], env, RUNTIME_DIR)
        await controller.run(lambda conn: session(conn, spawned, result))
    elif MODE == "ws":
        port, token = free_port(), uuid.uuid4().hex + uuid.uuid4().hex
        env["LANGBOT_PLUGIN_RUNTIME_CONTROL_TOKEN"] = token
        proc = await asyncio.create_subprocess_exec(
            *rt, "--ws-control-port", str(port), cwd=RUNTIME_DIR, env=env,
            stdin=asyncio.subprocess.DEVNULL)
        failed = []

        async def refused(_controller, error):
            failed.append(error)

        try:
            # Until the runtime listens the connection is refused: retry like LangBot does.
            while True:
                failed.clear()
                controller = WebSocketClientController(
                    f"ws://127.0.0.1:{port}/control/ws", refused,
                    {"X-LangBot-Plugin-Runtime-Token": token})
                await controller.run(lambda conn: session(conn, spawned, result))
                if "p50" in result:
                    break
                if time.perf_counter() - spawned > 60 or proc.returncode is not None:
                    raise SystemExit(f"cannot reach the runtime: {failed}")
                await asyncio.sleep(0.02)
        finally:
            proc.terminate()
            await proc.wait()
    else:
        raise SystemExit("mode: stdio or ws")
    print(json.dumps(result))


asyncio.run(main())
