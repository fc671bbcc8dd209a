//! Shell commands: read out of a shell-like tool call ([`commands_from_call`]), or found
//! in text after a `$ `, `> ` or PowerShell (`PS C:\src> `) prompt, at the top of a shell
//! code block, or in an inline code span that starts with a known program.

use super::text::run;
use super::{IdKind, Identifier};

/// Programs that start a command in a code span or after a `$ ` prompt.
#[rustfmt::skip]
const CLI_WORDS: &[&str] = &[
    "git", "gh", "npm", "npx", "yarn", "pnpm", "bun", "deno", "node", "pip", "pip3", "pipx", "uv",
    "poetry", "conda", "python", "python3", "pytest", "tox", "cargo", "rustc", "rustup", "go",
    "gcc", "clang", "cmake", "mvn", "gradle", "javac", "docker", "docker-compose", "podman",
    "kubectl", "helm", "terraform", "aws", "gcloud", "az", "curl", "wget", "ssh", "scp", "rsync",
    "ls", "cd", "grep", "rg", "sed", "awk", "mkdir", "rm", "cp", "mv", "chmod", "chown", "tar",
    "unzip", "sudo", "apt", "apt-get", "brew", "systemctl", "journalctl", "psql", "mysql",
    "sqlite3", "redis-cli", "nc", "nmap", "bash", "sh", "zsh", "ruff", "mypy", "flake8", "eslint",
    "tsc", "jest", "vitest", "pylint", "isort", "nl", "make", "find", "cat", "echo", "touch",
    "head", "tail", "diff", "export", "source",
    // Operations, networking and cloud tools.
    "openssl", "certbot", "ulimit", "dig", "nslookup", "ping", "traceroute", "ps", "kill", "pkill",
    "killall", "df", "du", "free", "lsof", "netstat", "tcpdump", "jq", "yq", "xargs", "crontab",
    "iptables", "ufw", "pg_dump", "pg_restore", "mongosh", "java", "dotnet", "kustomize", "minikube",
    "eksctl", "ansible", "ansible-playbook", "vagrant", "packer", "pulumi", "wrangler", "vercel",
    "netlify", "firebase", "heroku", "flyctl", "prisma", "alembic", "uvicorn", "gunicorn", "rails",
    "bundle", "gem", "rake", "composer", "php", "perl", "ruby", "xcodebuild", "adb", "scoop",
    "choco", "winget", "pwsh", "powershell", "mount", "umount", "ln", "tee", "watch", "htop",
    "whoami", "hostname", "ifconfig", "nohup", "tmux", "kubectx", "kubens", "stern", "argocd",
    "istioctl", "vault", "etcdctl", "nginx", "zip", "gzip", "gunzip", "ssh-keygen", "gpg",
];

/// The CLI words that are also English: not trusted after a `> ` (a Markdown quote).
const PROSE_WORDS: &[&str] = &[
    "make", "find", "cat", "echo", "touch", "head", "tail", "diff", "export", "source", "go", "dig", "ping",
    "kill", "free", "bundle", "gem", "ruby", "mount", "tee", "watch", "vault", "zip",
];

/// Commands longer than this are cut at a space before it.
const MAX_COMMAND: usize = 160;

/// The first line of `text`, trimmed and cut to [`MAX_COMMAND`] bytes at a space (so
/// the cut text still ends where a word ends).
fn command_line(text: &str) -> Option<&str> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    if line.len() <= MAX_COMMAND {
        return Some(line);
    }
    let mut cut = MAX_COMMAND;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &line[..cut];
    Some(match head.rfind(char::is_whitespace) {
        Some(s) if s > MAX_COMMAND / 2 => head[..s].trim_end(),
        _ => head,
    })
}

fn first_word(command: &str) -> &str {
    command.split_whitespace().next().unwrap_or("")
}

/// Whether `word` starts a command: a known program, or a path to an executable
/// (`./run.sh`). After a `> ` (`quoted`), which is also a Markdown quote, English-looking
/// programs and paths do not count.
fn starts_command(word: &str, quoted: bool) -> bool {
    if quoted {
        CLI_WORDS.contains(&word) && !PROSE_WORDS.contains(&word)
    } else {
        CLI_WORDS.contains(&word) || word.starts_with("./") || word.starts_with("~/") || word.starts_with('/')
    }
}

