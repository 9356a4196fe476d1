#!/usr/bin/env bash
# Draws the till's app icons (the web app manifest's, Pages/till.webmanifest) from their SVG,
# Sources/JuiceHTTP/Pages/icons/till-app.svg, with headless Chromium: 192 and 512 px PNGs, which
# the EmbedFiles plugin embeds byte for byte. The PNGs are committed, so a build needs no browser:
# run this only after changing the SVG.
#
#     scripts/till-icons.sh [CHROMIUM]      (default: chromium)
set -euo pipefail
cd "$(dirname "$0")/../Sources/JuiceHTTP/Pages"
browser="${1:-chromium}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp icons/till-app.svg "$work/icon.svg"
for size in 192 512; do
    cat > "$work/icon-$size.html" <<HTML
<!doctype html><html><head><style>html, body { margin: 0; background: transparent; }
img { display: block; width: ${size}px; height: ${size}px; }</style></head><body><img src="icon.svg"></body></html>
HTML
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --default-background-color=00000000 \
        --force-device-scale-factor=1 --window-size="$size,$size" --screenshot="$work/till-icon-$size.png" \
        "file://$work/icon-$size.html" >/dev/null 2>&1
    cp "$work/till-icon-$size.png" "till-icon-$size.png"
    echo "till-icon-$size.png: $(wc -c < "till-icon-$size.png") bytes"
done
