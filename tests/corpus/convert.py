#!/usr/bin/env python3
"""Rebuild the compaction test corpus from the raw files under raw/.

Python 3.11+, standard library only.  Run from anywhere:

    python3 convert.py            # rewrite conversations/, manifest.json,
                                  # identifiers.json and the stats block of README.md
    python3 convert.py --check    # convert in memory, validate, print the table, write nothing

Every output conversation is one JSON file in OpenAI chat-completions style:

    {"id", "source", "license",
     "messages": [{"role": "system"|"user"|"assistant"|"tool", "content": str,
                   "tool_calls": [...] (assistant only, optional),
                   "tool_call_id": str (tool only)}],
     "probes": [{"question", "answer", "evidence_message_indexes", ...}] (optional),
     "meta": {...}}                      # provenance / run facts; safe to ignore

Tool pairing is strict: every assistant message with tool_calls is followed
immediately by exactly one tool message per call, in order, with matching ids.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import zipfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw"
OUT = HERE / "conversations"

# --------------------------------------------------------------------------
# Provenance of the raw files (repository, commit fetched, license).
# --------------------------------------------------------------------------
SOURCES = {
    "locomo": {
        "repo": "snap-research/locomo",
        "commit": "e76cdff4a04fce19090596d49862fe87a5c15aaa",
        "path": "data/locomo10.zip",
        "license": "CC BY-NC 4.0 (no LICENSE file in the GitHub repo; the authors' "
                   "Hugging Face dataset card adymaharana/locomo declares cc-by-nc-4.0)",
    },
    "mini-swe-agent-gemini-3-pro": {
        "repo": "gruckion/mini-swe-agent",
        "commit": "d12a71affd95403b036b2bdbd827349b77bfffb9",
        "path": "swebench_results/20251118_gemini-3-pro-74pct/trajs/",
        "license": "MIT (repo LICENSE.md, fork of SWE-agent/mini-swe-agent); per the fork's "
                   "results.md the trajectories are copies of the public SWE-bench experiments run "
                   "bash-only/20251118_mini-v1.15.0_gemini-3-pro-preview-20251118",
    },
    "tau-bench": {
        "repo": "sierra-research/tau-bench",
        "commit": "59a200c6d575d595120f1cb70fea53cef0632f6b",
        "path": "historical_trajectories/gpt-4o-airline.json",
        "license": "MIT (repo LICENSE)",
    },
    "swe-agent": {
        "repo": "SWE-agent/SWE-agent",
        "commit": "3ea751c087f32b16e039a2233dd6eefecef325d5",
        "path": "trajectories/demonstrations/, tests/test_data/trajectories/",
        "license": "MIT (repo LICENSE)",
    },
}

# How many tau-bench trajectories to keep (the longest ones, one per task id).
TAU_KEEP = 6

# SWE-agent trajectories kept (paths relative to raw/swe-agent, = repo paths).
SWE_AGENT_FILES = [  # (id suffix, path)
    ("gpt4-run-pydicom__pydicom-1458",
     "tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj"),
    ("demo-ctf-web-i_got_id", "trajectories/demonstrations/ctf/web/i_got_id_demo.traj"),
    ("demo-ctf-misc-networking_1", "trajectories/demonstrations/ctf/misc/networking_1.traj"),
    ("demo-ctf-crypto-katy", "trajectories/demonstrations/ctf/crypto/katy.traj"),
    ("demo-ctf-forensics-flash", "trajectories/demonstrations/ctf/forensics/flash.traj"),
    ("demo-function-calling-marshmallow-1867",
     "trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj"),
]


def _call(cid: str, name: str, arguments: str) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


def _text(content) -> str:
    """Message content as a plain string (list-of-parts content is joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


# --------------------------------------------------------------------------
# 1. LoCoMo: very long two-person multi-session chats with QA probes.
# --------------------------------------------------------------------------
LOCOMO_CATEGORIES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain / commonsense",
    4: "single-hop",
    5: "adversarial (not answerable from the conversation)",
}


