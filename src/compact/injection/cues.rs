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
    /// Taking on a persona: pretend, act as, role-play.
    Persona,
    /// Reading the text the line is in (the model as the reader of a document).
    Reading,
    /// English imperatives (a clause that starts with one is addressed to the reader).
    Imperative,
    /// Subjects of a statement: a line whose verb follows one reports, it does not ask.
    Subject,
}

/// The stems of `k`.
pub fn stems(k: K) -> &'static [&'static str] {
    match k {
        K::Drop => DROP,
        K::DropLast => DROP_LAST,
        K::Orders => ORDERS,
        K::Earlier => EARLIER,
        K::You => YOU,
        K::Yours => YOURS,
        K::Secret => SECRET,
        K::Reveal => REVEAL,
        K::RevealLast => REVEAL_LAST,
        K::Verbatim => VERBATIM,
        K::Henceforth => HENCEFORTH,
        K::Without => WITHOUT,
        K::Limits => LIMITS,
        K::Loose => LOOSE,
        K::Unbound => UNBOUND,
        K::Reply => REPLY,
        K::Answer => ANSWER,
        K::Send => SEND,
        K::Call => CALL,
        K::Produce => PRODUCE,
        K::Harm => HARM,
        K::Obey => OBEY,
        K::Encoded => ENCODED,
        K::Note => NOTE,
        K::Model => MODEL,
        K::Voice => VOICE,
        K::Joiner => JOINER,
        K::Disable => DISABLE,
        K::Persona => PERSONA,
        K::Reading => READING,
        K::Imperative => IMPERATIVE,
        K::Subject => SUBJECT,
    }
}

#[rustfmt::skip]
const DROP: &[&str] = &[
    "=ignore", "=disregard", "=forget", "=override", "=bypass", "=discard", "=abandon",
    "do not follow", "don't follow", "stop following", "pay no attention to", "=supersedes",
    "ignorier", "=vergiss", "=vergessen", "missachte", "=ignora", "=ignorar", "=olvida",
    "=olvide", "=olvidad", "=omite", "=descarta", "=ignorez", "=ignorer", "=oublie",
    "=oubliez", "=oublier", "ne tiens pas compte", "ne tenez pas compte", "=dimentica",
    "=dimenticate", "=trascura", "=ignorate", "=esqueça", "=esqueca", "=esquece",
    "=desconsidere", "=desconsidera", "игнорир", "=забудь", "=забудьте", "не обращай",
    "忽略", "忘记", "忘掉", "无视", "忽视", "不要理会", "تجاهل", "=انس", "تناس",
    "=neglect", "=dismiss", "set aside", "=nullify", "=overrule", "=revoke", "no longer follow",
    "stop obeying", "cease following", "=ignoren", "=olviden", "=descarte", "=descartad",
    "=omita", "=omitan", "pasa por alto", "haz caso omiso", "no hagas caso", "no sigas",
    "deja de seguir", "=néglige", "=négligez", "=neglige", "=negligez", "=écarte", "=écartez",
    "=ecarte", "=ecartez", "fais abstraction", "faites abstraction", "ne suis plus",
    "ne suivez plus", "ne respecte plus", "ne respectez plus", "=ignorare", "=dimenticare",
    "=dimentichi", "=tralascia", "=tralasciate", "non seguire", "non considerare", "=scarta",
    "smetti di seguire", "=ignorem", "=esqueçam", "=esquecam", "não siga", "nao siga",
    "=übergehe", "=ubergehe", "=verwirf", "=vergesst", "=ignoriere", "=ignoriert",
    "nicht mehr befolgen", "=missachtet",
];

#[rustfmt::skip]
const DROP_LAST: &[&str] = &[
    "yok say", "=unut", "=unutun", "görmezden gel", "dikkate alma", "geçersiz kıl",
    "iptal", "=atla", "無視", "忘れ", "نادیده", "فراموش",
    "unut", "göz ardı", "goz ardi", "boş ver", "=boşver", "bos ver", "=önemseme", "=onemseme",
    "=umursama", "=takma", "=uyma", "uymayı bırak", "geçersiz", "gecersiz", "hiçe say", "=sil",
    "=silin", "yok sayın",
];

#[rustfmt::skip]
const ORDERS: &[&str] = &[
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
    "=politika", "=politikalar", "direktif", "=emir", "=emirler", "=talimatlar", "=normas",
    "=órdenes", "=ordenes", "=ordres", "=ordini", "=vincoli", "=règlement", "=befehle",
    "=befehl", "=leitlinien",
];

