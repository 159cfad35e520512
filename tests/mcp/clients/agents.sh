#!/bin/sh
# Tries the README's snippets for adding `airlock mcp serve` to Gemini CLI, Codex and Claude
# Code: installs the three from npm into a temporary prefix (nothing global), gives each a home
# of its own holding the README's configuration, and has each connect to airlock and list its
# tools without a model account:
#   - Gemini CLI: `gemini mcp list` (initialize and ping), then `gemini -p` with a dummy key and
#     the model pointed at a closed local port: it lists the MCP tools at start, then its model
#     call fails;
#   - Codex: `codex mcp list` / `codex mcp get` (configuration only), then its app server's
#     `mcpServerStatus/list`, which starts every server and returns its tools;
#   - Claude Code: `claude mcp add`, then `claude mcp list` (initialize and tools/list).
# A shim between client and server records the traffic, the witness of what each client did.
#
# Usage: tests/mcp/clients/agents.sh AIRLOCK_BINARY   (needs node/npm and the network for npm)
# Prints what each step did; exits non-zero when a client did not list airlock's tools.
set -eu

airlock=$(realpath "${1:?usage: agents.sh AIRLOCK_BINARY}")
scratch=$(mktemp -d)
trap 'kill $http_pid 2>/dev/null || true; rm -rf "$scratch"' EXIT
http_pid=
prefix=$scratch/npm
export HOME="$scratch/home" AIRLOCK_HOME="$scratch/home/.airlock"
mkdir -p "$prefix" "$HOME/bin" "$scratch/project"
cd "$scratch/project"
printf 'hello from the project\n' > notes.txt

echo "== installing @google/gemini-cli @openai/codex @anthropic-ai/claude-code into $prefix"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
  @google/gemini-cli @openai/codex @anthropic-ai/claude-code >/dev/null
bin=$prefix/node_modules/.bin
echo "node $(node --version); gemini $("$bin/gemini" --version); $("$bin/codex" --version 2>/dev/null);" \
  "claude $("$bin/claude" --version)"

# `airlock` on PATH, as the snippets name it, behind the recording shim.
cat > "$HOME/bin/airlock" <<EOF
#!/bin/sh
log=$scratch/traffic.\$\$
tee "\$log.in" | "$airlock" "\$@" | tee "\$log.out"
EOF
chmod +x "$HOME/bin/airlock"
export PATH="$HOME/bin:$PATH"

failed=0
# Checks the traffic since the last check: the client asked tools/list and airlock answered
# with its read_file tool.
listed() {
  if cat "$scratch"/traffic.*.in 2>/dev/null | grep -q '"method":"tools/list"' &&
    cat "$scratch"/traffic.*.out 2>/dev/null | grep -q '"name":"read_file"'; then
    echo "-- $1: listed airlock's tools (read_file among them)"
  else
    echo "-- $1: did NOT list airlock's tools"
    failed=1
  fi
  rm -f "$scratch"/traffic.*
}

echo "== Gemini CLI (~/.gemini/settings.json)"
mkdir -p "$HOME/.gemini"
cat > "$HOME/.gemini/settings.json" <<'EOF'
{
  "mcpServers": {
    "airlock": { "command": "airlock", "args": ["mcp", "serve"] }
  },
  "security": { "auth": { "selectedType": "gemini-api-key" } }
}
EOF
# Gemini CLI runs no MCP server in a folder the user has not trusted.
printf '{"%s": "TRUST_FOLDER"}\n' "$PWD" > "$HOME/.gemini/trustedFolders.json"
"$bin/gemini" mcp list 2>&1 | grep airlock || true
rm -f "$scratch"/traffic.*
GEMINI_API_KEY=not-a-key GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9 timeout 20 "$bin/gemini" -p hi >/dev/null 2>&1 || true
listed "gemini -p (tools at start)"

echo "== Codex (~/.codex/config.toml)"
mkdir -p "$HOME/.codex"
cat > "$HOME/.codex/config.toml" <<'EOF'
[mcp_servers.airlock]
command = "airlock"
args = ["mcp", "serve"]
EOF
"$bin/codex" mcp list 2>/dev/null
"$bin/codex" mcp get airlock 2>/dev/null | head -4
{
  echo '{"method":"initialize","id":0,"params":{"clientInfo":{"name":"try","title":"try","version":"0"}}}'
  echo '{"method":"initialized"}'
  echo '{"method":"mcpServerStatus/list","id":1,"params":{}}'
  sleep 15
} | timeout 30 "$bin/codex" app-server 2>/dev/null | grep '"id":1' | head -c 400 || true
echo
listed "codex app-server mcpServerStatus/list"

echo "== Claude Code (claude mcp add)"
"$bin/claude" mcp add airlock -- airlock mcp serve
"$bin/claude" mcp list 2>&1 | grep airlock || true
listed "claude mcp list"

echo "== over HTTP: airlock mcp serve --http 127.0.0.1:8765, token from AIRLOCK_MCP_TOKEN"
export AIRLOCK_MCP_TOKEN
AIRLOCK_MCP_TOKEN=$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
"$airlock" mcp serve --http 127.0.0.1:8765 2>"$scratch/http.log" &
http_pid=$!
sleep 2
head -1 "$scratch/http.log"
"$bin/claude" mcp add --transport http airlock-http http://127.0.0.1:8765/mcp \
  --header "Authorization: Bearer $AIRLOCK_MCP_TOKEN"
"$bin/claude" mcp list 2>&1 | grep airlock-http || failed=1
cat >> "$HOME/.codex/config.toml" <<'EOF'

[mcp_servers.airlock_http]
url = "http://127.0.0.1:8765/mcp"
bearer_token_env_var = "AIRLOCK_MCP_TOKEN"
EOF
{
  echo '{"method":"initialize","id":0,"params":{"clientInfo":{"name":"try","title":"try","version":"0"}}}'
  echo '{"method":"initialized"}'
  echo '{"method":"mcpServerStatus/list","id":1,"params":{}}'
  sleep 15
} | timeout 30 "$bin/codex" app-server 2>/dev/null | grep '"id":1' | grep -o '"name":"airlock_http".*' >"$scratch/codex-http" || true
if grep -q '"read_file"' "$scratch/codex-http"; then
  echo "-- codex over HTTP: listed airlock's tools (read_file among them)"
else
  echo "-- codex over HTTP: did NOT list airlock's tools"
  failed=1
fi
"$bin/gemini" mcp add -s user -t http airlock-http http://127.0.0.1:8765/mcp \
  -H "Authorization: Bearer $AIRLOCK_MCP_TOKEN" >/dev/null
"$bin/gemini" mcp list 2>&1 | grep airlock-http || failed=1
exit $failed
