// The demo chat: a Compactor over IndexedDBStore in a page, as a chat app uses it. Each message
// goes through prepare (stored, compacted when the window needs it), the model answers the
// input prepare returned, and commit stores the reply with the provider's usage. The page keeps
// nothing itself: after a reload it reads the conversation back from IndexedDB.
import { Compactor, IndexedDBStore, openAISummarizer, parseCommand, notify } from "ctxfold";

const $ = (id) => document.getElementById(id);
const fmt = (n) => n.toLocaleString("en-US");
const SETTINGS = "ctxfold-demo-chat";
const SYSTEM = "You are a helpful assistant in ctxfold's demo chat. Keep the details the user gives you (names, numbers, ids) and use them when asked.";
const store = new IndexedDBStore({ database: "ctxfold-demo-chat" });

/** The settings, kept in localStorage (the key too: this is a local demo page). */
const DEFAULTS = { model: "gpt-4o-mini", window: 4096, base: "", key: "", conversation: "chat" };
const settings = { ...DEFAULTS, ...JSON.parse(localStorage.getItem(SETTINGS) ?? "{}") };
const save = () => localStorage.setItem(SETTINGS, JSON.stringify(settings));
/** Tells the page's other tabs that a conversation changed, so they show it as stored. */
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel(SETTINGS) : null;

let compactor = null;
/** Messages stored in the conversation, as the history shown last read them (after every action). */
let stored = 0;

/** A Compactor for the settings as they are: the real model's summaries with a key, else extractive. */
function makeCompactor() {
  const summarizer = settings.key ? openAISummarizer({ baseURL: settings.base || undefined, apiKey: settings.key, model: settings.model }) : "extractive";
  compactor = new Compactor({ model: settings.model, contextWindow: settings.window, store, summarizer });
  compactor.on("compactionStart", (e) => log(notify(e), "start"));
  compactor.on("compactionEnd", (e) => log(notify(e.record)));
  compactor.on("compactionFailed", (e) => log(notify(e)));
  compactor.on("pruned", (e) => log(notify(e)));
  compactor.on("fallback", (e) => log(notify(e)));
}

/**
 * The model. With a key: the endpoint's Chat Completions. Without one, a stand-in that answers
 * in the page (it says so), so the meter and the compactions can be watched with no network.
 */
