#!/usr/bin/env bash
# Installs FerretDB v1.24.2 (a MongoDB wire-protocol server) into $(go env GOPATH)/bin when absent.
# `go install ...@v1.24.2` is not used: it asks the module proxy for the version list (for deprecation
# notices), which the proxy here refuses, and the published module lacks the generated
# build/version/version.txt that the binary checks at start-up. So: download the exact version,
# build it from a writable copy with that file written.
set -euo pipefail
VERSION=v1.24.2
bin="$(go env GOPATH)/bin/ferretdb"
# grep reads a captured string: with pipefail, `grep -q` closing the pipe early would fail the check.
if [ -x "$bin" ] && grep -q "${VERSION}" <<<"$("$bin" --version 2>/dev/null)"; then
  echo "ferretdb ${VERSION} already installed at $bin"
  exit 0
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
go mod init ferretdb-build >/dev/null 2>&1
src=$(GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@${VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "could not download FerretDB ${VERSION}" >&2; exit 1; }
cp -r "$src" "$work/ferretdb"
chmod -R u+w "$work/ferretdb"
echo "${VERSION}" > "$work/ferretdb/build/version/version.txt"
cd "$work/ferretdb"
mkdir -p "$(dirname "$bin")"
GOFLAGS=-buildvcs=false go build -o "$bin" ./cmd/ferretdb
echo "ferretdb ${VERSION} installed at $bin"
