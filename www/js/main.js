// The demo chat: a Compactor over IndexedDBStore in a page, as a chat app uses it. Each
// message goes through `prepare` (stored, compacted when the window needs it), the model
// answers the input `prepare` returned, and `commit` stores the reply with the provider's
// usage. The page keeps nothing of its own: what it shows is read back from the store
// (`history`, `records`, `status`), so a reload finds everything where it was.
import { Compactor, IndexedDBStore, openAISummarizer, parseCommand, notify, countMessages } from "ctxfold";
import { $, h, fmt, plural, errorLine } from "./dom.js";
import { load, save, DEFAULTS, settingsDialog } from "./settings.js";
import { callModel } from "./model.js";
import { drawMeter, tooltips } from "./meter.js";
import { drawTimeline, openRecord, showPending } from "./timeline.js";
import { ChatView, drawInput } from "./chat.js";
import { ConversationList, ask } from "./conversations.js";
import { readFile, turnsOf, Replay } from "./replay.js";

const DATABASE = "ctxfold-demo-chat";
const SYSTEM = "You are a helpful assistant in ctxfold's demo chat. Keep the details the user gives you (names, numbers, ids) and use them when asked.";
const SAMPLE = "../samples/swe-agent-pydicom-1458.json";

let settings = load();
const store = new IndexedDBStore({ database: DATABASE });
let compactor = null;
let current = null;
let lastInput = null;
let replay = null;
let abort = null;
/** Tells the page's other tabs that a conversation changed. */
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel(DATABASE) : null;
/** What the Compactor emitted, for the console and the page's tests. */
const events = [];

