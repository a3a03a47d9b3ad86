//! The driver: a call split into a head converted element by element until
//! both sides sit on whole bytes, a contiguous body handed to the kernel in
//! place (streamed past the caches when it is large), and for strided or
//! misaligned sides blocks gathered into and scattered from stack buffers
//! (no allocation). Architecture-neutral: what differs per architecture
//! comes through `Arch` (`super::Native`).

use super::plan::Span;
use super::{pack, Arch, Isa, Kernel, Native, Store};
use crate::codes::{Status, NX_OK};
use crate::value::convert;

/// Calls that move at least this many bytes (read + written) write with
/// non-temporal stores (`Store::Stream`), which skip reading each
/// destination line before writing it. What decides is whether source and
/// destination stay in the last-level cache until the next call
/// (BENCHMARKS.md, "Driver thresholds").
pub const STREAM_MIN: usize = 16 << 20;

/// The contiguous body: `n` elements from bit 0 of `src` into bit 0 of
/// `dst`, ending on a whole byte of the destination (see `SimdKernel`).
fn body_run(k: Kernel, sp: &Span, dp: &Span, src: &[u8], dst: &mut [u8], n: usize) {
    let (sb, db) = (sp.bits as usize, dp.bits as usize);
    let stream = matches!(k, Kernel::Simd(_)) && n.saturating_mul(sb + db) / 8 >= STREAM_MIN;
    // Streaming: the destination brought to a cache line, as non-temporal
    // stores want. Otherwise one side's pointer (numpy's arrays sit 16
    // bytes past one, so every vector load or store of a side left there
    // straddles two lines): the wider side's, or the destination's for
    // the narrowings to half the width that `aligns_destination` names.
    let long = n >= ALIGN_MIN || n.saturating_mul(db) / 8 >= ALIGN_DST_BYTES;
    let head = if !matches!(k, Kernel::Simd(_)) || !long {
        None
    } else {
        let dst_side = stream || db >= sb || k.aligns_destination(sb, db);
        let (w, addr) = if dst_side {
            (db, dst.as_ptr() as usize)
        } else {
            (sb, src.as_ptr() as usize)
        };
        let gap = addr.wrapping_neg() % 64 * 8; // bits
        let h = gap / w;
        // Whole elements of that side, whole bytes of both, within the
        // body (a 1-bit side's head can be 504 elements).
        (gap % w == 0 && h * sb % 8 == 0 && h * db % 8 == 0 && h <= n).then_some(h)
    };
    match head {
        Some(head) if stream => {
            streamed(k, src, dst, n, head, (sb, db), piece_of(sb));
            Native::stream_end();
        }
        // The head and the rest in one kernel call: one read of the
        // floating-point state (which waits for the work before it).
        _ => k.run_as(src, dst, n, head.unwrap_or(0), Store::Plain),
    }
}

/// Source bytes a piece of a streamed call (`streamed`).
const PIECE: usize = 1 << 20;

/// Pieces a streamed call needs before it tries the prefetch (`streamed`).
const TRIAL_MIN: usize = 10;

/// The prefetch distances a streamed call tries (bytes ahead of the
/// source's reads): no one distance wins for every loop (BENCHMARKS.md).
const AHEADS: [usize; 2] = [2048, 4096];

/// Elements a piece of a streamed call for a source of `sb` bits: about
/// `PIECE` bytes, a multiple of 512 elements, so that each piece starts on
/// whole bytes of both sides and on a cache line of the destination.
pub fn piece_of(sb: usize) -> usize {
    (PIECE * 8 / sb.max(1) / 512 * 512).max(512)
}

/// A streamed body (`body_run`: `n` elements, the first `head` bringing the
/// destination to a cache line, `bits` per element of each side) in pieces
/// of `m` elements (`piece_of`; the first also holds the head).
///
/// Whether software prefetch of the source pays depends on the host's
/// memory at the time (it helped on a day of slow memory and hurt on a
/// fast one: BENCHMARKS.md, "Driver thresholds"), so each call long enough
/// to tell measures it: a call of `TRIAL_MIN` pieces or more runs its first
/// piece without, times the next six (2 KiB ahead, none, 4 KiB, 4 KiB,
/// none, 2 KiB: mirror order, so that a drift in the host's rate falls on
/// all three alike), and runs the rest as the fastest pair did. The choice
/// changes no result, only which prefetches the kernels issue.
pub fn streamed(
    k: Kernel,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    bits: (usize, usize),
    m: usize,
) {
    let ((sb, db), m) = (bits, m.max(1));
    // The byte of element `i` (on a whole byte: the head, whole bytes of
    // both sides, plus a multiple of 512), without overflow.
    let at = |i: usize, w: usize| i / 8 * w + i % 8 * w / 8;
    // Piece j: elements from `start(j)` (0, then head + j m) to the next
    // piece's start or n.
    let start = |j: usize| {
        if j == 0 {
            0
        } else {
            head.saturating_add(j.saturating_mul(m))
        }
    };
    let pieces = n.saturating_sub(head).div_ceil(m).max(1);
    let mut run = |j: usize, store: Store| {
        let (from, to) = (start(j), start(j + 1).min(n));
        let t = Native::ticks();
        if let (Some(s), Some(d)) = (src.get(at(from, sb)..), dst.get_mut(at(from, db)..)) {
            k.run_as(
                s,
                d,
                to.saturating_sub(from),
                if j == 0 { head } else { 0 },
                store,
            );
        }
        Native::ticks().wrapping_sub(t)
    };
    let (mut j, mut store) = (0, Store::Stream);
    if pieces >= TRIAL_MIN {
        run(0, Store::Stream);
        let [near, far] = AHEADS.map(Store::Fetch);
        let [a, b, c, d, e, f] = [
            run(1, near),
            run(2, Store::Stream),
            run(3, far),
            run(4, far),
            run(5, Store::Stream),
            run(6, near),
        ];
        let time = [
            a.saturating_add(f),
            b.saturating_add(e),
            c.saturating_add(d),
        ];
        store = [near, Store::Stream, far]
            .into_iter()
            .zip(time)
            .min_by_key(|&(_, t)| t)
            .map_or(Store::Stream, |(s, _)| s);
        j = 7;
    }
    while j < pieces {
        run(j, store);
        j += 1;
    }
}

