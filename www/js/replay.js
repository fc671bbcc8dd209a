// Importing a conversation file: what it holds (ctxfold's export, or messages in any format
// the package reads: an array, `{ messages }` as the corpus has it, or Anthropic's
// `{ system, messages }`), and a replay of its messages turn by turn: what the user and the
// tools said goes through `prepare`, the file's own assistant replies through `commit`, so a
// long transcript shows each compaction as it happens.
import { isReply } from "./dom.js";

/** What a file holds: `{ kind: "export", data }` or `{ kind: "messages", messages, system }`. Throws a TypeError that says what is wrong. */
export function readFile(text, name) {
  let json;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new TypeError(`${name} is not JSON (${e.message})`);
  }
  if (json && typeof json === "object" && json.kind === "ctxfold.conversation") {
    if (!Array.isArray(json.messages) || typeof json.meta !== "object") throw new TypeError(`${name} is a ctxfold export without its messages or meta`);
    return { kind: "export", data: json };
  }
  const messages = Array.isArray(json) ? json : Array.isArray(json?.messages) ? json.messages : null;
  if (messages === null) throw new TypeError(`${name} is not a conversation: expected a JSON array of messages, an object with a "messages" array, or a ctxfold export`);
  if (messages.length === 0) throw new TypeError(`${name} holds no messages`);
  return { kind: "messages", messages, system: Array.isArray(json) ? undefined : json.system };
}

/**
 * The file's turns: `[{ input, replies, at }]`, `input` what comes before the model speaks
 * (the system prompt, the user's message, tool results), `replies` the model's messages
 * after it, `at` the index of the turn's first message in the file.
 */
export function turnsOf(messages) {
  const turns = [];
  let i = 0;
  while (i < messages.length) {
    const at = i;
    const input = [];
    const replies = [];
    while (i < messages.length && !isReply(messages[i])) input.push(messages[i++]);
    while (i < messages.length && isReply(messages[i])) replies.push(messages[i++]);
    turns.push({ input, replies, at });
  }
  return turns;
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * A replay in progress. `run(turn, index)` feeds one turn and resolves to whether it compacted;
 * `changed()` is called after every step and state change.
 */
export class Replay {
  constructor({ id, name, turns, run, changed }) {
    Object.assign(this, { id, name, turns, run, changed });
    this.position = 0;
    this.playing = false;
    this.delay = 250;
    this.error = null;
    this.compactions = 0;
    this.untilCompaction = false;
  }

  get done() {
    return this.position >= this.turns.length;
  }

  /** Feeds the next turn (one at a time, whatever calls it). */
  async step() {
    if (this.done || this.stepping) return false;
    this.stepping = true;
    let compacted = false;
    try {
      compacted = await this.run(this.turns[this.position], this.position);
      this.position++;
      if (compacted) this.compactions++;
    } catch (e) {
      this.error = e;
      this.playing = false;
    } finally {
      this.stepping = false;
      this.changed();
    }
    return compacted;
  }

  /** Plays on (at `delay` ms a turn) until paused, done, or (`untilCompaction`) a turn compacts. */
  async play({ untilCompaction = false } = {}) {
    if (this.playing || this.done) return;
    // A pause and a play during one turn's wait would otherwise leave two loops running.
    const run = (this.generation = (this.generation ?? 0) + 1);
    const current = () => this.playing && this.generation === run;
    this.playing = true;
    this.untilCompaction = untilCompaction;
    this.error = null;
    this.changed();
    while (current() && !this.done) {
      const compacted = await this.step();
      if (compacted && this.untilCompaction) break;
      if (current() && this.delay > 0) await sleep(this.delay);
    }
    if (this.generation !== run) return;
    this.playing = false;
    this.untilCompaction = false;
    this.changed();
  }

  pause() {
    this.playing = false;
    this.changed();
  }
}