def convert_locomo() -> list[dict]:
    src = SOURCES["locomo"]
    zpath = RAW / "locomo" / "locomo10.zip"
    out = []
    with zipfile.ZipFile(zpath) as z:
        names = sorted((n for n in z.namelist() if n.endswith(".json")),
                       key=lambda n: int(Path(n).stem))
        for name in names:
            d = json.loads(z.read(name))
            sample = f"conv-{Path(name).stem}"
            a, b = d["speaker_a"], d["speaker_b"]
            sessions = sorted(int(k.split("_")[1]) for k in d if re.fullmatch(r"session_\d+", k))
            msgs = [{
                "role": "system",
                "content": (
                    f"Long-term conversation between two people, {a} and {b}, over "
                    f"{len(sessions)} sessions. Messages by {a} have role 'user', messages by "
                    f"{b} have role 'assistant'; each message starts with the speaker's name, "
                    "and the first message of each session carries the session's date and time. "
                    "Shared photos appear as [shares a photo: caption]."
                ),
            }]
            dia_index: dict[str, int] = {}
            for s in sessions:
                when = d.get(f"session_{s}_date_time", "")
                for j, turn in enumerate(d[f"session_{s}"]):
                    text = turn["text"]
                    if turn.get("blip_caption"):
                        text += f" [shares a photo: {turn['blip_caption']}]"
                    content = f"{turn['speaker']}: {text}"
                    if j == 0:
                        content = f"[Session {s} \u2014 {when}]\n{content}"
                    dia_index[turn["dia_id"]] = len(msgs)
                    msgs.append({"role": "user" if turn["speaker"] == a else "assistant",
                                 "content": content})
            probes = []
            for q in d.get("qa", []):
                refs, unmapped = [], []
                for ev in q.get("evidence", []) or []:
                    found = re.findall(r"D:?(\d+):(\d+)", ev)
                    if not found:
                        unmapped.append(ev)
                    for sn, tn in found:
                        key = f"D{int(sn)}:{int(tn)}"
                        if key in dia_index:
                            refs.append(dia_index[key])
                        else:
                            unmapped.append(ev)
                cat = q.get("category")
                if "answer" in q and q["answer"] is not None:
                    answer = str(q["answer"])
                else:
                    answer = "Not answerable from the conversation."
                p = {"question": q["question"], "answer": answer,
                     "evidence_message_indexes": sorted(set(refs)),
                     "origin": "dataset (LoCoMo QA annotation)",
                     "category": cat, "category_name": LOCOMO_CATEGORIES.get(cat, str(cat))}
                if "adversarial_answer" in q:
                    p["adversarial_answer"] = str(q["adversarial_answer"])
                if unmapped:
                    p["unmapped_evidence"] = unmapped
                probes.append(p)
            out.append({
                "id": f"locomo__{sample}",
                "source": f"{src['repo']}/{src['path']}#{name}",
                "license": src["license"],
                "messages": msgs,
                "probes": probes,
                "meta": {"dataset": "LoCoMo (ACL 2024)", "sample_id": sample,
                         "speakers": [a, b], "sessions": len(sessions),
                         "commit": src["commit"],
                         "note": "Dialogues were generated by LLM agents and edited by "
                                 "human annotators; QA/evidence are human annotations."},
            })
    return out


# --------------------------------------------------------------------------
# 2. mini-swe-agent (Gemini 3 Pro) SWE-bench Verified trajectories.
#    Actions are ```bash blocks in the assistant text; observations come back
#    as user messages.  Converted to bash tool calls + tool results.
# --------------------------------------------------------------------------
MSA_ACTION = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)


