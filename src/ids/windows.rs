//! Windows paths: `C:\Users\alice\AppData`, `C:/Program Files/Git`, `\\server\share\dir`,
//! `.\scripts\build.ps1`, `%USERPROFILE%\.ssh\id_ed25519`, registry keys
//! (`HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft`), also with the doubled backslashes of JSON
//! and source text (`C:\\Users\\alice`).
//!
//! A component may hold spaces (`Program Files`) when another separator follows within a
//! few words. A backslash alone starts nothing (`\n` in escaped text is not a path); a
//! lower-case drive letter with one short component (`f:\n`) is not one either.

use super::text::{char_at, is_word, word_before};
use super::{IdKind, Span};

/// Whether `c` may be part of a path component (besides spaces, see [`component_end`]).
fn component_char(c: char) -> bool {
    is_word(c) || matches!(c, '.' | '-' | '+' | '@' | '$' | '~' | '#')
}

/// The end of the component at `j` (`j` itself if there is none).
fn component_run(b: &[u8], mut j: usize) -> usize {
    while let Some(c) = char_at(b, j) {
        if !component_char(c) {
            break;
        }
        j += c.len_utf8();
    }
    j
}

fn is_separator(c: u8) -> bool {
    c == b'\\' || c == b'/'
}

/// The end of a component that may continue over spaces: `Program Files (x86)` counts as
/// one component when a separator follows its last word (at most three more words, each
/// starting with a capital, a digit or a parenthesis, as Windows folder names do).
fn component_end(b: &[u8], j: usize) -> usize {
    let end = component_run(b, j);
    if end == j {
        return j;
    }
    let mut k = end;
    for _ in 0..3 {
        if b.get(k) != Some(&b' ') {
            break;
        }
        let word = k + 1;
        let e = if !b
            .get(word)
            .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'(')
        {
            break;
        } else if b[word] == b'(' {
            let close = component_run(b, word + 1);
            if b.get(close) != Some(&b')') {
                break;
            }
            close + 1
        } else {
            component_run(b, word)
        };
        if e == word {
            break;
        }
        if b.get(e).copied().is_some_and(is_separator) {
            return e;
        }
        k = e;
    }
    end
}

/// From a separator at `j`: the end of the path and its number of components.
fn components(b: &[u8], mut j: usize) -> (usize, usize, usize) {
    let mut count = 0;
    let mut first_len = 0;
    loop {
        let mut k = j;
        // One separator, or a doubled backslash.
        if !b.get(k).copied().is_some_and(is_separator) {
            break;
        }
        k += if b[k] == b'\\' && b.get(k + 1) == Some(&b'\\') {
            2
        } else {
            1
        };
        let e = component_end(b, k);
        if e == k {
            // A trailing separator belongs to the path (`C:\Users\alice\`).
            if count > 0 && !b.get(k).copied().is_some_and(is_separator) {
                j = k;
            }
            break;
        }
        if count == 0 {
            first_len = e - k;
        }
        count += 1;
        j = e;
    }
    (j, count, first_len)
}

/// Appends the Windows paths of `b`, anchored on `\` and on the `:` of a drive.
pub(super) fn scan_windows_paths(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while let Some(k) = b[i..]
        .iter()
        .position(|&c| c == b'\\' || c == b':')
        .map(|p| p + i)
    {
        i = k + 1;
        let Some((start, root)) = root_at(b, k) else {
            continue;
        };
        let (end, count, first_len) = components(b, root);
        let dotted = b[start] == b'.';
        let drive_lower = b[start].is_ascii_lowercase() && b.get(start + 1) == Some(&b':');
        let ok = match b[start] {
            // `\\server\share`: a server and a share at least.
            b'\\' => count >= 2 && first_len >= 2,
            _ if drive_lower => count >= 2 || (count == 1 && b[root..end].contains(&b'.')),
            c if c.is_ascii_uppercase() && b.get(start + 1) == Some(&b':') => count >= 2 || first_len >= 2,
            // `.\scripts\build.ps1`; not `.\nIf` or `.\n\n` in escaped text.
            _ if dotted => first_len >= 2 && (count >= 2 || b[root..end].contains(&b'.')),
            _ => count >= 1,
        };
        if ok {
            out.push((start, end, IdKind::Path));
            i = end;
        }
    }
}

