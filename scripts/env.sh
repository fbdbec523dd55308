# Sourced by scripts/room and scripts/test: makes .venv with the pinned dependencies, once.
# Usage: ensure_env [dev|cluster]   (with "dev": the test, lint and benchmark tools and the peers
# too; with "cluster": the PostgreSQL driver and the broker's client, which "dev" has as well)
set -euo pipefail

# The browser tests (tests/browser) drive Debian's chromium with Playwright; Playwright's own
# browser download does not work here, so the package comes from apt, once.
ensure_chromium() {
    if [ -x /usr/bin/chromium ]; then
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "The browser tests need Debian's chromium: run 'apt-get install chromium' as root." >&2
        return 0
    fi
    echo "Installing chromium with apt-get (for the browser tests) ..." >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
}

ensure_env() {
    local extras="${1:-}"
    local root venv stamp want
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv"
    stamp="$venv/.feltroom-installed"
    want="$(cat "$root/pyproject.toml" "$root/requirements/constraints.txt" | sha256sum | cut -d' ' -f1)"
    if [ "$extras" = "dev" ]; then
        ensure_chromium
    fi
    if [ -f "$stamp" ] && grep -qx "$want ${extras:-run}" "$stamp" 2>/dev/null; then
        return 0
    fi
    if [ -f "$stamp" ] && [ "$extras" != "dev" ] && grep -qx "$want dev" "$stamp"; then
        return 0  # a development environment serves the run command and the cluster too
    fi
    if [ -f "$stamp" ] && [ -z "$extras" ] && grep -qx "$want cluster" "$stamp"; then
        return 0  # so does the cluster's
    fi
    local python="${PYTHON:-python3}"
    if [ ! -x "$venv/bin/python" ]; then
        if ! "$python" -m venv "$venv" 2>/dev/null; then
            # Debian ships venv separately; we are root on a fresh machine.
            rm -rf "$venv"
            echo "Installing python3-venv with apt-get ..." >&2
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
            "$python" -m venv "$venv"
        fi
    fi
    local target="$root"
    [ -n "$extras" ] && target="$root[$extras]"
    "$venv/bin/python" -m pip install -q -c "$root/requirements/constraints.txt" -e "$target"
    echo "$want ${extras:-run}" > "$stamp"
}
