#!/usr/bin/env bash
# Lighthouse 12.2.3 (package.json; `npm ci --ignore-scripts` first) on the bundled demo, mobile
# (Lighthouse's default: a mid-range phone, simulated slow 4G) and desktop (`--preset=desktop`):
# home and post in both languages, a tag page, the archive and search. The demo is a fresh copy
# served by `masthead serve --no-watch --workers 1` on 127.0.0.1; Chromium is $CHROME_PATH, else
# /usr/bin/chromium. Writes each report's JSON to bench/out/lighthouse/ and prints the scores as
# a Markdown table, with every audit below 1 in accessibility, best practices and SEO.
#
#   bash bench/lighthouse.sh            # all pages, both form factors
#   PAGES="/ /archive/" FACTORS=mobile CATEGORIES=accessibility,seo bash bench/lighthouse.sh
#   RUNS=3 PAGES=/posts/typography-for-long-reads/ FACTORS=mobile CATEGORIES=performance bash bench/lighthouse.sh
#
# RUNS=N runs every page N times in rounds against the same server (each run is its own
# Chromium); every report is kept as NAME.runK.json, and a second table gives each run's score,
# metrics (ms), the 1-minute load average when it started and its longest main-thread task; then
# every layout shift Lighthouse found, with the element that moved. Two columns say why a
# run's simulated LCP moved: Lantern (the simulated throttling) builds its pessimistic LCP from
# every request that finished before the LCP observed in the unthrottled trace, so the table
# gives that observed LCP, the requests (and kB) finished before it, and how many of them were
# low-priority (lazy) images: on 127.0.0.1 a lazy photo can arrive before a late first paint
# and is then counted as sharing the simulated slow 4G with the page's largest image.
#
# SITE=DIR serves a copy of the site folder DIR instead of the demo (e.g. the technical post of
# issue 32: `python3 bench/technical_post.py write DIR`, then PAGES=/posts/survey/). SCHEME=dark
# runs Chromium with --force-dark-mode (prefers-color-scheme: dark; the theme the page follows).
#
# MASTHEAD=/path/to/other/checkout/.venv/bin/masthead serves the demo with another checkout's code
# (its templates and static files), for before/after rounds on the same machine; OUT=dir keeps
# that series' reports apart (default bench/out/lighthouse).
#
# THROTTLING=devtools makes Chromium itself slow the network and CPU (Lighthouse's "applied"
# throttling) instead of simulating them from an unthrottled trace (the default, `simulate`):
# a cross-check where the simulation's picture of which requests share the network is in doubt.
#
# Performance scores depend on the machine's load: run it on a quiet machine, and more than once.
set -euo pipefail
cd "$(dirname "$0")/.."

LIGHTHOUSE=node_modules/.bin/lighthouse
[ -x "$LIGHTHOUSE" ] || { echo "error: $LIGHTHOUSE missing: run npm ci --ignore-scripts" >&2; exit 2; }
CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}
export CHROME_PATH
PORT=${PORT:-8765}
PAGES=${PAGES:-"/ /zh/ /posts/typography-for-long-reads/ /zh/posts/typography-for-long-reads/ /tags/typography/ /archive/ /search?q=kubelet"}
OUT=${OUT:-bench/out/lighthouse}
MASTHEAD=${MASTHEAD:-.venv/bin/masthead}
mkdir -p "$OUT"

site=$(mktemp -d)
cp -r "${SITE:-src/masthead/demo}" "$site/demo"
rm -rf "$site/demo/.masthead"
"$MASTHEAD" serve "$site/demo" --port "$PORT" --no-watch --workers 1 >"$OUT/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$site"' EXIT
for _ in $(seq 900); do  # up to 3 minutes: a first index makes every photo's renditions
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null