/// Where a path rooted at the anchor `k` starts, and the separator its components follow:
/// a drive (`C:\`, `C:/`), a UNC share (`\\`), `.\` or `..\`, `%VAR%\`, or a registry
/// hive (`HKLM\`).
fn root_at(b: &[u8], k: usize) -> Option<(usize, usize)> {
    let clean_before =
        |s: usize| s == 0 || !(word_before(b, s) || matches!(b[s - 1], b'\\' | b'/' | b'.' | b':'));
    if b[k] == b':' {
        // A drive letter: `C:\` or `C:/` (forward slashes only with a capital letter).
        let letter = *b.get(k.checked_sub(1)?)?;
        let sep = *b.get(k + 1)?;
        let ok = letter.is_ascii_alphabetic()
            && clean_before(k - 1)
            && (sep == b'\\' || (sep == b'/' && letter.is_ascii_uppercase() && b.get(k + 2) != Some(&b'/')));
        return ok.then_some((k - 1, k + 1));
    }
    // b[k] is a backslash.
    if b.get(k + 1) == Some(&b'\\') && clean_before(k) {
        return Some((k, k + 1));
    }
    match k.checked_sub(1).map(|p| b[p]) {
        Some(b'.') => {
            let s = if k >= 2 && b[k - 2] == b'.' { k - 2 } else { k - 1 };
            clean_before(s).then_some((s, k))
        }
        Some(b'%') => {
            let open = b[..k - 1].iter().rposition(|&c| c == b'%')?;
            let name = &b[open + 1..k - 1];
            let ok = !name.is_empty()
                && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
                && clean_before(open);
            ok.then_some((open, k))
        }
        // A registry hive: `HKEY_LOCAL_MACHINE\SOFTWARE`, `HKLM\SOFTWARE`.
        Some(c) if c.is_ascii_uppercase() => {
            let s = k - b[..k]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_uppercase() || **c == b'_')
                .count();
            let hive = &b[s..k];
            let ok = (hive.starts_with(b"HKEY_")
                || matches!(hive, b"HKLM" | b"HKCU" | b"HKCR" | b"HKU" | b"HKCC"))
                && clean_before(s);
            ok.then_some((s, k))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::of;
    use crate::ids::IdKind;

    #[test]
    fn windows_paths() {
        assert_eq!(
            of(
                IdKind::Path,
                r"unlink 'C:\Users\alice\src\shop\node_modules\.cache\x.exe' and D:\staging, \\fileserver01\deploy\releases\2024.05 or C:/Users/bob/notes.txt"
            ),
            [
                r"C:\Users\alice\src\shop\node_modules\.cache\x.exe",
                r"D:\staging",
                r"\\fileserver01\deploy\releases\2024.05",
                "C:/Users/bob/notes.txt"
            ]
        );
        assert_eq!(
            of(
                IdKind::Path,
                r#"into "C:\Program Files\Git" and add C:\Program Files\Git\cmd to PATH; %USERPROFILE%\.ssh\id_ed25519 .\.venv\Scripts\Activate.ps1 C:\Program Files (x86)\App\"#
            ),
            [
                r"C:\Program Files\Git",
                r"C:\Program Files\Git\cmd",
                r"%USERPROFILE%\.ssh\id_ed25519",
                r".\.venv\Scripts\Activate.ps1",
                r"C:\Program Files (x86)\App\"
            ]
        );
        assert_eq!(
            of(IdKind::Path, r"C:\\Users\\alice\\x.json"),
            [r"C:\\Users\\alice\\x.json"]
        );
        assert_eq!(
            of(
                IdKind::Path,
                r"under HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Run and HKCU\Software\Acme."
            ),
            [
                r"HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Run",
                r"HKCU\Software\Acme"
            ]
        );
        // Escapes in JSON text, a drive root alone, a word before the drive.
        assert!(of(
            IdKind::Path,
            r"as f:\n    pass e:\\n A:\n C:\ XC:\Users a\b\c ok).\nIf so. (.\n\n#"
        )
        .is_empty());
    }
}
