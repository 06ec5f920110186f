# shellcheck shell=bash
# Shared helpers for .ci/test, .ci/demo and Benchmarks/run. Source it; don't run it.
#
#   ensure_packages            Debian packages the build and the servers need (apt-get, only if missing)
#   ensure_httpbin             a virtualenv with the pinned httpbin + gunicorn (.ci/httpbin-requirements.txt),
#                              and the tests' other Python packages (haralyzer, authlib); its python is
#                              exported as REQBENCH_TEST_PYTHON
#   start_servers [NAME...]    nginx, httpbin, fixture, sse, oauth (default: all five) on free loopback
#                              ports; exports REQBENCH_{NGINX,HTTPBIN,FIXTURE,SSE,OAUTH}_URL and REQBENCH_NGINX_ROOT
#   stop_servers [STATUS]      stops them; called by the EXIT trap anyway
#   rb_swift CMD ARGS...       `swift CMD` plus $REQBENCH_SWIFTPM_ARGS (e.g. "--scratch-path /tmp/rb")
#
# Environment knobs:
#   REQBENCH_VENV              the httpbin virtualenv (default ~/.cache/reqbench/venv)
#   REQBENCH_PYTHON            the python that creates it and runs the helpers (default python3)
#   REQBENCH_BIN               the reqbench binary serving the fixture (default: swift build's)
#   REQBENCH_SWIFTPM_ARGS      extra arguments for every swift build/test these scripts run
#   REQBENCH_SERVER_TIMEOUT    seconds to wait for each server to answer (default 60)
#   REQBENCH_KEEP_SERVER_LOGS  1: keep the server logs folder even when all went well
#   REQBENCH_NGINX_ACCESS_LOG  off: no nginx access log (default on, in the nginx folder)

RB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RB_PACKAGES=(libcurl4-openssl-dev libncurses-dev libjq-dev libsqlite3-dev libyaml-dev nginx-light tmux openssl curl vim-tiny libxml2-utils zsh fish man-db git)
RB_PYTHON=${REQBENCH_PYTHON:-python3}
read -r -a RB_SWIFTPM_ARGS <<<"${REQBENCH_SWIFTPM_ARGS:-}"

RB_APT_UPDATED=""
RB_TRAPS_INSTALLED=""
RB_CLEANUPS=()
RB_SERVER_NAMES=()
RB_SERVER_PIDS=()
RB_LOG_DIR=""
RB_NGINX_DIR=""
RB_VENV=""

rb_log() { printf '[reqbench] %s\n' "$*" >&2; }
rb_die() {
  rb_log "error: $*"
  exit 1
}

rb_swift() {
  local cmd=$1
  shift
  swift "$cmd" "${RB_SWIFTPM_ARGS[@]}" "$@"
}

# The release build of reqbench the README installs, `.ci/demo` runs and every benchmark
# measures: `rb_swift build "${RB_RELEASE_BUILD[@]}"`.
# --static-swift-stdlib: the Swift runtime linked in, a third less start-up time and memory than
#   its shared libraries.
# -no-pie: a position-dependent executable (the C libraries stay position-independent and
#   randomised). As a PIE, the binary carries ~78,000 relative relocations that the loader applies
#   at every start, writing into ~230 pages; without them a `run` of 1,000 requests starts its
#   first exchange ~5 ms sooner. It needs the static runtime: against the shared one the loader
#   warns about protected symbols at every start.
RB_RELEASE_BUILD=(-c release --static-swift-stdlib -Xlinker -no-pie --product reqbench)
# The benchmark commands' executable (`Benchmarks/reqbench-bench`), built the same way:
# `rb_swift build "${RB_BENCH_BUILD[@]}"`.
RB_BENCH_BUILD=(-c release --static-swift-stdlib -Xlinker -no-pie --product reqbench-bench)

# Runs a command as root: directly when root, else through sudo.
rb_as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    rb_die "need root (or sudo) to run: $*"
  fi
}

# ---------------------------------------------------------------------------------------------
# Exit handling: one EXIT trap stops the servers and runs the registered cleanups. Ctrl-C and
# TERM become exits so the EXIT trap runs for them too.

