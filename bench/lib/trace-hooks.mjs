// Module loader hooks for trace-files.mjs: notes the path of every file: module loaded.
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

let out;
export function initialize(data) {
  out = data.out;
}
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(out, fileURLToPath(url) + "\n");
  return next(url, context);
}
