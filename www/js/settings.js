// The settings: kept in localStorage, the API key only when "remember" is ticked (otherwise it
// lives in this page's memory and a reload forgets it). The settings dialog hands what the
// user typed to `apply`, which makes a Compactor with them; one the Compactor refuses is said
// in the dialog and not saved.
import { $, errorLine } from "./dom.js";

const KEY = "ctxfold-demo-chat";
export const DEFAULTS = Object.freeze({
  offline: true,
  base: "",
  key: "",
  remember: false,
  model: "gpt-4o-mini",
  window: 8192,
  preset: "default",
  conversation: null,
});

/** The settings saved, over the defaults (a saved value of the wrong type is the default's). */
export function load() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(KEY) ?? "{}") ?? {};
  } catch {
    saved = {};
  }
  const out = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) {
    if (k in saved && (typeof saved[k] === typeof DEFAULTS[k] || (k === "conversation" && typeof saved[k] === "string"))) out[k] = saved[k];
  }
  return out;
}

/** Writes the settings; the key only when it is to be remembered. */
export function save(settings) {
  const { key, ...rest } = settings;
  localStorage.setItem(KEY, JSON.stringify(settings.remember ? settings : { ...rest, key: "" }));
}

/** The settings dialog over `get()`, the settings in force. `apply(next)` throws to refuse them (the error is shown, nothing saved). */
export function settingsDialog(get, apply) {
  const dialog = $("settings");
  const fields = { offline: "s-offline", base: "s-base", key: "s-key", remember: "s-remember", model: "s-model", window: "s-window", preset: "s-preset" };
  const online = () => ($("s-online").disabled = $("s-offline").checked);
  $("s-offline").addEventListener("change", online);

  function open() {
    const settings = get();
    for (const [k, id] of Object.entries(fields)) {
      const el = $(id);
      if (el.type === "checkbox") el.checked = settings[k];
      else el.value = settings[k];
    }
    $("s-error").hidden = true;
    online();
    dialog.showModal();
  }

  $("s-save").addEventListener("click", async (event) => {
    event.preventDefault();
    const next = { ...get() };
    for (const [k, id] of Object.entries(fields)) {
      const el = $(id);
      next[k] = el.type === "checkbox" ? el.checked : k === "window" ? (el.value.trim() === "" ? NaN : Number(el.value)) : el.value.trim();
    }
    if (!next.offline && next.base === "") next.base = "https://api.openai.com/v1";
    try {
      await apply(next);
      dialog.close("saved");
    } catch (e) {
      $("s-error").textContent = errorLine(e);
      $("s-error").hidden = false;
    }
  });
  return { open };
}
