//! Byte-pair merging of one piece: the same merges, in the same order, as tiktoken.
//!
//! Repeatedly merge the adjacent pair whose concatenation has the lowest rank, the
//! leftmost one on a tie, until no pair is a token. Pieces under 100 bytes (nearly all)
//! use a flat array on the stack; longer ones a heap, as tiktoken does from the same size.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::vocab::Vocab;

const NONE: u32 = u32::MAX;
/// tiktoken switches to its heap-based merge from this piece length on.
const LARGE: usize = 100;

/// Merges `piece` (at least two bytes) and calls `emit` with the byte range of each token.
#[inline]
pub fn merge(vocab: &Vocab, piece: &[u8], emit: impl FnMut(usize, usize)) {
    if piece.len() < LARGE {
        merge_small(vocab, piece, emit)
    } else {
        merge_large(vocab, piece, emit)
    }
}

/// The number of tokens `piece` (at least two bytes) merges into.
#[inline]
pub fn merge_count(vocab: &Vocab, piece: &[u8]) -> usize {
    let mut n = 0;
    merge(vocab, piece, |_, _| n += 1);
    n
}

fn merge_small(vocab: &Vocab, piece: &[u8], mut emit: impl FnMut(usize, usize)) {
    // parts[i] = (start of part i, rank of part i merged with part i + 1)
    let mut parts = [(0u32, NONE); LARGE + 1];
    let n = piece.len();
    let rank = |a: usize, b: usize| vocab.rank(&piece[a..b]).unwrap_or(NONE);
    for (i, part) in parts.iter_mut().enumerate().take(n) {
        *part = (i as u32, if i + 1 < n { rank(i, i + 2) } else { NONE });
    }
    parts[n] = (n as u32, NONE);
    let mut len = n + 1;
    loop {
        let mut min = (NONE, 0);
        for (i, &(_, r)) in parts[..len - 1].iter().enumerate() {
            if r < min.0 {
                min = (r, i);
            }
        }
        if min.0 == NONE {
            break;
        }
        let i = min.1;
        // Part i absorbs part i + 1; the pairs that start at i - 1 and i change.
        let pair_rank = |parts: &[(u32, u32)], k: usize| {
            if k + 3 < len {
                rank(parts[k].0 as usize, parts[k + 3].0 as usize)
            } else {
                NONE
            }
        };
        if i > 0 {
            parts[i - 1].1 = pair_rank(&parts, i - 1);
        }
        parts[i].1 = pair_rank(&parts, i);
        parts.copy_within(i + 2..len, i + 1);
        len -= 1;
    }
    for w in parts[..len].windows(2) {
        emit(w[0].0 as usize, w[1].0 as usize);
    }
}

/// The heap version: each part knows its end and its left neighbour; a merge candidate is
/// `(rank, start)`, smallest first, and stale candidates are skipped when popped.
fn merge_large(vocab: &Vocab, piece: &[u8], mut emit: impl FnMut(usize, usize)) {
    let n = piece.len();
    // For the part starting at byte i: end[i], prev[i] (start of the part before), and the
    // rank of merging it with the next part (NONE if none or stale).
    let mut end: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut next_rank = vec![NONE; n];
    let mut heap = BinaryHeap::with_capacity(n);
    for i in 0..n - 1 {
        if let Some(r) = vocab.rank(&piece[i..i + 2]) {
            next_rank[i] = r;
            heap.push(Reverse((r, i)));
        }
    }
    while let Some(Reverse((r, start))) = heap.pop() {
        if next_rank[start] != r {
            continue;
        }
        let right = end[start];
        let right_end = end[right];
        end[start] = right_end;
        next_rank[right] = NONE;
        if right_end < n {
            prev[right_end] = start;
        }
        // New candidates: this part with the next one, and the previous part with this one.
        let mut candidate = |s: usize, e: usize, next_rank: &mut [u32]| {
            next_rank[s] = NONE;
            if e <= n {
                if let Some(r) = vocab.rank(&piece[s..e]) {
                    next_rank[s] = r;
                    heap.push(Reverse((r, s)));
                }
            }
        };
        if right_end < n {
            candidate(start, end[right_end], &mut next_rank);
        } else {
            next_rank[start] = NONE;
        }
        if start > 0 {
            candidate(prev[start], right_end, &mut next_rank);
        }
    }
    let mut i = 0;
    while i < n {
        emit(i, end[i]);
        i = end[i];
    }
}
