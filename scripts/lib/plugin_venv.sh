# The Python venv with LangBot's plugin runtime (langbot-plugin==$PLUGIN_RUNTIME_VERSION, the
# `lbp` CLI and `lbp rt`), used by the plugin tests (TEST_PLUGIN_PYTHON) and to build the test
# plugins. Source it, then call ensure_plugin_venv; it sets PLUGIN_PYTHON. The venv is kept
# between runs (PLUGIN_VENV, default /var/cache/langbot-plugin-venv).
# shellcheck shell=bash

PLUGIN_RUNTIME_VERSION="0.7.18"
PLUGIN_VENV="${PLUGIN_VENV:-/var/cache/langbot-plugin-venv}"

installed_plugin_runtime() {
  "$PLUGIN_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("langbot-plugin"))' 2>/dev/null || true
}

ensure_plugin_venv() {
  if [ "$(installed_plugin_runtime)" != "$PLUGIN_RUNTIME_VERSION" ]; then
    if [ ! -x "$PLUGIN_VENV/bin/python" ]; then
      printf '==> creating the venv %s\n' "$PLUGIN_VENV"
      python3 -m venv "$PLUGIN_VENV"
    fi
    printf '==> installing langbot-plugin==%s into %s\n' "$PLUGIN_RUNTIME_VERSION" "$PLUGIN_VENV"
    "$PLUGIN_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "langbot-plugin==$PLUGIN_RUNTIME_VERSION"
    if [ "$(installed_plugin_runtime)" != "$PLUGIN_RUNTIME_VERSION" ]; then
      echo "could not install langbot-plugin==$PLUGIN_RUNTIME_VERSION into $PLUGIN_VENV" >&2
      return 1
    fi
  fi
  PLUGIN_PYTHON="$PLUGIN_VENV/bin/python"
  export PLUGIN_PYTHON
}
