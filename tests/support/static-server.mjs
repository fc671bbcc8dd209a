// A static file server on 127.0.0.1 with an ephemeral port, for the browser tests. It
// serves files under `root` with the MIME types browsers insist on (application/wasm for
// streaming compilation, text/javascript for modules) and records every path requested.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".ctxv": "application/octet-stream",
  ".ts": "text/plain; charset=utf-8",
};

/**
 * @param {string} root directory to serve
 * @param {Record<string, string>} [pages] extra paths served from memory (path -> HTML)
 * @param {Record<string, string>} [headers] headers every response carries (COOP/COEP for a
 *   cross-origin-isolated page, whose clock is precise to microseconds, not 0.1 ms)
 * @returns {Promise<{ url: string, requests: string[], close: () => Promise<void> }>}
 */
export async function startStaticServer(root, pages = {}, headers = {}) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    requests.push(path);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    if (path in pages) {
      res.writeHead(200, { ...headers, "content-type": TYPES[".html"], "cache-control": "no-store" }).end(pages[path]);
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root + sep))) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res
        .writeHead(200, {
          ...headers,
          "content-type": TYPES[extname(file)] ?? "application/octet-stream",
          "cache-control": "no-store",
        })
        .end(req.method === "HEAD" ? undefined : body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
