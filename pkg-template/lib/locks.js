// Notices of the Web Locks a Compactor holds (compactor.js's #shared): a `prepare` or
// `commit` that goes on from its cache takes no lock, unless another Compactor of the origin
// (another tab, a worker) said lately that it holds the conversation's.

/**
 * For how long (ms) after a Compactor said it holds a conversation's Web Lock a `prepare` or
 * `commit` on it takes the lock from the start; the holder says it again every half of this.
 */
const BUSY_MS = 1000;

const clock = () => (typeof performance === "object" ? performance.now() : Date.now());

/**
 * Which conversations' Web Locks a Compactor holds lately, as far as this realm knows: its
 * Compactors', and other tabs' and workers' of the origin through a BroadcastChannel (opened
 * at the first question, so in a runtime with Web Locks only). A notice lasts BUSY_MS; a
 * holder repeats it every half of that until it lets go, so a tab that opened its channel
 * late, or a holder that died, is caught up with or forgotten within BUSY_MS.
 */
export function lockNotices() {
  /** @type {Map<string, Map<object | null, number>>} Lock name → (the Compactor that holds it, null for another realm's → until when). */
  const until = new Map();
  /** @type {BroadcastChannel & { unref?: () => void } | null | undefined} undefined until the first question */
  let channel;
  /**
   * @param {string} name
   * @param {object | null} owner
   */
  const mark = (name, owner) => {
    let holders = until.get(name);
    if (holders === undefined) {
      holders = new Map();
      until.set(name, holders);
    }
    holders.set(owner, clock() + BUSY_MS);
  };
  const open = () => {
    if (channel !== undefined) return channel;
    channel = null;
    if (typeof BroadcastChannel !== "function") return channel;
    try {
      channel = new BroadcastChannel("ctxfold:locks");
      channel.onmessage = (e) => {
        if (typeof e.data === "string") mark(e.data, null);
      };
      // Node's channels would keep the process alive.
      channel.unref?.();
    } catch {
      channel = null;
    }
    return channel;
  };
  return {
    /**
     * Whether a Compactor other than `asking` said lately that it holds the lock `name`.
     * @param {string} name
     * @param {object} asking
     */
    busy(name, asking) {
      open();
      const holders = until.get(name);
      if (holders === undefined) return false;
      const t = clock();
      let busy = false;
      for (const [owner, end] of holders) {
        if (end <= t) holders.delete(owner);
        else if (owner !== asking) busy = true;
      }
      if (holders.size === 0) until.delete(name);
      return busy;
    },
    /**
     * Says that `owner` holds the lock `name`, now and until the function returned is called.
     * @param {string} name
     * @param {object} owner
     * @returns {() => void}
     */
    hold(name, owner) {
      const say = () => {
        mark(name, owner);
        try {
          open()?.postMessage(name);
        } catch {
          // A closed channel: the lock still works, only the notice is lost.
        }
      };
      say();
      // (Node's timers are objects with unref, which would keep the process alive; browsers' are numbers.)
      const timer = /** @type {ReturnType<typeof setInterval> & { unref?: () => void }} */ (setInterval(say, BUSY_MS / 2));
      timer.unref?.();
      return () => clearInterval(timer);
    },
  };
}
