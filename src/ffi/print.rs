//! Printing at the C boundary (ABI.md, "Printing"; issue 3).
