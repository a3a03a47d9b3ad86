//! Bulk conversion at the C boundary (ABI.md, "Bulk conversion"; issue 4).
