// ctxfold/ai-sdk for Cloudflare Workers (workerd): the main entry, its .wasm imported as a module.
import * as ctxfold from "../workerd.js";
import { middlewareFor } from "../lib/ai-sdk.js";

export const compactionMiddleware = middlewareFor(ctxfold);
