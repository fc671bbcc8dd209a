//! Paths: absolute, `./` and `../` paths of two or more components, `~/` paths of one or
//! more, relative `dir/file.ext` paths, and paths under a hidden directory
//! (`.venv/bin/activate`). Windows paths have their own module; `$HOME/...` is found with
//! the environment variables.

use super::text::{boundary, char_at, char_before, char_len, find, is_word, run, word_at};
use super::{IdKind, Span};

// path:
//   (?<![\w/.:-])(?:~|\.{1,2})?(?:/[\w.+@-]+){2,}/?           absolute, ~/ and ./
// | \b[\w.+@-]+(?:/[\w.+@-]+)+\.[A-Za-z][A-Za-z0-9]{0,5}\b     relative dir/file.ext

#[inline]
pub(super) fn seg_at(b: &[u8], i: usize) -> bool {
    matches!(b.get(i), Some(b'.' | b'+' | b'@' | b'-')) || word_at(b, i)
}

/// The end of the run of `[\w.+@-]` from `i`.
pub(super) fn seg_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'@' | b'-') => i += 1,
            c if c < 0x80 => break,
            _ => match char_at(b, i) {
                Some(ch) if is_word(ch) => i += ch.len_utf8(),
                _ => break,
            },
        }
    }
    i
}

/// What the relative alternative knows about one chain of `seg(/seg)*` (computed once
/// per chain, so a long chain with many word boundaries is not rescanned from each).
struct Chain {
    start: usize,
    end: usize,
    /// The last `.ext` that can end a match: (position of the dot, end of the
    /// extension, last `/` before the dot).
    best: Option<(usize, usize, usize)>,
}

fn chain_from(b: &[u8], i: usize) -> Chain {
    let mut slashes = Vec::new();
    let mut j = seg_end(b, i);
    while b.get(j) == Some(&b'/') && seg_at(b, j + 1) {
        slashes.push(j);
        j = seg_end(b, j + 1);
    }
    let end = j;
    let mut best = None;
    if let Some(&first_slash) = slashes.first() {
        // Backtracking gives the regex the last dot that is followed by a valid
        // extension; it needs a `/` between the start and the dot.
        let mut p = end;
        while p > first_slash + 1 {
            p -= 1;
            if b[p] != b'.' || !b[p + 1..end].first().is_some_and(u8::is_ascii_alphabetic) {
                continue;
            }
            let ext_end = run(b, p + 1, |c| c.is_ascii_alphanumeric());
            if ext_end - (p + 1) <= 6 && !word_at(b, ext_end) && b[p - 1] != b'/' {
                let slash = *slashes.iter().rev().find(|&&s| s < p).unwrap_or(&first_slash);
                best = Some((p, ext_end, slash));
                break;
            }
        }
    }
    Chain { start: i, end, best }
}

pub(super) fn scan_path(b: &[u8], out: &mut Vec<Span>) {
    let mut chain = Chain {
        start: 0,
        end: 0,
        best: None,
    };
    let mut i = 0;
    let mut run_end = 0;
    while i < b.len() {
        // Every match lies in a run of [\w.+@-/~] holding a `/`: go to the next `/`,
        // back to the start of its run, and try the starts of that run.
        if i >= run_end {
            let Some(slash) = find(b, i, b'/') else {
                break;
            };
            let mut s = slash;
            while s > i {
                match char_before(b, s) {
                    Some(c) if is_word(c) || matches!(c, '.' | '+' | '@' | '-' | '/' | '~') => {
                        s -= c.len_utf8()
                    }
                    _ => break,
                }
            }
            let mut j = slash;
            while j < b.len() && (seg_at(b, j) || matches!(b[j], b'/' | b'~')) {
                j += char_len(b, j);
            }
            i = s;
            run_end = j;
        }
        if let Some(e) = absolute_path_at(b, i).or_else(|| dot_dir_path_at(b, i)) {
            out.push((i, e, IdKind::Path));
            i = e;
            continue;
        }
        if seg_at(b, i) && boundary(b, i) {
            if !(chain.start..chain.end).contains(&i) {
                chain = chain_from(b, i);
            }
            if let Some((p, ext_end, slash)) = chain.best {
                if i < slash && slash < p {
                    out.push((i, ext_end, IdKind::Path));
                    i = ext_end;
                    continue;
                }
            }
        }
        i += char_len(b, i);
    }
}

fn absolute_path_at(b: &[u8], i: usize) -> Option<usize> {
    if !matches!(b[i], b'~' | b'.' | b'/') {
        return None;
    }
    if let Some(c) = char_before(b, i) {
        if is_word(c) || matches!(c, '/' | '.' | ':' | '-') {
            return None;
        }
    }
    let prefixes: &[usize] = match b[i] {
        b'~' => &[1, 0],
        b'.' if b.get(i + 1) == Some(&b'.') => &[2, 1, 0],
        b'.' => &[1, 0],
        _ => &[0],
    };
    for &p in prefixes {
        let mut j = i + p;
        let mut segments = 0;
        while b.get(j) == Some(&b'/') && seg_at(b, j + 1) {
            j = seg_end(b, j + 1);
            segments += 1;
        }
        // `~/.bashrc`: one component is enough after `~`.
        if segments >= 2 || (segments == 1 && b[i] == b'~' && p == 1) {
            return Some(if b.get(j) == Some(&b'/') { j + 1 } else { j });
        }
    }
    None
}

/// `.venv/bin/activate`, `.github/workflows`: a hidden directory and one component or
/// more, which needs no extension to be a path.
fn dot_dir_path_at(b: &[u8], i: usize) -> Option<usize> {
    if b[i] != b'.' || !b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    if let Some(c) = char_before(b, i) {
        if is_word(c) || matches!(c, '/' | '.' | ':' | '-' | '~' | '\\') {
            return None;
        }
    }
    let mut j = seg_end(b, i + 1);
    let mut segments = 0;
    while b.get(j) == Some(&b'/') && seg_at(b, j + 1) {
        j = seg_end(b, j + 1);
        segments += 1;
    }
    (segments >= 1).then(|| if b.get(j) == Some(&b'/') { j + 1 } else { j })
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::of;
    use crate::ids::IdKind;

    #[test]
    fn paths() {
        assert_eq!(
            of(
                IdKind::Path,
                "/testbed/django/db/models/base.py ~/x/y ./a/b ../c/d src/_pytest/main.py /dev/null."
            ),
            [
                "/testbed/django/db/models/base.py",
                "~/x/y",
                "./a/b",
                "../c/d",
                "src/_pytest/main.py",
                "/dev/null"
            ]
        );
        // One component; a relative path without an extension; a fraction.
        assert!(of(IdKind::Path, "/usr a/b 1/2 and/or").is_empty());
        // Backtracking finds the last extension: `a/b.tar.gz`, and `x/y.py` before a `/`.
        assert_eq!(of(IdKind::Path, "a/b.tar.gz"), ["a/b.tar.gz"]);
        assert_eq!(of(IdKind::Path, "x/y.py/zz"), ["x/y.py"]);
        // Trailing slash kept, sentence dot dropped.
        assert_eq!(of(IdKind::Path, "in /tmp/build/. Then"), ["/tmp/build/"]);
    }
}
