import { loadVocabulary, countTokens, compact } from "ctxfold/lite";
import { run } from "./run.js";

await run({ loadVocabulary, countTokens, compact }, { lite: true });