rb_install_traps() {
  [ -z "$RB_TRAPS_INSTALLED" ] || return 0
  RB_TRAPS_INSTALLED=1
  trap 'rb_on_exit $?' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
}

# rb_at_exit 'COMMAND': run COMMAND (a string, eval'ed) when the script exits.
rb_at_exit() {
  rb_install_traps
  RB_CLEANUPS+=("$1")
}

rb_on_exit() {
  local status=$1 cmd
  trap - INT TERM HUP
  stop_servers "$status" || true
  for cmd in "${RB_CLEANUPS[@]}"; do
    eval "$cmd" || true
  done
}

# ---------------------------------------------------------------------------------------------
# Debian packages

rb_pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'
}

# rb_apt_install PKG...: installs those not installed yet. `apt-get update` once, first.
rb_apt_install() {
  local missing=() pkg
  for pkg in "$@"; do
    rb_pkg_installed "$pkg" || missing+=("$pkg")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  command -v apt-get >/dev/null 2>&1 || rb_die "missing packages ${missing[*]} and no apt-get to install them"
  rb_log "installing Debian packages: ${missing[*]}"
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/reqbench-apt.XXXXXX")
  if [ -z "$RB_APT_UPDATED" ]; then
    if ! rb_as_root env DEBIAN_FRONTEND=noninteractive apt-get -q update >"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      rb_die "apt-get update failed"
    fi
    RB_APT_UPDATED=1
  fi
  # Installing nginx must not start Debian's own nginx (port 80, all addresses): while we install,
  # a policy-rc.d (if there is none already) tells the maintainer scripts not to start services.
  local policy=/usr/sbin/policy-rc.d made_policy=""
  if [ ! -e "$policy" ]; then
    if rb_as_root sh -c "printf '#!/bin/sh\nexit 101\n' >$policy && chmod 755 $policy"; then
      made_policy=1
    fi
  fi
  local status=0
  rb_as_root env DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
    "${missing[@]}" >"$log" 2>&1 || status=$?
  [ -z "$made_policy" ] || rb_as_root rm -f "$policy"
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    rm -f "$log"
    rb_die "apt-get install ${missing[*]} failed (status $status)"
  fi
  grep -E '^(W|E): ' "$log" >&2 || true
  rm -f "$log"
  for pkg in "${missing[@]}"; do
    rb_pkg_installed "$pkg" || rb_die "package $pkg is still not installed"
  done
}

ensure_packages() {
  rb_apt_install "${RB_PACKAGES[@]}"
}

# ---------------------------------------------------------------------------------------------
# httpbin in a virtualenv, reused while it still matches .ci/httpbin-requirements.txt

ensure_httpbin() {
  local venv=${REQBENCH_VENV:-${HOME:-/tmp}/.cache/reqbench/venv}
  local req=$RB_ROOT/.ci/httpbin-requirements.txt
  local stamp
  stamp=$(sha256sum <"$req" | cut -d' ' -f1)
  RB_VENV=$venv
  export REQBENCH_TEST_PYTHON=$venv/bin/python
  if rb_venv_ok "$venv" "$stamp"; then
    return 0
  fi
  mkdir -p "$(dirname "$venv")"
  # Two runs at once must not build the same venv together.
  local lock_fd
  exec {lock_fd}>"$venv.lock"
  if command -v flock >/dev/null 2>&1; then
    flock "$lock_fd"
  fi
  if ! rb_venv_ok "$venv" "$stamp"; then
    rb_log "installing httpbin into $venv"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
      rm -rf "$venv"
      if ! "$RB_PYTHON" -m venv "$venv" >/dev/null 2>&1; then
        # Debian's python3 needs python3-venv for ensurepip.
        rm -rf "$venv"
        rb_apt_install python3-venv
        "$RB_PYTHON" -m venv "$venv" || rb_die "cannot create a virtualenv with $RB_PYTHON"
      fi
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" ||
      rb_die "pip could not install $req into $venv"
    "$venv/bin/python" -c 'import gunicorn, httpbin, flasgger, haralyzer, sse_starlette, uvicorn, authlib' >/dev/null 2>&1 ||
      rb_die "httpbin (or flasgger, haralyzer, sse-starlette, uvicorn, authlib) was installed into $venv but does not import"
    printf '%s\n' "$stamp" >"$venv/.reqbench-stamp"
  fi
  exec {lock_fd}>&-
}

