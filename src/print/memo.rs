//! The texts of the float formats of at most 16 bits, remembered per
//! element once computed, so that printing them again is a copy. An entry is
//! the text's 16 bytes as two words, its length in the top byte (0: not yet
//! computed). Threads that race on an entry store the same bits; the length
//! word is stored last (release) and loaded first (acquire), so a reader
//! that sees it sees a whole text. The tables are zero statics (bss): 1 MiB
//! for each 16-bit format, 4 KiB for each 8-bit one, touched as used.

use super::FORMAT_MAX;
use crate::format::{Format, BF16, E2M1FN, E4M3FN, E5M2, F16};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

type Slot = [AtomicU64; 2];

static MEMO_F16: [Slot; 1 << 16] = [const { [const { AtomicU64::new(0) }; 2] }; 1 << 16];
static MEMO_BF16: [Slot; 1 << 16] = [const { [const { AtomicU64::new(0) }; 2] }; 1 << 16];
static MEMO_E4M3FN: [Slot; 1 << 8] = [const { [const { AtomicU64::new(0) }; 2] }; 1 << 8];
static MEMO_E5M2: [Slot; 1 << 8] = [const { [const { AtomicU64::new(0) }; 2] }; 1 << 8];
static MEMO_E2M1FN: [Slot; 1 << 4] = [const { [const { AtomicU64::new(0) }; 2] }; 1 << 4];

/// The table of a format, if it has one.
#[inline(always)]
pub fn table(fmt: Format) -> Option<&'static [Slot]> {
    if fmt == F16 {
        Some(&MEMO_F16)
    } else if fmt == BF16 {
        Some(&MEMO_BF16)
    } else if fmt == E4M3FN {
        Some(&MEMO_E4M3FN)
    } else if fmt == E5M2 {
        Some(&MEMO_E5M2)
    } else if fmt == E2M1FN {
        Some(&MEMO_E2M1FN)
    } else {
        None
    }
}

/// The text of element `bits` into `out`, from `table` or else from
/// `compute` (then remembered); returns its length.
#[inline(always)]
pub fn text(
    table: &[Slot],
    bits: u64,
    out: &mut [u8; FORMAT_MAX],
    compute: impl FnOnce(&mut [u8; FORMAT_MAX]) -> usize,
) -> usize {
    let Some([lo_word, hi_word]) = table.get(bits as usize) else {
        return compute(out);
    };
    let hi = hi_word.load(Acquire);
    if let Some(dst) = out.first_chunk_mut::<16>() {
        if hi != 0 {
            let lo = lo_word.load(Relaxed);
            let (a, b) = dst.split_at_mut(8);
            a.copy_from_slice(&lo.to_le_bytes());
            b.copy_from_slice(&hi.to_le_bytes());
            return (hi >> 56) as usize;
        }
    }
    let len = compute(out);
    if let Some(text) = out.first_chunk::<16>() {
        if len < 16 {
            let mut entry = *text;
            entry[15] = len as u8;
            let (a, b) = entry.split_at(8);
            let word = |s: &[u8]| u64::from_le_bytes(s.try_into().unwrap_or([0; 8]));
            lo_word.store(word(a), Relaxed);
            hi_word.store(word(b), Release);
        }
    }
    len
}
