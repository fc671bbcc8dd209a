#!/usr/bin/env node
// Serves the demo chat: www/ at /, the built package (pkg/) at /pkg/ and the sample
// transcript (samples/) at /samples/, on 127.0.0.1, and prints the URL to open. Nothing else
// is served, and nothing comes from the internet: the page imports pkg/browser.js through an
// import map, as a user's page would.
//
//   node www/serve.mjs              http://127.0.0.1:5178/
//   node www/serve.mjs --port 0     any free port (the URL printed says which)
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../", import.meta.url));
const ROOTS = [
  ["/pkg/", join(repo, "pkg")],
  ["/samples/", join(repo, "samples")],
  ["/", join(repo, "www")],
];
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".ctxv": "application/octet-stream",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** The file a URL path names, or null when it is outside the served folders. */
function resolve(path) {
  for (const [prefix, dir] of ROOTS) {
    if (!path.startsWith(prefix)) continue;
    const file = normalize(join(dir, path.slice(prefix.length)));
    return file === dir || file.startsWith(dir + sep) ? file : null;
  }
  return null;
}

/** Starts the server; resolves to its URL and a `close()`. */
export async function serve({ port = 5178, host = "127.0.0.1" } = {}) {
  try {
    await stat(join(repo, "pkg", "browser.js"));
  } catch {
    throw new Error("pkg/ is not built: run `bash scripts/build.sh` first (the page imports pkg/browser.js)");
  }
  const server = createServer(async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(405, { allow: "GET, HEAD" }).end();
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    } catch {
      return void res.writeHead(400).end("bad path");
    }
    let file = resolve(path);
    if (file === null) return void res.writeHead(403).end("forbidden");
    try {
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end(`not found: ${path}`);
    }
  });
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, ok);
  });
  const url = `http://${host}:${server.address().port}/`;
  return {
    url,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

function portArg(argv) {
  const i = argv.indexOf("--port");
  const raw = i >= 0 ? argv[i + 1] : process.env.PORT;
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port takes a whole number from 0 to 65535, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return port;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log("node www/serve.mjs [--port N]   serves the demo chat on 127.0.0.1 (default port 5178; 0: any free one)");
    process.exit(0);
  }
  try {
    const { url } = await serve({ port: portArg(argv) });
    console.log(`ctxfold demo chat: ${url}`);
  } catch (e) {
    console.error(e.code === "EADDRINUSE" ? `port ${e.port} is in use: pass --port N (0: any free port)` : e.message);
    process.exit(1);
  }
}
