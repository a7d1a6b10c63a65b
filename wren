#!/bin/sh
# The clone's `wren`: runs the CLI that `npm ci` built into dist/, directly (about as fast as `node
# dist/cli/main.js`). It never builds anything. (`npx wren` in a clone would instead install the clone into
# npx's cache and re-run its build, silently, rewriting dist/ under a running gateway.)
# Symlink it into a folder on your PATH to type `wren` anywhere; `npm link` does the same.
self=$0
[ -L "$self" ] && self=$(readlink -f -- "$self")
root=$(CDPATH='' cd -- "$(dirname -- "$self")" && pwd)
if [ ! -f "$root/dist/cli/main.js" ]; then
  echo "wren: this clone is not built yet; run \`npm ci\` (or \`npm run build\`) in $root first" >&2
  exit 2
fi
exec node "$root/dist/cli/main.js" "$@"