def convert_mini_swe_agent() -> list[dict]:
    src = SOURCES["mini-swe-agent-gemini-3-pro"]
    base = RAW / "mini-swe-agent-gemini-3-pro"
    summary = json.loads((base / "results_summary.json").read_text())
    resolved = {x["instance_id"]: x.get("resolved") for x in summary["instances"]}
    out = []
    for f in sorted((base / "trajs").glob("*.traj.json")):
        d = json.loads(f.read_text())
        raw = d["messages"]
        msgs, n, pending = [], 0, None
        model, last_prompt_tokens, completion_tokens = None, None, 0
        for i, m in enumerate(raw):
            role, content = m["role"], _text(m["content"])
            if role == "assistant":
                resp = (m.get("extra") or {}).get("response") or {}
                model = resp.get("model") or model
                usage = resp.get("usage") or {}
                if usage.get("prompt_tokens") is not None:
                    last_prompt_tokens = usage["prompt_tokens"]
                completion_tokens += usage.get("completion_tokens") or 0
                actions = MSA_ACTION.findall(content)
                nxt = raw[i + 1] if i + 1 < len(raw) else None
                if len(actions) == 1 and nxt is not None and nxt["role"] == "user":
                    n += 1
                    cid = f"call_{n:03d}"
                    thought = MSA_ACTION.sub("", content, count=1).strip()
                    msgs.append({"role": "assistant", "content": thought,
                                 "tool_calls": [_call(cid, "bash", json.dumps({"command": actions[0]}))]})
                    pending = cid
                else:  # format error: the harness answers with a plain user message
                    msgs.append({"role": "assistant", "content": content})
                    pending = None
            elif role == "user" and pending:
                msgs.append({"role": "tool", "tool_call_id": pending, "content": content})
                pending = None
            else:
                msgs.append({"role": role, "content": content})
        iid = d.get("instance_id") or f.name.split(".")[0]
        out.append({
            "id": f"mini-swe-agent-gemini-3-pro__{iid}",
            "source": f"{src['repo']}/{src['path']}{iid}/{f.name}",
            "license": src["license"],
            "messages": msgs,
            "probes": probe_first_traceback(msgs),
            "meta": {"agent": "mini-swe-agent", "trajectory_format": d.get("trajectory_format"),
                     "model": model, "benchmark": "SWE-bench Verified", "instance_id": iid,
                     "exit_status": (d.get("info") or {}).get("exit_status"),
                     "resolved": resolved.get(iid),
                     "reported_prompt_tokens_last_call": last_prompt_tokens,
                     "reported_completion_tokens_total": completion_tokens,
                     "commit": src["commit"]},
        })
    return out


# --------------------------------------------------------------------------
# 3. tau-bench historical trajectories (gpt-4o agent, simulated user),
#    already in OpenAI tool-call format.
# --------------------------------------------------------------------------
def convert_tau_bench() -> list[dict]:
    src = SOURCES["tau-bench"]
    data = json.loads((RAW / "tau-bench" / "gpt-4o-airline.json").read_text())

    def size(e):
        return sum(len(_text(m.get("content"))) +
                   sum(len(tc["function"]["arguments"]) for tc in (m.get("tool_calls") or []))
                   for m in e["traj"])

    ranked = sorted(data, key=lambda e: (-size(e), int(e["task_id"]), int(e["trial"])))
    chosen, seen = [], set()
    for e in ranked:
        if e["task_id"] in seen:
            continue
        seen.add(e["task_id"])
        chosen.append(e)
        if len(chosen) == TAU_KEEP:
            break
    out = []
    for e in chosen:
        msgs = []
        for m in e["traj"]:
            msg = {"role": m["role"], "content": _text(m.get("content"))}
            if m.get("tool_calls"):
                msg["tool_calls"] = [_call(tc["id"], tc["function"]["name"], tc["function"]["arguments"])
                                     for tc in m["tool_calls"]]
            if m["role"] == "tool":
                msg["tool_call_id"] = m["tool_call_id"]
            msgs.append(msg)
        task = (e.get("info") or {}).get("task") or {}
        out.append({
            "id": f"tau-bench__gpt-4o-airline__task-{e['task_id']}-trial-{e['trial']}",
            "source": f"{src['repo']}/{src['path']}",
            "license": src["license"],
            "messages": msgs,
            "probes": probe_tau_profile(msgs),
            "meta": {"benchmark": "tau-bench airline", "agent_model": "gpt-4o",
                     "user": "LLM user simulator", "task_id": e["task_id"], "trial": e["trial"],
                     "reward": e.get("reward"), "user_instruction": task.get("instruction"),
                     "commit": src["commit"]},
        })
    return out


