#!/usr/bin/env bash
# Compare the read speed of this checkout over two databases side by side (issue 15: 100,000 events
# without and with 10,000 weekly series): one server per database, loaded in alternating rounds
# (A, B, A, B, ...) so that whatever else the machine does falls on both. Per round it prints
# requests per second and the server's own CPU time per request (from /proc: utime + stime of the
# server process, which other load on the machine barely changes), then the medians and the ratio B/A.
# Each round starts its server afresh, so every round includes the first requests (the kept results
# are built again).
#
# usage: bench/paired-databases.sh URL_A URL_B [ROUNDS=5] [SECONDS=5]
#   e.g. bench/paired-databases.sh sqlite:data/bench/events-100000.db sqlite:data/bench/events-100000+10000w.db 5 5
#   (the databases as `npm run bench` leaves them with BENCH_SIZES=100000 BENCH_SERIES=10000)
#   AFTER_WRITE=20  then also, per round, this many times: create one event (published, category
#   music, "jazz" in its title, within 90 days) and read the default list, the filtered list and
#   page 100 right after it (first reads after a write); this adds events to both databases
set -euo pipefail
A=$1; B=$2; ROUNDS=${3:-5}; SECONDS_=${4:-5}; AFTER_WRITE=${AFTER_WRITE:-0}
HERE=$(cd "$(dirname "$0")/.." && pwd)
AUTOCANNON="$HERE/node_modules/.bin/autocannon"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
TODAY=$(date -u +%F); IN90=$(date -u -d '+90 days' +%F)
NS=/api/calendar/events/v1
PATHS=("$NS/events/__ID__" "$NS/events" "$NS/events?categories=music&start_date=$TODAY&end_date=$IN90&search=jazz" "$NS/events?page=100")

serve() { # url port
  (cd "$HERE" && RATE_LIMIT_MAX=0 LOG_LEVEL=warn CALENDAR_TIMEZONE=UTC CALENDAR_ADMIN_USER=bench-admin CALENDAR_ADMIN_PASSWORD=bench-admin-password DATABASE_URL=$1 PORT=$2 exec node dist/cli/main.js serve >"$WORK/serve-$2.log" 2>&1) &
  echo $!
}
wait_up() { for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$1$NS/" && return 0; sleep 0.1; done; echo "server on $1 did not start" >&2; exit 1; }

round() { # url port path -> "req/s cpu_us non2xx"
  pid=$(serve "$1" "$2"); trap 'kill "$pid" 2>/dev/null || true' EXIT; wait_up "$2"
  # The single event: the same seeded event in both databases.
  local path=$3
  if [[ $path == *__ID__* ]]; then
    # (series get no tags: the first upcoming event with the first tag is a seeded event, not an occurrence)
    local tag; tag=$(curl -s "http://127.0.0.1:$2$NS/tags?per_page=1" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tags[0].id))')
    path=${path/__ID__/$(curl -s "http://127.0.0.1:$2$NS/events?per_page=1&tags=$tag" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).events[0].id))')}
  fi
  curl -s -o /dev/null "http://127.0.0.1:$2$path" # the first answer: the list totals are counted for it
  "$AUTOCANNON" -c 10 -d 1 "http://127.0.0.1:$2$path" >/dev/null 2>&1
  local t0; t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  "$AUTOCANNON" -c 10 -d "$SECONDS_" --json "http://127.0.0.1:$2$path" 2>/dev/null >"$WORK/ac.json"
  local t1; t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1]));const hz=Number(process.argv[4]);console.log(Math.round(j.requests.average), Math.round((process.argv[2]-process.argv[3])*1e6/hz/j.requests.total), j.non2xx, j.latency.p50, j.latency.p99)' "$WORK/ac.json" "$t1" "$t0" "$(getconf CLK_TCK)"
}