const newId = () => `chat-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

function toast(text, kind = "error") {
  const el = h(`div.toast.${kind}`, { role: "alert" }, text);
  $("toasts").append(el);
  setTimeout(() => el.remove(), 8000);
}

/** A Compactor for `s`: the endpoint's model for summaries online, extractive ones offline. */
function makeCompactor(s) {
  const summarizer = s.offline ? "extractive" : openAISummarizer({ baseURL: s.base, apiKey: s.key || undefined, model: s.model });
  const c = new Compactor({ model: s.model, contextWindow: s.window, preset: s.preset, store, summarizer });
  const here = (e) => e.conversationId === current;
  const note = (kind) => (e) => {
    events.push(e);
    if (here(e)) chat.notice(notify(e), kind);
  };
  c.on("compactionStart", (e) => {
    events.push(e);
    if (here(e)) {
      chat.compacting(e.plan);
      showPending(e.plan);
    }
  });
  c.on("compactionEnd", (e) => {
    events.push(e);
    if (here(e)) chat.done();
  });
  c.on("compactionFailed", (e) => {
    events.push(e);
    if (here(e)) chat.done(notify(e));
  });
  c.on("pruned", note("info"));
  c.on("fallback", note("warn"));
  for (const name of ["suppressed", "backoff", "breakerOpen", "breakerClosed"]) c.on(name, note("info"));
  return c;
}

const chat = new ChatView({ open: (r) => showRecord(r), empty: emptyState() });
const list = new ConversationList({ select: (id) => queue(() => switchTo(id)), remove: (id) => removeConversation(id) });

function emptyState() {
  return h(
    "div.empty-state",
    {},
    h("h2", { text: "A chat that keeps its context" }),
    h("p.muted", { text: "Every message is stored in this browser's IndexedDB. The model is sent what fits its window: the head, a summary of the middle, the recent turns. Watch the meter on the right as the conversation grows; each compaction shows in the timeline, and its record can be opened and undone." }),
    h(
      "div.empty-actions",
      {},
      h("button.primary", { type: "button", onclick: () => $("text").focus() }, "Start typing"),
      h("button", { type: "button", onclick: () => $("import-file").click() }, "Import a conversation file"),
      h("button", { type: "button", id: "sample", onclick: () => replaySample() }, "Replay a sample agent transcript"),
    ),
    h("p.muted.small", { text: "Commands: /compact [instructions], /status, /prune, /undo, /new, /resume [id]." }),
  );
}

/** Runs `work` after what is running; the page is busy meanwhile (its tests wait on `data-idle`). */
let tail = Promise.resolve();
function queue(work, { throws = false } = {}) {
  const run = tail.then(async () => {
    document.body.dataset.idle = "false";
    $("send").disabled = true;
    try {
      return await work();
    } catch (e) {
      chat.notice(errorLine(e), "error");
      if (throws) throw e;
    } finally {
      $("send").disabled = replayHolds();
      document.body.dataset.idle = "true";
    }
  });
  tail = run.catch(() => {});
  return run;
}

/** Shows the current conversation as stored: history, meter, timeline, list, header. */
async function redraw() {
  const id = current;
  const [history, records, status] = await Promise.all([compactor.history(id), compactor.records(id), compactor.status(id)]);
  if (id !== current) return;
  chat.draw(history, records);
  drawMeter(status, settings);
  drawTimeline(records, status, { open: showRecord, undo: () => queue(undo) });
  drawInput(lastInput?.id === id ? lastInput.messages : null, lastInput?.id === id ? lastInput.counts : null);
  const rows = await list.draw(compactor, id);
  const title = rows.find((r) => r.id === id)?.title ?? "New chat";
  $("title").textContent = title;
  document.title = `${title} · ctxfold chat`;
  const mode = settings.offline ? "offline" : hostOf(settings.base);
  $("subtitle").textContent = [status ? plural(status.length, "message") : "nothing stored yet", status?.contextStatus, settings.model, `${fmt(settings.window)} window`, mode].filter(Boolean).join(" · ");
  $("export").disabled = $("delete").disabled = status === null;
  drawReplayBar();
  Object.assign(document.body.dataset, { conversation: id, stored: String(history.length), compactions: String(records.length) });
}

function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function remember(id, result) {
  let counts = null;
  try {
    counts = countMessages(result.system === undefined ? result.messages : { system: result.system, messages: result.messages }, { model: settings.model });
  } catch {
    counts = null;
  }
  lastInput = { id, messages: result.messages, counts };
}

function announce(id) {
  tabs?.postMessage({ id });
}

async function send(text) {
  const id = current;
  if (parseCommand(text) !== null) return command(id, text);
  // A new conversation starts with the system message: the head, which is always sent.
  const fresh = (await compactor.status(id)) === null;
  const prepared = await compactor.prepare(id, [...(fresh ? [{ role: "system", content: SYSTEM }] : []), { role: "user", content: text }]);
  remember(id, prepared);
  document.body.dataset.sent = `${prepared.report.tokensAfter}/${prepared.report.budget.input}`;
  await redraw();
  announce(id);
  const typing = chat.notice(settings.offline ? "The stand-in model is answering…" : `${settings.model} is answering…`, "typing");
  abort = new AbortController();
  $("stop").hidden = false;
  try {
    const { message, usage } = await callModel(settings, prepared.messages, abort.signal);
    await compactor.commit(id, [message], usage);
  } finally {
    abort = null;
    $("stop").hidden = true;
    chat.notices = chat.notices.filter((n) => n.el !== typing);
    typing.remove();
  }
  await redraw();
  announce(id);
}

async function command(id, text) {
  const answer = await compactor.command(id, text);
  if (answer.result?.messages) remember(id, answer.result);
  chat.notice(answer.text, answer.ok ? "command" : "warn");
  if ((answer.command === "new" || answer.command === "resume") && answer.ok && typeof answer.conversationId === "string") {
    await switchTo(answer.conversationId);
  } else await redraw();
  announce(id);
}

async function undo() {
  const undone = await compactor.undo(current);
  chat.notice(undone ? `Undid compaction #${undone.compaction}: its summary drops out, the messages it summarized are sent again (${plural(undone.chunks, "summary chunk")} in force now).` : "Nothing to undo.", undone ? "command" : "warn");
  await redraw();
  announce(current);
}

async function switchTo(id) {
  if (replay?.playing && replay.id !== id) replay.pause();
  current = id;
  settings.conversation = id;
  save(settings);
  chat.reset(id);
  closeDrawers();
  await redraw();
  chat.stickToBottom();
}

async function removeConversation(id) {
  const title = (await list.title(store, id)) ?? id;
  const answer = await ask("Delete this conversation?", `“${title}”: its messages, summaries and compaction records are removed from this browser. This cannot be undone.`, [{ value: "delete", label: "Delete", kind: "danger-fill" }]);
  if (answer !== "delete") return;
  await queue(async () => {
    if (replay?.id === id) replay = (replay.pause(), null);
    await compactor.delete(id);
    list.forget(id);
    announce(id);
    if (id === current) {
      const rest = (await list.draw(compactor, null)).map((r) => r.id);
      await switchTo(rest[0] ?? newId());
    } else await redraw();
  });
}