pub(super) fn commands_in_text<'a>(text: &'a str, found: &mut Vec<(usize, IdKind, &'a str)>) {
    let mut fence: Option<bool> = None; // inside a fenced block: is it a shell block?
    let mut fence_taken = false;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if let Some(info) = t.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(info.trim(), "bash" | "sh" | "shell" | "zsh")),
            };
            fence_taken = false;
            continue;
        }
        // Prompt templates put placeholders in shell blocks (`<action>`,
        // `your_command_here`): there too, only a known program starts a command.
        if fence == Some(true) && !fence_taken && !t.is_empty() && !t.starts_with('#') {
            fence_taken = true;
            if starts_command(first_word(t), false) {
                if let Some(cmd) = command_line(t) {
                    found.push((line_start + indent, IdKind::Command, cmd));
                }
            }
            continue;
        }
        let prompt = if t.starts_with("$ ") {
            Some((false, 2))
        } else if t.starts_with("> ") {
            Some((true, 2))
        } else {
            powershell_prompt(t).map(|p| (false, p))
        };
        if let Some((quote, len)) = prompt {
            let rest = t[len..].trim_start();
            if starts_command(first_word(rest), quote) {
                if let Some(cmd) = command_line(rest) {
                    found.push((line_start + (line.len() - rest.len()), IdKind::Command, cmd));
                }
                continue;
            }
        }
        if fence.is_none() {
            code_span_commands(line, line_start, found);
        }
    }
}

/// The length of a PowerShell prompt starting `line` (`PS C:\Users\alice\src> `), if any.
fn powershell_prompt(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("PS ")?;
    let end = rest.find("> ")?;
    let path = &rest[..end];
    let ok = (!path.is_empty() && !path.contains(char::is_whitespace)) || path.contains(":\\");
    ok.then_some(3 + end + 2)
}

/// `` `git checkout src/a.py` ``: single-backtick spans whose first word is a CLI program
/// and that have an argument.
fn code_span_commands<'a>(line: &'a str, line_start: usize, found: &mut Vec<(usize, IdKind, &'a str)>) {
    let b = line.as_bytes();
    let mut i = 0;
    while let Some(open) = b[i..].iter().position(|&c| c == b'`').map(|p| p + i) {
        let close_run = run(b, open, |c| c == b'`');
        if close_run - open > 1 {
            // A longer backtick run opens a span closed by the same run; skip it whole.
            let ticks = &line[open..close_run];
            i = line[close_run..]
                .find(ticks)
                .map_or(close_run, |p| close_run + p + ticks.len());
            continue;
        }
        let Some(close) = b[open + 1..]
            .iter()
            .position(|&c| c == b'`')
            .map(|p| p + open + 1)
        else {
            break;
        };
        i = close + 1;
        if b.get(close + 1) == Some(&b'`') {
            continue;
        }
        let span = &line[open + 1..close];
        let cmd = span.trim();
        let word = first_word(cmd);
        if CLI_WORDS.contains(&word) && cmd.len() > word.len() && cmd.len() <= MAX_COMMAND {
            let start = line_start + open + 1 + (span.len() - span.trim_start().len());
            found.push((start, IdKind::Command, cmd));
        }
    }
}

/// Commands from a tool call: for a tool named like a shell (`bash`, `shell`,
/// `run_terminal_cmd`, `exec_command`, `container.exec`, ...), the `command`, `cmd` or
/// `script` field of its JSON arguments (a string, or an argv array such as
/// `["bash", "-lc", "ls"]`), first non-comment line, trimmed, at most 160 bytes. Arguments
/// that are not JSON are taken as the command itself. Other tools give nothing.
///
/// ```
/// use ctxfold::ids::commands_from_call;
/// let found = commands_from_call("bash", r#"{"command": "cd /testbed && pytest -x\necho done"}"#);
/// assert_eq!(found[0].text, "cd /testbed && pytest -x");
/// ```
pub fn commands_from_call(tool_name: &str, arguments_json: &str) -> Vec<Identifier> {
    if !is_shell_tool(tool_name) {
        return Vec::new();
    }
    let raw = arguments_json.trim();
    let value: serde_json::Value = match serde_json::from_str(raw) {
        Ok(v) => v,
        Err(_) if !raw.starts_with(['{', '[']) => serde_json::Value::String(raw.to_owned()),
        Err(_) => return Vec::new(),
    };
    let field = match &value {
        serde_json::Value::Object(o) => ["command", "cmd", "script"].iter().find_map(|k| o.get(*k)),
        v @ serde_json::Value::String(_) => Some(v),
        _ => None,
    };
    let text = match field {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Array(argv)) => {
            let argv: Vec<&str> = argv.iter().filter_map(|a| a.as_str()).collect();
            // `["bash", "-lc", "script"]` runs the script; otherwise the argv is the command.
            match argv.as_slice() {
                [shell, flag, script]
                    if flag.starts_with('-') && flag.ends_with('c') && is_shell_tool(shell) =>
                {
                    (*script).to_owned()
                }
                _ => argv.join(" "),
            }
        }
        _ => return Vec::new(),
    };
    command_line(&text)
        .map(|c| vec![Identifier::new(IdKind::Command, c)])
        .unwrap_or_default()
}