async function model(messages) {
  if (!settings.key) {
    const last = messages.at(-1);
    const words = String(last.content).split(/\s+/).filter(Boolean).length;
    const reply =
      `(The stand-in model: set an endpoint and an API key above for a real one.) You wrote ${words} words; ` +
      `I was sent ${messages.length} messages. ` +
      `Here is what you said, back to you: ${last.content}`;
    return { message: { role: "assistant", content: reply }, usage: null };
  }
  const res = await fetch(`${(settings.base || "https://api.openai.com/v1").replace(/\/$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${settings.key}` },
    body: JSON.stringify({ model: settings.model, messages }),
  });
  if (!res.ok) throw new Error(`the model answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = await res.json();
  return { message: { role: "assistant", content: body.choices[0].message.content ?? "" }, usage: body.usage ?? null };
}

function log(text, kind = "") {
  const li = document.createElement("li");
  li.className = kind;
  li.textContent = text;
  $("log").append(li);
}

function bubble(message, className = "") {
  const div = document.createElement("div");
  const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  div.className = `msg ${message.role} ${className}`.trim();
  div.innerHTML = `<span class="role"></span> `;
  div.firstChild.textContent = message.role;
  div.append(text);
  return div;
}

/** The stored history, each message marked when a compaction summarized it. */
async function showHistory() {
  const history = await compactor.history(settings.conversation);
  $("history").replaceChildren(...history.map((e) => bubble(e.message, e.summarizedBy === null ? "" : "summarized")));
  $("history").scrollTop = $("history").scrollHeight;
  $("conversation").textContent = `${settings.conversation}: ${history.length} messages stored`;
  stored = history.length;
  document.body.dataset.stored = String(stored);
}

/** The meter: the input the next prepare would send, against the threshold and the budget. */
async function showMeter() {
  const status = await compactor.status(settings.conversation);
  if (status === null) {
    $("fill").style.width = "0";
    $("reading").textContent = "A new conversation: nothing stored yet";
    return;
  }
  const { budget, tokens } = status.plan;
  const total = tokens.total;
  $("fill").style.width = `${Math.min(100, (100 * total) / budget.input).toFixed(1)}%`;
  $("fill").className = total > budget.input ? "over" : total > budget.threshold ? "near" : "";
  $("threshold").style.left = `${((100 * budget.threshold) / budget.input).toFixed(1)}%`;
  $("reading").textContent =
    `${fmt(total)} of ${fmt(budget.input)} input tokens (window ${fmt(budget.window)}; head ${fmt(tokens.head)}, ` +
    `summaries ${fmt(tokens.summaries)}, recent ${fmt(tokens.tail + tokens.middle)}), ${status.contextStatus}; ` +
    `${status.compactions} compaction${status.compactions === 1 ? "" : "s"} so far`;
}

function showInput(messages) {
  $("input").replaceChildren(...messages.map((m) => bubble(m, typeof m.content === "string" && m.content.startsWith("## Conversation Summary") ? "summary" : "")));
}

async function send(text) {
  if (parseCommand(text) !== null) {
    const answer = await compactor.command(settings.conversation, text);
    log(answer.text ?? JSON.stringify(answer), "command");
    if ((answer.command === "new" || answer.command === "resume") && answer.ok && typeof answer.conversationId === "string") {
      settings.conversation = answer.conversationId;
      save();
    }
    if (answer.command === "resume" && Array.isArray(answer.conversations)) log(`Conversations: ${answer.conversations.join(", ")}`, "command");
    return;
  }
  // A new conversation starts with the system message: the head, which is always sent. (Another
  // tab may have started it since this one last read it.)
  const fresh = stored === 0 && (await compactor.status(settings.conversation)) === null;
  const adding = [...(fresh ? [{ role: "system", content: SYSTEM }] : []), { role: "user", content: text }];
  const prepared = await compactor.prepare(settings.conversation, adding);
  showInput(prepared.messages);
  // What was sent, for the page's tests: its tokens and the input budget.
  document.body.dataset.sent = `${prepared.report.tokensAfter}/${prepared.report.budget.input}`;
  const { message, usage } = await model(prepared.messages);
  await compactor.commit(settings.conversation, [message], usage ?? undefined);
}

/** Runs `work`, then redraws from the store; the page is busy meanwhile (the tests wait on it). */
async function busy(work) {
  document.body.dataset.idle = "false";
  $("send").disabled = true;
  try {
    await work();
  } catch (e) {
    log(`${e.name}${e.code ? ` (${e.code})` : ""}: ${e.message}`, "error");
  } finally {
    try {
      await showHistory();
      await showMeter();
    } catch (e) {
      log(`${e.name}${e.code ? ` (${e.code})` : ""}: ${e.message}`, "error");
    }
    $("send").disabled = false;
    document.body.dataset.idle = "true";
  }
  tabs?.postMessage(settings.conversation);
}
tabs?.addEventListener("message", ({ data }) => {
  if (data === settings.conversation && document.body.dataset.idle === "true") void redraw();
});

/** Shows the stored conversation again (another tab changed it). */
async function redraw() {
  try {
    await showHistory();
    await showMeter();
  } catch (e) {
    log(`${e.name}${e.code ? ` (${e.code})` : ""}: ${e.message}`, "error");
  }
}

$("composer").onsubmit = (event) => {
  event.preventDefault();
  const text = $("text").value.trim();
  if (!text) return;
  $("text").value = "";
  busy(() => send(text));
};
$("text").onkeydown = (event) => {
  if (event.key === "Enter" && !event.shiftKey) $("composer").requestSubmit();
};
for (const [id, key, read] of [["model", "model", String], ["window", "window", Number], ["base", "base", String], ["key", "key", String]]) {
  $(id).value = settings[key];
  $(id).onchange = () =>
    busy(async () => {
      const before = settings[key];
      settings[key] = read($(id).value.trim());
      try {
        makeCompactor();
      } catch (e) {
        // Refused (a window of 0): the setting stays as it was, and is not saved.
        settings[key] = before;
        $(id).value = before;
        throw e;
      }
      save();
    });
}
$("forget").onclick = () =>
  busy(async () => {
    await compactor.delete(settings.conversation);
    $("log").replaceChildren();
    $("input").replaceChildren();
  });

try {
  makeCompactor();
} catch (e) {
  // Settings saved by an older page that this one refuses: back to the defaults.
  log(`${e.name}${e.code ? ` (${e.code})` : ""}: ${e.message}; the settings are back to their defaults`, "error");
  Object.assign(settings, DEFAULTS, { conversation: settings.conversation });
  for (const key of ["model", "window", "base", "key"]) $(key).value = settings[key];
  save();
  makeCompactor();
}
await busy(async () => {
  // What compacted before this page load: each record, as the notice it made then.
  for (const record of await compactor.records(settings.conversation)) log(notify(record));
});
document.body.dataset.ready = "true";