#[rustfmt::skip]
const EARLIER: &[&str] = &[
    "=above", "=everything", "=prior", "the rest of this", "this data", "lo anterior",
    "ce qui précède", "das obige", "alles oben", "quanto sopra", "tudo acima",
    "yukarıdaki", "вышесказанн", "=выше", "以上", "上面", "之前的", "上記", "أعلاه",
    "ما سبق", "بالا", "قبلی",
];

#[rustfmt::skip]
const YOU: &[&str] = &[
    "=you", "=your", "=you're", "=yourself", "=du", "=dich", "=dir", "=tú", "=eres",
    "=usted", "=vous", "=toi", "=tu", "=sei", "=você", "=voce", "=sen", "=sana", "=seni",
    "=senin", "=ты", "=тебя", "=тебе", "=вы", "你", "您", "あなた", "=أنت", "=انت", "=تو",
    "=شما",
];

#[rustfmt::skip]
const YOURS: &[&str] = &[
    "=your", "dein", "=tu", "=tus", "=tes", "=ton", "=ta", "=votre", "=vos", "=tuo",
    "=tuoi", "=tua", "=tue", "=seu", "=sua", "=seus", "=suas", "=teu", "=tua", "=твой",
    "=твои", "=свой", "=свои", "=ваш", "=ваши", "=senin", "你的", "あなたの",
];

#[rustfmt::skip]
const SECRET: &[&str] = &[
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
    "talimat", "şifre", "parola", "=gizli", "=contraseña", "mot de passe", "=passwort",
    "=senha", "=пароль", "密码", "パスワード", "كلمة المرور", "رمز عبور", "=secret",
    "=secrets", "words above", "everything above", "the above", "preceding text",
    "conversation so far", "written above", "conversation history", "chat history", "=initialization",
    "=credentials", "api key", "=password", "=passwords", "private key",
    "environment variable",
    "api anahtar", "gizli bilgi", "kimlik bilgi", "erişim anahtar", "=clave", "=contraseñas",
    "instrucciones ocultas", "instrucciones internas", "instrucciones iniciales",
    "instrucciones originales", "instrucciones secretas", "mots de passe",
    "instructions cachées", "instructions cachees", "instructions initiales",
    "instructions internes", "instructions secrètes", "consignes système", "consignes systeme",
    "clé api", "cle api", "istruzioni nascoste", "istruzioni iniziali", "istruzioni interne",
    "istruzioni segrete", "chiave api", "messaggio di sistema", "versteckte anweisung",
    "geheime anweisung", "api-schlüssel", "=zugangsdaten", "=kennwort", "instruções ocultas",
    "instrucoes ocultas", "chave de api", "mensagem do sistema",
];

#[rustfmt::skip]
const REVEAL: &[&str] = &[
    "=reveal", "=show", "=print", "=output", "=repeat", "=display", "=dump", "=list",
    "=tell", "=give", "=leak", "=disclose", "=share", "=expose", "=return", "=provide",
    "=recite", "=echo", "=log", "=continue", "=complete", "=write", "=what", "=describe",
    "=summarize", "=summarise", "=translate", "=spell", "=rewrite", "=paraphrase", "=revela", "=muestra",
    "=muestre", "=repite", "=dime", "=imprime", "=révèle", "=revele", "=montre",
    "=affiche", "=répète", "=donne", "zeig", "=verrate", "=gib", "=wiederhole", "=nenne",
    "=rivela", "=mostra", "=mostrami", "=ripeti", "=stampa", "=dimmi", "=mostre",
    "=repita", "=diga", "=выведи",
    "=покажи", "=раскрой", "=повтори", "=напиши", "=скажи", "显示", "展示", "输出",
    "告诉", "泄露", "重复", "打印", "透露", "أظهر", "اكشف", "اعرض", "كرر", "اطبع",
    "=revélame", "=revelame", "=muéstrame", "=muestrame", "=enséñame", "=ensename", "=escribe",
    "=comparte", "=dame", "=imprima", "=enumera", "=révélez", "=revelez", "=montrez",
    "=affichez", "=dis", "=dites", "=donnez", "=écris", "=ecris", "=écrivez", "=ecrivez",
    "=partage", "=partagez", "=rivelami", "=mostrate", "=scrivi", "=condividi", "=dammi",
    "=elenca", "=ripetete", "=riporta", "=zeige", "=zeigt", "=gebt", "=schreibe", "=schreib",
    "=teile", "=verrat", "=nenn", "=offenbare", "=escreva", "=compartilhe", "=revelar",
    "=mostrar",
];

