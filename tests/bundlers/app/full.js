import { countTokens, compact } from "ctxfold";
import { run } from "./run.js";

await run({ countTokens, compact }, { lite: false });
