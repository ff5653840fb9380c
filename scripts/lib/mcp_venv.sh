# The Python venv with the official MCP SDK (mcp==$MCP_VERSION), used by the MCP client test
# and by the test MCP server (tests/fixtures/mcp_server.py). Source it, then call ensure_mcp_venv;
# it sets MCP_PYTHON. The venv is kept between runs (MCP_VENV, default /var/cache/langbot-mcp-venv).
# shellcheck shell=bash

MCP_VERSION="1.30.0"
MCP_VENV="${MCP_VENV:-/var/cache/langbot-mcp-venv}"

installed_mcp() {
  "$MCP_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true
}

ensure_mcp_venv() {
  if [ "$(installed_mcp)" != "$MCP_VERSION" ]; then
    if [ ! -x "$MCP_VENV/bin/python" ]; then
      printf '==> creating the venv %s\n' "$MCP_VENV"
      python3 -m venv "$MCP_VENV"
    fi
    printf '==> installing mcp==%s into %s\n' "$MCP_VERSION" "$MCP_VENV"
    "$MCP_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
    if [ "$(installed_mcp)" != "$MCP_VERSION" ]; then
      echo "could not install mcp==$MCP_VERSION into $MCP_VENV" >&2
      return 1
    fi
  fi
  MCP_PYTHON="$MCP_VENV/bin/python"
  export MCP_PYTHON
}