# --------------------------------------------------------------------------
# 4. SWE-agent trajectories (.traj): the "history" the model saw.  Text actions
#    become bash tool calls; function-calling runs keep their native calls.
# --------------------------------------------------------------------------
def convert_swe_agent() -> list[dict]:
    src = SOURCES["swe-agent"]
    out = []
    for slug, rel in SWE_AGENT_FILES:
        d = json.loads((RAW / "swe-agent" / rel).read_text())
        hist = d["history"]
        msgs, n, pending = [], 0, None
        for i, m in enumerate(hist):
            role, content = m["role"], _text(m.get("content"))
            if role == "assistant" and m.get("tool_calls"):
                msgs.append({"role": "assistant", "content": content,
                             "tool_calls": [_call(tc["id"], tc["function"]["name"], tc["function"]["arguments"])
                                            for tc in m["tool_calls"]]})
                pending = None
            elif role == "tool":
                ids = m.get("tool_call_ids") or [m.get("tool_call_id")]
                msgs.append({"role": "tool", "tool_call_id": ids[0], "content": content})
            elif role == "assistant" and m.get("action") and i + 1 < len(hist) and hist[i + 1]["role"] == "user":
                n += 1
                cid = f"call_{n:03d}"
                thought = _text(m.get("thought", content)).strip()
                msgs.append({"role": "assistant", "content": thought,
                             "tool_calls": [_call(cid, "bash", json.dumps({"command": m["action"].strip()}))]})
                pending = cid
            elif role == "user" and pending:
                msgs.append({"role": "tool", "tool_call_id": pending, "content": content})
                pending = None
            else:
                msgs.append({"role": role, "content": content})
                pending = None
        info = d.get("info") or {}
        out.append({
            "id": f"swe-agent__{slug}",
            "source": f"{src['repo']}/{rel}",
            "license": src["license"],
            "messages": msgs,
            "probes": probe_first_traceback(msgs),
            "meta": {"agent": "SWE-agent", "exit_status": info.get("exit_status"),
                     "kind": "demonstration" if rel.startswith("trajectories/demonstrations/") else "test-data run",
                     "has_inlined_demonstration": any(h.get("is_demo") for h in hist),
                     "commit": src["commit"]},
        })
    return out


# --------------------------------------------------------------------------
# Derived probes for the tool-using sources: facts that live in an early tool
# result (exactly what pruning old tool outputs can destroy).  Mechanical,
# flagged with origin "derived".
# --------------------------------------------------------------------------
_EXC_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|error|Failure|Fault)(?::\s.*)?$")


def probe_first_traceback(msgs: list[dict]) -> list[dict]:
    for i, m in enumerate(msgs):
        if m["role"] != "tool" or "Traceback (most recent call last):" not in m["content"]:
            continue
        tail = m["content"].split("Traceback (most recent call last):", 1)[1]
        for line in tail.splitlines()[1:]:
            if line and not line[0].isspace() and _EXC_LINE.match(line.strip()):
                exc = line.strip()
                if len(exc) > 300:
                    exc = exc[:300] + "..."
                cmd = None
                if i > 0 and msgs[i - 1].get("tool_calls"):
                    cmd = msgs[i - 1]["tool_calls"][0]["function"]["arguments"]
                return [{
                    "question": "The first command whose output contained a Python traceback: "
                                "which exception (type and message) did that traceback end with?",
                    "answer": exc,
                    "evidence_message_indexes": [i],
                    "origin": "derived",
                    "rule": "first tool result containing 'Traceback (most recent call last):'; "
                            "first unindented exception line after it",
                    "tool_call_arguments": cmd,
                }]
    return []


