//! `make bench-print`: ns per value of pp_value for every float format on
//! random finite values, beside ryu, dragonbox and zmij (float64, float32) on
//! the same values in the same run. Prints a markdown table.

use nx_dtype::format::{F32, F64};
use nx_dtype::print::{format_elem, placed_of_bits, FORMAT_MAX};
use nx_dtype::table::Dtype;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 1 << 16;
const ROUNDS: usize = 8;
/// Each comparison runs PASSES times in turn (ours, then each crate), and
/// every column keeps its best round: a slow spell of the shared machine
/// then hits every column alike instead of one.
const PASSES: usize = 5;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
}

/// Best of several rounds, ns per value.
fn time<T: Copy>(vals: &[T], mut f: impl FnMut(T) -> usize) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let mut sum = 0usize;
        for &v in vals {
            sum = sum.wrapping_add(f(black_box(v)));
        }
        black_box(sum);
        best = best.min(t.elapsed().as_nanos() as f64 / vals.len() as f64);
    }
    best
}

/// Random finite, non-NaN element bits of a float dtype.
fn random_bits(dt: Dtype, rng: &mut Rng) -> Vec<u128> {
    let fmt = dt.float_format().unwrap();
    let mask = if fmt.bits() == 64 {
        u64::MAX
    } else {
        (1u64 << fmt.bits()) - 1
    };
    let mut v = Vec::with_capacity(N);
    while v.len() < N {
        let b = rng.next() & mask;
        if !fmt.is_nan(b) && !fmt.is_infinite(b) {
            v.push(b as u128);
        }
    }
    v
}

fn main() {
    let mut rng = Rng(0x243F6A8885A308D3);
    let mut out = [0u8; FORMAT_MAX];
    println!("### Printing (pp_value): `make bench-print`");
    println!();
    println!("| format | nx_dtype text | nx_dtype digits only | ryu | dragonbox | zmij |");
    println!("|---|---:|---:|---:|---:|---:|");
    for code in 0..=6 {
        let dt = Dtype::from_code(code).unwrap();
        let bits = random_bits(dt, &mut rng);
        // The engine alone, never remembered: what a first print costs,
        // less the layout.
        let fmt = dt.float_format().unwrap();
        let mags: Vec<u64> = bits
            .iter()
            .map(|&b| b as u64 & fmt.magnitude_mask())
            .filter(|&m| m != 0)
            .collect();
        let xs: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b as u64)).collect();
        let xs32: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b as u32)).collect();
        let (mut rb, mut db, mut zb) = (
            ryu::Buffer::new(),
            dragonbox::Buffer::new(),
            zmij::Buffer::new(),
        );
        // ours, engine, ryu, dragonbox, zmij
        let mut best = [f64::INFINITY; 5];
        for _ in 0..PASSES {
            let mut keep = |j: usize, t: f64| best[j] = best[j].min(t);
            keep(0, time(&bits, |b| format_elem(dt, b, &mut out)));
            // float64 and float32 with their format a constant, as in the text.
            keep(
                1,
                match code {
                    0 => time(&mags, |m| placed_of_bits(F64, m).scaled as usize),
                    1 => time(&mags, |m| placed_of_bits(F32, m).scaled as usize),
                    _ => time(&mags, |m| placed_of_bits(fmt, m).scaled as usize),
                },
            );
            if code == 0 {
                keep(2, time(&xs, |x| rb.format_finite(x).len()));
                keep(3, time(&xs, |x| db.format_finite(x).len()));
                keep(4, time(&xs, |x| zb.format_finite(x).len()));
            } else if code == 1 {
                keep(2, time(&xs32, |x| rb.format_finite(x).len()));
                keep(4, time(&xs32, |x| zb.format_finite(x).len()));
            }
        }
        let show = |t: f64| {
            if t.is_finite() {
                format!("{t:.1}")
            } else if code == 1 {
                "n/a".into()
            } else {
                String::new()
            }
        };
        println!(
            "| {} | {:.1} | {:.1} | {} | {} | {} |",
            dt.name(),
            best[0],
            best[1],
            show(best[2]),
            show(best[3]),
            show(best[4])
        );
    }
    // Everyday magnitudes: random significands, binary exponents uniform
    // over -33..=33 (about 1e-10 to 1e10), so that every text shape (0.000ddd,
    // ddd.ddd, integers, d.ddde-XX) turns up, mixed.
    println!();
    println!("| everyday magnitudes (2^-33 to 2^33) | nx_dtype text | ryu | zmij |");
    println!("|---|---:|---:|---:|");
    for code in 0..=1 {
        let dt = Dtype::from_code(code).unwrap();
        let fmt = dt.float_format().unwrap();
        let f = fmt.fraction_bits;
        let bits: Vec<u128> = (0..N)
            .map(|_| {
                let r = rng.next();
                let exp = (fmt.bias as u64 - 33) + (r >> 40) % 67;
                ((r & fmt.fraction_mask()) | exp << f | (r >> 63) << (fmt.bits() - 1)) as u128
            })
            .collect();
        let xs: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b as u64)).collect();
        let xs32: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b as u32)).collect();
        let (mut rb, mut zb) = (ryu::Buffer::new(), zmij::Buffer::new());
        let (mut ours, mut r, mut z) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
        for _ in 0..PASSES {
            ours = ours.min(time(&bits, |b| format_elem(dt, b, &mut out)));
            if code == 0 {
                r = r.min(time(&xs, |x| rb.format_finite(x).len()));
                z = z.min(time(&xs, |x| zb.format_finite(x).len()));
            } else {
                r = r.min(time(&xs32, |x| rb.format_finite(x).len()));
                z = z.min(time(&xs32, |x| zb.format_finite(x).len()));
            }
        }
        println!("| {} | {ours:.1} | {r:.1} | {z:.1} |", dt.name());
    }
    println!();
    println!("ns per value, best of {} rounds ({PASSES} passes of {ROUNDS}, the columns in turn) over {N} random finite values (random bit patterns);", PASSES * ROUNDS);
    println!("nx_dtype text is `print::format_elem` (digits and layout, into a 64-byte buffer;");
    println!("the formats of at most 16 bits copy the text remembered from the first print);");
    println!("digits only is `print::placed_of_bits`, the engine without layout or memo.");
}
