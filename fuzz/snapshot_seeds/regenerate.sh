#!/usr/bin/env bash
# Write the raw snapshot seeds of the snapshot_decoder target (seeds/snapshot_decoder/
# snapshot-N.bin) again: each snapN.js here, run by `kiln sandbox` until it suspends at
# its host calls, then snapshotted. A snapshot is refused once the format or the realm's
# fingerprint changes (a new intrinsic), and the seeds would then stop at that check;
# run this after such a change. Needs a built `kiln` (the path may be given as $1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kiln="${1:-$here/../../target/${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}/release/kiln}"
out="$here/../seeds/snapshot_decoder"
cd "$here"
for n in 1 2 3; do
  # the script's name is part of the snapshot: run it as snapN.js from here
  echo "{\"snapshot\":\"$out/snapshot-$n.bin\"}" |
    "$kiln" sandbox "snap$n.js" --capability tools.a --capability tools.b >/dev/null
  # a seed must restore: it reaches the decoder's deeper checks
  # (it then exits with an error: no host answers its calls)
  state="$("$kiln" sandbox "$out/snapshot-$n.bin" --restore --capability tools.a \
    --capability tools.b </dev/null 2>/dev/null || true)"
  case "$state" in
    *'"type":"suspended"'*) ;;
    *) echo "snapshot-$n.bin does not restore: $state" >&2; exit 1 ;;
  esac
done
echo "wrote $out/snapshot-{1,2,3}.bin"