rb_venv_ok() {
  [ -x "$1/bin/gunicorn" ] &&
    [ "$(cat "$1/.reqbench-stamp" 2>/dev/null)" = "$2" ] &&
    "$1/bin/python" -c 'import gunicorn, httpbin, flasgger, haralyzer, sse_starlette, uvicorn, authlib' >/dev/null 2>&1
}

# ---------------------------------------------------------------------------------------------
# Servers

rb_free_port() {
  "$RB_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Any HTTP answer (even 404 or 500) means the server is up. Proxies are bypassed.
rb_http_probe() {
  "$RB_PYTHON" - "$1" <<'EOF' >/dev/null 2>&1
import sys, urllib.error, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    opener.open(sys.argv[1], timeout=2).read(1)
except urllib.error.HTTPError:
    pass
except Exception:
    sys.exit(1)
EOF
}

rb_pid_alive() {
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null
}

# rb_wait_http NAME URL PID: 0 once URL answers; 1 on time-out; 2 if PID died first.
rb_wait_http() {
  local name=$1 url=$2 pid=$3
  local deadline=$((SECONDS + ${REQBENCH_SERVER_TIMEOUT:-60}))
  while :; do
    rb_pid_alive "$pid" || return 2
    if rb_http_probe "$url"; then
      return 0
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      rb_log "$name did not answer at $url within ${REQBENCH_SERVER_TIMEOUT:-60}s"
      return 1
    fi
    sleep 0.2
  done
}

# Shows a server's log and exits (the EXIT trap stops the others and keeps the logs).
rb_server_failed() {
  local name=$1 log=$2
  rb_log "$name failed to start; its log ($log):"
  if [ -s "$log" ]; then
    tail -n 60 "$log" | sed 's/^/    /' >&2
  else
    printf '    (empty)\n' >&2
  fi
  rb_die "$name did not start"
}

rb_register_server() {
  RB_SERVER_NAMES+=("$1")
  RB_SERVER_PIDS+=("$2")
}

# rb_run_with_watchdog SECONDS CMD...: runs CMD; if it is still running after SECONDS, prints
# every process under it and the thread backtraces of the test binaries (gdb, when installed),
# kills it and returns 124. A hung test then fails the run with the evidence, instead of eating
# CI's whole time budget in silence.
rb_run_with_watchdog() {
  local limit=$1 pid waited=0 status=0
  shift
  "$@" &
  pid=$!
  while rb_pid_alive "$pid"; do
    if [ "$waited" -ge "$limit" ]; then
      rb_log "still running after $limit s: $*; what is running under it:"
      rb_dump_processes "$pid"
      rb_kill_tree "$pid"
      wait "$pid" 2>/dev/null || true
      return 124
    fi
    sleep 1
    waited=$((waited + 1))
  done
  wait "$pid" || status=$?
  return "$status"
}

# The pids of every process under PID (children first).
rb_descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    rb_descendants "$child"
    echo "$child"
  done
}

rb_dump_processes() {
  local pid descendants
  descendants=$(rb_descendants "$1")
  # shellcheck disable=SC2086
  ps -o pid,ppid,etime,time,args -p "$1" $descendants >&2 2>/dev/null || true
  for pid in $descendants; do
    case $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) in
      *PackageTests* | *xctest* | *swiftpm-testing-helper*)
        if command -v gdb >/dev/null 2>&1; then
          rb_log "threads of $pid:"
          timeout 120 gdb -p "$pid" -batch -ex "thread apply all bt" 2>&1 | grep -E '^(Thread|#)' | head -n 600 >&2 || true
        else
          rb_log "gdb is not installed: no backtraces of $pid"
        fi
        ;;
    esac
  done
}

rb_kill_tree() {
  local pid
  for pid in $(rb_descendants "$1") "$1"; do kill -KILL "$pid" 2>/dev/null || true; done
}

