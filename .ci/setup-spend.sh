# Sourced by .ci/run before the tests (it exports variables): installs what the ledger stores and
# the dashboard test need from Debian, and starts a throwaway PostgreSQL cluster on a unix socket
# in a temporary folder. The ledger tests read GPUPLAN_TEST_POSTGRES_HOST/_USER; without them
# they skip PostgreSQL, unless GPUPLAN_REQUIRE_SERVICES=1 (set by .ci/run), when they fail.
spend_pkgs="postgresql libpq-dev libsqlite3-dev chromium python3 util-linux"
spend_missing=""
for p in $spend_pkgs; do dpkg -s "$p" >/dev/null 2>&1 || spend_missing="$spend_missing $p"; done
if [[ -n "$spend_missing" ]]; then
  spend_sudo=""
  [[ $(id -u) -ne 0 ]] && spend_sudo="sudo"
  echo "setup-spend: installing:$spend_missing" >&2
  $spend_sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $spend_sudo apt-get install -y -qq $spend_missing >/dev/null
fi

spend_pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
spend_pgdir=$(mktemp -d /tmp/gpuplan-pg.XXXXXX)
# PostgreSQL refuses to run as root: run the cluster as the postgres user Debian's package made.
spend_as=()
if [[ $(id -u) -eq 0 ]]; then
  chown postgres: "$spend_pgdir"
  spend_as=(runuser -u postgres --)
fi
"${spend_as[@]}" "$spend_pgbin/initdb" -D "$spend_pgdir/data" -A trust -U gpuplan >/dev/null
"${spend_as[@]}" "$spend_pgbin/pg_ctl" -D "$spend_pgdir/data" -l "$spend_pgdir/log" -w \
  -o "-k $spend_pgdir -c listen_addresses='' -c max_connections=200 -c fsync=on" start >/dev/null
export GPUPLAN_REQUIRE_SERVICES=${GPUPLAN_REQUIRE_SERVICES:-1}
export GPUPLAN_TEST_POSTGRES_HOST="$spend_pgdir" GPUPLAN_TEST_POSTGRES_USER=gpuplan
# Stop the cluster when .ci/run exits.
trap '"${spend_as[@]}" "$spend_pgbin/pg_ctl" -D "$spend_pgdir/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$spend_pgdir"' EXIT
echo "setup-spend: PostgreSQL $("$spend_pgbin/postgres" --version | awk '{print $3}') on $spend_pgdir" >&2
