# The model-retry worker, for docker-compose.yml and production-like deployments.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY policy ./policy
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY client ./client
COPY tsconfig.json ./
USER node
ENTRYPOINT ["node", "bin/model-retry.js"]
CMD ["worker"]