# start_servers [nginx] [httpbin] [fixture] [sse] [oauth]: default all five.
start_servers() {
  local names=("$@") name
  [ ${#names[@]} -gt 0 ] || names=(nginx httpbin fixture sse oauth)
  rb_install_traps
  if [ -z "$RB_LOG_DIR" ]; then
    RB_LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/reqbench-logs.XXXXXX")
    export REQBENCH_SERVER_LOGS=$RB_LOG_DIR
  fi
  # Loopback never goes through a proxy, whatever the environment says.
  export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
  export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
  for name in "${names[@]}"; do
    case $name in
      nginx) rb_start_nginx ;;
      httpbin) rb_start_httpbin ;;
      fixture) rb_start_fixture ;;
      sse) rb_start_sse ;;
      oauth) rb_start_oauth ;;
      *) rb_die "start_servers: unknown server '$name' (nginx, httpbin, fixture, sse, oauth)" ;;
    esac
  done
}

# One line: where each running server is.
rb_servers_summary() {
  local line="servers:"
  [ -z "${REQBENCH_NGINX_URL:-}" ] || line+=" nginx $REQBENCH_NGINX_URL, $REQBENCH_NGINX_TLS_URL and $REQBENCH_NGINX_MTLS_URL (root $REQBENCH_NGINX_ROOT);"
  [ -z "${REQBENCH_HTTPBIN_URL:-}" ] || line+=" httpbin $REQBENCH_HTTPBIN_URL;"
  [ -z "${REQBENCH_FIXTURE_URL:-}" ] || line+=" fixture $REQBENCH_FIXTURE_URL;"
  [ -z "${REQBENCH_SSE_URL:-}" ] || line+=" sse $REQBENCH_SSE_URL;"
  [ -z "${REQBENCH_OAUTH_URL:-}" ] || line+=" oauth $REQBENCH_OAUTH_URL;"
  printf '%s logs %s\n' "$line" "$RB_LOG_DIR"
}

