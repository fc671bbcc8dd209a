//! Every term's postings in one byte arena, in the order messages were added: an entry is
//! one term's occurrences in one message, written as varints, and points back to the term's
//! previous entry, so a term's postings are a chain read newest first from its last entry.
//! The message an entry belongs to is where it lies (the index keeps each message's first
//! byte), so it is not written. An entry is `back * 2 + (tf > 1)` (`back`: bytes back to the
//! previous entry, 0 for none), then `tf` when it is more than one: a word said once in a
//! message costs one or two bytes, and no term owns an allocation of its own.

/// The arena.
#[derive(Clone, Debug, Default)]
pub struct Arena {
    bytes: Vec<u8>,
}

impl Arena {
    /// Bytes written.
    pub fn len(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// Writes an entry of `tf` occurrences after the term's entry at `prev` (`None`: its
    /// first); where it is.
    pub fn push(&mut self, prev: Option<u32>, tf: u32) -> u32 {
        let at = self.len();
        self.reserve();
        let back = prev.map_or(0, |p| at - p);
        put(&mut self.bytes, back << 1 | u32::from(tf > 1));
        if tf > 1 {
            put(&mut self.bytes, tf);
        }
        at
    }

    /// Writes the next message's length in words, before its entries; where it is.
    pub fn push_words(&mut self, words: u32) -> u32 {
        let at = self.len();
        self.reserve();
        put(&mut self.bytes, words);
        at
    }

    /// The length written at `at` by [`Arena::push_words`].
    pub fn words(&self, at: u32) -> u32 {
        get(&self.bytes, &mut (at as usize))
    }

    fn reserve(&mut self) {
        if self.bytes.capacity() - self.bytes.len() < 10 {
            // Grow by a quarter, not double: the slack is memory held for the whole session.
            self.bytes.reserve_exact(self.bytes.len() / 4 + 64);
        }
    }

    /// The entry at `at`: the term's previous entry and the occurrences.
    pub fn entry(&self, at: u32) -> (Option<u32>, u32) {
        let mut i = at as usize;
        let head = get(&self.bytes, &mut i);
        let tf = if head & 1 == 1 {
            get(&self.bytes, &mut i)
        } else {
            1
        };
        let back = head >> 1;
        ((back > 0).then(|| at - back), tf)
    }

    /// The chain ending at `last`: `(entry, occurrences)`, newest first.
    pub fn chain(&self, last: Option<u32>) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut next = last;
        std::iter::from_fn(move || {
            let at = next?;
            let (prev, tf) = self.entry(at);
            next = prev;
            Some((at, tf))
        })
    }

    /// The first entry of the chain ending at `last` that lies before `len` (what is left
    /// of it when the arena is cut there).
    pub fn kept(&self, last: Option<u32>, len: u32) -> Option<u32> {
        self.chain(last).map(|(at, _)| at).find(|&at| at < len)
    }

    /// Keeps the first `len` bytes.
    pub fn truncate(&mut self, len: u32) {
        self.bytes.truncate(len as usize);
    }

    /// Bytes held on the heap, as allocated.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
    }
}

fn put(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get(bytes: &[u8], at: &mut usize) -> u32 {
    let mut v = 0u32;
    let mut shift = 0;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u32::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_read_newest_first_and_cut() {
        let mut a = Arena::default();
        let doc = a.push_words(70_000);
        let x0 = a.push(None, 1);
        let y0 = a.push(None, 300);
        let x1 = a.push(Some(x0), 2);
        let cut = a.len();
        let x2 = a.push(Some(x1), 1);
        assert_eq!(a.chain(Some(x2)).collect::<Vec<_>>(), [(x2, 1), (x1, 2), (x0, 1)]);
        assert_eq!(a.chain(Some(y0)).collect::<Vec<_>>(), [(y0, 300)]);
        assert_eq!(a.kept(Some(x2), cut), Some(x1));
        assert_eq!(a.words(doc), 70_000);
        a.truncate(cut);
        assert_eq!(a.kept(Some(x1), 0), None);
    }

    #[test]
    fn a_word_said_once_takes_one_byte() {
        let mut a = Arena::default();
        let mut prev = None;
        for _ in 0..100 {
            prev = Some(a.push(prev, 1));
        }
        assert_eq!(a.len(), 100);
        assert_eq!(a.chain(prev).count(), 100);
    }
}