def probe_tau_profile(msgs: list[dict]) -> list[dict]:
    for i, m in enumerate(msgs):
        calls = m.get("tool_calls") or []
        if len(calls) == 1 and calls[0]["function"]["name"] == "get_user_details" and i + 1 < len(msgs):
            try:
                prof = json.loads(msgs[i + 1]["content"])
            except ValueError:
                continue
            out = []
            if prof.get("reservations"):
                out.append({"question": "Which reservation IDs were listed in the user's profile "
                                        "returned by the first get_user_details lookup?",
                            "answer": ", ".join(prof["reservations"]),
                            "evidence_message_indexes": [i + 1], "origin": "derived",
                            "rule": "reservations of the first get_user_details result"})
            if prof.get("payment_methods"):
                out.append({"question": "Which payment method IDs were in that profile?",
                            "answer": ", ".join(prof["payment_methods"]),
                            "evidence_message_indexes": [i + 1], "origin": "derived",
                            "rule": "payment_methods keys of the first get_user_details result"})
            return out
    return []


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------
def dedupe_tool_ids(msgs: list[dict]) -> int:
    """Some raw runs reuse a tool-call id in later turns (replayed calls).  Give
    repeats a unique suffix and point their tool results at the new id."""
    seen, waiting, renamed = set(), {}, 0
    for m in msgs:
        if m.get("tool_calls"):
            for tc in m["tool_calls"]:
                orig = new = tc["id"]
                k = 1
                while new in seen:
                    k += 1
                    new = f"{orig}_dup{k}"
                if new != orig:
                    renamed += 1
                    tc["id"] = new
                seen.add(new)
                waiting.setdefault(orig, []).append(new)
        elif m["role"] == "tool" and waiting.get(m.get("tool_call_id")):
            m["tool_call_id"] = waiting[m["tool_call_id"]].pop(0)
    return renamed


def validate(conv: dict) -> list[str]:
    errs = []
    msgs = conv["messages"]
    seen_ids = set()
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if m["role"] not in ("system", "user", "assistant", "tool"):
            errs.append(f"{i}: bad role {m['role']}")
        if not isinstance(m.get("content"), str):
            errs.append(f"{i}: content not a string")
        if m["role"] == "tool":
            errs.append(f"{i}: tool message without a directly preceding tool call")
        if "tool_calls" in m:
            if m["role"] != "assistant":
                errs.append(f"{i}: tool_calls on {m['role']}")
            calls = m["tool_calls"]
            for k, tc in enumerate(calls):
                if tc["id"] in seen_ids:
                    errs.append(f"{i}: duplicate tool call id {tc['id']}")
                seen_ids.add(tc["id"])
                if not isinstance(tc["function"].get("arguments"), str):
                    errs.append(f"{i}: arguments not a string")
                j = i + 1 + k
                if j >= len(msgs) or msgs[j]["role"] != "tool" or msgs[j].get("tool_call_id") != tc["id"]:
                    errs.append(f"{i}: tool call {tc['id']} not answered at {j}")
            i += 1 + len(calls)
            continue
        i += 1
    for p in conv.get("probes", []):
        for ix in p["evidence_message_indexes"]:
            if not 0 <= ix < len(msgs):
                errs.append(f"probe evidence index {ix} out of range")
    return errs


# --------------------------------------------------------------------------
# Identifier census (to measure later how many survive compaction).
# Applied in this order; each match is masked before the next pattern runs.
# --------------------------------------------------------------------------
_FILE_EXT = ("py|pyc|pyi|js|ts|tsx|jsx|rs|go|c|h|cc|cpp|hpp|java|rb|sh|pl|php|txt|md|rst|json|"
             "yml|yaml|toml|cfg|ini|html|css|xml|csv|log|lock|sql|traj|pot|po|png|jpg|svg")