rb_start_nginx() {
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || rb_die "nginx is not installed (ensure_packages)"
  local nginx_cmd
  nginx_cmd=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/reqbench-nginx.XXXXXX")
  RB_NGINX_DIR=$dir
  mkdir -p "$dir/www" "$dir/tmp"
  head -c 1024 /dev/urandom >"$dir/www/1k.bin"
  head -c $((10 * 1024 * 1024)) /dev/urandom >"$dir/www/10m.bin"
  local sum1k sum10m
  sum1k=$(sha256sum <"$dir/www/1k.bin" | cut -d' ' -f1)
  sum10m=$(sha256sum <"$dir/www/10m.bin" | cut -d' ' -f1)
  cat >"$dir/www/index.json" <<EOF
{
  "server": "reqbench nginx fixture",
  "files": [
    {"path": "/1k.bin", "size": 1024, "sha256": "$sum1k"},
    {"path": "/10m.bin", "size": 10485760, "sha256": "$sum10m"}
  ]
}
EOF
  # A self-signed certificate for the TLS + HTTP/2 server (tests: verification fails by default,
  # `insecure` or the CA file passes, and HTTP/2 is negotiated).
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$dir/tls.key" -out "$dir/tls.crt" >/dev/null 2>&1 ||
    rb_die "openssl could not make the test certificate"
  # A client CA and a client certificate it signed, for the mutual-TLS server (client
  # certificates: `tls.cert` / `tls.key`).
  {
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=reqbench test client CA" \
      -keyout "$dir/client-ca.key" -out "$dir/client-ca.crt" &&
      openssl req -newkey rsa:2048 -nodes -subj "/CN=reqbench test client" \
        -keyout "$dir/client.key" -out "$dir/client.csr" &&
      openssl x509 -req -in "$dir/client.csr" -CA "$dir/client-ca.crt" -CAkey "$dir/client-ca.key" \
        -CAcreateserial -days 2 -out "$dir/client.crt"
  } >/dev/null 2>&1 || rb_die "openssl could not make the test client certificate"
  local user_line="" access_line="access_log $dir/access.log;"
  # Workers must read files in a mode-0700 temp folder: as root they run as root too (otherwise
  # nginx would switch them to nobody). Not root: the directive would only warn, so leave it out.
  [ "$(id -u)" -ne 0 ] || user_line="user root;"
  [ "${REQBENCH_NGINX_ACCESS_LOG:-on}" != off ] || access_line="access_log off;"
  local attempt port tls_port mtls_port log=$RB_LOG_DIR/nginx.log
  for attempt in 1 2 3; do
    port=$(rb_free_port)
    tls_port=$(rb_free_port)
    mtls_port=$(rb_free_port)
    cat >"$dir/nginx.conf" <<EOF
# Generated by .ci/lib.sh for reqbench's tests; everything lives in $dir.
$user_line
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;

events {
  worker_connections 1024;
}

http {
  types {
    text/html html htm;
    text/plain txt;
    text/css css;
    application/json json;
    application/javascript js;
    application/xml xml;
    image/png png;
    image/jpeg jpg jpeg;
    application/gzip gz;
    application/zip zip;
    application/octet-stream bin;
  }
  default_type application/octet-stream;
  $access_line
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 65;
  keepalive_requests 100000;
  etag on;
  server_tokens off;

  server {
    listen 127.0.0.1:$port;
    server_name localhost;
    root $dir/www;
  }

  server {
    listen 127.0.0.1:$tls_port ssl http2;
    server_name localhost;
    ssl_certificate $dir/tls.crt;
    ssl_certificate_key $dir/tls.key;
    root $dir/www;
  }

  server {
    listen 127.0.0.1:$mtls_port ssl;
    server_name localhost;
    ssl_certificate $dir/tls.crt;
    ssl_certificate_key $dir/tls.key;
    ssl_client_certificate $dir/client-ca.crt;
    ssl_verify_client on;
    root $dir/www;
  }
}
EOF
    rm -f "$dir/nginx.pid"
    # Not `daemon off`: nginx forks into the background itself once its socket is bound, so its
    # exit status tells whether the config and the port were good; the pid file names the master.
    if "$nginx_cmd" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >"$log" 2>&1; then
      break
    fi
    cat "$dir/error.log" >>"$log" 2>/dev/null || true
    if [ "$attempt" -lt 3 ] && grep -q 'Address already in use' "$log"; then
      rb_log "nginx: port $port was taken meanwhile; trying another"
      continue
    fi
    rb_server_failed nginx "$log"
  done
  local pid="" i
  for i in $(seq 50); do
    pid=$(cat "$dir/nginx.pid" 2>/dev/null || true)
    [ -z "$pid" ] || break
    sleep 0.1
  done
  [ -n "$pid" ] || rb_server_failed nginx "$dir/error.log"
  rb_register_server nginx "$pid"
  local url=http://127.0.0.1:$port
  if ! rb_wait_http nginx "$url/index.json" "$pid"; then
    cat "$dir/error.log" >>"$log" 2>/dev/null || true
    rb_server_failed nginx "$log"
  fi
  export REQBENCH_NGINX_URL=$url
  export REQBENCH_NGINX_ROOT=$dir/www
  export REQBENCH_NGINX_TLS_URL=https://127.0.0.1:$tls_port
  export REQBENCH_TLS_CA=$dir/tls.crt
  export REQBENCH_NGINX_MTLS_URL=https://127.0.0.1:$mtls_port
  export REQBENCH_CLIENT_CERT=$dir/client.crt
  export REQBENCH_CLIENT_KEY=$dir/client.key
}

rb_start_httpbin() {
  [ -n "$RB_VENV" ] || ensure_httpbin
  rb_start_on_free_port httpbin /get 'Address already in use' rb_spawn_httpbin
  export REQBENCH_HTTPBIN_URL=http://127.0.0.1:$RB_PORT
}

rb_spawn_httpbin() {
  # gthread workers: 4 processes x 16 threads, so 64 slow requests (/delay, /drip) at once.
  "$RB_VENV/bin/gunicorn" --bind "127.0.0.1:$1" --worker-class gthread --workers 4 --threads 16 \
    --timeout 120 --graceful-timeout 2 --keep-alive 5 --log-level warning \
    --access-logfile "$RB_LOG_DIR/httpbin-access.log" \
    httpbin:app </dev/null >"$2" 2>&1 &
  RB_PID=$!
}

