#!/usr/bin/env bash
# `flitsim report` in a real browser: Debian's chromium driven headless through WebDriver
# (chromium-driver) by Python Selenium (python3-selenium, python3-pytest), all installed with
# apt-get when missing. Builds three small results directories with the flitsim given (a run
# of tests/browser/sweep.toml, a `validate` of validated.toml, a `saturation` search of the
# sweep), writes their report and runs tests/browser/test_report.py on it. The screenshot is
# kept as <target>/browser/report.png.
# Usage: bash tests/browser/run.sh   (from anywhere; FLITSIM_BIN picks the flitsim, else the
# debug build, built when missing). Without root or apt-get to install what is missing it says
# why and skips; an apt-get that fails as root is a failure, with its error.
set -euo pipefail
cd "$(dirname "$0")/../.."
skip() { echo "tests/browser/run.sh: SKIPPED: $1"; exit 0; }
need=()
command -v chromium > /dev/null || need+=(chromium)
command -v chromedriver > /dev/null || need+=(chromium-driver)
/usr/bin/python3 -c 'import selenium' 2> /dev/null || need+=(python3-selenium)
/usr/bin/python3 -c 'import pytest' 2> /dev/null || need+=(python3-pytest)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || skip "not root, and ${need[*]} must be installed with apt-get"
  command -v apt-get > /dev/null || skip "no apt-get to install ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" > /dev/null
fi
target=$(.ci/target-dir)
bin=${FLITSIM_BIN:-}
if [ -z "$bin" ]; then
  cargo build --quiet
  bin=$target/debug/flitsim
fi
tmp=$(mktemp -d -t flitsim-browser.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$bin" run tests/browser/sweep.toml --out "$tmp/sweep" --quiet > /dev/null
"$bin" validate tests/browser/validated.toml --out "$tmp/validated" --quiet > /dev/null
"$bin" saturation tests/browser/sweep.toml --out "$tmp/saturation" --quiet > /dev/null
"$bin" report "$tmp/sweep" "$tmp/validated" "$tmp/saturation" --out "$tmp/report.html"
mkdir -p "$target/browser"
REPORT=$tmp/report.html SWEEP=$tmp/sweep SHOT=$target/browser/report.png \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/browser/test_report.py
echo "tests/browser/run.sh: screenshot kept at $target/browser/report.png"