/// Tool names containing one of these run shell commands (`execute_bash`, `local_shell`,
/// `run_terminal_cmd`); so do names with the word `run` or `sh`.
#[rustfmt::skip]
const SHELL_TOOLS: &[&str] = &["bash", "shell", "terminal", "exec", "command", "cmd", "zsh", "pwsh", "powershell"];

fn is_shell_tool(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let name = name.rsplit('/').next().unwrap_or(&name);
    SHELL_TOOLS.iter().any(|w| name.contains(w))
        || name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| matches!(w, "run" | "sh"))
}

#[cfg(test)]
mod tests {
    use super::{commands_from_call, MAX_COMMAND};
    use crate::ids::testing::{ids, of};
    use crate::ids::IdKind;

    #[test]
    fn commands_in_text() {
        assert_eq!(
            of(
                IdKind::Command,
                "Run:\n$ pytest -rsx test_foo.py\r\n> git status\n> make sure it works\n$ 5 dollars"
            ),
            ["pytest -rsx test_foo.py", "git status"]
        );
        assert_eq!(
            of(
                IdKind::Command,
                "Use `git checkout src/a.py`, not `git` or `Package` or `sed -n`."
            ),
            ["git checkout src/a.py", "sed -n"]
        );
        assert_eq!(
            of(
                IdKind::Command,
                "```bash\n# list\nls -la /testbed\nrm x\n```\n```python\nls -la\n```"
            ),
            ["ls -la /testbed"]
        );
        assert!(of(
            IdKind::Command,
            "```bash\n<action>\n```\n```sh\nyour_command_here\n```"
        )
        .is_empty());
        // Pytest's failure marker and Python prompts are not commands.
        assert!(of(
            IdKind::Command,
            ">       assert 0\n>>> import os\n> This is a quote"
        )
        .is_empty());
        // The path inside a command is reported too.
        assert_eq!(
            ids("$ cat /etc/hosts/x"),
            [
                (IdKind::Command, "cat /etc/hosts/x".into()),
                (IdKind::Path, "/etc/hosts/x".into())
            ]
        );
    }

    #[test]
    fn commands_from_calls() {
        let cmd = |name: &str, args: &str| -> Vec<String> {
            commands_from_call(name, args)
                .into_iter()
                .map(|i| i.text)
                .collect()
        };
        assert_eq!(
            cmd("bash", r#"{"command": "cd /testbed && ls\necho hi"}"#),
            ["cd /testbed && ls"]
        );
        assert_eq!(
            cmd("run_terminal_cmd", r#"{"cmd": "  npm test  "}"#),
            ["npm test"]
        );
        assert_eq!(
            cmd("shell", r#"{"command": ["bash", "-lc", "cargo build"]}"#),
            ["cargo build"]
        );
        assert_eq!(cmd("exec", r#"{"command": ["ls", "-la"]}"#), ["ls -la"]);
        assert_eq!(cmd("Bash", "ls -F"), ["ls -F"]);
        assert!(cmd("get_user_details", r#"{"command": "x"}"#).is_empty());
        assert!(cmd("bash", r#"{"path": "x"}"#).is_empty());
        assert!(cmd("bash", r##"{"command": "#!/bin/sh\n"}"##).is_empty());
        let long = format!("{{\"command\": \"echo {}\"}}", "word ".repeat(60));
        let c = &cmd("bash", &long)[0];
        assert!(c.len() <= MAX_COMMAND && c.ends_with("word"), "{c}");
    }
}
