//! The vocabularies the structural rules of [`super::shape`] are written in: small lists of
//! word stems per role a word plays in an instruction (a verb that drops the instructions, the
//! instructions themselves, a second-person pronoun, a verb that reveals), in the languages
//! summaries are written in (English, German, Spanish, French, Italian, Portuguese, Turkish,
//! Russian, Chinese, Japanese, Arabic, Persian).
//!
//! A stem is matched against one word of the folded text, a phrase (stems separated by
//! spaces) against consecutive words: a Latin stem is a word's beginning, `=stem` the whole
//! word, and a stem in another script may sit anywhere in the word (scripts written without
//! spaces, and Arabic's attached articles). Stems are folded like the text before use.

/// The role a word plays, one list each.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum K {
    /// Verbs that drop what came before: ignore, forget, disregard (verb before object).
    Drop,
    /// The same in languages that put the verb after its object (Turkish, Japanese, Persian).
    DropLast,
    /// What the assistant was told: instructions, rules, the system prompt, its safety.
    Orders,
    /// What came before, as a whole: the above, everything, the rest of this.
    Earlier,
    /// Second-person pronouns and verb forms.
    You,
    /// Second-person possessives.
    Yours,
    /// The assistant's own secrets: its system prompt, hidden instructions, context window.
    Secret,
    /// Verbs that reveal or print.
    Reveal,
    /// The same as imperatives of languages that put the verb last (Turkish, Japanese, Persian).
    RevealLast,
    /// Word for word.
    Verbatim,
    /// From now on, for the rest of the conversation.
    Henceforth,
    /// No, without (before a restriction).
    Without,
    /// Restrictions, limits, filters, censorship.
    Limits,
    /// Without limits, in one word.
    Loose,
    /// A model with no limits, in a fixed phrase.
    Unbound,
    /// What the assistant writes back: every response, your reply.
    Reply,
    /// Answer, respond (to demand a form of answer).
    Answer,
    /// Verbs that send data out.
    Send,
    /// Verbs that run a tool.
    Call,
    /// Verbs that produce text (for a demand of harmful text).
    Produce,
    /// Harmful text.
    Harm,
    /// Obeying what a payload says.
    Obey,
    /// Naming an encoding or a reversal.
    Encoded,
    /// Words that open a note to someone.
    Note,
    /// The model as an addressee.
    Model,
    /// The voices of a chat template: system, developer, assistant, administrator.
    Voice,
    /// Words that join clauses and let an imperative follow (and, then, please, also).
    Joiner,
    /// Turning something off.
    Disable,
    /// English imperatives (a clause that starts with one is addressed to the reader).
    Imperative,
    /// Subjects of a statement: a line whose verb follows one reports, it does not ask.
    Subject,
}

