//! One term's postings: the messages it occurs in and how often, appended in order of the
//! message's index and stored as varints (the gap from the previous message, then the
//! count), so a common word costs about two bytes a message.

/// A term's postings.
#[derive(Clone, Debug, Default)]
pub struct Postings {
    bytes: Vec<u8>,
    /// The last message added, plus one (0: none yet).
    last: u32,
    /// How many messages hold the term.
    docs: u32,
}

impl Postings {
    /// Adds message `doc` (after every message added so far) with `tf` occurrences.
    pub fn push(&mut self, doc: u32, tf: u32) {
        debug_assert!(doc + 1 > self.last);
        put(&mut self.bytes, doc + 1 - self.last);
        put(&mut self.bytes, tf);
        self.last = doc + 1;
        self.docs += 1;
    }

    /// Messages holding the term.
    pub fn docs(&self) -> u32 {
        self.docs
    }

    /// Whether no message holds it.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// `(message, occurrences)`, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut at = 0;
        let mut doc = 0u32;
        std::iter::from_fn(move || {
            if at >= self.bytes.len() {
                return None;
            }
            doc += get(&self.bytes, &mut at);
            let tf = get(&self.bytes, &mut at);
            Some((doc - 1, tf))
        })
    }

    /// Keeps the messages before `len`.
    pub fn truncate(&mut self, len: u32) {
        if self.last <= len {
            return;
        }
        let mut kept = Postings::default();
        for (doc, tf) in self.iter().take_while(|&(d, _)| d < len) {
            kept.push(doc, tf);
        }
        kept.bytes.shrink_to_fit();
        *self = kept;
    }

    /// Bytes held on the heap.
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
    fn round_trips_and_truncates() {
        let mut p = Postings::default();
        let rows = [(0, 1), (3, 200), (300, 2), (70_000, 1)];
        for (d, tf) in rows {
            p.push(d, tf);
        }
        assert_eq!(p.iter().collect::<Vec<_>>(), rows);
        assert_eq!(p.docs(), 4);
        p.truncate(300);
        assert_eq!(p.iter().collect::<Vec<_>>(), [(0, 1), (3, 200)]);
        p.push(5, 7);
        assert_eq!(p.iter().last(), Some((5, 7)));
        p.truncate(0);
        assert!(p.is_empty());
    }

    #[test]
    fn small_gaps_take_two_bytes() {
        let mut p = Postings::default();
        for d in 0..100 {
            p.push(d, 1);
        }
        assert_eq!(p.bytes.len(), 200);
    }
}
