#!/usr/bin/env bash
# Builds JuiceClient's documentation (Sources/JuiceClient/JuiceClient.docc) with the toolchain's
# own `docc`: symbol graphs from `swift build`, then `docc convert`. No plugin package, so it
# works offline and with no dependency. Output: .build/docs/JuiceClient.doccarchive (or $1).
#   scripts/docs.sh [output-path]
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-.build/docs/JuiceClient.doccarchive}
# A build directory of its own: the symbol-graph flags would otherwise invalidate the main build.
scratch=.build/docs/build
graphs=.build/docs/symbol-graphs
docc=$(command -v docc || true)
if [ -z "$docc" ]; then
  # Toolchains ship docc beside swift; PATH may hold only the swift driver.
  docc="$(dirname "$(command -v swift)")/docc"
fi
[ -x "$docc" ] || { echo "docs.sh: no docc in this toolchain (looked beside $(command -v swift))" >&2; exit 1; }

rm -rf "$graphs"
mkdir -p "$graphs"
swift build --scratch-path "$scratch" --target JuiceClient \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs"
# Only JuiceClient's graphs: its dependencies' own symbols are not its API (the types it hands
# out are named through its typealiases).
find "$graphs" -name '*.symbols.json' ! -name 'JuiceClient.symbols.json' ! -name 'JuiceClient@*.symbols.json' -delete

rm -rf "$out"
"$docc" convert Sources/JuiceClient/JuiceClient.docc \
  --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name JuiceClient \
  --fallback-bundle-identifier org.juice-server.JuiceClient \
  --warnings-as-errors \
  --output-path "$out"
echo "docs.sh: $out"
