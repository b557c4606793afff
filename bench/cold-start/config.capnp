# workerd config of bench/cold-start/run.mjs (the file server's and the socket's addresses are
# given on the command line: --external-addr files=... --socket-addr http=...).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .coldWorker),
    (name = "files", external = (address = "127.0.0.1:1", http = ())),
  ],
  sockets = [(name = "http", address = "127.0.0.1:1", http = (), service = "main")],
);

const coldWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "build/worker.js"),
    (name = "quiver-vector/wasm/simd/quiver.wasm", wasm = embed "../../js/wasm/simd/quiver.wasm"),
  ],
  bindings = [(name = "FILES", service = "files")],
  compatibilityDate = "2025-01-01",
);