# rb_start_on_free_port NAME PROBE_PATH BUSY_TEXT SPAWN: `SPAWN PORT LOG` starts the server in the
# background on PORT (setting RB_PID); tried on up to three free ports while the log says BUSY_TEXT
# (another process took the port between the choice and the bind). Sets RB_PORT.
rb_start_on_free_port() {
  local name=$1 probe=$2 busy=$3 spawn=$4 attempt status log=$RB_LOG_DIR/$1.log
  for attempt in 1 2 3; do
    RB_PORT=$(rb_free_port)
    "$spawn" "$RB_PORT" "$log"
    status=0
    rb_wait_http "$name" "http://127.0.0.1:$RB_PORT$probe" "$RB_PID" || status=$?
    if [ "$status" -eq 0 ]; then
      break
    fi
    if [ "$status" -eq 2 ] && [ "$attempt" -lt 3 ] && grep -q "$busy" "$log"; then
      rb_log "$name: port $RB_PORT was taken meanwhile; trying another"
      continue
    fi
    rb_register_server "$name" "$RB_PID"
    rb_server_failed "$name" "$log"
  done
  rb_register_server "$name" "$RB_PID"
}

rb_start_sse() {
  [ -n "$RB_VENV" ] || ensure_httpbin
  local attempt port pid log=$RB_LOG_DIR/sse.log status
  for attempt in 1 2 3; do
    port=$(rb_free_port)
    "$RB_VENV/bin/python" -m uvicorn --app-dir "$RB_ROOT/Tests/Servers" sse_app:app --host 127.0.0.1 \
      --port "$port" --log-level warning --no-access-log </dev/null >"$log" 2>&1 &
    pid=$!
    status=0
    rb_wait_http sse "http://127.0.0.1:$port/health" "$pid" || status=$?
    if [ "$status" -eq 0 ]; then
      break
    fi
    if [ "$status" -eq 2 ] && [ "$attempt" -lt 3 ] && grep -q 'address already in use' "$log"; then
      rb_log "sse: port $port was taken meanwhile; trying another"
      continue
    fi
    rb_register_server sse "$pid"
    rb_server_failed sse "$log"
  done
  rb_register_server sse "$pid"
  export REQBENCH_SSE_URL=http://127.0.0.1:$port
}

# The OAuth 2.0 authorization server (Tests/OAuthServer/oauth_server.py: authlib's grants in a
# Flask app) in the httpbin venv. One worker process: its clients, codes and tokens are in memory.
rb_start_oauth() {
  [ -n "$RB_VENV" ] || ensure_httpbin
  rb_start_on_free_port oauth /test/stats 'Address already in use' rb_spawn_oauth
  export REQBENCH_OAUTH_URL=http://127.0.0.1:$RB_PORT
}

rb_spawn_oauth() {
  "$RB_VENV/bin/gunicorn" --bind "127.0.0.1:$1" --chdir "$RB_ROOT/Tests/OAuthServer" \
    --worker-class gthread --workers 1 --threads 16 --timeout 60 --graceful-timeout 2 \
    --log-level warning oauth_server:app </dev/null >"$2" 2>&1 &
  RB_PID=$!
}

