// The tokenizers under test. Each entry's load(encoding) imports the library the way its
// documentation shows, builds whatever it needs for `encoding`, and returns a counter
// using the fastest exact counting call the library offers, with special-token strings
// such as "<|endoftext|>" counted as ordinary text (as providers count message content).
//
// Every import is dynamic and happens inside load(), so a cold-start child process can time
// "import + build + first count" from just before the import.

/** @typedef {"o200k_base" | "cl100k_base"} Encoding */
/** @typedef {{ count: (text: string) => number, dispose?: () => void }} Counter */

export const LIBRARIES = [
  {
    name: "ctxfold",
    packages: ["ctxfold"],
    call: 'countTokens(text, { encoding })  (import "ctxfold")',
    /** @param {Encoding} encoding @returns {Promise<Counter>} */
    async load(encoding) {
      const { countTokens } = await import("ctxfold");
      const options = { encoding };
      return { count: (text) => countTokens(text, options) };
    },
  },
  {
    name: "gpt-tokenizer",
    packages: ["gpt-tokenizer"],
    call: 'countTokens(text, { disallowedSpecial: new Set() })  (import "gpt-tokenizer/encoding/<enc>")',
    async load(encoding) {
      const { countTokens } = await import(`gpt-tokenizer/encoding/${encoding}`);
      // The default ({ disallowedSpecial: "all" }) throws on "<|endoftext|>"; an empty
      // disallowed set with nothing allowed counts such strings as ordinary text.
      const options = { disallowedSpecial: new Set() };
      return { count: (text) => countTokens(text, options) };
    },
  },
  {
    name: "ai-tokenizer",
    packages: ["ai-tokenizer"],
    call: 'new Tokenizer({ ...encoding, special_tokens: {} }).count(text)  (import "ai-tokenizer", "ai-tokenizer/encoding/<enc>")',
    async load(encoding) {
      const { Tokenizer } = await import("ai-tokenizer");
      const data = await import(`ai-tokenizer/encoding/${encoding}`);
      // With the encoding's special tokens, count() throws on "<|endoftext|>" and builds two
      // Sets and a RegExp on every call. Constructed without them it takes its ordinary-text
      // path: the fastest call it has, and the one that counts those strings as text.
      const tokenizer = new Tokenizer({ ...data, special_tokens: {} });
      return { count: (text) => tokenizer.count(text) };
    },
  },
  {
    name: "js-tiktoken",
    packages: ["js-tiktoken", "base64-js"],
    call: 'new Tiktoken(ranks).encode(text, [], []).length  (import "js-tiktoken/lite", "js-tiktoken/ranks/<enc>")',
    async load(encoding) {
      // The lite entry plus one rank file is what its README recommends; getEncoding() from
      // the main entry builds the same Tiktoken but parses every encoding's ranks (5.6 MB).
      const { Tiktoken } = await import("js-tiktoken/lite");
      const { default: ranks } = await import(`js-tiktoken/ranks/${encoding}`);
      const enc = new Tiktoken(ranks);
      const none = [];
      // It has no count call. encode(text, [], []) neither allows nor forbids special tokens:
      // "<|endoftext|>" is encoded as ordinary text.
      return { count: (text) => enc.encode(text, none, none).length };
    },
  },
  {
    name: "tiktoken",
    packages: ["tiktoken"],
    call: 'get_encoding(enc).encode_ordinary(text).length  (require "tiktoken", the WASM build)',
    async load(encoding) {
      const { get_encoding } = await import("tiktoken");
      const enc = get_encoding(encoding);
      return { count: (text) => enc.encode_ordinary(text).length, dispose: () => enc.free() };
    },
  },
];

/** ctxfold without embedded vocabularies: import, loadVocabulary, count. Cold start, RSS and size only. */
export const CTXFOLD_LITE = {
  name: "ctxfold/lite",
  packages: ["ctxfold"],
  call: 'await loadVocabulary(enc); countTokens(text, { encoding })  (import "ctxfold/lite")',
  async load(encoding) {
    const { countTokens, loadVocabulary } = await import("ctxfold/lite");
    await loadVocabulary(encoding);
    const options = { encoding };
    return { count: (text) => countTokens(text, options) };
  },
};

export const ALL = [...LIBRARIES, CTXFOLD_LITE];
export const byName = (name) => {
  const lib = ALL.find((l) => l.name === name);
  if (!lib) throw new Error(`unknown library ${name}`);
  return lib;
};
