# syntax=docker/dockerfile:1
# One image for both processes: web (default CMD) and worker (`command: node dist/bin/worker.js`).

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The API client is a workspace package the product requires at run time (node_modules/@svcws/client
# links to packages/client); the sandbox (dev and tests only) is left out of the image.
COPY packages/client/package.json ./packages/client/
RUN npm ci --no-audit --no-fund --workspace @svcws/client --include-workspace-root
COPY tsconfig.json tsconfig.build.json ./
COPY packages/client/tsconfig.json packages/client/tsconfig.build.json ./packages/client/
COPY packages/client/src ./packages/client/src
COPY src ./src
RUN npm run build && npm prune --omit=dev --workspace @svcws/client --include-workspace-root

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/packages/client/package.json ./packages/client/
COPY --from=build --chown=node:node /app/packages/client/dist ./packages/client/dist
COPY --from=build --chown=node:node /app/dist ./dist
RUN mkdir -p /app/records /app/spool && chown node:node /app/records /app/spool
USER node
EXPOSE 3000
# /healthz answers while the process is up; the listener's PORT defaults to 3000.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/bin/web.js"]