#[rustfmt::skip]
const REVEAL_LAST: &[&str] = &[
    "=göster", "=gösterin", "=yaz", "=yazın", "=tekrarla", "=tekrarlayın", "=söyle",
    "=söyleyin", "=paylaş", "表示して", "教えて", "見せて", "出力して", "نشان بده",
    "فاش کن", "بنویس", "تکرار کن",
    "=ver", "=verin", "=açıkla", "=acikla", "=açıklayın", "ifşa", "=listele", "=yazdır",
    "=yazdir", "=aktar", "=belirt", "=bildir", "=gönder", "=gonder",
];

#[rustfmt::skip]
const VERBATIM: &[&str] = &[
    "=verbatim", "word for word", "palabra por palabra", "mot pour mot", "wort für wort",
    "parola per parola", "palavra por palavra", "kelimesi kelimesine", "дословно",
    "слово в слово", "逐字", "原文", "حرفيا", "حرفياً", "کلمه به کلمه",
];

#[rustfmt::skip]
const HENCEFORTH: &[&str] = &[
    "from now on", "from this point", "from here on", "for the rest of this",
    "for the rest of the conversation", "for the remainder", "=henceforth",
    "a partir de ahora", "desde ahora", "de ahora en adelante", "à partir de maintenant",
    "=désormais", "=dorénavant", "ab jetzt", "ab sofort", "von nun an", "d'ora in poi",
    "da ora in poi", "d'ora in avanti", "a partir de agora", "de agora em diante",
    "bundan sonra", "bundan böyle", "=artık", "=отныне", "с этого момента", "=теперь",
    "从现在开始", "从现在起", "今后", "これから", "今後", "今から", "من الآن",
    "از این به بعد", "از حالا", "=اکنون", "=الان",
    "a partir de este momento", "en adelante", "de aquí en adelante", "desde este momento",
    "dès maintenant", "des maintenant", "à partir de ce moment", "a partir de maintenant",
    "da adesso", "da questo momento", "d'ora innanzi", "da ora in avanti", "von jetzt an",
    "=fortan", "=künftig", "ab diesem moment", "şu andan itibaren", "bu andan itibaren",
    "bundan itibaren", "daqui em diante", "a partir deste momento",
];

#[rustfmt::skip]
const WITHOUT: &[&str] = &[
    "=no", "=without", "=zero", "=sin", "=sans", "=ohne", "=keine", "=kein", "=senza",
    "=sem", "=без", "=بلا", "=بدون", "=دون",
];

#[rustfmt::skip]
const LIMITS: &[&str] = &[
    "restriction", "=limit", "=limits", "=filter", "=filters", "=rules", "censor",
    "content polic", "guideline", "constraint", "limitation", "guardrail", "=boundaries",
    "moral", "ethic", "kural", "etik", "sansür", "restricci", "=límites", "=limites", "=filtros",
    "=reglas", "=censura", "=restrictions", "=filtre", "=filtres", "=règles", "=censure",
    "=regeln", "einschränkung", "=grenzen", "=zensur", "restrizion", "=limiti",
    "=filtri", "=regole", "restriç", "=regras", "ограничени", "цензур", "фильтр",
    "правил", "قيود", "محدودیت",
    "sınır", "kısıtlama", "kisitlama", "filtre", "=yasak", "=yasaklar", "ahlak", "=vincoli",
    "=limitazioni", "garde-fou", "=beschränkungen", "=richtlinien", "=normas",
];

#[rustfmt::skip]
const LOOSE: &[&str] = &[
    "=unrestricted", "=unfiltered", "=uncensored",
    "=unconstrained", "=unbounded", "=unmoderated", "=limitless", "=sınırsız", "=sinirsiz",
    "=kısıtlamasız", "=kisitlamasiz", "=filtresiz", "=kuralsız", "=kuralsiz", "=sansürsüz",
    "=sansursuz", "=ilimitado", "=illimité", "=illimite", "=illimitato", "=uneingeschränkt",
    "=ungefiltert", "=zensurfrei",
];

