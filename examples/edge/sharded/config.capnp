# workerd config for the sharded collection (README.md). Build first:
#   npx esbuild worker.mjs --bundle --format=esm --platform=browser --conditions=workerd,worker \
#     --external:quiver-vector/wasm/* --external:cloudflare:* --outfile=build/worker.js
#   mkdir -p data && npx workerd serve config.capnp                 # http://127.0.0.1:8787
# The shards' storage (SQLite files) is in ./data and outlives the process.
# (This folder sits in the project, beside its node_modules: the .wasm is embedded from there.)
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .router),
    (name = "data", disk = (path = "data", writable = true)),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const router :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "build/worker.js"),
    (name = "quiver-vector/wasm/simd/quiver.wasm", wasm = embed "../node_modules/quiver-vector/js/wasm/simd/quiver.wasm"),
  ],
  durableObjectNamespaces = [(className = "QuiverShard", uniqueKey = "quiver-sharded-example", enableSql = true)],
  durableObjectStorage = (localDisk = "data"),
  bindings = [
    (name = "SHARDS", durableObjectNamespace = "QuiverShard"),
    (name = "QUIVER", json = "{\"name\":\"docs\",\"shards\":4,\"placement\":\"id\",\"deadlineMs\":5000,\"onPartial\":\"error\",\"collection\":{\"dim\":128,\"metric\":\"cosine\",\"index\":\"hnsw\",\"options\":{\"M\":16,\"efConstruction\":100,\"seed\":1},\"fields\":{\"lang\":\"string\",\"year\":\"number\",\"tags\":\"tags\"}}}"),
  ],
  compatibilityDate = "2025-01-01",
);