/// Bodies get a head that aligns them when at least `ALIGN_MIN` elements
/// long or when they write at least `ALIGN_DST_BYTES`: enough work to pay
/// for the head (a pass through the kernel's partial step). In L1 a vector
/// store straddling two lines runs at half the rate, and numpy's arrays sit
/// 16 bytes past a line (BENCHMARKS.md, "Driver thresholds").
pub const ALIGN_MIN: usize = 16384;
/// See `ALIGN_MIN`.
pub const ALIGN_DST_BYTES: usize = 16 << 10;

/// Bytes of a gathered block's buffer, each side's, for calls whose wider
/// side spans less than `BIG_CALL`: a call initialises the two, and a block
/// holds 1024 * 8 / (the wider side's bits) elements.
const BLOCK_BYTES: usize = 1024;

/// Bytes of a block's buffer for calls whose wider side spans `BIG_CALL`
/// or more: a kernel's narrow stores read back at once by wider loads wait
/// until those stores are written, which a larger block leaves time for.
const BIG_BLOCK_BYTES: usize = 8192;
/// See `BIG_BLOCK_BYTES`.
pub const BIG_CALL: usize = 16 << 10;

/// A block's buffer of `B` bytes, on a cache line: the kernels' vector
/// loads and stores of it then split no line, wherever the stack puts it.
#[repr(align(64))]
struct Block<const B: usize>([u8; B]);

impl<const B: usize> Default for Block<B> {
    fn default() -> Block<B> {
        Block([0; B])
    }
}

/// Convert `n` elements from `src` (the source span's bytes) into `dst` (the
/// destination span's bytes) with the kernel level `isa`, the caller's
/// status flags kept (`Arch::keep_flags`).
pub fn run(isa: Isa, sp: &Span, dp: &Span, src: &[u8], dst: &mut [u8], n: usize) -> Status {
    let mut status = NX_OK;
    Native::keep_flags(|| status = convert_all(isa, sp, dp, src, dst, n));
    status
}

fn convert_all(isa: Isa, sp: &Span, dp: &Span, src: &[u8], dst: &mut [u8], n: usize) -> Status {
    let (s, d) = (sp.dt, dp.dt);
    let k = Kernel::of(isa, s, d);
    let one = |dst: &mut [u8], i: usize| {
        let raw = pack::read(src, sp.bit(i), sp.bits);
        pack::write(dst, dp.bit(i), dp.bits, convert(s, d, raw));
    };
    let mut i = 0;
    if sp.contiguous() && dp.contiguous() {
        // Contiguous: convert a few elements alone until both sides sit on a
        // byte boundary, then hand the kernel the rest in place up to the
        // destination's last whole byte (a sub-byte source may end within
        // a byte: the kernels read it whole): all of it into whole-byte
        // elements; a bit destination's last 2 to 7 through a byte of
        // our own (`last_byte`); a single last element alone, below.
        while i < n.min(8) && !(sp.bit(i).is_multiple_of(8) && dp.bit(i).is_multiple_of(8)) {
            one(dst, i);
            i += 1;
        }
        if sp.bit(i).is_multiple_of(8) && dp.bit(i).is_multiple_of(8) {
            let unit = (8 / dp.bits).max(1) as usize;
            let body = (n - i) / unit * unit;
            let (sb, db) = (sp.bit(i) / 8, dp.bit(i) / 8);
            if let (Some(from), Some(to)) = (src.get(sb..), dst.get_mut(db..)) {
                body_run(k, sp, dp, from, to, body);
            }
            i += body;
            if n - i >= 2 && sp.bit(i).is_multiple_of(8) {
                last_byte(k, sp, dp, src, dst, i, n);
                return NX_OK;
            }
        }
    }
    // Strided between machine types: one pass, as numpy's loops go, for
    // the pairs the architecture names.
    if i == 0 && sp.bits.is_multiple_of(8) && dp.bits.is_multiple_of(8) {
        if let Some(f) = Native::strided(isa, s, d) {
            f(
                src,
                sp.bit(0) / 8,
                sp.step / 8,
                dst,
                dp.bit(0) / 8,
                dp.step / 8,
                n,
            );
            return NX_OK;
        }
    }
    // The rest, strided or misaligned: gather a block packed from bit 0,
    // convert it, scatter it. A single element alone: from two elements
    // up a block's set-up costs less than converting each by itself.
    if n - i >= 2 {
        let wide = (n - i).saturating_mul(sp.bits.max(dp.bits) as usize) / 8;
        if wide >= BIG_CALL {
            blocks::<BIG_BLOCK_BYTES>(isa, k, sp, dp, src, dst, i, n);
        } else {
            blocks::<BLOCK_BYTES>(isa, k, sp, dp, src, dst, i, n);
        }
    } else {
        for j in i..n {
            one(dst, j);
        }
    }
    NX_OK
}

