#!/usr/bin/env bash
# Installs LangBot's plugin runtime (the pinned langbot-plugin from PyPI) into a venv, for
# self-hosters running plugins:
#   scripts/install-plugin-runtime.sh [VENV_DIR]     (default /opt/langbot-plugin-runtime)
# then start LangBot Core with
#   LANGBOT_PLUGIN_ENABLE=true LANGBOT_PLUGIN_RUNTIME_PYTHON=VENV_DIR/bin/python
set -euo pipefail
cd "$(dirname "$0")/.."
PLUGIN_VENV="${1:-${PLUGIN_VENV:-/opt/langbot-plugin-runtime}}"
export PLUGIN_VENV
# shellcheck source=lib/plugin_venv.sh
source scripts/lib/plugin_venv.sh
ensure_plugin_venv
printf '\nThe plugin runtime is ready. Start LangBot Core with:\n'
printf '  LANGBOT_PLUGIN_ENABLE=true LANGBOT_PLUGIN_RUNTIME_PYTHON=%s\n' "$PLUGIN_PYTHON"
