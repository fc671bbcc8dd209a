//! The TypeScript of what a chat UI uses around a `Compactor`: commands (`parseCommand`,
//! `compactor.command`), notices (`notify`, `sse`) and Anthropic's prompt-cache breakpoints
//! (`applyAnthropicCacheControl`). They are JavaScript over JSON shapes the core already
//! declares (records, reports, statuses), in `pkg-template/lib/{commands,notices,cache-control}.js`;
//! only their own shapes are declared here, once.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_CHAT: &str = include_str!("chat.d.ts");
