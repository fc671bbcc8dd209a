//! Writes `vocab/*.ctxv` from tiktoken-rs's vocabularies (the reference ctxfold is
//! checked against). Run `cargo run --release --example gen_vocab` after upgrading it.

use ctxfold::tokenizer::vocab::serialize;

fn main() {
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vocab");
    for (name, bpe) in [
        ("o200k_base", tiktoken_rs::o200k_base_singleton()),
        ("cl100k_base", tiktoken_rs::cl100k_base_singleton()),
    ] {
        // Ranks are dense from 0; the first id that does not decode ends the vocabulary
        // (special tokens live above a gap and are never produced by encode_ordinary).
        let tokens: Vec<Vec<u8>> = (0u32..)
            .map_while(|rank| bpe.decode_bytes(&[rank]).ok())
            .collect();
        let path = out.join(format!("{name}.ctxv"));
        std::fs::write(&path, serialize(name, &tokens)).expect("write vocabulary");
        println!("{} tokens -> {}", tokens.len(), path.display());
    }
}
