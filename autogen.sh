#!/bin/sh
# Regenerate the autotools build system (configure, Makefile.in, build-aux/, m4/).
set -e
cd "$(dirname "$0")"
mkdir -p m4    # libtool's macros go here; created now so aclocal does not warn
exec autoreconf -fi "$@"