async function showRecord(record) {
  const id = current;
  const status = await compactor.status(id);
  const fresh = (await compactor.records(id)).find((r) => r.seq === record.seq) ?? record;
  await openRecord(fresh, { status, history: () => compactor.history(id), summaries: () => compactor.summaries(id), undo: () => queue(undo) });
}

/* Import and replay. */

async function importText(text, name) {
  const file = readFile(text, name);
  if (file.kind === "export") {
    const how = await ask(`Import ${name}`, `A ctxfold export of ${plural(file.data.messages.length, "message")} and ${plural(file.data.records?.length ?? 0, "compaction")}. Restore it as it was exported (its summaries and records too), or replay its messages turn by turn?`, [
      { value: "replay", label: "Replay its messages", kind: "ghost" },
      { value: "restore", label: "Restore" },
    ]);
    if (how === "cancel") return;
    if (how === "restore") {
      const taken = (await compactor.list()).includes(file.data.meta.id);
      const id = await compactor.import(file.data, taken ? { id: newId() } : {});
      return queue(() => switchTo(id));
    }
    return startReplay(name, { messages: file.data.messages, system: file.data.meta.system ?? undefined });
  }
  return startReplay(name, file);
}

function startReplay(name, { messages, system }) {
  const turns = turnsOf(messages);
  const id = `import-${name.replace(/\.json$/i, "").replace(/[^\w-]+/g, "-").slice(0, 40)}-${Math.random().toString(36).slice(2, 6)}`;
  // One turn: what the user and the tools said, then the file's own replies. A turn that
  // fails is said in the chat, and the replay pauses on it.
  const run = (turn, index) =>
    queue(
      async () => {
        let compacted = false;
        if (turn.input.length > 0 || index === 0) {
          const input = index === 0 && system !== undefined && system !== null ? { system, messages: turn.input } : turn.input;
          const prepared = await compactor.prepare(id, input);
          remember(id, prepared);
          compacted = prepared.record !== null;
        }
        if (turn.replies.length > 0) await compactor.commit(id, turn.replies);
        if (id === current) await redraw();
        announce(id);
        return compacted;
      },
      { throws: true },
    );
  replay = new Replay({ id, name, turns, run, changed: drawReplayBar });
  replay.delay = Number($("replay-speed").value);
  return queue(() => switchTo(id));
}

async function replaySample() {
  const res = await fetch(SAMPLE);
  if (!res.ok) return toast(`The sample is not served here (${res.status}): serve the page with node www/serve.mjs`);
  await importText(await res.text(), "swe-agent-pydicom-1458.json");
}

/** Whether a replay holds the composer: the current conversation's, not played to its end. */
const replayHolds = () => replay !== null && replay.id === current && !replay.done;

function drawReplayBar() {
  const bar = $("replay-bar");
  const shown = replay !== null && replay.id === current;
  bar.hidden = !shown;
  $("text").disabled = $("send").disabled = replayHolds();
  $("text").placeholder = $("text").disabled ? "Replaying a file: play, step or stop it above" : "Message, or a command: /compact, /status, /undo…";
  if (!shown) return;
  const r = replay;
  $("replay-name").textContent = r.name;
  const state = r.error ? ` · paused: ${r.error.message}` : r.done ? " · done: the conversation goes on from here" : r.playing ? " · playing" : " · paused";
  $("replay-progress").textContent = `turn ${fmt(r.position)} of ${fmt(r.turns.length)} · ${plural(r.compactions, "compaction")}${state}`;
  $("replay-fill").style.width = `${((100 * r.position) / Math.max(1, r.turns.length)).toFixed(1)}%`;
  $("replay-play").textContent = r.playing && !r.untilCompaction ? "Pause" : "Play";
  $("replay-next").textContent = r.playing && r.untilCompaction ? "Pause" : "Next compaction";
  for (const b of ["replay-play", "replay-step", "replay-next"]) $(b).disabled = r.done;
  $("replay-step").disabled ||= r.playing;
  Object.assign(document.body.dataset, { replay: r.done ? "done" : r.playing ? "playing" : "paused", replayPosition: String(r.position) });
}

/* Settings, layout, wiring. */