/// The last `n - i` elements of a contiguous call into a sub-byte
/// destination, fewer than its byte holds, both sides on whole bytes at
/// `i`: the kernel converts them from the source in place into a byte of
/// its own, whose bits for them are written into the destination as one
/// element of that many bits (`pack::write`: the byte's other bits kept).
fn last_byte(k: Kernel, sp: &Span, dp: &Span, src: &[u8], dst: &mut [u8], i: usize, n: usize) {
    let bits = (n - i) * dp.bits as usize;
    let mut byte = [0u8];
    if let (Some(from), true) = (src.get(sp.bit(i) / 8..), bits < 8) {
        k.run(from, &mut byte, n - i);
        let [b] = byte;
        pack::write(dst, dp.bit(i), bits as u32, b.into());
    }
}

/// Elements `i .. i + m` of the source side `sp` packed into `out`: by
/// the architecture's gathers where they apply, the rest by `pack::gather`.
fn gather(isa: Isa, src: &[u8], sp: &Span, i: usize, out: &mut [u8], m: usize) {
    let done = if sp.bits.is_multiple_of(8) {
        let (at, step, w) = (sp.bit(i) / 8, sp.step / 8, sp.bits as usize / 8);
        Native::gather(isa, src, at, step, w, out, m)
    } else {
        0
    };
    let rest = out
        .get_mut(done * sp.bits as usize / 8..)
        .unwrap_or_default();
    pack::gather(src, sp.bit(i + done), sp.step, sp.bits, rest, m - done);
}

/// `m` elements packed in `from` into elements `i .. i + m` of the
/// destination side `dp`: by the architecture's scatters where they apply,
/// the rest by `pack::scatter`.
fn scatter(isa: Isa, from: &[u8], dst: &mut [u8], dp: &Span, i: usize, m: usize) {
    let done = if dp.bits.is_multiple_of(8) {
        let (at, w) = (dp.bit(i) / 8, dp.bits as usize / 8);
        Native::spread(isa, from, dst, at, dp.step / 8, w, m)
    } else {
        0
    };
    let rest = from.get(done * dp.bits as usize / 8..).unwrap_or_default();
    pack::scatter(rest, dst, dp.bit(i + done), dp.step, dp.bits, m - done);
}

/// Elements `i .. n` through stack blocks (kept out of `run`, so that a
/// contiguous call does not pay for initialising the buffers). A block's
/// elements of a contiguous side that span whole bytes are read or written
/// in place, not copied: a 4- or 1-bit side's too.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn blocks<const B: usize>(
    isa: Isa,
    k: Kernel,
    sp: &Span,
    dp: &Span,
    src: &[u8],
    dst: &mut [u8],
    mut i: usize,
    n: usize,
) {
    let (mut sbuf, mut dbuf) = (Block::<B>::default(), Block::<B>::default());
    let block = B * 8 / sp.bits.max(dp.bits) as usize;
    // Elements i .. i + m of a contiguous side in place: their bytes, when
    // whole (a sub-byte side's too: from a byte boundary, whole bytes).
    let in_place = |s: &Span, i: usize, m: usize| {
        let (at, len) = (s.bit(i), m * s.bits as usize);
        (s.contiguous() && at.is_multiple_of(8) && len.is_multiple_of(8))
            .then(|| at / 8..(at + len) / 8)
    };
    // The caller's floating-point state read once for all blocks.
    let mut each = |store: Store| {
        while i < n {
            let m = (n - i).min(block);
            let from = match in_place(sp, i, m) {
                Some(r) => src.get(r).unwrap_or_default(),
                None => {
                    gather(isa, src, sp, i, &mut sbuf.0, m);
                    &sbuf.0
                }
            };
            if let Some(r) = in_place(dp, i, m) {
                if let Some(to) = dst.get_mut(r) {
                    k.run_as(from, to, m, 0, store);
                }
            } else {
                k.run_as(from, &mut dbuf.0, m, 0, store);
                scatter(isa, &dbuf.0, dst, dp, i, m);
            }
            i += m;
        }
    };
    Native::hold(|state| each(Store::Held(state)));
}
