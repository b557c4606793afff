# workerd config for examples/edge/workerd/worker.mjs. Build first (docs/edge.md):
#   npx esbuild worker.mjs --bundle --format=esm --platform=browser --conditions=workerd,worker \
#     --external:quiver-vector/wasm/* --outfile=build/worker.js
#   and your index as build/index.qvr (quiver build ... -o build/index.qvr, or serialize() in Node)
#   npx workerd serve config.capnp                                   # http://127.0.0.1:8787
# (This folder sits in the project, beside its node_modules: the .wasm is embedded from there.)
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .quiverWorker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const quiverWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "build/worker.js"),
    # The name the bundle imports; workerd compiles it once and hands over a WebAssembly.Module.
    (name = "quiver-vector/wasm/simd/quiver.wasm", wasm = embed "../node_modules/quiver-vector/js/wasm/simd/quiver.wasm"),
  ],
  bindings = [(name = "INDEX", data = embed "build/index.qvr")],
  compatibilityDate = "2025-01-01",
);
