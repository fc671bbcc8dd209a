//! The ledger's line as it is written: its entries in the order they were placed, with the
//! paths of one directory written once, as the directory and their names in braces
//! (`src/app/{main.py,util.py}`, [the notation](crate::ids::group)), where the first of
//! them was placed.

use std::collections::HashMap;

use super::haystack::Haystack;
use crate::count::TextCounter;

/// One item of the line: a text, or paths of one directory.
enum Item {
    Text(String),
    Directory { dir: String, names: Vec<String> },
}

impl Item {
    fn render(&self) -> String {
        match self {
            Item::Text(t) => t.clone(),
            Item::Directory { dir, names } if names.len() == 1 => format!("{dir}{}", names[0]),
            Item::Directory { dir, names } => format!("{dir}{{{}}}", names.join(",")),
        }
    }
}

/// The line being written.
#[derive(Default)]
pub struct Listing {
    items: Vec<Item>,
    /// The item of each directory written as one.
    dirs: HashMap<String, usize>,
    /// Every identifier placed, written out whole: what the line stands for.
    plain: Haystack,
}

/// A path as its directory (with the separator) and its name, when it can be one of a
/// directory's names: `src/app/main.py` is `src/app/` and `main.py`. Not a path that ends
/// with a separator, nor one whose name has a brace, a comma or a space in it.
pub fn split_path(path: &str) -> Option<(&str, &str)> {
    let cut = path.rfind(['/', '\\'])? + 1;
    let (dir, name) = path.split_at(cut);
    let bad = |c: char| c.is_whitespace() || "{},()[]<>\"'`".contains(c);
    let fits = !name.is_empty()
        && !name.contains(bad)
        && dir.contains(|c: char| c != '/' && c != '\\')
        && !dir.contains(|c: char| c.is_whitespace() || c == '{' || c == '}');
    fits.then_some((dir, name))
}

impl Listing {
    /// What the line stands for: every identifier placed, written out whole, separated by
    /// commas (a path in a directory group as the whole path).
    pub fn plain(&self) -> &Haystack {
        &self.plain
    }

    /// Whether nothing was placed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Places `text` when what it adds to the line costs at most `room` tokens, and returns
    /// that cost. A path (`path`) joins the group of its directory when the line has one (or
    /// has a path in that directory, which becomes the group); anything else is a new item.
    pub fn place(&mut self, text: &str, path: bool, counter: &dyn TextCounter, room: usize) -> Option<usize> {
        let split = if path { split_path(text) } else { None };
        let joined = split.and_then(|(dir, name)| Some((*self.dirs.get(dir)?, name)));
        let cost = match joined {
            Some((k, name)) => match &self.items[k] {
                Item::Directory { dir, names } if names.len() == 1 => {
                    let now = counter.count(&self.items[k].render());
                    let both = format!("{dir}{{{},{name}}}", names[0]);
                    counter.count(&both).saturating_sub(now)
                }
                _ => counter.count(&format!(",{name}")),
            },
            None if self.items.is_empty() => counter.count(text),
            None => counter.count(&format!(", {text}")),
        };
        if cost > room {
            return None;
        }
        match (joined, split) {
            (Some((k, name)), _) => {
                if let Item::Directory { names, .. } = &mut self.items[k] {
                    names.push(name.to_owned());
                }
            }
            (None, Some((dir, name))) => {
                self.dirs.insert(dir.to_owned(), self.items.len());
                self.items.push(Item::Directory {
                    dir: dir.to_owned(),
                    names: vec![name.to_owned()],
                });
            }
            (None, None) => self.items.push(Item::Text(text.to_owned())),
        }
        if !self.plain.text().is_empty() {
            self.plain.push_str(", ");
        }
        self.plain.push_str(text);
        Some(cost)
    }

    /// The line.
    pub fn render(&self) -> String {
        self.items.iter().map(Item::render).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::{split_path, Listing};
    use crate::count::Bytes;
    use crate::ids::group;

    #[test]
    fn paths_of_one_directory_are_written_once_and_read_back_whole() {
        let mut l = Listing::default();
        for (text, path) in [
            ("src/app/main.py", true),
            ("PAY-4411", false),
            ("src/app/util.py", true),
            ("/srv/x.yaml", true),
            ("src/app/config/init.py", true),
            ("src/app/cli.py", true),
        ] {
            assert!(l.place(text, path, &Bytes, 400).is_some());
        }
        let line = l.render();
        assert_eq!(
            line,
            "src/app/{main.py,util.py,cli.py}, PAY-4411, /srv/x.yaml, src/app/config/init.py"
        );
        let members: Vec<String> = group::expand(&line).into_iter().flat_map(|w| w.members).collect();
        assert_eq!(members, ["src/app/main.py", "src/app/util.py", "src/app/cli.py"]);
        assert!(l.plain().mentions("src/app/cli.py") && l.plain().mentions("PAY-4411"));
        // The cost of each is what the line grows by.
        let mut l = Listing::default();
        assert_eq!(l.place("a/b.py", true, &Bytes, 400), Some(6));
        assert_eq!(
            l.place("a/c.py", true, &Bytes, 400),
            Some("a/{b.py,c.py}".len() - 6)
        );
        assert_eq!(l.place("a/d.py", true, &Bytes, 400), Some(",d.py".len()));
        assert_eq!(l.place("a/e.py", true, &Bytes, 4), None);
        assert_eq!(l.render(), "a/{b.py,c.py,d.py}");
    }

    #[test]
    fn only_a_named_path_in_a_named_directory_joins_a_group() {
        assert_eq!(split_path("./doc/en"), Some(("./doc/", "en")));
        assert_eq!(split_path("C:\\Users\\x"), Some(("C:\\Users\\", "x")));
        for no in ["./doc/en/", "/etc", "a/b c", "a/{1,2}.csv", "{x}/y", "plain"] {
            assert_eq!(split_path(no), None, "{no}");
        }
    }
}