/// The stems of `k`.
pub fn stems(k: K) -> &'static [&'static str] {
    match k {
        K::Drop => &[
            "=ignore", "=disregard", "=forget", "=override", "=bypass", "=discard", "=abandon",
            "do not follow", "don't follow", "stop following", "pay no attention to", "=supersedes",
            "ignorier", "=vergiss", "=vergessen", "missachte", "=ignora", "=ignorar", "=olvida",
            "=olvide", "=olvidad", "=omite", "=descarta", "=ignorez", "=ignorer", "=oublie",
            "=oubliez", "=oublier", "ne tiens pas compte", "ne tenez pas compte", "=dimentica",
            "=dimenticate", "=trascura", "=ignorate", "=esqueça", "=esqueca", "=esquece",
            "=desconsidere", "=desconsidera", "игнорир", "=забудь", "=забудьте", "не обращай",
            "忽略", "忘记", "忘掉", "无视", "忽视", "不要理会", "تجاهل", "=انس", "تناس",
        ],
        K::DropLast => &[
            "yok say", "=unut", "=unutun", "görmezden gel", "dikkate alma", "geçersiz kıl",
            "iptal", "=atla", "無視", "忘れ", "نادیده", "فراموش",
        ],
        K::Orders => &[
            "instruction", "direction", "directive", "=rule", "=rules", "guideline", "prompt",
            "=policy", "=policies", "restriction", "constraint", "=filter", "=filters",
            "programming", "=safety", "=system", "guardrail", "protocol", "limitation",
            "=context", "content polic", "instrucci", "indicacion", "=regla", "=reglas", "directriz",
            "consigne", "=règle", "=règles", "anweisung", "=regel", "=regeln", "vorgabe",
            "richtlinie", "istruzion", "=regole", "direttive", "instruç", "=regras", "diretriz",
            "talimat", "kural", "sistem", "komut", "filtre", "yönerge", "güvenlik", "kısıtlama", "mesaj",
            "инструкц", "указани", "правил", "промпт", "директив", "指令", "指示", "规则",
            "提示", "说明", "命令", "ルール", "プロンプト", "تعليمات", "التعليمات", "الأوامر",
            "القواعد", "موجه", "دستورالعمل", "دستورات", "قوانین",
        ],
        K::Earlier => &["=above", "=everything", "=prior", "the rest of this", "this data"],
        K::You => &[
            "=you", "=your", "=you're", "=yourself", "=du", "=dich", "=dir", "=tú", "=eres",
            "=usted", "=vous", "=toi", "=tu", "=sei", "=você", "=voce", "=sen", "=sana", "=seni",
            "=senin", "=ты", "=тебя", "=тебе", "=вы", "你", "您", "あなた", "=أنت", "=انت", "=تو",
            "=شما",
        ],
        K::Yours => &[
            "=your", "dein", "=tu", "=tus", "=tes", "=ton", "=ta", "=votre", "=vos", "=tuo",
            "=tuoi", "=tua", "=tue", "=seu", "=sua", "=seus", "=suas", "=teu", "=tua", "=твой",
            "=твои", "=свой", "=свои", "=ваш", "=ваши", "=senin", "你的", "あなたの",
        ],
        K::Secret => &[
            "system prompt", "systemprompt", "system_prompt", "system message", "system instruction",
            "system configuration", "initial instruction", "initial prompt", "original instruction",
            "hidden instruction", "secret instruction", "internal instruction",
            "internal configuration", "internal data", "context window", "text above",
            "conversation above", "instructions above", "developer message", "hidden prompt",
            "prompt de sistema", "prompt del sistema", "mensaje de sistema", "mensaje del sistema",
            "instrucciones del sistema", "instructions système", "instructions systeme",
            "prompt système", "prompt di sistema", "istruzioni di sistema", "prompt do sistema",
            "instruções do sistema", "systemanweisung", "systemnachricht", "interne daten",
            "sistem istem", "sistem mesaj", "sistem talimat", "sistem komut", "iç talimat",
            "gizli anahtar", "системный промпт", "системные инструкции", "системное сообщение",
            "系统提示", "系统指令", "系统消息", "系統提示", "システムプロンプト", "موجه النظام",
            "تعليمات النظام", "رسالة النظام", "الخاص بك", "پرامپت سیستم", "دستورالعمل سیستم",
            "you were given", "you were told", "you were instructed", "you have been given",
            "=credentials", "api key", "=password", "=passwords", "private key",
            "environment variable",
        ],
        K::Reveal => &[
            "=reveal", "=show", "=print", "=output", "=repeat", "=display", "=dump", "=list",
            "=tell", "=give", "=leak", "=disclose", "=share", "=expose", "=return", "=provide",
            "=recite", "=echo", "=log", "=continue", "=complete", "=write", "=revela", "=muestra",
            "=muestre", "=repite", "=dime", "=imprime", "=révèle", "=revele", "=montre",
            "=affiche", "=répète", "=donne", "zeig", "=verrate", "=gib", "=wiederhole", "=nenne",
            "=rivela", "=mostra", "=mostrami", "=ripeti", "=stampa", "=dimmi", "=mostre",
            "=repita", "=diga", "=выведи",
            "=покажи", "=раскрой", "=повтори", "=напиши", "=скажи", "显示", "展示", "输出",
            "告诉", "泄露", "重复", "打印", "透露", "أظهر", "اكشف", "اعرض", "كرر", "اطبع",
        ],
        K::RevealLast => &[
            "=göster", "=gösterin", "=yaz", "=yazın", "=tekrarla", "=tekrarlayın", "=söyle",
            "=söyleyin", "=paylaş", "表示して", "教えて", "見せて", "出力して", "نشان بده",
            "فاش کن", "بنویس", "تکرار کن",
        ],
        K::Verbatim => &[
            "=verbatim", "word for word", "palabra por palabra", "mot pour mot", "wort für wort",
            "parola per parola", "palavra por palavra", "kelimesi kelimesine", "дословно",
            "слово в слово", "逐字", "原文", "حرفيا", "حرفياً", "کلمه به کلمه",
        ],
        K::Henceforth => &[
            "from now on", "from this point", "from here on", "for the rest of this",
            "for the rest of the conversation", "for the remainder", "=henceforth",
            "a partir de ahora", "desde ahora", "de ahora en adelante", "à partir de maintenant",
            "=désormais", "=dorénavant", "ab jetzt", "ab sofort", "von nun an", "d'ora in poi",
            "da ora in poi", "d'ora in avanti", "a partir de agora", "de agora em diante",
            "bundan sonra", "bundan böyle", "=artık", "=отныне", "с этого момента", "=теперь",
            "从现在开始", "从现在起", "今后", "これから", "今後", "今から", "من الآن",
            "از این به بعد", "از حالا", "=اکنون", "=الان",
        ],
        K::Without => &[
            "=no", "=without", "=zero", "=sin", "=sans", "=ohne", "=keine", "=kein", "=senza",
            "=sem", "=без", "=بلا", "=بدون", "=دون",
        ],
        K::Limits => &[
            "restriction", "=limit", "=limits", "=filter", "=filters", "=rules", "censor",
            "content polic", "guideline", "constraint", "limitation", "guardrail", "=boundaries",
            "=moral", "=morals", "=ethics", "restricci", "=límites", "=limites", "=filtros",
            "=reglas", "=censura", "=restrictions", "=filtre", "=filtres", "=règles", "=censure",
            "=regeln", "einschränkung", "=grenzen", "=zensur", "restrizion", "=limiti",
            "=filtri", "=regole", "restriç", "=regras", "ограничени", "цензур", "фильтр",
            "правил", "قيود", "محدودیت",
        ],
        K::Loose => &["=unrestricted", "=unfiltered", "=uncensored"],
        K::Unbound => &[
            "jailbr", "developer mode", "dan mode",
            "god mode", "no content policy", "=reddetme", "sansürsüz", "kısıtlaması olmayan",
            "kısıtlamaları kaldır", "kural tanımayan", "sansür uygulama", "без ограничений",
            "без цензуры", "无限制", "不受限制", "没有限制", "没有任何限制", "制限なし",
            "制限のない", "بلا قيود", "بدون قيود", "دون قيود", "بدون محدودیت",
        ],
        K::Reply => &[
            "every response", "every reply", "every answer", "each response", "each reply",
            "all responses", "all future", "every future", "your reply", "your response",
            "your answer", "your summary", "your output", "your review",
            "future messages", "her yanıt", "cada respuesta", "tu respuesta", "chaque réponse",
            "ta réponse", "jeder antwort", "deine antwort", "ogni risposta", "cada resposta",
            "sua resposta", "каждого ответа", "твой ответ", "每个回答", "每次回答", "你的回答",
            "respond only", "reply only", "answer only", "only respond", "only reply",
            "only answer", "respond with", "reply with", "ile yanıt", "ile cevap",
            "responde solo", "réponds uniquement", "antworte nur", "rispondi solo",
            "responda apenas", "只回答", "只回复",
        ],
        K::Answer => &[
            "=answer", "=respond", "=reply", "beantworte", "antworte", "=responde", "=contesta",
            "=réponds", "=répondez", "=rispondi", "=responda", "yanıt", "cevap", "=ответь",
            "回答", "答え", "أجب", "پاسخ",
        ],
        K::Send => &[
            "=send", "=email", "=e-mail", "=mail", "=forward", "=post", "=upload", "=transmit",
            "=exfiltrate", "=leak", "=envoie", "=envoyez", "=envía", "=envia", "=envie",
            "=sende", "=schicke", "=schick", "=invia", "gönder", "=отправь", "=перешли", "发送",
            "送信", "أرسل", "بفرست",
        ],
        K::Call => &["=call", "=invoke", "=use", "=trigger"],
        K::Produce => &["=write", "=generate", "=say", "=produce", "=create", "=compose"],
        K::Harm => &[
            "=toxic", "discriminat", "=racist", "=sexist", "hateful", "=offensive", "=insult",
            "=slur", "=slurs", "threaten", "harass", "obscene", "defamat",
        ],
        K::Obey => &[
            "do what it says", "do as it says", "what it says", "=follow it", "follow them",
            "obey it", "=comply", "execute it", "carry it out", "instruction inside",
            "instructions inside", "instruction in it", "follow the decoded", "follow the hidden",
        ],
        K::Encoded => &[
            "=decode", "=decrypt", "backwards", "=reverse", "=reversed", "base64", "rot13",
            "=hex", "=binary", "encoded", "cipher", "=unscramble",
        ],
        K::Note => &[
            "=note", "=attention", "=dear", "=hey", "=message", "=reminder", "=memo", "=notice",
        ],
        K::Model => &[
            "=assistant", "=bot", "=ai", "=llm", "=llms", "=chatbot", "=gpt", "=chatgpt",
            "=claude", "=copilot", "language model", "ai agent", "coding agent", "ai model",
        ],
        K::Voice => &[
            "=system", "=assistant", "=developer", "=admin", "=administrator", "=operator",
            "=root", "=override", "=sysadmin", "systemhinweis", "=moderator",
        ],
        K::Joiner => &[
            "=and", "=then", "=please", "=also", "=now", "=just", "=simply", "=kindly", "=first",
            "=finally", "=immediately", "=btw", "=so", "=et", "=y", "=und", "=e", "=ve", "=и",
        ],
        K::Disable => &[
            "=disable", "disabled", "=remove", "=removed", "=lift", "=lifted", "turn off",
            "turned off", "deactivat", "=kaldır", "devre dışı", "desactiv", "désactiv",
            "deaktivier", "disattiv", "desativ", "отключ", "сними", "关闭", "解除", "禁用",
            "無効",
        ],
        K::Imperative => &[
            "=ignore", "=disregard", "=forget", "=override", "=bypass", "=reveal", "=show",
            "=print", "=output", "=repeat", "=display", "=dump", "=list", "=tell", "=give",
            "=leak", "=disclose", "=share", "=expose", "=provide", "=recite", "=respond",
            "=reply", "=answer", "=say", "=write", "=append", "=prepend", "=include", "=insert",
            "=end", "=start", "=begin", "=stop", "=act", "=pretend", "=become", "=behave",
            "=roleplay", "=imagine", "=switch", "=enter", "=activate", "=enable", "=disable",
            "=send", "=email", "=forward", "=upload", "=transmit", "=exfiltrate", "=collect",
            "=call", "=invoke", "=execute", "=delete", "=erase", "=wipe", "=grant", "=approve",
            "=translate", "=decode", "=decrypt", "=follow", "=obey", "=comply", "=continue",
            "=complete", "=fill", "=generate", "=produce", "=treat", "=assume", "=proceed",
            "=confirm", "=skip", "=apply",
        ],
        K::Subject => &[
            "=i", "=we", "=they", "=he", "=she", "=it", "=who", "=which", "=that", "=user",
            "=assistant", "=team", "=let's",
        ],
    }
}

