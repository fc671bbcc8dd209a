//! The built-in models: each entry's id, aliases, provider, window, output cap and
//! tokenizer, with the sources its figures come from (see the parent module's docs).

use super::{ModelInfo, Provider, DEFAULT_TOKENIZER};
use crate::estimate::{Family, ModelTokenizer};
use crate::tokenizer::Encoding;

/// A row of the built-in table.
/// A built-in model.
pub(super) struct Entry {
    pub(super) id: &'static str,
    pub(super) aliases: &'static [&'static str],
    pub(super) provider: Provider,
    pub(super) context_window: u32,
    pub(super) max_output_tokens: Option<u32>,
    pub(super) max_input_tokens: Option<u32>,
    pub(super) tokenizer: ModelTokenizer,
}

impl Entry {
    pub(super) fn info(&self) -> ModelInfo {
        ModelInfo {
            id: self.id.to_owned(),
            provider: self.provider,
            context_window: self.context_window,
            max_output_tokens: self.max_output_tokens,
            max_input_tokens: self.max_input_tokens,
            tokenizer: self.tokenizer,
        }
    }
}

pub(super) const O200K: ModelTokenizer = ModelTokenizer::Exact {
    encoding: Encoding::O200kBase,
};
pub(super) const CL100K: ModelTokenizer = ModelTokenizer::Exact {
    encoding: Encoding::Cl100kBase,
};
pub(super) const CLAUDE: ModelTokenizer = ModelTokenizer::Estimate {
    family: Family::Claude,
};
pub(super) const GEMINI: ModelTokenizer = ModelTokenizer::Estimate {
    family: Family::Gemini,
};
pub(super) const LLAMA: ModelTokenizer = ModelTokenizer::Estimate {
    family: Family::Llama,
};
pub(super) const MISTRAL: ModelTokenizer = ModelTokenizer::Estimate {
    family: Family::Mistral,
};
pub(super) const MISTRAL_SPM: ModelTokenizer = ModelTokenizer::Estimate {
    family: Family::MistralSpm,
};
pub(super) const GENERIC: ModelTokenizer = DEFAULT_TOKENIZER;

const fn m(
    id: &'static str,
    aliases: &'static [&'static str],
    provider: Provider,
    context_window: u32,
    max_output_tokens: Option<u32>,
    tokenizer: ModelTokenizer,
) -> Entry {
    Entry {
        id,
        aliases,
        provider,
        context_window,
        max_output_tokens,
        max_input_tokens: None,
        tokenizer,
    }
}

const fn capped(e: Entry, max_input_tokens: u32) -> Entry {
    Entry {
        max_input_tokens: Some(max_input_tokens),
        ..e
    }
}

use Provider::{Anthropic, Google, Meta, Mistral, OpenAi};

