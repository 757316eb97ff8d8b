# The partner server as `npm start` runs it, on Node 20. How to run it: docs/deploy.md.

# --- build: every dependency, then `npm run build` ---------------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The manifests alone first, so the install layer is reused until the dependencies change.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# What tsconfig.build.json compiles (src/partner, your provider in src/provider without its tests,
# src/lib, src/contract and the CLIs in scripts/); scripts/copy-sql.mjs then copies the SQL
# migrations (SQLite and PostgreSQL: the kit's and the providers') beside the output.
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build

# --- runtime: production dependencies, dist/ and the partner's templates ------------------------
FROM node:20-bookworm-slim AS runtime
# HOST: the config's default (127.0.0.1) is unreachable from outside the container.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# better-sqlite3 is native: npm fetches its prebuilt binary for linux/glibc here. Where none exists
# for the platform, it compiles, and this stage needs python3, make and g++ (apt-get) first.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The server reads its pages and e-mails from views/partner/ (views/mock/ is the mock's, not shipped).
COPY views/partner ./views/partner
# The partner record: the server reads the vendor's name from it unless PARTNER_NAME is set, and
# `npm run register` posts it. This is the demo's, the default of PARTNER_MANIFEST.
COPY scripts/partner-manifest.json ./scripts/partner-manifest.json
# Your folder, at the path it has in your checkout: the manifest a fork keeps there
# (PARTNER_MANIFEST=src/provider/partner-manifest.json in the settings) is found in the image as it
# is by `npm run dev` and `npm run register`, and so is any file your provider reads beside itself.
# Its code runs from dist/, compiled above.
COPY src/provider ./src/provider
# SQLite's default DATABASE_PATH is ./data/partner.db: the one folder the app user may write to.
# Mount a volume here for a SQLite deployment; on PostgreSQL (DATABASE_URL) it stays empty.
RUN mkdir -p data && chown node:node data
# The code and node_modules stay root-owned: the server cannot change them.
USER node
EXPOSE 3000
# Liveness only (the process answers). Slim images have no curl: Node 20's fetch does the request.
# Readiness (/readyz, the database answers) is for the load balancer and for rolling deploys.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` runs, without npm in between: the partner with your provider (src/provider/index.ts).
# SIGTERM from `docker stop` reaches Node itself, which stops gracefully within SHUTDOWN_GRACE_SECONDS.
CMD ["node", "dist/src/partner/server.js"]