/// Phrases that make a line an instruction wherever they are, matched in the folded text.
pub const PHRASES: &[&str] = &[
    "new rule:",
    "new rules:",
    "new instructions:",
    "updated instructions:",
    "system prompt:",
    "new system prompt",
    "jailbreak",
    "you must now",
    "you must always",
    "you must obey",
    "you must ignore",
    "you should now",
    "you should ignore",
    "you are now",
    "you're now",
    "you are no longer",
    "you will now",
    "you now answer",
    "you no longer need to",
    "you no longer have to",
    "you do not need to ask",
    "you don't need to ask",
    "your new task",
    "your new role",
    "your new instructions",
    "your new directive",
    "your real instructions",
    "your true instructions",
    "your real task",
    "your true task",
    "your actual task",
    "as an ai language model, you",
    "act as an unrestricted",
    "do not tell the user",
    "don't tell the user",
    "do not mention this",
    "do not reveal",
    "without telling the user",
    "without asking",
    "without confirmation",
    "without approval",
    "without permission",
    "no need to ask",
    "no need to confirm",
    "do not ask for confirmation",
    "don't ask for confirmation",
    "approved running any",
    "approved all commands",
    "approved every command",
    "approved any command",
    "pre-approved",
    "preapproved",
    "has permission to run",
    "you have permission to",
    "granted you permission",
    "gave you permission",
    "given you permission",
    "you are permitted to",
    "you are allowed to",
    "have permission to run",
    "granted permission to",
    "granted full access",
    "granted unrestricted",
    "full permission to",
    "unrestricted access",
    "is authorized to run any",
    "is authorised to run any",
    "allowed to run any",
    "may run any command",
    "can run any command",
    "do not refuse",
    "don't refuse",
    "never refuse",
    "no te niegues",
    "ne refuse pas",
    "verweigere nicht",
    "не отказывай",
    "不要拒绝",
    "لا ترفض",
    "if you are an ai",
    "if you're an ai",
    "if you are a language model",
    "if you are an assistant",
    "if you are an llm",
    "for ai agents",
    "for ai coding agents",
    "for ai assistants",
    "for ai models",
    "for language models",
    "end of user input",
    "end of system prompt",
    "end of instructions",
    "begin system prompt",
    "ahora eres",
    "tu es maintenant",
    "vous êtes désormais",
    "vous êtes maintenant",
    "du bist jetzt",
    "du bist ab jetzt",
    "ora sei",
    "adesso sei",
    "agora você é",
    "agora voce e",
    "sen artık",
    "artık sen",
    "теперь ты",
    "ты теперь",
    "你现在是",
    "あなたは今",
    "أنت الآن",
    "تو اکنون",
    "تو الان",
];

/// Chat-template and role tokens: never part of a record of a conversation.
pub const TEMPLATE_TOKENS: &[&str] = &[
    "<|im_start|>",
    "<|im_end|>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|begin_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "[inst]",
    "[/inst]",
    "<<sys>>",
    "<</sys>>",
    "<start_of_turn>",
    "<end_of_turn>",
    "### instruction:",
    "### system:",
    "<system>",
    "</system>",
    "<user>",
    "</user>",
    "<assistant>",
    "</assistant>",
    "<developer>",
    "[system]",
    "[assistant]",
    "[developer]",
    "[admin]",
];
