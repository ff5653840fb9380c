#!/usr/bin/env bash
# Static checks of the Docker deployment (docker-compose.yml, .env.example, the Dockerfile,
# the README's instructions), for a machine without a Docker daemon or registry access: the
# images are never built or pulled here. Installs Debian's docker-compose (1.29) with apt-get
# when it is missing (as root). Fails on the first broken expectation.
#
#   scripts/compose-check.sh
#
# What it cannot check: that the images build and the stack starts (no daemon), and the
# compose upstream (deploy/nginx/upstream.compose.conf), whose `resolve` flag needs
# nginx >= 1.27.3 (Debian has 1.22); deploy/nginx/langbot.conf itself runs in every
# scripts/cluster.sh cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "compose-check: $*" >&2; exit 1; }

if ! command -v docker-compose >/dev/null; then
  [ "$(id -u)" -eq 0 ] || fail "docker-compose is missing: apt-get install docker-compose, or run as root"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1. The file is valid and interpolates with the example settings (the README's
#    `cp .env.example .env`).
cp .env.example "$work/.env"
docker-compose --project-directory . --env-file "$work/.env" -f docker-compose.yml config >"$work/config.yml" \
  || fail "docker-compose.yml does not validate with .env.example"
echo "ok: docker-compose.yml validates and interpolates with .env.example"

# 2. Without the secrets it refuses (the `:?` guards), naming what is missing.
grep -v -e '^POSTGRES_PASSWORD=' -e '^REDIS_PASSWORD=' .env.example >"$work/no-secrets.env"
if docker-compose --project-directory . --env-file "$work/no-secrets.env" -f docker-compose.yml config -q \
  2>"$work/no-secrets.err"; then
  fail "docker-compose.yml starts without POSTGRES_PASSWORD and REDIS_PASSWORD"
fi
grep -q "PASSWORD" "$work/no-secrets.err" || fail "the refusal does not name the missing password: $(cat "$work/no-secrets.err")"
echo "ok: without the passwords compose refuses: $(grep -o 'set [A-Z_]* in .env' "$work/no-secrets.err" | head -1)"

# 3. The resolved stack: what the README and the harness rely on.
python3 - "$work/config.yml" .env.example <<'EOF'
import re, sys, yaml

config = yaml.safe_load(open(sys.argv[1]))
example = dict(
    line.split("=", 1) for line in open(sys.argv[2]).read().splitlines()
    if line and not line.startswith("#")
)
services = config["services"]
problems = []

def check(ok, what):
    if not ok:
        problems.append(what)

check(set(services) == {"proxy", "langbot", "postgres", "redis"}, f"services: {sorted(services)}")
lb = services["langbot"]
# --scale needs replicas without a fixed host port or container name.
check("ports" not in lb, "the langbot service publishes a host port (breaks --scale)")
check("container_name" not in lb, "the langbot service has a container_name (breaks --scale)")
check(lb.get("build", {}).get("context"), "the langbot service is not built from this checkout")
env = lb["environment"]
check(env["LANGBOT_DATABASE_URL"] == f"postgres://langbot:{example['POSTGRES_PASSWORD']}@postgres:5432/langbot",
      f"LANGBOT_DATABASE_URL: {env['LANGBOT_DATABASE_URL']}")
check(env["LANGBOT_REDIS_URL"] == f"redis://:{example['REDIS_PASSWORD']}@redis:6379/0",
      f"LANGBOT_REDIS_URL: {env['LANGBOT_REDIS_URL']}")
check(env["LANGBOT_HTTP_ADDR"].endswith(":5300"), "the backend does not listen on 5300")
# The backend trusts X-Forwarded-For from the proxy's fixed address only.
proxy_ip = services["proxy"]["networks"]["langbot"]["ipv4_address"]
check(env["LANGBOT_TRUSTED_PROXIES"] == f"{proxy_ip}/32",
      f"LANGBOT_TRUSTED_PROXIES {env['LANGBOT_TRUSTED_PROXIES']} is not the proxy's {proxy_ip}/32")
subnet = config["networks"]["langbot"]["ipam"]["config"][0]["subnet"]
check(proxy_ip.rsplit(".", 1)[0] == subnet.split("/")[0].rsplit(".", 1)[0], f"{proxy_ip} outside {subnet}")

def seconds(value):
    m = re.fullmatch(r"(\d+)(ms|s|m)?", str(value))
    n = int(m.group(1))
    return {"ms": n / 1000, "s": n, None: n, "m": n * 60}[m.group(2)]

# Docker must not SIGKILL a replica that is still inside its drain time.
grace, drain = seconds(lb["stop_grace_period"]), seconds(env["LANGBOT_DRAIN_TIMEOUT"])
check(grace > drain, f"stop_grace_period {grace}s is not longer than LANGBOT_DRAIN_TIMEOUT {drain}s")
# Readiness (database + session store) gates the proxy; the proxy publishes the port.
check(lb["healthcheck"]["test"][-1].endswith(":5300/readyz"), "the langbot healthcheck is not /readyz")
for dep in ("postgres", "redis"):
    check(lb["depends_on"][dep]["condition"] == "service_healthy", f"langbot does not wait for a healthy {dep}")
proxy = services["proxy"]
check(proxy["depends_on"]["langbot"]["condition"] == "service_healthy", "the proxy does not wait for healthy replicas")
published = [p for p in proxy["ports"]]
check(any(str(p.get("target") if isinstance(p, dict) else p).endswith("5300") for p in published),
      f"the proxy does not publish 5300: {published}")
check(any(str(example["LANGBOT_HTTP_PORT"]) in str(p) for p in published),
      f"the proxy does not publish LANGBOT_HTTP_PORT ({example['LANGBOT_HTTP_PORT']}): {published}")
mounts = [v.split(":")[0] if isinstance(v, str) else v["source"] for v in proxy["volumes"]]
for m in mounts:
    check(m.endswith("deploy/nginx/langbot.conf") or m.endswith("deploy/nginx/upstream.compose.conf"),
          f"unexpected proxy mount {m}")
check(len(mounts) == 2, f"the proxy mounts {mounts}")
for name in ("postgres", "redis"):
    check("healthcheck" in services[name], f"{name} has no healthcheck")
    targets = [v.split(":")[1] if isinstance(v, str) else v["target"] for v in services[name]["volumes"]]
    wanted = "/var/lib/postgresql/data" if name == "postgres" else "/data"
    check(wanted in targets, f"{name} keeps no data volume at {wanted}: {targets}")
if problems:
    print("\n".join(f"compose-check: {p}" for p in problems), file=sys.stderr)
    sys.exit(1)
print(f"ok: 4 services; langbot scalable (no host port, no container name); trusted proxy {proxy_ip}/32; "
      f"stop_grace_period {grace}s > drain {drain}s; healthchecks and volumes in place")
EOF

# 4. The files the stack mounts and the Dockerfile copies exist (and are not dockerignored).
for f in deploy/nginx/langbot.conf deploy/nginx/upstream.compose.conf; do
  [ -f "$f" ] || fail "the proxy mounts $f, which does not exist"
done
grep -q 'upstream langbot_backends' deploy/nginx/upstream.compose.conf || fail "the compose upstream is not langbot_backends"
grep -q 'proxy_pass http://langbot_backends;' deploy/nginx/langbot.conf || fail "langbot.conf does not proxy to langbot_backends"
grep -Eq 'server langbot:5300( |;)' deploy/nginx/upstream.compose.conf || fail "the compose upstream does not name the langbot service's port"
while read -r src; do
  [ -e "$src" ] || fail "the Dockerfile copies $src, which does not exist"
  while read -r ignored; do
    [ -n "$ignored" ] || continue
    case "$src" in "$ignored"|"$ignored"/*) fail "the Dockerfile copies $src, which .dockerignore excludes" ;; esac
  done <.dockerignore
done < <(awk '$1 == "COPY" && $2 !~ /^--from=/ { for (i = 2; i < NF; i++) print $i }' Dockerfile | grep -v '^\.$')
toolchain="$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)"
grep -q "^FROM rust:${toolchain%.*}-" Dockerfile || fail "the Dockerfile's Rust image is not the pinned toolchain $toolchain"
echo "ok: the proxy's mounts and the Dockerfile's COPY sources exist; Rust image matches toolchain $toolchain"

# 5. The README's instructions are the ones the files expect.
grep -q 'cp .env.example .env' README.md || fail "the README does not say cp .env.example .env"
grep -q 'docker compose up -d --build --scale langbot=3' README.md || fail "the README's compose command changed"
for var in POSTGRES_PASSWORD REDIS_PASSWORD LANGBOT_HTTP_PORT; do
  grep -q "$var" README.md || fail "the README does not mention $var"
  grep -q "^$var=" .env.example || fail ".env.example does not set $var"
done
grep -q 'deploy/nginx/langbot.conf' README.md || fail "the README does not name deploy/nginx/langbot.conf"
echo "ok: the README's compose steps match docker-compose.yml and .env.example"
