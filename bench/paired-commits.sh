#!/usr/bin/env bash
# Compare the read speed of two checkouts of this project side by side (a regression check between
# commits): each serves its own SQLite database seeded with the same events, and the two are loaded
# in alternating rounds (old, new, old, new, ...) so that whatever else the machine does falls on
# both. Per round it prints requests per second and the server's own CPU time per request (from
# /proc: utime + stime of the server process, which other load on the machine barely changes),
# then the medians and the ratio new/old.
#
# usage: bench/paired-commits.sh OLD_CHECKOUT NEW_CHECKOUT [EVENTS=20000] [ROUNDS=5] [SECONDS=5]
#   reads: the single event, the list and a filtered list (category + search); PAIRED_PATHS overrides
#   each checkout built (npm ci), e.g.  git worktree add /tmp/old 990575b && (cd /tmp/old && npm ci)
#   DATABASE=postgres://user@host/db_old,postgres://user@host/db_new  use these (seeded) databases instead
#   RATE_LIMIT=1000000000  keep the rate limit on (counting every request, at a limit the run does not
#                          reach) instead of off (RATE_LIMIT_MAX=0, the default here)
set -euo pipefail
OLD=$(cd "$1" && pwd); NEW=$(cd "$2" && pwd); EVENTS=${3:-20000}; ROUNDS=${4:-5}; SECONDS_=${5:-5}
HERE=$(cd "$(dirname "$0")/.." && pwd)
AUTOCANNON="$HERE/node_modules/.bin/autocannon"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
# PAIRED_PATHS (space-separated) overrides the reads: the single event, the list, a filtered list.
read -ra PATHS <<<"${PAIRED_PATHS:-/api/calendar/events/v1/events/__ID__ /api/calendar/events/v1/events /api/calendar/events/v1/events?categories=music&search=jazz}"

db_of() { # checkout index -> database URL
  if [[ -n "${DATABASE:-}" ]]; then IFS=, read -ra urls <<<"$DATABASE"; echo "${urls[$1]}"; else echo "sqlite:$WORK/db$1.db"; fi
}

i=0
for dir in "$OLD" "$NEW"; do
  url=$(db_of $i)
  if [[ $url == sqlite:* ]]; then
    (cd "$dir" && CALENDAR_ADMIN_USER=admin CALENDAR_ADMIN_PASSWORD=bench DATABASE_URL=$url node dist/cli/main.js seed --events "$EVENTS" --no-progress >/dev/null)
  fi
  i=$((i + 1))
done

# A published event in the list's window: the first one the list shows.
serve() { # dir url port
  (cd "$1" && RATE_LIMIT_MAX=${RATE_LIMIT:-0} LOG_LEVEL=warn DATABASE_URL=$2 PORT=$3 exec node dist/cli/main.js serve >"$WORK/serve-$3.log" 2>&1) &
  echo $!
}
wait_up() { for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$1/api/calendar/events/v1/" && return 0; sleep 0.1; done; echo "server on $1 did not start" >&2; exit 1; }

round() { # dir url port path -> "req/s cpu_us"
  local pid; pid=$(serve "$1" "$2" "$3"); wait_up "$3"
  local path=${4/__ID__/$(curl -s "http://127.0.0.1:$3/api/calendar/events/v1/events?per_page=1" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).events[0].id))')}
  "$AUTOCANNON" -c 10 -d 1 "http://127.0.0.1:$3$path" >/dev/null 2>&1
  local t0; t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  "$AUTOCANNON" -c 10 -d "$SECONDS_" --json "http://127.0.0.1:$3$path" 2>/dev/null >"$WORK/ac.json"
  local t1; t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1]));const hz=Number(process.argv[4]);console.log(Math.round(j.requests.average), Math.round((process.argv[2]-process.argv[3])*1e6/hz/j.requests.total), j.non2xx)' "$WORK/ac.json" "$t1" "$t0" "$(getconf CLK_TCK)"
}

echo "| read | round | old req/s | new req/s | old CPU µs/req | new CPU µs/req |"
echo "|---|---:|---:|---:|---:|---:|"
for path in "${PATHS[@]}"; do
  : >"$WORK/old"; : >"$WORK/new"
  for r in $(seq "$ROUNDS"); do
    read -r orps ocpu onon < <(round "$OLD" "$(db_of 0)" 9311 "$path")
    read -r nrps ncpu nnon < <(round "$NEW" "$(db_of 1)" 9312 "$path")
    if [[ $onon != 0 || $nnon != 0 ]]; then echo "non-2xx answers (old $onon, new $nnon)" >&2; exit 1; fi
    echo "$orps $ocpu" >>"$WORK/old"; echo "$nrps $ncpu" >>"$WORK/new"
    echo "| ${path/__ID__/{id\}} | $r | $orps | $nrps | $ocpu | $ncpu |"
  done
  node -e '
    const fs=require("fs");const rd=f=>fs.readFileSync(f,"utf8").trim().split("\n").map(l=>l.split(" ").map(Number));
    const med=a=>{const s=[...a].sort((x,y)=>x-y);return s[Math.floor(s.length/2)]};
    const o=rd(process.argv[1]),n=rd(process.argv[2]);
    const [or,oc,nr,nc]=[med(o.map(x=>x[0])),med(o.map(x=>x[1])),med(n.map(x=>x[0])),med(n.map(x=>x[1]))];
    console.log(`| ${process.argv[3]} | **median** | ${or} | ${nr} (${(nr/or).toFixed(2)}x) | ${oc} | ${nc} (${(nc/oc).toFixed(2)}x) |`);
  ' "$WORK/old" "$WORK/new" "${path/__ID__/{id\}}"
done
