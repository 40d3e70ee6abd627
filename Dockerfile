# The Cashloop API on Node 20. TypeScript runs through tsx, so there is no build step.
# test/docker-steps.test.ts runs these steps as written (without Docker) and checks /readyz.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# postinstall applies patches/ (a runtime fix to postgres.js) with patch-package, a production
# dependency for that reason: both must be here before `npm ci`.
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
ENV PORT=8080 HOST=0.0.0.0 DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
EXPOSE 8080
USER node
CMD ["node", "--max-semi-space-size=8", "--import", "tsx", "api/main.ts"]
