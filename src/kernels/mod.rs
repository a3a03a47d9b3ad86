//! Bulk conversion kernels (issue 4): scalar reference, packing, x86 SIMD.