"$LIGHTHOUSE" --version
RUNS=${RUNS:-1}
: >"$OUT/runs.tsv"
rm -f "$OUT"/*.run*.json
for run in $(seq "$RUNS"); do
  for factor in ${FACTORS:-mobile desktop}; do
    preset=()
    [ "$factor" = desktop ] && preset=(--preset=desktop)
    for path in $PAGES; do
      name=$(printf '%s' "$path" | tr -c 'a-zA-Z0-9' '_')
      printf '%s\t%s\t%s\t%s\t%s\n' "$run" "$factor" "$path" "$(cut -d' ' -f1 /proc/loadavg)" \
        "$(date -u +%H:%M:%S)" >>"$OUT/runs.tsv"
      # once more if Lighthouse lost the trace (NO_NAVSTART: "Please run Lighthouse again")
      for attempt in 1 2; do
        "$LIGHTHOUSE" "http://127.0.0.1:$PORT$path" "${preset[@]}" --quiet \
          --throttling-method="${THROTTLING:-simulate}" \
          --only-categories="${CATEGORIES:-performance,accessibility,best-practices,seo}" \
          --chrome-flags="--headless --no-sandbox --disable-gpu${SCHEME:+ --force-$SCHEME-mode}" \
          --output=json --output-path="$OUT/$factor$name.json" && break
        [ "$attempt" = 2 ] && exit 1
        echo "run $run $factor $path failed; once more" >&2
      done
      cp "$OUT/$factor$name.json" "$OUT/$factor$name.run$run.json"
    done
  done
done

python3 - "$OUT" $PAGES <<'EOF'
import json, os, sys
out, pages = sys.argv[1], sys.argv[2:]
cats = ["performance", "accessibility", "best-practices", "seo"]
print("| page | form factor | " + " | ".join(cats) + " | CLS |")
print("| --- | --- |" + " --- |" * len(cats) + " --- |")
failing = []
for factor in os.environ.get("FACTORS", "mobile desktop").split():
    for path in pages:
        name = "".join(c if c.isalnum() else "_" for c in path)
        report = json.load(open(f"{out}/{factor}{name}.json"))
        scores = [report["categories"].get(c, {}).get("score") for c in cats]
        cls = report["audits"].get("cumulative-layout-shift", {}).get("numericValue")
        cells = " | ".join("—" if s is None else str(round(s * 100)) for s in scores)
        shift = "—" if cls is None else f"{cls:.3f}"
        print(f"| `{path}` | {factor} | {cells} | {shift} |")
        for c in cats[1:]:
            for ref in report["categories"].get(c, {}).get("auditRefs", []):
                audit = report["audits"][ref["id"]]
                if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                    failing.append(f"{factor} {path} {c}: {ref['id']} ({audit['title']})")
print()
print("\n".join(failing) or "every accessibility, best-practices and SEO audit passed")

# one line per run: what the performance score is made of
metrics = {"FCP": "first-contentful-paint", "LCP": "largest-contentful-paint",
           "TBT": "total-blocking-time", "SI": "speed-index", "TTFB": "server-response-time"}
print()
print("| run | page | form factor | start (UTC) | load | performance | " + " | ".join(metrics)
      + " | longest task (simulated, ms) | observed LCP (ms) | done before it: requests, kB"
      + " | of them low-priority images |")
print("| --- | --- | --- | --- | ---: | ---: |" + " ---: |" * (len(metrics) + 4))
shifted = []
for line in open(f"{out}/runs.tsv"):
    run, factor, path, load, start = line.rstrip("\n").split("\t")
    name = "".join(c if c.isalnum() else "_" for c in path)
    report = json.load(open(f"{out}/{factor}{name}.run{run}.json"))
    audits = report["audits"]
    perf = report["categories"]["performance"]["score"] if "performance" in report["categories"] else None
    values = [audits.get(a, {}).get("numericValue") for a in metrics.values()]
    tasks = audits.get("long-tasks", {}).get("details", {}).get("items", [])
    longest = max((t["duration"] for t in tasks), default=0)
    cells = " | ".join("—" if v is None else f"{v:.0f}" for v in values)
    score = "—" if perf is None else round(perf * 100)
    # Lantern's pessimistic LCP graph holds every request that ended before the LCP observed in
    # the (unthrottled) trace: what finished before it, and how much of that was lazy images
    observed = audits["metrics"]["details"]["items"][0]
    requests = audits["network-requests"]["details"]
    lcp = observed.get("observedLargestContentfulPaint")
    offset = (requests["debugData"]["networkStartTimeTs"] - observed["observedNavigationStartTs"]) / 1000
    done = [r for r in requests["items"] if lcp is not None and r.get("networkEndTime") is not None
            and r["networkEndTime"] + offset <= lcp and r.get("resourceType") != "Document"]
    low = [r for r in done if r.get("resourceType") == "Image" and r.get("priority") in ("Low", "VeryLow")]
    before = f"{len(done)}, {sum(r.get('transferSize', 0) for r in done) / 1000:.0f}"
    lazy = f"{len(low)}, {sum(r.get('transferSize', 0) for r in low) / 1000:.0f} kB"
    print(f"| {run} | `{path}` | {factor} | {start} | {load} | {score} | {cells} | {longest:.0f} |"
          f" {'—' if lcp is None else f'{lcp:.0f}'} | {before} | {lazy} |")
    shifts = audits.get("layout-shifts", {}).get("details", {}).get("items", [])
    for item in shifts:  # what moved, when CLS is not 0 (Lighthouse's layout-shifts audit)
        node = item.get("node", {})
        shifted.append(f"run {run} {factor} {path}: {item.get('score', 0):.4f} "
                       f"{node.get('selector', '?')} {node.get('snippet', '')[:90]}")
print()
print("\n".join(shifted) or "no layout shift in any run")
EOF
