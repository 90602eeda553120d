// Test-only preload for Portkey's gateway (node --require ./portkey-preload.cjs …):
// 1. every listening socket this process opens is bound to 127.0.0.1 (the gateway has no
//    option for its address and would listen on every interface);
// 2. the responses fetch() returns get mutable headers: Portkey 1.15.2 appends its own
//    headers to them, which Node 20's fetch forbids ("TypeError: immutable",
//    Portkey-AI/gateway#1389). The body stream is passed on untouched.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "object" && args[0] !== null && !Array.isArray(args[0])) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  } else if (typeof args[0] === "number" || typeof args[0] === "string") {
    const rest = args.slice(1).filter((a) => typeof a === "function");
    return listen.call(this, Number(args[0]), "127.0.0.1", ...rest);
  }
  return listen.apply(this, args);
};
const NativeResponse = globalThis.Response;
const nativeFetch = globalThis.fetch;
globalThis.fetch = async (...args) => {
  const r = await nativeFetch(...args);
  return new NativeResponse(r.body, { status: r.status, statusText: r.statusText, headers: r.headers });
};
