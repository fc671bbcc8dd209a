// A CompactorStore over a directory, for Node: what `ctxfold replay --store DIR` keeps, so
// that a second run goes on with the same conversation. It keeps the store contract (the
// CompactorStore interface; ctxfold/testing checks it) with files only:
//
//   DIR/<name>/head-<n>.json     the conversation after its n-th write: { id, meta, parts }
//   DIR/<name>/part-<n>-<r>.json what the n-th write added: { messages, summaries, records }
//
// <name> is the id with every character outside [a-z0-9_-] written as %XX (its UTF-8 bytes),
// so ids that differ only in case or contain "/" or ".." stay apart on every file system; an
// id too long for a file name is named by its SHA-256 instead. A write writes its part under a
// random name, then makes head-<n+1> with link(2), which fails if that file exists: of two
// writers that loaded the same head, in this process or another, one lands and the other gets
// STALE_WRITE, and a reader sees the old head or the new one, never half of a write. Files are
// flushed (fsync) before they are linked. A crash leaves at most a part no head names.
import { createHash, randomBytes } from "node:crypto";
import { link, mkdir, open, readdir, readFile, rename, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { checkWrite, staleWriteError } from "../node.js";

/** @typedef {import("../node.js").StoredMeta} StoredMeta */
/** @typedef {import("../node.js").StoredSummary} StoredSummary */
/** @typedef {import("../node.js").CompactionRecord} CompactionRecord */
/** @typedef {import("../node.js").WriteBatch} WriteBatch */
/**
 * What a head names of one write's part: its file, and how many of each it added.
 * @typedef {{ file: string, start: number, messages: number, summaries: number, records: number }} Part
 */
/**
 * head-<n>.json.
 * @typedef {{ layout: string, id: string, meta: StoredMeta, parts: Part[] }} Head
 */
/**
 * part-<n>-<r>.json.
 * @typedef {{ messages: unknown[], summaries: StoredSummary[], records: CompactionRecord[] }} PartData
 */
/**
 * What a failed file operation throws (anything else is thrown on as it is).
 * @typedef {{ code?: unknown } | null | undefined} Thrown
 */

const LAYOUT = "ctxfold.file-store";
const HEAD = /^head-(\d{12})\.json$/;
/** @param {number} n */
const pad = (n) => String(n).padStart(12, "0");

/**
 * The directory name of a conversation id.
 * @param {string} id
 */
function nameOf(id) {
  const name = [...Buffer.from(id, "utf8")]
    .map((b) => (/[a-z0-9_-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`))
    .join("");
  // "c" first: the name is never empty, and never starts with the "." of a removed folder.
  return name.length <= 200 ? `c${name}` : `h${createHash("sha256").update(id, "utf8").digest("hex")}`;
}

/**
 * `text` written to `path` and flushed to disk.
 * @param {string} path
 * @param {string} text
 */
async function writeFlushed(path, text) {
  const file = await open(path, "wx");
  try {
    await file.writeFile(text, "utf8");
    await file.sync();
  } finally {
    await file.close();
  }
}

/** @param {unknown} err */
const missing = (err) => /** @type {Thrown} */ (err)?.code === "ENOENT";

/**
 * The number of the newest head in `folder` (-1: none), from its file names.
 * @param {string} folder
 */
async function newest(folder) {
  let names;
  try {
    names = await readdir(folder);
  } catch (/** @type {any} */ err) {
    if (missing(err) || err?.code === "ENOTDIR") return -1;
    throw err;
  }
  let n = -1;
  for (const name of names) {
    const m = HEAD.exec(name);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return n;
}

/**
 * The newest head in `folder` as `{ n, head }`, or null.
 * @param {string} folder
 * @returns {Promise<{ n: number, head: Head } | null>}
 */
async function latest(folder) {
  // A head is removed only once a newer one exists: look again if it went meanwhile.
  for (let attempt = 0; ; attempt++) {
    const n = await newest(folder);
    if (n < 0) return null;
    const path = join(folder, `head-${pad(n)}.json`);
    try {
      return { n, head: parse(await readFile(path, "utf8"), path) };
    } catch (err) {
      if (!missing(err) || attempt >= 100) throw err;
    }
  }
}

/**
 * A store of conversations as files under `dir` (made at the first write). Several instances
 * over one directory, in one process or several, are safe: the version check is the file
 * system's.
 *
 * ```js
 * const compactor = new Compactor({ model: "gpt-4o", store: new FileStore("./conversations") });
 * ```
 */
export class FileStore {
  /** @type {string} */
  #dir;

  /** @param {string} dir */
  constructor(dir) {
    if (typeof dir !== "string" || dir === "") throw new TypeError(`FileStore: dir must be a directory path, got ${JSON.stringify(dir)}`);
    this.#dir = dir;
  }

  /** The directory. */
  get dir() {
    return this.#dir;
  }

  /** @param {string} id */
  #folder(id) {
    return join(this.#dir, nameOf(id));
  }

  /**
   * The parts of `id`'s newest head that `wanted` picks, each with its data.
   * @param {string} id
   * @param {(part: Part) => boolean} wanted
   */
  async #parts(id, wanted) {
    const folder = this.#folder(id);
    const found = await latest(folder);
    /** @type {{ part: Part, data: PartData }[]} */
    const out = [];
    for (const part of found?.head.parts ?? []) {
      if (!wanted(part)) continue;
      const path = join(folder, part.file);
      out.push({ part, data: parse(await readFile(path, "utf8"), path) });
    }
    return out;
  }

  /**
   * @param {string} id
   * @returns {Promise<StoredMeta | null>}
   */
  async load(id) {
    return (await latest(this.#folder(id)))?.head.meta ?? null;
  }

  /**
   * @param {string} id
   * @param {number} from
   */
  async messages(id, from) {
    const out = [];
    for (const { part, data } of await this.#parts(id, (p) => p.messages > 0 && p.start + p.messages > from)) {
      for (const m of data.messages.slice(Math.max(0, from - part.start))) out.push(m);
    }
    return out;
  }

  /** @param {string} id */
  async summaries(id) {
    return (await this.#parts(id, (p) => p.summaries > 0)).flatMap(({ data }) => data.summaries);
  }

  /** @param {string} id */
  async records(id) {
    return (await this.#parts(id, (p) => p.records > 0)).flatMap(({ data }) => data.records);
  }

  /**
   * @param {string} id
   * @param {number} expect
   * @param {WriteBatch} batch
   * @returns {Promise<void>}
   */
  async write(id, expect, batch) {
    const folder = this.#folder(id);
    const found = await latest(folder);
    const parts = found ? [...found.head.parts] : [];
    const stored = found && { version: found.head.meta.version, length: parts.reduce((sum, p) => sum + p.messages, 0) };
    // The seqs held are read only when the batch adds summaries or records (a compaction).
    /** @param {"summaries" | "records"} name */
    const adds = (name) => Array.isArray(batch?.[name]) && batch[name].length > 0;
    const held =
      found && (adds("summaries") || adds("records"))
        ? { summaries: (await this.summaries(id)).map((s) => s.seq), records: (await this.records(id)).map((r) => r.seq) }
        : null;
    checkWrite(id, expect, batch, stored, held);
    await mkdir(folder, { recursive: true });
    const n = (found?.n ?? 0) + 1;
    const tag = randomBytes(6).toString("hex");
    const head = join(folder, `head-${pad(n)}.json`);
    const draft = join(folder, `.head-${pad(n)}-${tag}.json`);
    // What to remove if this write does not land (the part is the head's once linked).
    const scratch = [draft];
    try {
      const { messages, summaries, records } = batch;
      let part = null;
      if (messages.length + summaries.length + records.length > 0) {
        const file = `part-${pad(n)}-${tag}.json`;
        part = join(folder, file);
        scratch.push(part);
        await writeFlushed(part, JSON.stringify({ messages, summaries, records }));
        parts.push({ file, start: batch.start, messages: messages.length, summaries: summaries.length, records: records.length });
      }
      await writeFlushed(draft, JSON.stringify({ layout: LAYOUT, id, meta: batch.meta, parts }));
      if (await linked(draft, head)) {
        scratch.length = 1;
        if ((await newest(folder)) === n) return await removeOld(found && join(folder, `head-${pad(found.n)}.json`));
        // head-<n> was free only because a writer made a newer head and removed this one: it
        // got ahead of this write, so the head linked here (never the newest) and its part go;
        // that newer writer may have removed it already, as the head it replaced.
        await removeOld(head);
        if (part) scratch.push(part);
      }
      throw staleWriteError(id, expect, (await latest(folder))?.head.meta.version ?? null);
    } finally {
      for (const path of scratch) await unlink(path).catch(() => {});
    }
  }

  async list() {
    let names;
    try {
      names = await readdir(this.#dir);
    } catch (err) {
      if (missing(err)) return [];
      throw err;
    }
    /** @type {string[]} */
    const ids = [];
    for (const name of names) {
      if (!/^[ch]/.test(name)) continue;
      const found = await latest(join(this.#dir, name));
      if (found) ids.push(found.head.id);
    }
    return ids;
  }

  /** @param {string} id */
  async delete(id) {
    // Renamed first, so no reader sees a conversation half removed.
    const gone = join(this.#dir, `.removed-${randomBytes(6).toString("hex")}`);
    try {
      await rename(this.#folder(id), gone);
    } catch (err) {
      if (missing(err)) return;
      throw err;
    }
    await rm(gone, { recursive: true, force: true });
  }
}

/**
 * Removes the head a write replaced (if any; another writer may have removed it already).
 * @param {string | null | undefined} path
 */
async function removeOld(path) {
  if (path === null || path === undefined) return;
  try {
    await unlink(path);
  } catch (err) {
    if (!missing(err)) throw err;
  }
}

/**
 * link(2): whether `to` was made (false: it exists).
 * @param {string} from
 * @param {string} to
 */
async function linked(from, to) {
  try {
    await link(from, to);
    return true;
  } catch (/** @type {any} */ err) {
    if (err?.code === "EEXIST") return false;
    throw err;
  }
}

/**
 * A store file's JSON, or an error that names the file.
 * @param {string} text
 * @param {string} path
 * @returns {any} a Head or PartData, as the caller reads it
 */
function parse(text, path) {
  try {
    const value = JSON.parse(text);
    if (value?.layout !== undefined && value.layout !== LAYOUT) throw new Error(`layout ${JSON.stringify(value.layout)}, expected ${LAYOUT}`);
    return value;
  } catch (/** @type {any} */ err) {
    throw new Error(`${path} is not a ctxfold store file: ${err.message}`);
  }
}
