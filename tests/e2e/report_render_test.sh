#!/usr/bin/env bash
# The HTML report renders in a real browser: runs two scenarios into run
# directories, makes one report of both (twice: byte-identical), loads it
# in headless Chromium and checks that
#   - the DOM Chromium built holds every inline <svg> chart of the file and
#     their <polyline> series, and no script;
#   - the screenshot is not blank: many colours, and pixels in both runs'
#     series colours (#1f77b4 and #d62728) were actually painted.
# Fails (never skips) when chromium is not installed: dev.sh installs it.
#
#   report_render_test.sh KUEUESIM_BINARY SOURCE_DIR
set -euo pipefail

sim="$1"
root="$2"
chromium_bin="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "${chromium_bin}" ]; then
  echo "FAIL: chromium is not installed (apt-get install -y chromium, or ./dev.sh installs it)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
cd "${work}"

"${sim}" run "${root}/scenarios/docs/fair-sharing.yaml" --out fair-sharing --quiet
"${sim}" run "${root}/scenarios/docs/cli-preemption.yaml" --out cli-preemption --quiet
for f in events.jsonl summary.json timeseries.jsonl; do
  [ -s "fair-sharing/${f}" ] || { echo "FAIL: run directory lacks ${f}" >&2; exit 1; }
done
"${sim}" report fair-sharing cli-preemption -o report.html
"${sim}" report fair-sharing cli-preemption -o report-again.html
cmp report.html report-again.html || { echo "FAIL: the same runs gave different HTML" >&2; exit 1; }

# Self-contained: no script, nothing fetched.
if grep -Eq '<script|<link|src="http|href="http' report.html; then
  echo "FAIL: the report references scripts or external resources" >&2
  exit 1
fi

svgs_in_file="$(grep -o '<svg ' report.html | wc -l)"
if [ "${svgs_in_file}" -lt 6 ]; then
  echo "FAIL: expected at least 6 charts in report.html, found ${svgs_in_file}" >&2
  exit 1
fi

flags=(--headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="${work}/profile")
timeout 120 "${chromium_bin}" "${flags[@]}" --dump-dom "file://${work}/report.html" > dom.html 2> chromium-dom.log || {
  echo "FAIL: chromium --dump-dom failed:" >&2
  tail -20 chromium-dom.log >&2
  exit 1
}
svgs_in_dom="$(grep -o '<svg ' dom.html | wc -l)"
polylines_in_dom="$(grep -o '<polyline ' dom.html | wc -l)"
if [ "${svgs_in_dom}" -ne "${svgs_in_file}" ]; then
  echo "FAIL: the DOM holds ${svgs_in_dom} <svg> elements, the file ${svgs_in_file}" >&2
  exit 1
fi
if [ "${polylines_in_dom}" -lt "${svgs_in_file}" ]; then
  echo "FAIL: only ${polylines_in_dom} series (<polyline>) in the DOM for ${svgs_in_file} charts" >&2
  exit 1
fi

timeout 120 "${chromium_bin}" "${flags[@]}" --window-size=1300,2400 --screenshot="${work}/shot.png" \
  "file://${work}/report.html" > chromium-shot.log 2>&1 || {
  echo "FAIL: chromium --screenshot failed:" >&2
  tail -20 chromium-shot.log >&2
  exit 1
}
[ -s shot.png ] || { echo "FAIL: chromium wrote no screenshot" >&2; exit 1; }

/usr/bin/python3 - shot.png <<'EOF'
# Decodes the PNG (8-bit RGB/RGBA, non-interlaced) with zlib and checks the
# picture is not trivial.
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, header = 8, b"", None
while pos < len(data):
    (length,) = struct.unpack(">I", data[pos:pos + 4])
    kind = data[pos + 4:pos + 8]
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
width, height, depth, colour, _, _, interlace = header
assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
channels = 3 if colour == 2 else 4
stride = width * channels
raw = zlib.decompress(idat)
rows, previous = [], bytearray(stride)
for y in range(height):
    filter_type = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        left = line[i - channels] if i >= channels else 0
        up = previous[i]
        up_left = previous[i - channels] if i >= channels else 0
        if filter_type == 1:
            line[i] = (line[i] + left) & 255
        elif filter_type == 2:
            line[i] = (line[i] + up) & 255
        elif filter_type == 3:
            line[i] = (line[i] + (left + up) // 2) & 255
        elif filter_type == 4:
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
            line[i] = (line[i] + predictor) & 255
    rows.append(bytes(line))
    previous = line
colours = {}
for line in rows:
    for x in range(0, stride, channels):
        pixel = line[x:x + 3]
        colours[pixel] = colours.get(pixel, 0) + 1
background = max(colours.values())
total = width * height
series = {name: colours.get(bytes(rgb), 0) for name, rgb in
          (("#1f77b4", (0x1f, 0x77, 0xb4)), ("#d62728", (0xd6, 0x27, 0x28)))}
print(f"screenshot {width}x{height}: {len(colours)} colours, background {background / total:.1%}, "
      f"series pixels {series}")
assert len(colours) >= 16, "the screenshot has almost no colours: the page did not render"
assert background < 0.98 * total, "the screenshot is (nearly) a single colour"
for name, count in series.items():
    assert count >= 50, f"hardly any pixels in the run colour {name}: its series were not drawn"
EOF
echo "report renders: ${svgs_in_dom} charts, ${polylines_in_dom} series in the DOM"