after_write() { # url port -> "list filtered page100" medians (ms)
  # (each round runs in a subshell of its own: its server is stopped when it ends, however it ends)
  pid=$(serve "$1" "$2"); trap 'kill "$pid" 2>/dev/null || true' EXIT; wait_up "$2"
  node - "$2" "$AFTER_WRITE" <<'JS'
const [port, n] = process.argv.slice(2);
const base = `http://127.0.0.1:${port}/api/calendar/events/v1`;
const auth = 'Basic ' + Buffer.from('bench-admin:bench-admin-password').toString('base64');
const day = (d) => new Date(Date.now() + d * 864e5).toISOString().slice(0, 10);
const paths = { list: '/events', filtered: `/events?categories=music&start_date=${day(0)}&end_date=${day(90)}&search=jazz`, page100: '/events?page=100' };
const get = async (p) => { const t = performance.now(); const r = await fetch(base + p); await r.text(); if (r.status !== 200) throw new Error(`${p}: ${r.status}`); return performance.now() - t; };
const music = (await (await fetch(base + '/categories?per_page=100')).json()).categories.find((c) => c.slug === 'music');
for (const p of Object.values(paths)) await get(p);
const times = { list: [], filtered: [], page100: [] };
for (let i = 0; i < Number(n); i++) {
  const d = day(1 + (i % 80));
  const r = await fetch(base + '/events', { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Paired jazz ${Date.now()}-${i}`, description: 'live jazz', status: 'publish', start_date: `${d} 20:00:00`, end_date: `${d} 22:00:00`, categories: music ? [music.id] : [] }) });
  await r.text();
  if (r.status !== 201) throw new Error(`create: ${r.status}`);
  for (const [k, p] of Object.entries(paths)) times[k].push(await get(p));
}
const med = (v) => { v.sort((a, b) => a - b); return v[v.length >> 1].toFixed(1); };
console.log(med(times.list), med(times.filtered), med(times.page100));
JS
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

for port in 9321 9322; do
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is taken by another process" >&2; exit 1; fi
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "| read | round | A req/s | B req/s | A CPU µs/req | B CPU µs/req | A p50/p99 ms | B p50/p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
SUMMARY=()
for path in "${PATHS[@]}"; do
  : >"$WORK/a"; : >"$WORK/b"
  label=${path#"$NS"}; label=${label/__ID__/{id\}}
  for r in $(seq "$ROUNDS"); do
    read -r arps acpu anon ap50 ap99 < <(round "$A" 9321 "$path")
    read -r brps bcpu bnon bp50 bp99 < <(round "$B" 9322 "$path")
    if [[ $anon != 0 || $bnon != 0 ]]; then echo "non-2xx answers (A $anon, B $bnon) on $label" >&2; exit 1; fi
    echo "$arps $acpu $ap50 $ap99" >>"$WORK/a"; echo "$brps $bcpu $bp50 $bp99" >>"$WORK/b"
    echo "| $label | $r | $arps | $brps | $acpu | $bcpu | $ap50/$ap99 | $bp50/$bp99 |"
  done
  m() { cut -d' ' -f"$2" "$WORK/$1" | median; }
  SUMMARY+=("| $label | $(m a 1) | $(m b 1) | $(node -e "console.log(($(m b 1)/$(m a 1)).toFixed(2))")× | $(m a 2) | $(m b 2) | $(node -e "console.log(($(m b 2)/$(m a 2)).toFixed(2))")× | $(m a 3) / $(m a 4) | $(m b 3) / $(m b 4) |")
done
echo
echo "Medians of $ROUNDS rounds of $SECONDS_ s (A = $A, B = $B):"
echo
echo "| read | A req/s | B req/s | B/A | A CPU µs/req | B CPU µs/req | B/A | A p50 / p99 ms | B p50 / p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${SUMMARY[@]}"

if [[ $AFTER_WRITE -gt 0 ]]; then
  echo
  echo "First reads after a write, medians of $AFTER_WRITE creates per round (ms):"
  echo
  echo "| round | A list | B list | A filtered | B filtered | A page 100 | B page 100 |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  : >"$WORK/wa"; : >"$WORK/wb"
  for r in $(seq "$ROUNDS"); do
    read -r al af ap < <(after_write "$A" 9321)
    read -r bl bf bp < <(after_write "$B" 9322)
    echo "$al $af $ap" >>"$WORK/wa"; echo "$bl $bf $bp" >>"$WORK/wb"
    echo "| $r | $al | $bl | $af | $bf | $ap | $bp |"
  done
  m() { cut -d' ' -f"$2" "$WORK/$1" | median; }
  echo "| median | $(m wa 1) | $(m wb 1) | $(m wa 2) | $(m wb 2) | $(m wa 3) | $(m wb 3) |"
fi
