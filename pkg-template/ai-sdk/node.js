// ctxfold/ai-sdk for Node.js: the main entry, compiled synchronously from the file beside it.
import * as ctxfold from "../node.js";
import { middlewareFor } from "../lib/ai-sdk.js";

export const compactionMiddleware = middlewareFor(ctxfold);
