//! The character classes the two pre-tokenizer patterns tell apart.
//!
//! `o200k_base` splits upper-case runs from lower-case ones and counts marks as both;
//! `cl100k_base` only knows letters, numbers, whitespace and the rest. Seven classes
//! cover both. The table behind [`class_of`] is generated from the same Unicode data
//! the reference tokenizer's regex engine uses (`regex-syntax`), and a test checks every
//! code point against that engine, so an upgrade of either side cannot drift silently.

use super::unicode_table::{BLOCKS, BLOCK_INDEX};

/// Anything else: punctuation, symbols, controls, unassigned.
pub const OTHER: u8 = 0;
/// `\p{Lu}` or `\p{Lt}`.
pub const UPPER: u8 = 1;
/// `\p{Ll}`.
pub const LOWER: u8 = 2;
/// `\p{Lm}` or `\p{Lo}` (CJK, Thai, Arabic letters, ...).
pub const LETTER_OTHER: u8 = 3;
/// `\p{M}`: combining marks.
pub const MARK: u8 = 4;
/// `\p{N}`.
pub const NUMBER: u8 = 5;
/// `\s`: Unicode `White_Space`.
pub const SPACE: u8 = 6;

/// The set of classes as a bit mask, for membership tests.
#[inline(always)]
pub const fn bit(class: u8) -> u8 {
    1 << class
}

/// `\p{L}`.
pub const LETTER: u8 = bit(UPPER) | bit(LOWER) | bit(LETTER_OTHER);

/// The classes of ASCII bytes (the first 128 entries of block 0).
pub static BLOCKS_ASCII: &[u8] = {
    let (ascii, _) = BLOCKS.split_at(128);
    ascii
};

/// The class of a code point.
#[inline(always)]
pub fn class_of(c: u32) -> u8 {
    let block = BLOCK_INDEX[(c >> 8) as usize] as usize;
    BLOCKS[block << 8 | (c & 0xFF) as usize]
}

/// The class and UTF-8 length of the character starting at `s[i]`.
///
/// `s` must be valid UTF-8 and `i` a character boundary (the splitters only ever
/// advance by whole characters of a `&str`).
#[inline(always)]
pub fn class_at(s: &[u8], i: usize) -> (u8, usize) {
    let b0 = s[i];
    if b0 < 0x80 {
        return (BLOCKS[b0 as usize], 1);
    }
    let cont = |k: usize| (s[i + k] & 0x3F) as u32;
    if b0 < 0xE0 {
        (class_of(((b0 & 0x1F) as u32) << 6 | cont(1)), 2)
    } else if b0 < 0xF0 {
        (class_of(((b0 & 0x0F) as u32) << 12 | cont(1) << 6 | cont(2)), 3)
    } else {
        (
            class_of(((b0 & 0x07) as u32) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3)),
            4,
        )
    }
}