ID_PATTERNS = [
    ("url", re.compile(r"\b(?:https?|ftp|wss?)://[^\s<>\"'`)\]}]+")),
    ("host_port", re.compile(
        r"\b(?:localhost|(?:\d{1,3}\.){3}\d{1,3}|(?:[A-Za-z0-9-]+\.)+(?!(?:" + _FILE_EXT + r"):)[A-Za-z]{2,})"
        r":\d{2,5}\b")),
    ("path", re.compile(
        r"(?<![\w/.:-])(?:~|\.{1,2})?(?:/[\w.+@-]+){2,}/?"          # /abs/path, ~/x/y, ./a/b
        r"|\b[\w.+@-]+(?:/[\w.+@-]+)+\.[A-Za-z][A-Za-z0-9]{0,5}\b")),  # rel/path/file.ext
    ("error_name", re.compile(r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning)\b")),
    ("ticket", re.compile(r"\b(?!(?:UTF|SHA|ISO|MD|TLS|SSL|HTTP)-)[A-Z][A-Z0-9]{1,9}-\d{1,6}\b"
                          r"|(?<![\w&#])#\d{3,7}\b")),
    ("hex", re.compile(r"\b0x[0-9a-fA-F]{6,}\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b")),
    ("code", re.compile(r"\b(?!\d+T\d+\b)(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,12}\b"  # JG7FMM, HAT123
                        r"|\b[a-z]+(?:_[a-z]+)+_\d{2,}\b")),                   # omar_davis_3817
]
ID_KINDS = [k for k, _ in ID_PATTERNS]


def message_text(m: dict) -> str:
    parts = [m.get("content") or ""]
    for tc in m.get("tool_calls") or []:
        parts.append(tc["function"]["name"])
        parts.append(tc["function"]["arguments"])
    return "\n".join(parts)


def find_identifiers(text: str) -> dict[str, list[str]]:
    found = {}
    for kind, pat in ID_PATTERNS:
        hits = []

        def keep(mo, hits=hits):
            s = mo.group(0).rstrip(".,;:")
            hits.append(s)
            return " " * len(mo.group(0))
        text = pat.sub(keep, text)
        found[kind] = hits
    return found


def census(conv: dict) -> dict[str, dict[str, dict]]:
    """kind -> identifier -> {"first": first message index, "count": occurrences}"""
    res = {k: {} for k in ID_KINDS}
    for i, m in enumerate(conv["messages"]):
        for kind, hits in find_identifiers(message_text(m)).items():
            for h in hits:
                e = res[kind].setdefault(h, {"first": i, "count": 0})
                e["count"] += 1
    return res


def stats(conv: dict) -> dict:
    msgs = conv["messages"]
    chars = sum(len(message_text(m)) for m in msgs)
    roles = Counter(m["role"] for m in msgs)
    cen = census(conv)
    return {
        "messages": len(msgs),
        "roles": dict(roles),
        "tool_calls": sum(len(m.get("tool_calls") or []) for m in msgs),
        "chars": chars,
        "est_tokens": chars // 4,
        "max_message_chars": max(len(message_text(m)) for m in msgs),
        "probes": len(conv.get("probes", [])),
        "identifiers": {k: len(v) for k, v in cen.items()},
        "identifiers_total": sum(len(v) for v in cen.values()),
    }, cen


# --------------------------------------------------------------------------
def sha256(p: Path) -> str:
    h = hashlib.sha256()
    with p.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def table(rows: list[dict]) -> str:
    short = {"url": "url", "host_port": "h:p", "path": "path", "error_name": "err",
             "ticket": "tkt", "hex": "hex", "code": "code"}
    head = ("| conversation | msgs | tool calls | chars | est. tokens | probes | "
            + " | ".join(short[k] for k in ID_KINDS) + " | ids total |")
    sep = "|" + "---|" * (7 + len(ID_KINDS))
    lines = [head, sep]
    for r in rows:
        s = r["stats"]
        lines.append(f"| {r['id']} | {s['messages']} | {s['tool_calls']} | {s['chars']:,} | "
                     f"{s['est_tokens']:,} | {s['probes']} | "
                     + " | ".join(str(s["identifiers"][k]) for k in ID_KINDS)
                     + f" | {s['identifiers_total']} |")
    return "\n".join(lines)


def summary(rows: list[dict]) -> str:
    by = {}
    for r in rows:
        b = by.setdefault(r["source_key"], {"n": 0, "msgs": 0, "chars": 0, "tok": 0, "calls": 0,
                                             "long": 0, "probes": 0, "ids": 0})
        s = r["stats"]
        b["n"] += 1; b["msgs"] += s["messages"]; b["chars"] += s["chars"]
        b["tok"] += s["est_tokens"]; b["calls"] += s["tool_calls"]; b["probes"] += s["probes"]
        b["ids"] += s["identifiers_total"]; b["long"] += s["est_tokens"] > 30000
    lines = ["| source | conversations | messages | tool calls | chars | est. tokens | >30k tokens | probes | identifiers (unique per conv., summed) |",
             "|---|---|---|---|---|---|---|---|---|"]
    tot = Counter()
    for k, b in by.items():
        lines.append(f"| {k} | {b['n']} | {b['msgs']:,} | {b['calls']:,} | {b['chars']:,} | {b['tok']:,} | "
                     f"{b['long']} | {b['probes']:,} | {b['ids']:,} |")
        tot.update(b)
    lines.append(f"| **total** | {tot['n']} | {tot['msgs']:,} | {tot['calls']:,} | {tot['chars']:,} | "
                 f"{tot['tok']:,} | {tot['long']} | {tot['probes']:,} | {tot['ids']:,} |")
    return "\n".join(lines)


def main() -> int:
    check = "--check" in sys.argv[1:]
    convs = []
    for key, fn in [("locomo", convert_locomo), ("mini-swe-agent-gemini-3-pro", convert_mini_swe_agent),
                    ("tau-bench", convert_tau_bench), ("swe-agent", convert_swe_agent)]:
        for c in fn():
            convs.append((key, c))
    rows, idmap, bad = [], {}, 0
    for key, c in convs:
        renamed = dedupe_tool_ids(c["messages"])
        if renamed:
            c["meta"]["renamed_duplicate_tool_call_ids"] = renamed
        errs = validate(c)
        if errs:
            bad += 1
            print(f"INVALID {c['id']}: {errs[:5]}", file=sys.stderr)
        st, cen = stats(c)
        rows.append({"id": c["id"], "source_key": key, "file": f"conversations/{key}/{c['id']}.json",
                     "source": c["source"], "license": c["license"], "stats": st})
        idmap[c["id"]] = {k: dict(sorted(v.items())) for k, v in cen.items()}
    print(summary(rows))
    print()
    print(table(rows))
    if bad:
        print(f"{bad} invalid conversations", file=sys.stderr)
        return 1
    if check:
        return 0

    # One folder per source, beside its licence file (which is kept).
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*/*.json"):
        old.unlink()
    for key, c in convs:
        (OUT / key).mkdir(exist_ok=True)
        (OUT / key / f"{c['id']}.json").write_text(json.dumps(c, ensure_ascii=False, indent=1) + "\n")
    raw_files = {str(p.relative_to(HERE)): {"bytes": p.stat().st_size, "sha256": sha256(p)}
                 for p in sorted(RAW.rglob("*")) if p.is_file()}
    manifest = {"sources": SOURCES, "raw_files": raw_files,
                "identifier_kinds": {k: p.pattern for k, p in ID_PATTERNS},
                "conversations": rows}
    (HERE / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    (HERE / "identifiers.json").write_text(json.dumps(idmap, ensure_ascii=False, separators=(",", ":")) + "\n")

    readme = HERE / "README.md"
    if readme.exists():
        txt = readme.read_text()
        b, e = "<!-- STATS:BEGIN -->", "<!-- STATS:END -->"
        if b in txt and e in txt:
            pre, rest = txt.split(b, 1)
            _, post = rest.split(e, 1)
            block = f"{b}\n### Per source\n\n{summary(rows)}\n\n### Per conversation\n\n{table(rows)}\n{e}"
            readme.write_text(pre + block + post)
    return 0


if __name__ == "__main__":
    sys.exit(main())