rb_start_fixture() {
  local bin=${REQBENCH_BIN:-}
  if [ -z "$bin" ]; then
    bin="$(rb_swift build --show-bin-path)/reqbench"
  fi
  [ -x "$bin" ] || rb_die "fixture: $bin is not an executable; run \`swift build\` first or set REQBENCH_BIN"
  local attempt port pid log=$RB_LOG_DIR/fixture.log url="" status
  for attempt in 1 2 3; do
    port=$(rb_free_port)
    "$bin" demo-server --port "$port" </dev/null >"$log" 2>&1 &
    pid=$!
    # It prints `listening on http://127.0.0.1:PORT` once it is ready.
    local deadline=$((SECONDS + ${REQBENCH_SERVER_TIMEOUT:-60}))
    url=""
    status=0
    while :; do
      url=$(grep -m1 -oE 'listening on https?://[^[:space:]]+' "$log" 2>/dev/null | sed 's/^listening on //' || true)
      [ -z "$url" ] || break
      if ! rb_pid_alive "$pid"; then
        status=2
        break
      fi
      if [ "$SECONDS" -ge "$deadline" ]; then
        status=1
        break
      fi
      sleep 0.1
    done
    url=${url%/}
    [ "$status" -ne 0 ] || rb_wait_http fixture "$url/" "$pid" || status=$?
    if [ "$status" -eq 0 ]; then
      break
    fi
    if [ "$status" -eq 2 ] && [ "$attempt" -lt 3 ] && grep -qi 'address already in use' "$log"; then
      rb_log "fixture: port $port was taken meanwhile; trying another"
      continue
    fi
    rb_register_server fixture "$pid"
    case $status in
      1) rb_log "fixture: no 'listening on http://...' line from \`$bin demo-server --port $port\` in time" ;;
      2) rb_log "fixture: \`$bin demo-server --port $port\` exited before it answered" ;;
    esac
    rb_server_failed fixture "$log"
  done
  rb_register_server fixture "$pid"
  export REQBENCH_FIXTURE_URL=$url
}

# rb_stop_pid NAME PID: TERM, wait up to 10 s, then KILL (with its children).
rb_stop_pid() {
  local name=$1 pid=$2 i children
  rb_pid_alive "$pid" || return 0
  children=$(ps -o pid= --ppid "$pid" 2>/dev/null || true)
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 100); do
    rb_pid_alive "$pid" || break
    sleep 0.1
  done
  if rb_pid_alive "$pid"; then
    rb_log "$name (pid $pid) ignored TERM for 10 s; killing it"
    # shellcheck disable=SC2086 # a list of pids
    kill -KILL "$pid" $children 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# stop_servers [STATUS]: stops what start_servers started (idempotent). With a non-zero STATUS
# (or REQBENCH_KEEP_SERVER_LOGS=1) the logs folder is kept and printed; otherwise it is removed.
stop_servers() {
  local status=${1:-0} i
  for ((i = ${#RB_SERVER_PIDS[@]} - 1; i >= 0; i--)); do
    rb_stop_pid "${RB_SERVER_NAMES[$i]}" "${RB_SERVER_PIDS[$i]}"
  done
  RB_SERVER_NAMES=()
  RB_SERVER_PIDS=()
  if [ -n "$RB_NGINX_DIR" ]; then
    if [ -n "$RB_LOG_DIR" ] && [ -d "$RB_LOG_DIR" ]; then
      cp "$RB_NGINX_DIR/nginx.conf" "$RB_LOG_DIR/nginx.conf" 2>/dev/null || true
      cp "$RB_NGINX_DIR/error.log" "$RB_LOG_DIR/nginx-error.log" 2>/dev/null || true
      if [ "$status" -ne 0 ] || [ "${REQBENCH_KEEP_SERVER_LOGS:-0}" = 1 ]; then
        cp "$RB_NGINX_DIR/access.log" "$RB_LOG_DIR/nginx-access.log" 2>/dev/null || true
      fi
    fi
    rm -rf "$RB_NGINX_DIR"
    RB_NGINX_DIR=""
  fi
  if [ -n "$RB_LOG_DIR" ]; then
    if [ "$status" -ne 0 ] || [ "${REQBENCH_KEEP_SERVER_LOGS:-0}" = 1 ]; then
      rb_log "server logs kept in $RB_LOG_DIR"
    else
      rm -rf "$RB_LOG_DIR"
    fi
    RB_LOG_DIR=""
  fi
  unset REQBENCH_NGINX_URL REQBENCH_NGINX_ROOT REQBENCH_NGINX_TLS_URL REQBENCH_TLS_CA REQBENCH_NGINX_MTLS_URL REQBENCH_CLIENT_CERT REQBENCH_CLIENT_KEY REQBENCH_HTTPBIN_URL REQBENCH_FIXTURE_URL REQBENCH_SERVER_LOGS
}
