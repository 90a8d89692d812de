#!/usr/bin/env bash
# The soak test's long run: sets up, builds kpn with its tests (build/), then runs build/bin/kpn-soak for
# N minutes (default 10) at low priority: random networks checked against a sequential oracle under every
# registered policy on 1, 2 and 4 workers. The output is also kept in build/soak.log. Other arguments go to
# kpn-soak (--first-seed S, --policy NAME, --workers 1,2,4, --timeout-s T); `kpn-soak --seed S` replays one
# network. Exits 1 if any run failed or hung.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=10
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="${2:?--minutes needs a value}"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

bash scripts/setup.sh
bash scripts/build.sh -DKPN_WERROR=ON
nice -n 10 build/bin/kpn-soak --minutes "$minutes" "${args[@]}" 2>&1 | tee build/soak.log