#[rustfmt::skip]
const UNBOUND: &[&str] = &[
    "jailbr", "developer mode", "dan mode",
    "god mode", "no content policy", "=reddetme", "do anything now",
    "stay in character", "break character", "not bound by", "freed from", "broken free",
    "don't have to follow", "do not have to follow", "doesn't have to follow",
    "does not have to follow",
    "=amoral", "=jailbroken", "no ethical", "no moral", "karakterden çıkma",
    "modo desarrollador", "mode développeur", "entwicklermodus", "modalità sviluppatore",
    "modo desenvolvedor", "geliştirici mod", "режим разработчика", "开发者模式",
    "開発者モード", "وضع المطور", "حالت توسعه", "sansürsüz", "kısıtlaması olmayan",
    "kısıtlamaları kaldır", "kural tanımayan", "sansür uygulama", "без ограничений",
    "без цензуры", "无限制", "不受限制", "没有限制", "没有任何限制", "制限なし",
    "制限のない", "بلا قيود", "بدون قيود", "دون قيود", "بدون محدودیت",
];

#[rustfmt::skip]
const REPLY: &[&str] = &[
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
];

#[rustfmt::skip]
const ANSWER: &[&str] = &[
    "=answer", "=respond", "=reply", "beantworte", "antworte", "=responde", "=contesta",
    "=réponds", "=répondez", "=rispondi", "=responda", "yanıt", "cevap", "=ответь",
    "回答", "答え", "أجب", "پاسخ",
];

#[rustfmt::skip]
const SEND: &[&str] = &[
    "=send", "=email", "=e-mail", "=mail", "=forward", "=post", "=upload", "=transmit",
    "=exfiltrate", "=leak", "=envoie", "=envoyez", "=envía", "=envia", "=envie",
    "=sende", "=schicke", "=schick", "=invia", "gönder", "=отправь", "=перешли", "发送",
    "送信", "أرسل", "بفرست",
];

#[rustfmt::skip]
const CALL: &[&str] = &[
    "=call", "=invoke", "=use", "=trigger"
];

#[rustfmt::skip]
const PRODUCE: &[&str] = &[
    "=write", "=generate", "=say", "=produce", "=create", "=compose"
];

#[rustfmt::skip]
const HARM: &[&str] = &[
    "=toxic", "=evil", "=unethical", "=illegal", "discriminat", "=racist", "=sexist", "hateful", "=offensive", "=insult",
    "=slur", "=slurs", "threaten", "harass", "obscene", "defamat",
];

#[rustfmt::skip]
const OBEY: &[&str] = &[
    "do what it says", "do as it says", "what it says", "=follow it", "follow them",
    "obey it", "=comply", "execute it", "carry it out", "instruction inside",
    "instructions inside", "instruction in it", "follow the decoded", "follow the hidden",
];

#[rustfmt::skip]
const ENCODED: &[&str] = &[
    "=decode", "=decrypt", "backwards", "=reverse", "=reversed", "base64", "rot13",
    "=hex", "=binary", "encoded", "cipher", "=unscramble",
];

#[rustfmt::skip]
const NOTE: &[&str] = &[
    "=note", "=attention", "=dear", "=hey", "=message", "=reminder", "=memo", "=notice",
];

#[rustfmt::skip]
const MODEL: &[&str] = &[
    "=assistant", "=bot", "=ai", "=llm", "=llms", "=chatbot", "=gpt", "=chatgpt",
    "=claude", "=copilot", "=gemini", "language model", "ai agent", "coding agent",
    "ai model", "ai assistant",
];

#[rustfmt::skip]
const VOICE: &[&str] = &[
    "=system", "=assistant", "=developer", "=admin", "=administrator", "=operator",
    "=root", "=override", "=sysadmin", "systemhinweis", "=moderator",
];

#[rustfmt::skip]
const JOINER: &[&str] = &[
    "=and", "=then", "=please", "=also", "=now", "=just", "=simply", "=kindly", "=first",
    "=finally", "=immediately", "=btw", "=so", "=et", "=y", "=und", "=e", "=ve", "=и",
];

