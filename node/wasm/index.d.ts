/**
 * snowflake-c/wasm — the same API as `snowflake-c`, from the core built as
 * WebAssembly: for browsers, Cloudflare Workers (workerd), Deno and any
 * Node.js without the native addon. IDs and decoding agree byte for byte
 * with the addon; there is no host-wide claim of node values (a WebAssembly
 * instance cannot see the host), so give each instance its own value.
 *
 * @module snowflake-c/wasm
 * @packageDocumentation
 */
export * from '../index';
