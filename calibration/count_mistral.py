"""Counts every sample of out/samples.jsonl with Mistral's own tokenizers, as shipped in the
PyPI package mistral-common (requirements.txt). Writes out/counts_mistral.jsonl.

    .venv/bin/python count_mistral.py

Columns: tekken (tekken_240911.json: the 131k Tekken vocabulary of Pixtral 12B, Mistral
Small 3.x, Ministral, Devstral, Magistral, Mistral Medium 3), tekken_nemo (tekken_240718.json,
Mistral NeMo), spm_v7 (the 32k SentencePiece v7 vocabulary of Mistral Large 2411 and Pixtral
Large), spm_v3 (SentencePiece v3: Mistral Large 2407, Codestral 22B, Mistral 7B v0.3).
"""

import json
import os
from pathlib import Path

import mistral_common
from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

HERE = Path(__file__).resolve().parent
DATA = Path(mistral_common.__file__).parent / "data"

tokenizers = {
    "tekken": Tekkenizer.from_file(DATA / "tekken_240911.json"),
    "tekken_nemo": Tekkenizer.from_file(DATA / "tekken_240718.json"),
    "spm_v7": SentencePieceTokenizer(str(DATA / "mistral_instruct_tokenizer_241114.model.v7")),
    "spm_v3": SentencePieceTokenizer(str(DATA / "mistral_instruct_tokenizer_240323.model.v3")),
}

with open(HERE / "out/samples.jsonl", encoding="utf-8") as f, open(
    HERE / "out/counts_mistral.jsonl", "w", encoding="utf-8"
) as out:
    n = 0
    for line in f:
        s = json.loads(line)
        row = {"id": s["id"]}
        for name, tok in tokenizers.items():
            # bos/eos off: content tokens only, like the other columns.
            row[name] = len(tok.encode(s["text"], bos=False, eos=False))
        out.write(json.dumps(row) + "\n")
        n += 1
print(f"{n} samples counted", os.path.basename(mistral_common.__file__), mistral_common.__version__)
