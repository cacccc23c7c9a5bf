#!/usr/bin/env bash
# One relay with two workers against two workers direct, on loopback: the latency of one-chunk jobs
# (submit, assign, compute 1,000 units, piece, commit, DONE seen) measured by `gleaner bench driver
# latency`, the two set-ups interleaved REPS times. A relay adds two crossings to each job (the
# assignment down, the piece up), as it adds two to each piece's acknowledgement (the piece up, the
# ack down). Every process it starts is ended by its PID.
#
#   bench/relay/loopback.sh [REPS] [JOBS]      (defaults: 3 repetitions of 300 jobs)
set -euo pipefail
REPS=${1:-3}
JOBS=${2:-300}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
G="$HERE/deploy/bin/gleaner"
DIR=$(mktemp -d /tmp/gleaner-relay-bench.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT INT TERM
head -c 32 /dev/urandom | base64 > "$DIR/secret"
chmod 600 "$DIR/secret"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
MPORT=$(free_port)
RPORT=$(free_port)
"$G" master --port "$MPORT" --bind 127.0.0.1 --data "$DIR/data" --secret-file "$DIR/secret" > "$DIR/master.log" 2>&1 &
PIDS+=($!)
for i in $(seq 1 120); do  # the master answers (at most 60 s)
  "$G" status --master "127.0.0.1:$MPORT" --secret-file "$DIR/secret" > /dev/null 2>&1 && break
  sleep 0.5
done
"$G" relay --id r1 --port "$RPORT" --bind 127.0.0.1 --master "127.0.0.1:$MPORT" --secret-file "$DIR/secret" \
  > "$DIR/relay.log" 2>&1 &
PIDS+=($!)
for i in $(seq 1 120); do  # the relay logged in (at most 60 s)
  "$G" status --master "127.0.0.1:$MPORT" --secret-file "$DIR/secret" | grep -q '^RELAYS' && break
  sleep 0.5
done
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ); $(nproc) cores"
run() {  # $1: direct or relay
  local up="127.0.0.1:$MPORT" w=()
  [ "$1" = relay ] && up="127.0.0.1:$RPORT,127.0.0.1:$MPORT"
  for id in w1 w2; do
    "$G" worker --id "$id" --cores 1 --master "$up" --secret-file "$DIR/secret" >> "$DIR/$id.log" 2>&1 &
    w+=($!)
  done
  PIDS+=("${w[@]}")
  "$G" bench driver latency --workers 2 --jobs "$JOBS" --master "127.0.0.1:$MPORT" --secret-file "$DIR/secret" \
    --json > "$DIR/$1.json"
  python3 - "$1" "$DIR/$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
m = d["connectedMedianMillis"]
print(f"{sys.argv[1]:7s} median {m:6.2f} ms  p90 {d['connectedP90Millis']:6.2f} ms  jobs/s {1000 / m:7.1f}")
PY
  local through
  through=$("$G" status --master "127.0.0.1:$MPORT" --secret-file "$DIR/secret" | grep -c "through relay r1" || true)
  echo "        workers through the relay: $through"
  for p in "${w[@]}"; do kill "$p"; wait "$p" 2>/dev/null || true; done
}
for r in $(seq 1 "$REPS"); do
  run direct
  run relay
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
