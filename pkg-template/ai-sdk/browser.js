// ctxfold/ai-sdk for browsers and bundlers: the main entry, fetched beside it.
import * as ctxfold from "../browser.js";
import { middlewareFor } from "../lib/ai-sdk.js";

export const compactionMiddleware = middlewareFor(ctxfold);
