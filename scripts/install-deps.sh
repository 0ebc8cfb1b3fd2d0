#!/usr/bin/env bash
# Installs the Debian packages capture-bridge needs to build, run and test; a no-op when all are present.
set -euo pipefail

packages=(
  libsqlite3-dev          # GRDB links the system SQLite
  libcurl4-openssl-dev    # outbound HTTP (social providers, mail relay) goes through libcurl
  libcrypt-dev libargon2-dev   # imported crypt(3) and argon2 password hashes (Sources/CXCrypt, Sources/CArgon2)
  zlib1g-dev              # compress-nio links the system zlib: the pages' gzip copies (docs/adr/0070)
  python3-passlib python3-argon2 whois   # passlib and mkpasswd make the hashes Tests/Interop/test_password_hashes.py imports
  python3-aiosmtpd        # the real SMTP server CaptureOutboundTests deliver to on loopback (/usr/bin/python3)
  python3-gi python3-gi-cairo gir1.2-webkit2-4.1 xvfb xauth python3-pytest   # the real web-view test suite
  python3-pytest-xdist    # runs the web-view suite on two workers, each with its own server and web views
  python3-pip             # installs the PyPI test servers below
  postgresql              # a real PostgreSQL server (15 on Debian 12) the storage conformance tests start on loopback
  nginx                   # /usr/sbin/nginx, the balancer in front of two instances in Tests/WebView/test_cluster.py
)
if [[ "${1:-}" == "--bench" ]]; then packages+=(wrk); fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
  echo "Installing missing Debian packages: ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

# PyPI packages for the system interpreter the tests use: a real OpenID Connect provider (Authlib-based) that the
# social sign-in tests run on loopback.
if ! /usr/bin/python3 -c "import oidc_provider_mock" 2>/dev/null; then
  echo "Installing oidc-provider-mock from PyPI"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo /usr/bin/python3 -m pip install -q --break-system-packages "oidc-provider-mock==0.3.4"
fi

# Authlib and httpx, the OAuth client library Tests/Interop drives the OAuth endpoints with; oidc-provider-mock above
# brings both, so this only runs when that did not.
if ! /usr/bin/python3 -c "import authlib, httpx" 2>/dev/null; then
  echo "Installing Authlib and httpx from PyPI"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo /usr/bin/python3 -m pip install -q --break-system-packages "authlib==1.9.9" "httpx==0.28.1"
fi

# Yubico's fido2 (its WebAuthn structures and COSE keys make the software authenticator that plays a platform's passkey
# API, Tests/PythonSupport/soft_authenticator.py) and pyotp (an authenticator app's codes), for the interop and
# web-view suites.
if ! /usr/bin/python3 -c "import fido2.webauthn, pyotp" 2>/dev/null; then
  echo "Installing fido2 and pyotp from PyPI"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo /usr/bin/python3 -m pip install -q --break-system-packages "fido2==2.2.1" "pyotp==2.12.1"
fi

# standardwebhooks (the Standard Webhooks reference library): the webhook listeners of Tests/Interop/test_webhooks.py
# verify every delivery's signature with it, not with this service's own code.
if ! /usr/bin/python3 -c "import standardwebhooks" 2>/dev/null; then
  echo "Installing standardwebhooks from PyPI"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo /usr/bin/python3 -m pip install -q --break-system-packages "standardwebhooks==1.1.0"
fi

# schemathesis for Tests/Interop (OpenAPI conformance of the live service). It needs pytest >= 8.4, newer than Debian's
# python3-pytest that the web-view suite runs on, so it goes into a directory of its own (not the system site-packages,
# which other checkouts on the machine share); the test runs it with that directory on PYTHONPATH.
schemathesis_version="4.32.5"
schemathesis_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.build/pytools/schemathesis-${schemathesis_version}"
if ! PYTHONPATH="$schemathesis_dir" /usr/bin/python3 -c "import schemathesis" 2>/dev/null; then
  echo "Installing schemathesis ${schemathesis_version} from PyPI into ${schemathesis_dir}"
  rm -rf "$schemathesis_dir"
  /usr/bin/python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target "$schemathesis_dir" "schemathesis==${schemathesis_version}"
fi

# axe-core for the web-view accessibility test: the copy (axe.min.js, 4.12.1) that axe-playwright-python bundles. Only
# that file is used, so the package's Playwright dependency is not installed (--no-deps).
if ! /usr/bin/python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('axe_playwright_python') is None)" 2>/dev/null; then
  echo "Installing axe-playwright-python (axe-core) from PyPI"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo /usr/bin/python3 -m pip install -q --break-system-packages --no-deps "axe-playwright-python==0.1.8"
fi

if ! command -v swift >/dev/null; then
  echo "error: the Swift 6 toolchain (swift) is not on PATH; install it from swift.org first" >&2
  exit 1
fi