function applySettings(next) {
  return new Promise((resolve, reject) => {
    queue(async () => {
      let made;
      try {
        if (!next.offline && !/^https?:$/.test(protocolOf(next.base))) throw new TypeError(`Endpoint: ${JSON.stringify(next.base)} is not an http(s) URL (such as http://localhost:11434/v1)`);
        made = makeCompactor(next);
      } catch (e) {
        reject(e);
        return;
      }
      settings = next;
      compactor = made;
      save(settings);
      drawMode();
      await redraw();
      resolve();
    });
  });
}

/** The protocol of a URL (`"http:"`), or `""` for text that is none. */
function protocolOf(url) {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}

function drawMode() {
  $("mode").textContent = settings.offline ? "Offline" : `Online · ${settings.model}`;
  $("mode").className = `mode-chip ${settings.offline ? "offline" : "online"}`;
}

function closeDrawers() {
  document.body.classList.remove("nav-open", "panel-open");
  $("scrim").hidden = true;
}

function drawer(name) {
  const open = !document.body.classList.contains(name);
  closeDrawers();
  document.body.classList.toggle(name, open);
  $("scrim").hidden = !open;
}

function wire() {
  const dialog = settingsDialog(() => settings, applySettings);
  $("open-settings").onclick = () => dialog.open();
  $("new-chat").onclick = () => queue(() => switchTo(newId()));
  $("import").onclick = () => $("import-file").click();
  $("import-file").onchange = async () => {
    const file = $("import-file").files[0];
    $("import-file").value = "";
    if (!file) return;
    try {
      await importText(await file.text(), file.name);
    } catch (e) {
      toast(errorLine(e));
    }
  };
  $("delete").onclick = () => removeConversation(current);
  $("export").onclick = () =>
    queue(async () => {
      const data = await compactor.export(current);
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 1)], { type: "application/json" }));
      h("a", { href: url, download: `${current}.json` }).click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  $("composer").onsubmit = (event) => {
    event.preventDefault();
    const text = $("text").value.trim();
    if (!text || $("send").disabled) return;
    $("text").value = "";
    $("text").style.height = "";
    queue(() => send(text));
  };
  $("text").onkeydown = (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  };
  $("text").oninput = () => {
    $("text").style.height = "";
    $("text").style.height = `${Math.min(200, $("text").scrollHeight)}px`;
  };
  $("stop").onclick = () => abort?.abort(new DOMException("stopped by the user", "AbortError"));
  $("replay-play").onclick = () => (replay.playing ? replay.pause() : replay.play());
  $("replay-next").onclick = () => (replay.playing ? replay.pause() : replay.play({ untilCompaction: true }));
  $("replay-step").onclick = () => replay.step();
  $("replay-speed").onchange = () => replay && (replay.delay = Number($("replay-speed").value));
  $("replay-stop").onclick = () => {
    replay.pause();
    replay = null;
    drawReplayBar();
  };
  for (const [tab, pane] of [["tab-context", "pane-context"], ["tab-input", "pane-input"]]) {
    $(tab).onclick = () => {
      for (const t of ["tab-context", "tab-input"]) $(t).setAttribute("aria-selected", String(t === tab));
      for (const p of ["pane-context", "pane-input"]) $(p).hidden = p !== pane;
    };
  }
  $("toggle-nav").onclick = () => drawer("nav-open");
  $("toggle-panel").onclick = () => drawer("panel-open");
  $("scrim").onclick = closeDrawers;
  // Another tab wrote: draw again once, after what is running here (a replay there sends many).
  let pending = false;
  tabs?.addEventListener("message", () => {
    if (pending) return;
    pending = true;
    queue(() => ((pending = false), redraw()));
  });
  tooltips();
}

async function boot() {
  try {
    compactor = makeCompactor(settings);
  } catch (e) {
    // Settings saved by an older page that this one refuses: back to the defaults.
    toast(`${errorLine(e)}; the settings are back to their defaults`);
    settings = { ...DEFAULTS, conversation: settings.conversation };
    save(settings);
    compactor = makeCompactor(settings);
  }
  current = settings.conversation ?? newId();
  settings.conversation = current;
  save(settings);
  wire();
  drawMode();
  chat.reset(current);
  await queue(redraw);
  chat.stickToBottom();
  document.body.dataset.ready = "true";
}

/** For the console and the page's tests: the live objects, read-only. */
window.ctxfoldChat = {
  get compactor() {
    return compactor;
  },
  get conversation() {
    return current;
  },
  get settings() {
    return { ...settings, key: settings.key ? "(set)" : "" };
  },
  get replay() {
    return replay;
  },
  events,
  database: DATABASE,
};

await boot();