#[rustfmt::skip]
const DISABLE: &[&str] = &[
    "=disable", "disabled", "=remove", "=removed", "=lift", "=lifted", "turn off",
    "turned off", "deactivat", "=kaldır", "devre dışı", "desactiv", "désactiv",
    "deaktivier", "disattiv", "desativ", "отключ", "сними", "关闭", "解除", "禁用",
    "無効",
    "=suspend", "=suspended", "=waive", "=waived", "no longer apply", "no longer applies",
    "=revoked", "=elimina", "=quita", "=supprime", "=lève", "=leve", "=rimuovi", "=togli",
    "=entferne", "=aufheben", "=aufgehoben", "=kaldırıldı", "kaldirildi",
];

#[rustfmt::skip]
const PERSONA: &[&str] = &[
    "=pretend", "act as", "=roleplay", "role-play", "role play", "=simulate",
    "=impersonate", "play the role", "=imagine you", "=behave as", "actúa como",
    "agis comme", "agissez comme", "verhalte dich", "agisci come", "aja como", "rol yap",
    "веди себя", "扮演", "として振る舞", "تصرف", "نقش",
    "you are now", "you're now", "assume the role", "take on the role", "in the role of",
    "=portray", "=embody", "speak as", "respond as", "answer as", "act like", "pose as",
    "let's play a game", "=finge", "=simula", "haz de", "haz el papel", "interpreta el papel",
    "juego de rol", "compórtate como", "comportate como", "imagina que eres", "ahora eres",
    "fais semblant", "faites semblant", "joue le rôle", "jouez le rôle", "joue le role",
    "=incarne", "=incarnez", "comporte-toi", "imagine que tu es", "tu es maintenant",
    "vous êtes maintenant", "vous etes maintenant", "=fingi", "fai finta", "=impersona",
    "comportati come", "immagina di essere", "ora sei", "tu so als", "tue so als",
    "spiele die rolle", "stell dir vor", "du bist jetzt", "=spiel", "gibi davran", "rolüne gir",
    "=canlandır", "canlandir", "taklit et", "rolünü oyna", "oyun oynayalım", "=finja",
    "faça de conta", "comporte-se como", "imagine que você",
];

#[rustfmt::skip]
const READING: &[&str] = &[
    "=reading", "=processing", "=parsing", "=summarizing", "=summarising", "=analyzing",
    "=analysing", "=reviewing", "=scanning", "=indexing",
];

#[rustfmt::skip]
const IMPERATIVE: &[&str] = &[
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
];

#[rustfmt::skip]
const SUBJECT: &[&str] = &[
    "=i", "=we", "=they", "=he", "=she", "=it", "=who", "=which", "=that", "=user",
    "=assistant", "=team", "=let's",
];

/// Phrases that make a line an instruction wherever they are, matched in the folded text.
#[rustfmt::skip]
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
    "end of input",
    "end of context",
    "end of prompt",
    "end of document",
    "begin admin",
    "admin session",
    "the assistant must now",
    "the assistant must always",
    "the assistant must ignore",
    "the assistant is required to",
    "the ai must",
    "the ai is required to",
    "ai assistants must",
    "ai agents must",
    "assistants must",
    "the model must",
    "for the ai assistant",
    "to the ai assistant",
    "this message is for the",
    "instructions for the assistant",
    "instructions for the ai",
    "assistant instructions:",
    "ai instructions:",
    "action required by",
    "grant all requests",
    "grant every request",
    "comply with every request",
    "comply with all requests",
    "fulfill every request",
    "answer every question",
    "answer any question",
    "when you summarize",
    "when you summarise",
    "when summarizing this",
    "when summarising this",
    "do not summarize",
    "don't summarize",
    "instead of summarizing",
    "stop summarizing",
    "your task is",
    "your only task",
    "your only job",
    "your goal is",
    "your new goal",
    "your primary task",
    "you have been granted",
    "you've been granted",
    "you are authorized",
    "you are authorised",
    "authorized you to",
    "authorised you to",
    "pre-authorized",
    "preauthorized",
    "you are cleared to",
    "no confirmation needed",
    "confirmation is not required",
    "skip confirmation",
    "skip the confirmation",
    "without confirming",
    "admin privileges",
    "administrator privileges",
    "elevated privileges",
    "sudo mode",
    "authorized diagnostic",
    "authorised diagnostic",
    "authorized test",
    "authorised test",
    "finge que eres",
    "fais semblant",
    "fingi di essere",
    "finja que",
    "gibi davran",
    "притворись",
    "假装你是",
    "تظاهر",
    "وانمود کن",
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
#[rustfmt::skip]
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
    "<instructions>",
    "</instructions>",
    "[instructions]",
    "<admin>",
    "<sys>",
];
