//! Helpers shared by the integration tests (each test file is its own
//! crate and uses a part of them).
#![allow(dead_code)]

use nx_dtype::table::Dtype;

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The dtype of an ABI code.
pub fn dt(code: i32) -> Dtype {
    Dtype::from_code(code).expect("dtype code")
}
