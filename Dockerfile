# The model-retry worker, for docker-compose.yml and production-like deployments.
# The first stage compiles dist/ with the whole dependency set; the image itself holds only the production
# dependencies, bin/ and dist/, so `bin/model-retry.js` runs the compiled JavaScript (no tsx, no TypeScript).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY policy ./policy
COPY common ./common
COPY workflows ./workflows
COPY activities ./activities
COPY payloads ./payloads
COPY worker ./worker
COPY plugin ./plugin
COPY client ./client
COPY cli ./cli
COPY loopback ./loopback
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY --from=build /app/dist ./dist
USER node
ENTRYPOINT ["node", "bin/model-retry.js"]
CMD ["worker"]