#[rustfmt::skip]
pub(super) static MODELS: &[Entry] = &[
    // ---- OpenAI: exact encodings (tiktoken-rs get_tokenizer; ai-tokenizer `encoding`) -----
    // GPT-5: 400,000 window (tiktoken-rs, ai-tokenizer), 128,000 output, input capped at
    // 272,000 (litellm gpt-5, gpt-5-mini, gpt-5-nano, gpt-5-codex, gpt-5.1, gpt-5.2: max_input 272000).
    capped(m("gpt-5", &[], OpenAi, 400_000, Some(128_000), O200K), 272_000),
    capped(m("gpt-5-mini", &[], OpenAi, 400_000, Some(128_000), O200K), 272_000),
    capped(m("gpt-5-nano", &[], OpenAi, 400_000, Some(128_000), O200K), 272_000),
    capped(m("gpt-5-codex", &[], OpenAi, 400_000, Some(128_000), O200K), 272_000),
    capped(m("gpt-5.1", &[], OpenAi, 400_000, Some(128_000), O200K), 272_000),
    capped(m("gpt-5.2", &[], OpenAi, 400_000, Some(128_000), O200K), 272_000),
    // litellm gpt-5-pro 400000/272000; ai-tokenizer openai/gpt-5-pro 400000/272000.
    m("gpt-5-pro", &[], OpenAi, 400_000, Some(272_000), O200K),
    // litellm gpt-5-chat(-latest), gpt-5.1-chat-latest 128000/16384; ai-tokenizer gpt-5-chat.
    m("gpt-5-chat", &["gpt-5-chat-latest"], OpenAi, 128_000, Some(16_384), O200K),
    m("gpt-5.1-chat", &["gpt-5.1-chat-latest"], OpenAi, 128_000, Some(16_384), O200K),
    // litellm gpt-4.1(-mini, -nano) 1047576/32768; tiktoken-rs 1_047_576; ai-tokenizer.
    m("gpt-4.1", &[], OpenAi, 1_047_576, Some(32_768), O200K),
    m("gpt-4.1-mini", &[], OpenAi, 1_047_576, Some(32_768), O200K),
    m("gpt-4.1-nano", &[], OpenAi, 1_047_576, Some(32_768), O200K),
    // litellm gpt-4o, gpt-4o-mini 128000/16384; tiktoken-rs "gpt-4o", "chatgpt-4o" 128_000.
    m("gpt-4o", &["chatgpt-4o-latest"], OpenAi, 128_000, Some(16_384), O200K),
    m("gpt-4o-mini", &[], OpenAi, 128_000, Some(16_384), O200K),
    // litellm gpt-4o-2024-05-13 128000/4096: the first snapshot had a smaller output limit.
    m("gpt-4o-2024-05-13", &[], OpenAi, 128_000, Some(4_096), O200K),
    // litellm azure/gpt-4.5-preview 128000/16384; tiktoken-rs "gpt-4.5" 128_000.
    m("gpt-4.5-preview", &["gpt-4.5"], OpenAi, 128_000, Some(16_384), O200K),
    // litellm o1, o1-pro, o3, o3-pro, o3-mini, o4-mini 200000/100000; tiktoken-rs 200_000.
    m("o1", &[], OpenAi, 200_000, Some(100_000), O200K),
    m("o1-pro", &[], OpenAi, 200_000, Some(100_000), O200K),
    // tiktoken-rs "o1-mini", "o1-preview" 128_000; outputs from provider docs (65,536 and
    // 32,768), no longer in litellm.
    m("o1-mini", &[], OpenAi, 128_000, Some(65_536), O200K),
    m("o1-preview", &[], OpenAi, 128_000, Some(32_768), O200K),
    m("o3", &[], OpenAi, 200_000, Some(100_000), O200K),
    m("o3-pro", &[], OpenAi, 200_000, Some(100_000), O200K),
    m("o3-mini", &[], OpenAi, 200_000, Some(100_000), O200K),
    m("o4-mini", &[], OpenAi, 200_000, Some(100_000), O200K),
    // litellm gpt-4-turbo(-2024-04-09), gpt-4-1106-preview 128000/4096; tiktoken-rs
    // "gpt-4-turbo-", "gpt-4-0125", "gpt-4-1106" 128_000. The vision previews: 128,000 and
    // 4,096 per provider docs (litellm 1.109.1 no longer lists them; by prefix they were gpt-4's 8,192).
    m("gpt-4-turbo", &["gpt-4-turbo-preview", "gpt-4-1106-preview", "gpt-4-0125-preview", "gpt-4-1106", "gpt-4-0125", "gpt-4-vision-preview", "gpt-4-1106-vision-preview"], OpenAi, 128_000, Some(4_096), CL100K),
    // litellm gpt-4, gpt-4-0613 8192/4096; tiktoken-rs "gpt-4" 8192, "gpt-4-32k" 32_768.
    m("gpt-4", &[], OpenAi, 8_192, Some(4_096), CL100K),
    m("gpt-4-32k", &[], OpenAi, 32_768, None, CL100K),
    // litellm gpt-3.5-turbo(-0125, -1106, -16k) 16385/4096; tiktoken-rs 16_385.
    m("gpt-3.5-turbo", &["gpt-35-turbo"], OpenAi, 16_385, Some(4_096), CL100K),
    // The first snapshots and the completions model: 4,096 per provider docs (litellm 1.109.1
    // no longer lists 0301/0613, and gives gpt-3.5-turbo-instruct 8,192 where OpenAI's page
    // says 4,096: the smaller is taken). By prefix they were gpt-3.5-turbo's 16,385.
    m("gpt-3.5-turbo-0613", &["gpt-3.5-turbo-0301", "gpt-35-turbo-0613", "gpt-35-turbo-0301"], OpenAi, 4_096, None, CL100K),
    m("gpt-3.5-turbo-instruct", &["gpt-35-turbo-instruct"], OpenAi, 4_096, None, CL100K),
    // tiktoken-rs "gpt-oss" 131_072; ai-tokenizer gpt-oss-120b 131072. Output limits differ
    // by host (litellm: 16,384 to 131,072), so none is given. o200k_harmony is o200k_base
    // plus special tokens: ordinary text counts the same.
    m("gpt-oss-120b", &[], OpenAi, 131_072, None, O200K),
    m("gpt-oss-20b", &["gpt-oss"], OpenAi, 131_072, None, O200K),

    // ---- Anthropic: estimated (Family::Claude) ---------------------------------------------
    // litellm claude-opus-4-7, claude-opus-4-6 1000000/128000.
    m("claude-opus-4-7", &[], Anthropic, 1_000_000, Some(128_000), CLAUDE),
    m("claude-opus-4-6", &[], Anthropic, 1_000_000, Some(128_000), CLAUDE),
    // litellm claude-sonnet-4-6 1000000/128000, but 64000 out on Bedrock and Vertex: the smaller.
    m("claude-sonnet-4-6", &[], Anthropic, 1_000_000, Some(64_000), CLAUDE),
    // litellm claude-opus-4-5(-20251101), claude-sonnet-4-5(-20250929), claude-haiku-4-5
    // (-20251001) 200000/64000; ai-tokenizer the same. Sonnet 4/4.5's 1M window is a beta
    // behind a header: register an override to use it.
    m("claude-opus-4-5", &[], Anthropic, 200_000, Some(64_000), CLAUDE),
    m("claude-sonnet-4-5", &[], Anthropic, 200_000, Some(64_000), CLAUDE),
    m("claude-haiku-4-5", &[], Anthropic, 200_000, Some(64_000), CLAUDE),
    // litellm anthropic.claude-opus-4-1-20250805-v1:0, anthropic.claude-opus-4-20250514-v1:0
    // 200000/32000, anthropic.claude-sonnet-4-20250514-v1:0 200000/64000; ai-tokenizer the same.
    m("claude-opus-4-1", &[], Anthropic, 200_000, Some(32_000), CLAUDE),
    m("claude-opus-4", &["claude-4-opus"], Anthropic, 200_000, Some(32_000), CLAUDE),
    m("claude-sonnet-4", &["claude-4-sonnet"], Anthropic, 200_000, Some(64_000), CLAUDE),
    // ai-tokenizer claude-3.7-sonnet 200000/64000 (litellm Bedrock: 8192 without the
    // output beta).
    m("claude-3-7-sonnet", &[], Anthropic, 200_000, Some(64_000), CLAUDE),
    // ai-tokenizer claude-3.5-sonnet(-20240620), claude-3.5-haiku 200000/8192;
    // claude-3-opus, claude-3-haiku 200000/4096 (litellm vertex_ai/claude-3-* agree).
    m("claude-3-5-sonnet", &[], Anthropic, 200_000, Some(8_192), CLAUDE),
    m("claude-3-5-haiku", &[], Anthropic, 200_000, Some(8_192), CLAUDE),
    m("claude-3-opus", &[], Anthropic, 200_000, Some(4_096), CLAUDE),
    m("claude-3-sonnet", &[], Anthropic, 200_000, Some(4_096), CLAUDE),
    m("claude-3-haiku", &[], Anthropic, 200_000, Some(4_096), CLAUDE),

    // ---- Google: estimated (Family::Gemini: the Gemma 3 vocabulary) -------------------------
    // litellm vertex_ai/gemini-3-pro-preview, gemini-3-flash-preview 1048576/65535.
    m("gemini-3-pro-preview", &["gemini-3-pro"], Google, 1_048_576, Some(65_535), GEMINI),
    m("gemini-3-flash-preview", &["gemini-3-flash"], Google, 1_048_576, Some(65_535), GEMINI),
    // litellm gemini/gemini-2.5-pro, -flash, -flash-lite, gemini-pro-latest,
    // gemini-flash-latest, gemini-flash-lite-latest 1048576/65536.
    m("gemini-2.5-pro", &["gemini-pro-latest"], Google, 1_048_576, Some(65_536), GEMINI),
    m("gemini-2.5-flash", &["gemini-flash-latest"], Google, 1_048_576, Some(65_536), GEMINI),
    m("gemini-2.5-flash-lite", &["gemini-flash-lite-latest"], Google, 1_048_576, Some(65_536), GEMINI),
    // ai-tokenizer google/gemini-2.0-flash 1000000/8192, gemini-2.0-flash-lite 1048576/8192.
    m("gemini-2.0-flash", &[], Google, 1_000_000, Some(8_192), GEMINI),
    m("gemini-2.0-flash-lite", &[], Google, 1_048_576, Some(8_192), GEMINI),
    // Provider docs (retired in 2025, in neither shipped source): 2,097,152 and 1,048,576
    // in, 8,192 out. Their 256k vocabulary is Gemma 1/2's; docs/estimates.md measures the
    // Gemini factors against it too.
    m("gemini-1.5-pro", &[], Google, 2_097_152, Some(8_192), GEMINI),
    m("gemini-1.5-flash", &[], Google, 1_048_576, Some(8_192), GEMINI),
    // litellm gemini/gemma-3-27b-it 131072/8192; gemini/gemini-gemma-2-27b-it 8192/8192.
    m("gemma-3", &["gemma3"], Google, 131_072, Some(8_192), GEMINI),
    m("gemma-2", &["gemma2", "gemini-gemma-2"], Google, 8_192, Some(8_192), GEMINI),

    // ---- Meta: estimated ---------------------------------------------------------------------
    // litellm vercel_ai_gateway/meta/llama-3.1-70b, -3.2-*, -3.3-70b 128000/8192;
    // ai-tokenizer meta/llama-3.3-70b 128000/8192. Hosts often serve less: register it.
    m("llama-3.1", &["llama3.1", "llama3-1", "meta-llama-3.1"], Meta, 128_000, Some(8_192), LLAMA),
    m("llama-3.2", &["llama3.2", "llama3-2", "meta-llama-3.2"], Meta, 128_000, Some(8_192), LLAMA),
    m("llama-3.3", &["llama3.3", "llama3-3", "meta-llama-3.3"], Meta, 128_000, Some(8_192), LLAMA),
    // litellm meta.llama4-scout-17b-instruct-v1:0 10000000/8192, meta.llama4-maverick-17b-
    // instruct-v1:0 1000000/8192. Llama 4's tokenizer is in no package we measured: generic.
    m("llama-4-scout", &["llama4-scout"], Meta, 10_000_000, Some(8_192), GENERIC),
    m("llama-4-maverick", &["llama4-maverick"], Meta, 1_000_000, Some(8_192), GENERIC),

    // ---- Mistral: estimated. litellm lists max_output = window for Mistral, so no output
    // limit is given unless ai-tokenizer has one. ------------------------------------------------
    // litellm mistral/mistral-large-latest, -2512, -3 262144 (Large 3; its tokenizer is not
    // in mistral-common 1.13.1: the conservative SentencePiece family). Large 2407/2411:
    // 131,072 per provider docs (ai-tokenizer's mistral/mistral-large 32000 is Large 1).
    m("mistral-large", &[], Mistral, 262_144, None, MISTRAL_SPM),
    m("mistral-large-2411", &["mistral-large-instruct-2411"], Mistral, 131_072, None, MISTRAL_SPM),
    m("mistral-large-2407", &["mistral-large-instruct-2407"], Mistral, 131_072, None, MISTRAL_SPM),
    // Large 1: litellm mistral.mistral-large-2402-v1:0 (Bedrock) 32000/4096.
    m("mistral-large-2402", &[], Mistral, 32_000, None, MISTRAL_SPM),
    // litellm mistral/mistral-medium-latest 262144; ai-tokenizer mistral-medium (3.1)
    // 128000/64000 for the 2505/2508 snapshots.
    m("mistral-medium", &[], Mistral, 262_144, None, MISTRAL),
    m("mistral-medium-2505", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("mistral-medium-2508", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    // litellm mistral/mistral-small-latest 262144; mistral/mistral-small (2402) 32000/8191;
    // Small 2 (2409) 32,768 and Small 3.x (2501, 2503, 2506) 131,072 per provider docs.
    m("mistral-small", &[], Mistral, 262_144, None, MISTRAL),
    m("mistral-small-2402", &[], Mistral, 32_000, Some(8_191), MISTRAL_SPM),
    m("mistral-small-2409", &[], Mistral, 32_768, None, MISTRAL_SPM),
    m("mistral-small-2501", &[], Mistral, 131_072, None, MISTRAL),
    m("mistral-small-2503", &[], Mistral, 131_072, None, MISTRAL),
    m("mistral-small-2506", &[], Mistral, 131_072, None, MISTRAL),
    // litellm mistral/codestral-latest, -2508 128000. Codestral 22B (2405) used SentencePiece
    // v3; later Codestrals' tokenizer is not shipped: the conservative family.
    // Codestral 22B (2405): 32,768 per provider docs.
    m("codestral", &[], Mistral, 128_000, None, MISTRAL_SPM),
    m("codestral-2405", &["codestral-22b"], Mistral, 32_768, None, MISTRAL_SPM),
    // litellm mistral/ministral-8b-latest 262144, ministral-3b-latest 131072 (Ministral 3);
    // the 2410 models: 131,072 per provider docs.
    m("ministral-8b", &[], Mistral, 262_144, None, MISTRAL),
    m("ministral-8b-2410", &[], Mistral, 131_072, None, MISTRAL),
    m("ministral-3b", &[], Mistral, 131_072, None, MISTRAL),
    m("ministral-14b", &[], Mistral, 262_144, None, MISTRAL),
    // litellm mistral/pixtral-large-latest 128000 (SentencePiece v7); Pixtral 12B: 131,072
    // per provider docs (Tekken).
    m("pixtral-large", &[], Mistral, 128_000, None, MISTRAL_SPM),
    m("pixtral-12b", &[], Mistral, 131_072, None, MISTRAL),
    // litellm mistral/devstral-latest, -small-latest, -medium-latest 256000; ai-tokenizer
    // mistral/devstral-small (2505/2507) 128000/64000.
    m("devstral", &["devstral-latest"], Mistral, 256_000, None, MISTRAL),
    m("devstral-small", &[], Mistral, 256_000, None, MISTRAL),
    m("devstral-medium", &[], Mistral, 256_000, None, MISTRAL),
    m("devstral-small-2505", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("devstral-small-2507", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("devstral-medium-2507", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    // litellm mistral/magistral-medium-latest, -small-latest 262144; ai-tokenizer
    // magistral-medium/-small (2509) 128000/64000, as were 2506/2507.
    m("magistral-medium", &[], Mistral, 262_144, None, MISTRAL),
    m("magistral-small", &[], Mistral, 262_144, None, MISTRAL),
    m("magistral-medium-2506", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("magistral-medium-2507", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("magistral-medium-2509", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("magistral-small-2506", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("magistral-small-2507", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    m("magistral-small-2509", &[], Mistral, 128_000, Some(64_000), MISTRAL),
    // litellm mistral/open-mistral-nemo 128000 (tekken_240718).
    m("open-mistral-nemo", &["mistral-nemo"], Mistral, 128_000, None, MISTRAL),
];
