//! Environment variables written with their sigil: `$HOME`, `${DATABASE_URL}`,
//! `%APPDATA%`, and the paths that start with one (`$HOME/.config/gh/hosts.yml`).
//!
//! Names in capitals only: `$1`, `$?` and `$foo` are shell parameters and locals, `$5` is
//! money. Bare names in capitals with an underscore (`NODE_ENV`) are found with the words.

use super::path::{seg_at, seg_end};
use super::text::{run, word_at, word_before};
use super::{IdKind, Span};

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_'
}

/// The end of a capitals name at `j` (two characters or more, starting with a capital or
/// `_`), if nothing word-like follows it.
fn name_end(b: &[u8], j: usize) -> Option<usize> {
    let e = run(b, j, is_name_byte);
    let ok = e >= j + 2
        && (b[j].is_ascii_uppercase() || b[j] == b'_')
        && b[j..e].iter().any(u8::is_ascii_uppercase)
        && !word_at(b, e);
    ok.then_some(e)
}

/// Appends `$NAME`, `${NAME}` and `%NAME%` (as environment variables) and `$NAME/...`
/// (as paths).
pub(super) fn scan_sigils(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while let Some(p) = b[i..].iter().position(|&c| c == b'$' || c == b'%').map(|p| p + i) {
        i = p + 1;
        if word_before(b, p) || (p > 0 && matches!(b[p - 1], b'$' | b'\\' | b'%')) {
            continue;
        }
        let found = if b[p] == b'%' {
            name_end(b, p + 1)
                .filter(|&e| b.get(e) == Some(&b'%') && !word_at(b, e + 1))
                .map(|e| (e + 1, IdKind::EnvVar))
        } else if b.get(p + 1) == Some(&b'{') {
            name_end(b, p + 2).and_then(|e| match b.get(e) {
                Some(b'}') => Some(path_after(b, e + 1)),
                _ => None,
            })
        } else {
            name_end(b, p + 1).map(|e| path_after(b, e))
        };
        if let Some((e, kind)) = found {
            out.push((p, e, kind));
            i = e;
        }
    }
}

/// After a variable ending at `e`: the end of the path it starts (`$HOME/.ssh/config`), or
/// the variable alone.
fn path_after(b: &[u8], e: usize) -> (usize, IdKind) {
    let mut j = e;
    while b.get(j) == Some(&b'/') && seg_at(b, j + 1) {
        j = seg_end(b, j + 1);
    }
    if j == e {
        return (e, IdKind::EnvVar);
    }
    if b.get(j) == Some(&b'/') {
        j += 1;
    }
    (j, IdKind::Path)
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::{ids, of};
    use crate::ids::IdKind;

    #[test]
    fn sigils() {
        assert_eq!(
            of(
                IdKind::EnvVar,
                "reads $PORT, then ${HOST} and %APPDATA%; not $1 $? $foo $ 5 a$B \\$X"
            ),
            ["$PORT", "${HOST}", "%APPDATA%"]
        );
        assert_eq!(
            ids("cache in $HOME/.config/gh/hosts.yml and ${XDG_CACHE_HOME}/acme/"),
            [
                (IdKind::Path, "$HOME/.config/gh/hosts.yml".into()),
                (IdKind::Path, "${XDG_CACHE_HOME}/acme/".into())
            ]
        );
        assert!(of(IdKind::EnvVar, "50% and 20% off, %d %s 100%").is_empty());
    }
}
