# workerd's configuration for the generation test: one worker, its modules
# the test's own and snowflake-c/wasm's entry for workers with what it
# imports (the .wasm as a compiled module), served on the socket "http"
# (its address given on the command line); the same worker at a
# compatibility date before 2025, which has no FinalizationRegistry nor
# WeakRef, on the socket "http-2024".
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .generator), (name = "2024", worker = .generator2024)],
  sockets = [
    (name = "http", http = (), service = "main"),
    (name = "http-2024", http = (), service = "2024"),
  ],
);

const modules :List(Workerd.Worker.Module) = [
  (name = "generate.mjs", esModule = embed "generate.mjs"),
  (name = "snowflake-c/worker.mjs", esModule = embed "../../../node/wasm/worker.mjs"),
  (name = "snowflake-c/web.mjs", esModule = embed "../../../node/wasm/web.mjs"),
  (name = "snowflake-c/esm/binding.mjs", esModule = embed "../../../node/wasm/esm/binding.mjs"),
  (name = "snowflake-c/esm/error-kinds.mjs", esModule = embed "../../../node/wasm/esm/error-kinds.mjs"),
  (name = "snowflake-c/esm/api.mjs", esModule = embed "../../../node/wasm/esm/api.mjs"),
  (name = "snowflake-c/snowflake_c.wasm", wasm = embed "../../../node/wasm/snowflake_c.wasm"),
];

const generator :Workerd.Worker = (
  modules = .modules,
  compatibilityDate = "2025-09-01",
);

const generator2024 :Workerd.Worker = (
  modules = .modules,
  compatibilityDate = "2024-09-01",
);
